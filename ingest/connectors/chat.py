"""Chat messages -> documents: one per thread (a root and its replies), the
channel's other messages one per day; both split into parts of
`max_messages` so no document grows without bound.

Each message is one block of the text: a header line (sender and time) and
its body; its segment carries message_id, thread_id, ts, sender, channel,
workspace and the permalink when the export gives one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ingest.connectors.items import Item, ItemAttachment, TextBuilder

__all__ = ["ChatMessage", "channel_items", "format_ts"]

TITLE_WORDS = 8


@dataclass
class ChatMessage:
    message_id: str
    thread_id: str | None  # the root's id; None for a message outside a thread
    ts: datetime  # aware, UTC
    sender: str
    text: str
    url: str = ""
    edited: bool = False
    deleted: bool = False
    attachments: list[ItemAttachment] = field(default_factory=list)
    file_names: list[str] = field(default_factory=list)


def format_ts(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def channel_items(
    *,
    kind: str,
    workspace: str,
    channel_id: str,
    channel_name: str,
    messages: list[ChatMessage],
    max_messages: int,
) -> Iterator[Item]:
    """The channel's documents: each thread, then each day's other messages."""
    threads: dict[str, list[ChatMessage]] = {}
    loose: dict[str, list[ChatMessage]] = {}
    for message in sorted(messages, key=lambda m: (m.ts, m.message_id)):
        if message.thread_id:
            threads.setdefault(message.thread_id, []).append(message)
        else:
            loose.setdefault(message.ts.strftime("%Y-%m-%d"), []).append(message)
    label = f"#{channel_name}" if channel_name else channel_id
    # (key, title, thread id, messages) of each document before it is cut in parts.
    groups: list[tuple[str, str, str | None, list[ChatMessage]]] = []
    for thread_id, thread in threads.items():
        # A reply whose root is not in the export still makes its thread.
        root = next((m for m in thread if m.message_id == thread_id), thread[0])
        title = f"{label} · thread of {root.ts:%-d %b %Y}: {_opening(root.text)}"
        groups.append((f"{kind}:{channel_id}:t:{thread_id}", title, thread_id, thread))
    for day, day_messages in loose.items():
        title = f"{label} · {day_messages[0].ts:%-d %b %Y}"
        groups.append((f"{kind}:{channel_id}:d:{day}", title, None, day_messages))
    for key, title, root_id, group in groups:
        for part, chunk in _parts(group, max_messages):
            yield _item(
                kind=kind,
                key=key + (f":{part}" if part else ""),
                title=title + (f" (part {part + 1})" if part else ""),
                workspace=workspace,
                channel_id=channel_id,
                channel_name=channel_name,
                thread_id=root_id,
                messages=chunk,
            )


def _parts(
    messages: list[ChatMessage], size: int
) -> Iterator[tuple[int, list[ChatMessage]]]:
    for part, start in enumerate(range(0, len(messages), size)):
        yield part, messages[start : start + size]


def _opening(text: str) -> str:
    words = text.split()
    opening = " ".join(words[:TITLE_WORDS])
    return opening + ("…" if len(words) > TITLE_WORDS else "") or "(no text)"


def _item(
    *,
    kind: str,
    key: str,
    title: str,
    workspace: str,
    channel_id: str,
    channel_name: str,
    thread_id: str | None,
    messages: list[ChatMessage],
) -> Item:
    builder = TextBuilder()
    attachments: list[ItemAttachment] = []
    for m in messages:
        header = f"{m.sender} · {format_ts(m.ts)}"
        if m.edited:
            header += " (edited)"
        body = "(message deleted)" if m.deleted else (m.text or "(no text)")
        if m.file_names:
            body += "\n[files: " + ", ".join(m.file_names) + "]"
        location = {
            "message_id": m.message_id,
            "ts": m.ts.astimezone(UTC).isoformat(),
            "sender": m.sender,
        }
        if m.thread_id:
            location["thread_id"] = m.thread_id
        if m.url:
            location["url"] = m.url
        builder.add(f"{header}\n{body}", location)
        attachments.extend(m.attachments)
    first, last = messages[0], messages[-1]
    metadata = {
        "channel": channel_name or channel_id,
        "channel_id": channel_id,
        "workspace": workspace,
        "messages": len(messages),
        "ts": first.ts.astimezone(UTC).isoformat(),
        "last_ts": last.ts.astimezone(UTC).isoformat(),
        "senders": sorted({m.sender for m in messages})[:50],
    }
    if thread_id:
        metadata["thread_id"] = thread_id
    return Item(
        key=key[:500],
        title=title[:500],
        source_type=kind,
        text=builder.text(),
        segments=builder.segments,
        metadata=metadata,
        origin_url=next((m.url for m in messages if m.url), "") if thread_id else "",
        attachments=attachments,
    )
