"""Slack workspace exports (the standard zip): `channels.json` (and
`groups.json`, `mpims.json`, `dms.json` when present), `users.json`, and one
folder per channel holding a JSON file of messages per day.

The archive is checked as a whole before anything is read (entry count,
declared sizes, ratios, overlapping entries, unsafe paths: ingest.extractors
.archive), then read one channel at a time, so memory follows the largest
channel, not the export. Files uploaded to Slack are attached to their
message's document when the export holds their bytes (exporters that include
files put them under `<channel>/attachments/` or `__uploads/<file id>/`).

Every failure of the whole export is an ExportError with a message for the
person who uploaded it; a part that cannot be read (a damaged day file, a
channel over the limit, a user id with no user) is a warning and the rest is
kept.
"""

from __future__ import annotations

import html
import json
import mimetypes
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any

from ingest.connectors.chat import ChatMessage, channel_items
from ingest.connectors.items import Item, ItemAttachment, Warning_
from ingest.errors import ExtractionError
from ingest.extractors.archive import ZipBudget, check_zip, read_member
from ingest.limits import Limits
from lib.exceptions import CodedError

__all__ = ["ExportError", "ExportLimits", "SlackExport", "read_slack_export"]

_DAY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.json$")
_USER = re.compile(r"<@([UW][A-Z0-9]+)(?:\|([^>]*))?>")
_CHANNEL = re.compile(r"<#([CG][A-Z0-9]+)(?:\|([^>]*))?>")
_LINK = re.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>")
_SPECIAL = re.compile(r"<!(here|channel|everyone)(?:\|[^>]*)?>")
# Notices that are not conversation.
_SKIPPED_SUBTYPES = frozenset(
    {"channel_join", "channel_leave", "group_join", "group_leave"}
)
# What a damaged export raises while its JSON is read: bad JSON or text, JSON
# nested too deep, a truncated or corrupt archive.
_DAMAGED = (
    ValueError,
    UnicodeDecodeError,
    RecursionError,
    zipfile.BadZipFile,
    EOFError,
)
_CHANNEL_LISTS = ("channels.json", "groups.json", "mpims.json", "dms.json")


class ExportError(CodedError):
    """The export as a whole cannot be read: `code` and a message for the user."""


@dataclass(frozen=True)
class ExportLimits:
    max_channel_messages: int = 100_000
    max_messages_per_document: int = 500
    max_message_chars: int = 40_000
    zip: Limits = field(
        default_factory=lambda: Limits(
            max_zip_total_bytes=2 * 1024**3,
            max_zip_entries=200_000,
            max_zip_depth=1,
        )
    )


@dataclass
class SlackExport:
    """What a sync needs beyond the items: which channels and time spans the
    export covers (an item of the source outside them is kept, not deleted:
    an export of other dates says nothing about it)."""

    workspace: str
    channels: dict[str, str]  # id -> name
    spans: dict[str, tuple[datetime, datetime]] = field(default_factory=dict)
    warnings: list[Warning_] = field(default_factory=list)
    total_messages: int = 0

    skipped: set[str] = field(default_factory=set)

    def covers(self, key: str) -> bool:
        """A thread or day of a channel the export lists (and read whole),
        from within the export's dates: its absence means it was deleted.
        Valid once the items have been read."""
        parts = key.split(":")
        if len(parts) < 4 or parts[1] not in self.channels or parts[1] in self.skipped:
            return False
        if not self.spans:
            return False
        first = min(span[0] for span in self.spans.values())
        last = max(span[1] for span in self.spans.values())
        when = _key_time(parts)
        return when is not None and first <= when <= last


def _key_time(parts: list[str]) -> datetime | None:
    try:
        if parts[2] == "t":
            return datetime.fromtimestamp(float(parts[3]), tz=UTC)
        if parts[2] == "d":
            return datetime.strptime(parts[3], "%Y-%m-%d").replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def read_slack_export(
    data: bytes, *, workspace: str, limits: ExportLimits | None = None
) -> tuple[SlackExport, Iterator[Item]]:
    """Check the archive and its lists; return the export's summary and an
    iterator over its items, channel by channel (the summary's spans and
    warnings fill in as the iterator runs)."""
    import io

    limits = limits or ExportLimits()
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ExportError(
            "corrupt",
            "This file is not a readable ZIP archive (a Slack export is one).",
        ) from exc
    budget = ZipBudget.from_limits(limits.zip)
    try:
        infos = check_zip(zf, limits.zip, budget, label="The export")
    except ExtractionError as exc:
        raise ExportError(exc.code, exc.message) from exc
    root = _root(infos)
    by_name = {i.filename.replace("\\", "/").removeprefix(root): i for i in infos}
    if not any(name in by_name for name in _CHANNEL_LISTS):
        raise ExportError(
            "not_slack_export",
            "This archive has no channels.json: it is not a Slack workspace export.",
        )

    def load(name: str) -> Any:
        raw = read_member(zf, by_name[name], limits.zip, budget, "The export")
        return json.loads(raw.decode("utf-8-sig"))

    try:
        users = _users(load("users.json")) if "users.json" in by_name else {}
        channels: list[dict[str, Any]] = []
        for name in _CHANNEL_LISTS:
            if name in by_name:
                listed = load(name)
                if not isinstance(listed, list):
                    raise ValueError(name)
                channels.extend(c for c in listed if isinstance(c, dict))
    except _DAMAGED as exc:
        raise ExportError(
            "corrupt",
            "The export's channel or user list is damaged (not valid JSON) or the archive is truncated.",
        ) from exc
    except ExtractionError as exc:
        raise ExportError(exc.code, exc.message) from exc
    export = SlackExport(
        workspace=workspace,
        channels={
            str(c.get("id") or c.get("name")): _channel_name(c) for c in channels
        },
    )
    folders: dict[str, list[tuple[str, zipfile.ZipInfo]]] = {}
    uploads: dict[str, zipfile.ZipInfo] = {}
    for name, info in by_name.items():
        path = PurePosixPath(name)
        if len(path.parts) == 2 and _DAY_FILE.match(path.name):
            folders.setdefault(path.parts[0], []).append((path.name[:10], info))
        elif len(path.parts) >= 3 and path.parts[0] == "__uploads":
            uploads[path.parts[1]] = info
        elif len(path.parts) == 3 and path.parts[1] == "attachments":
            # `<channel>/attachments/<file id>-<name>`
            uploads[path.name.split("-", 1)[0]] = info

    def items() -> Iterator[Item]:
        for channel in channels:
            channel_id = str(channel.get("id") or channel.get("name") or "")
            folder = _folder(channel)
            days = sorted(folders.get(folder, []))
            if not channel_id or not days:
                continue
            messages = _channel_messages(
                zf, budget, limits, export, users, uploads, channel_id, folder, days
            )
            if messages is None:
                export.skipped.add(channel_id)
                continue
            export.total_messages += len(messages)
            if messages:
                export.spans[channel_id] = (
                    datetime.strptime(days[0][0], "%Y-%m-%d").replace(tzinfo=UTC),
                    datetime.strptime(days[-1][0], "%Y-%m-%d").replace(
                        hour=23, minute=59, second=59, tzinfo=UTC
                    ),
                )
            yield from channel_items(
                kind="slack",
                workspace=workspace,
                channel_id=channel_id,
                channel_name=export.channels.get(channel_id, ""),
                messages=messages,
                max_messages=limits.max_messages_per_document,
            )

    return export, items()


def _root(infos: list[zipfile.ZipInfo]) -> str:
    """The folder the export sits in when a tool wrapped it in one ("" when
    channels.json is at the top)."""
    for info in infos:
        path = PurePosixPath(info.filename.replace("\\", "/"))
        if path.name in _CHANNEL_LISTS:
            return "" if len(path.parts) == 1 else f"{path.parts[0]}/"
    return ""


def _folder(channel: dict[str, Any]) -> str:
    # Channels and private groups are folders by name; DMs and group DMs by id.
    return str(channel.get("name") or channel.get("id") or "")


def _channel_name(channel: dict[str, Any]) -> str:
    return " ".join(str(channel.get("name") or channel.get("id") or "").split())[:200]


def _users(listed: Any) -> dict[str, str]:
    if not isinstance(listed, list):
        raise ValueError("users.json")
    users = {}
    for user in listed:
        if not isinstance(user, dict) or not user.get("id"):
            continue
        profile = user.get("profile")
        if not isinstance(profile, dict):
            profile = {}
        name = (
            profile.get("real_name")
            or user.get("real_name")
            or profile.get("display_name")
            or user.get("name")
            or user["id"]
        )
        users[str(user["id"])] = " ".join(str(name).split())[:200]
    return users


def _channel_messages(
    zf: zipfile.ZipFile,
    budget: ZipBudget,
    limits: ExportLimits,
    export: SlackExport,
    users: dict[str, str],
    uploads: dict[str, zipfile.ZipInfo],
    channel_id: str,
    folder: str,
    days: list[tuple[str, zipfile.ZipInfo]],
) -> list[ChatMessage] | None:
    """The channel's messages, or None (with a warning) when it is over the
    limit or has a damaged day file (a channel is read whole or not at all)."""
    label = f"#{export.channels.get(channel_id) or folder}"
    messages: list[ChatMessage] = []
    unknown: set[str] = set()
    for day, info in days:
        try:
            raw = read_member(zf, info, limits.zip, budget, "The export")
            listed = json.loads(raw.decode("utf-8-sig"))
            if not isinstance(listed, list):
                raise ValueError(day)
        except ExtractionError as exc:
            raise ExportError(exc.code, exc.message) from exc
        except (*_DAMAGED, OSError):
            export.warnings.append(
                Warning_(
                    f"{label} {day}",
                    f"{label}, {day}: the day's file is damaged, so the channel was "
                    "skipped (its documents are left as they were).",
                )
            )
            return None
        for raw_message in listed:
            message = _message(raw_message, users, unknown, limits, zf, budget, uploads)
            if message is not None:
                messages.append(message)
        if len(messages) > limits.max_channel_messages:
            export.warnings.append(
                Warning_(
                    label,
                    f"{label} has more than {limits.max_channel_messages:,} messages; "
                    "the limit per channel is "
                    f"{limits.max_channel_messages:,}, so it was skipped (nothing of it was kept).",
                )
            )
            return None
    for user_id in sorted(unknown):
        export.warnings.append(
            Warning_(
                f"{label} {user_id}",
                f"{label}: user {user_id} is not in users.json; their messages name the id.",
            )
        )
    return messages


def _message(
    raw: Any,
    users: dict[str, str],
    unknown: set[str],
    limits: ExportLimits,
    zf: zipfile.ZipFile,
    budget: ZipBudget,
    uploads: dict[str, zipfile.ZipInfo],
) -> ChatMessage | None:
    if not isinstance(raw, dict) or raw.get("type", "message") != "message":
        return None
    subtype = raw.get("subtype")
    if subtype in _SKIPPED_SUBTYPES:
        return None
    ts_text = str(raw.get("ts") or "")
    try:
        ts = datetime.fromtimestamp(float(ts_text), tz=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    user_id = str(raw.get("user") or raw.get("bot_id") or "")
    profile = raw.get("user_profile")
    if not isinstance(profile, dict):
        profile = {}
    sender = users.get(user_id) or profile.get("real_name") or raw.get("username")
    if not sender:
        if user_id:
            unknown.add(user_id)
        sender = user_id or "unknown sender"
    thread_ts = raw.get("thread_ts")
    files = [f for f in raw.get("files") or [] if isinstance(f, dict)]
    attachments = []
    for f in files:
        info = uploads.get(str(f.get("id") or ""))
        if info is None:
            continue
        try:
            data = read_member(zf, info, limits.zip, budget, "The export")
        except (ExtractionError, zipfile.BadZipFile, OSError, EOFError, ValueError):
            continue
        name = str(f.get("name") or f.get("title") or PurePosixPath(info.filename).name)
        attachments.append(
            ItemAttachment(
                filename=name[:255],
                content_type=str(
                    f.get("mimetype") or mimetypes.guess_type(name)[0] or ""
                ),
                data=data,
            )
        )
    text = render_mrkdwn(str(raw.get("text") or ""), users)[: limits.max_message_chars]
    return ChatMessage(
        message_id=ts_text,
        thread_id=str(thread_ts) if thread_ts else None,
        ts=ts,
        sender=" ".join(str(sender).split())[:200],
        text=text,
        url=str(raw.get("permalink") or "")[:2000]
        if str(raw.get("permalink") or "").startswith("https://")
        else "",
        edited=isinstance(raw.get("edited"), dict),
        deleted=subtype == "tombstone",
        attachments=attachments,
        file_names=[
            str(f.get("name") or f.get("title") or "file")[:200] for f in files
        ],
    )


def render_mrkdwn(text: str, users: dict[str, str]) -> str:
    """Slack's markup as a reader sees it: mentions by name, links by label
    (with the address), entities decoded."""
    text = _USER.sub(
        lambda m: "@" + (users.get(m.group(1)) or m.group(2) or m.group(1)), text
    )
    text = _CHANNEL.sub(lambda m: "#" + (m.group(2) or m.group(1)), text)
    text = _LINK.sub(
        lambda m: f"{m.group(2)} ({m.group(1)})" if m.group(2) else m.group(1), text
    )
    text = _SPECIAL.sub(lambda m: "@" + m.group(1), text)
    return html.unescape(text)
