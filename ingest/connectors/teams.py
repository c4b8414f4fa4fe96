"""Microsoft Teams channel exports: the chatMessage JSON that Microsoft Graph
returns and the export tools built on it write (`GET /teams/{id}/channels/
{id}/messages?$expand=replies`).

Accepted shapes, one channel per file: a Graph page `{"value": [...]}`, a
bare list of messages, or `{"team": {...}, "channel": {...}, "messages":
[...]}`; or a ZIP archive of such files, one per channel. Replies come
inline (`replies`, as `$expand=replies` gives them) or as messages of their
own with `replyToId`. Each post and its replies is one document; a message's
`webUrl` is its permalink. Bodies in HTML are read as their visible text.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ingest.connectors.chat import ChatMessage, channel_items
from ingest.connectors.items import Item, Warning_
from ingest.connectors.slack import ExportError, ExportLimits
from ingest.errors import ExtractionError
from ingest.extractors.archive import ZipBudget, check_zip, read_member

__all__ = ["TeamsExport", "read_teams_export"]


@dataclass
class TeamsExport:
    workspace: str
    channels: dict[str, str] = field(default_factory=dict)
    spans: dict[str, tuple[datetime, datetime]] = field(default_factory=dict)
    warnings: list[Warning_] = field(default_factory=list)
    total_messages: int = 0

    def covers(self, key: str) -> bool:
        """A post of a channel this export holds, from within its time span."""
        parts = key.split(":")
        if len(parts) < 4 or parts[1] not in self.spans:
            return False
        first, last = self.spans[parts[1]]
        if parts[2] == "d":
            when = _parse_time(parts[3])
        elif parts[3].isdigit():
            # Teams names a post by its creation time in milliseconds.
            when = datetime.fromtimestamp(int(parts[3][:15]) / 1000, tz=UTC)
        else:
            return True  # a post of a channel the export holds
        return when is not None and first <= when <= last


def read_teams_export(
    data: bytes, *, filename: str, workspace: str, limits: ExportLimits | None = None
) -> tuple[TeamsExport, Iterator[Item]]:
    limits = limits or ExportLimits()
    files = _files(data, filename, limits)
    export = TeamsExport(workspace=workspace)
    channels = []
    for name, raw in files:
        try:
            parsed = json.loads(raw.decode("utf-8-sig"))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            if len(files) == 1:
                raise ExportError(
                    "corrupt",
                    "This Teams export is not valid JSON (it may be truncated).",
                ) from exc
            export.warnings.append(
                Warning_(name, f"{name} is not valid JSON and was skipped.")
            )
            continue
        channel = _channel(parsed, name)
        if channel is None:
            if len(files) == 1:
                raise ExportError(
                    "not_teams_export",
                    "This JSON holds no Teams channel messages (expected Graph chatMessage "
                    'objects: a list, {"value": [...]} or {"channel": ..., "messages": [...]}).',
                )
            export.warnings.append(
                Warning_(name, f"{name} holds no Teams messages and was skipped.")
            )
            continue
        channels.append(channel)

    def items() -> Iterator[Item]:
        for channel_id, channel_name, team_name, raw_messages in channels:
            export.channels[channel_id] = channel_name
            if len(raw_messages) > limits.max_channel_messages:
                export.warnings.append(
                    Warning_(
                        f"#{channel_name}",
                        f"#{channel_name} has more than {limits.max_channel_messages:,} "
                        "messages; the limit per channel is "
                        f"{limits.max_channel_messages:,}, so it was skipped (nothing of it was kept).",
                    )
                )
                continue
            messages = _messages(raw_messages, limits)
            export.total_messages += len(messages)
            if not messages:
                continue
            export.spans[channel_id] = (
                min(m.ts for m in messages),
                max(m.ts for m in messages),
            )
            yield from channel_items(
                kind="teams",
                workspace=team_name or workspace,
                channel_id=channel_id,
                channel_name=channel_name,
                messages=messages,
                max_messages=limits.max_messages_per_document,
            )

    return export, items()


def _files(data: bytes, filename: str, limits: ExportLimits) -> list[tuple[str, bytes]]:
    if not data.startswith(b"PK\x03\x04"):
        return [(filename, data)]
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ExportError(
            "corrupt", "This ZIP archive is damaged or truncated."
        ) from exc
    budget = ZipBudget.from_limits(limits.zip)
    out = []
    try:
        for info in check_zip(zf, limits.zip, budget, label="The export"):
            if info.filename.lower().endswith(".json"):
                out.append(
                    (
                        info.filename,
                        read_member(zf, info, limits.zip, budget, "The export"),
                    )
                )
    except ExtractionError as exc:
        raise ExportError(exc.code, exc.message) from exc
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise ExportError(
            "corrupt", "This ZIP archive is damaged or truncated."
        ) from exc
    if not out:
        raise ExportError(
            "not_teams_export", "This archive holds no JSON files of Teams messages."
        )
    return out


def _channel(
    parsed: Any, name: str
) -> tuple[str, str, str, list[dict[str, Any]]] | None:
    team_name = ""
    channel_name = ""
    channel_id = ""
    if isinstance(parsed, dict):
        team = parsed.get("team")
        if not isinstance(team, dict):
            team = {}
        channel = parsed.get("channel")
        if not isinstance(channel, dict):
            channel = {}
        team_name = str(team.get("displayName") or "")
        channel_name = str(channel.get("displayName") or "")
        channel_id = str(channel.get("id") or "")
        messages = parsed.get("messages", parsed.get("value"))
    else:
        messages = parsed
    if not isinstance(messages, list):
        return None
    messages = [m for m in messages if isinstance(m, dict) and "id" in m]
    if not messages or not any(("body" in m or "from" in m) for m in messages):
        return None
    identity = messages[0].get("channelIdentity") or {}
    if isinstance(identity, dict):
        channel_id = channel_id or str(identity.get("channelId") or "")
    channel_id = channel_id or name
    channel_name = " ".join(
        (channel_name or name.rsplit("/", 1)[-1].removesuffix(".json")).split()
    )
    return channel_id[:200], channel_name[:200], team_name[:200], messages


def _messages(
    raw_messages: list[dict[str, Any]], limits: ExportLimits
) -> list[ChatMessage]:
    from ingest.extractors.html import html_to_text

    flat: list[tuple[dict[str, Any], str | None]] = []
    for raw in raw_messages:
        root_id = str(raw.get("replyToId") or "") or None
        flat.append((raw, root_id))
        for reply in raw.get("replies") or []:
            if isinstance(reply, dict) and "id" in reply:
                flat.append((reply, str(raw["id"])))
    out = []
    seen = set()
    for raw, root_id in flat:
        message_id = str(raw["id"])
        if message_id in seen:
            continue
        seen.add(message_id)
        if raw.get("messageType", "message") not in ("message", None):
            continue  # system events: members added, channel renamed
        ts = _parse_time(str(raw.get("createdDateTime") or ""))
        if ts is None:
            continue
        body = raw.get("body")
        if not isinstance(body, dict):
            body = {}
        content = str(body.get("content") or "")
        if str(body.get("contentType") or "").lower() == "html":
            content = html_to_text(content)
        subject = str(raw.get("subject") or "").strip()
        if subject and root_id is None:
            content = f"{subject}\n{content}"
        sender = _sender(raw.get("from"))
        url = str(raw.get("webUrl") or "")
        out.append(
            ChatMessage(
                message_id=message_id,
                thread_id=root_id or message_id,
                ts=ts,
                sender=sender,
                text=content[: limits.max_message_chars],
                url=url[:2000] if url.startswith("https://") else "",
                edited=bool(raw.get("lastEditedDateTime")),
                deleted=bool(raw.get("deletedDateTime")),
                file_names=[
                    str(a.get("name") or "file")[:200]
                    for a in raw.get("attachments") or []
                    if isinstance(a, dict) and a.get("contentType") == "reference"
                ],
            )
        )
    return out


def _sender(value: Any) -> str:
    if isinstance(value, dict):
        for kind in ("user", "application", "device"):
            who = value.get(kind)
            if isinstance(who, dict) and (who.get("displayName") or who.get("id")):
                return " ".join(str(who.get("displayName") or who["id"]).split())[:200]
    return "unknown sender"


def _parse_time(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
