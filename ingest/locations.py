"""Where in its source a passage is, in the source's own words (issue 29
item 4, seed 004's location fields): "#deals · Ana Ruiz · 3 Mar 2026 14:02
UTC" for a chat message, "contracts · row 1182 · notice_period" for a
database column, the page's title and address for a captured page, the page
number for a PDF. One function for the payload, the panel, the footer and the
REST API, so they never disagree.

A chunk of a connector document keeps, in its metadata, the segments (one
per message or column, offsets into the revision's text) it overlaps
(`chunk_segments`); the location of a span is the segment it starts in.
Pure: no Django.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from ingest import file_types

__all__ = [
    "LOCATORS",
    "Location",
    "Passage",
    "chunk_segments",
    "location_for",
    "safe_url",
    "segment_at",
]


@dataclass(frozen=True)
class Location:
    """`label` is what a reader sees; `original_url` links to the source
    outside DocuIQ (a permalink, the captured page) when there is one;
    `fields` are seed 004's location fields (message_id, thread_id, ts,
    table, row_id, column) and `extra` the provider's (channel, sender,
    workspace)."""

    kind: str
    label: str
    original_url: str = ""
    fields: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "label": self.label,
            "original_url": safe_url(self.original_url),
            **self.fields,
            "extra": self.extra,
        }


def safe_url(url: str) -> str:
    """A link a page may carry: http(s) only (never javascript: or data:)."""
    return url if urlsplit(url or "").scheme in {"http", "https"} else ""


def chunk_segments(
    segments: list[dict[str, Any]], start: int, end: int
) -> list[dict[str, Any]]:
    """The segments (sorted by start, not overlapping) that overlap
    content[start:end]: what a chunk keeps in its metadata."""
    starts = [s["start"] for s in segments]
    i = max(0, bisect_right(starts, start) - 1)
    out = []
    while i < len(segments) and segments[i]["start"] < end:
        if segments[i]["end"] > start:
            out.append(segments[i])
        i += 1
    return out


def segment_at(
    segments: list[dict[str, Any]], start: int | None, end: int | None = None
) -> dict[str, Any] | None:
    """The segment a span starts in; failing that the one it overlaps most;
    with no span, the first."""
    if not segments:
        return None
    if start is None:
        return segments[0]
    for segment in segments:
        if segment["start"] <= start < segment["end"]:
            return segment
    stop = end if end is not None and end > start else start + 1
    best = max(
        segments,
        key=lambda s: min(stop, s["end"]) - max(start, s["start"]),
    )
    return best if min(stop, best["end"]) > max(start, best["start"]) else None


def location_for(
    *,
    source_type: str,
    title: str,
    metadata: dict[str, Any],
    origin_url: str = "",
    segment: dict[str, Any] | None = None,
    page: int | None = None,
) -> Location:
    """The location of a passage of a document (its segment, if any), by
    its file type's locator (ingest.file_types)."""
    kind = file_types.file_type(source_type)
    locate = LOCATORS.get(kind.locator if kind else "", _document)
    return locate(
        Passage(source_type, title, metadata, origin_url, segment or {}, page)
    )


@dataclass(frozen=True)
class Passage:
    """What a locator reads of a passage and its document."""

    source_type: str
    title: str
    metadata: dict[str, Any]
    origin_url: str
    segment: dict[str, Any]
    page: int | None


def _document(passage: Passage) -> Location:
    return Location("document", "")


def _page(passage: Passage) -> Location:
    if passage.page:
        return Location("page", f"page {passage.page}", fields={"page": passage.page})
    return _document(passage)


def _web(passage: Passage) -> Location:
    url = passage.origin_url or passage.metadata.get("url", "")
    host = urlsplit(url).netloc if url else ""
    return Location(
        "web",
        f"{passage.title} ({host})" if host else passage.title,
        original_url=url,
        fields={"url": url} if url else {},
    )


def _gdrive(passage: Passage) -> Location:
    metadata = passage.metadata
    url = metadata.get("link") or metadata.get("webViewLink") or passage.origin_url
    return Location(
        "gdrive",
        f"Google Drive · {passage.title}",
        original_url=url or "",
        fields={"url": url} if url else {},
    )


def _email(passage: Passage) -> Location:
    metadata = passage.metadata
    sender = metadata.get("sender_name") or metadata.get("sender") or ""
    date = metadata.get("date", "")
    label = " · ".join(
        x for x in (f"Email from {sender}" if sender else "Email", date) if x
    )
    return Location(
        "email",
        label,
        fields={
            k: metadata[k] for k in ("message_id", "thread_id", "ts") if metadata.get(k)
        },
        extra={k: metadata[k] for k in ("sender", "subject") if metadata.get(k)},
    )


def _chat_message(passage: Passage) -> Location:
    return _chat(passage.source_type, passage.metadata, passage.segment)


def _table_row(passage: Passage) -> Location:
    return _row(passage.metadata, passage.segment)


def _chat(
    source_type: str, metadata: dict[str, Any], segment: dict[str, Any]
) -> Location:
    channel = metadata.get("channel") or metadata.get("channel_id") or ""
    sender = segment.get("sender") or ""
    ts = segment.get("ts") or metadata.get("ts") or ""
    parts = [f"#{channel}" if channel else "", sender, _when(ts)]
    fields = {
        "message_id": segment.get("message_id"),
        "thread_id": segment.get("thread_id") or metadata.get("thread_id"),
        "ts": ts or None,
    }
    return Location(
        source_type,
        " · ".join(p for p in parts if p),
        original_url=segment.get("url", ""),
        fields={k: v for k, v in fields.items() if v},
        extra={
            k: v
            for k, v in (
                ("channel", channel),
                ("sender", sender),
                ("workspace", metadata.get("workspace", "")),
            )
            if v
        },
    )


def _row(metadata: dict[str, Any], segment: dict[str, Any]) -> Location:
    table = metadata.get("table", "")
    row_id = metadata.get("row_id", "")
    column = segment.get("column", "")
    parts = [table, f"row {row_id}" if row_id != "" else "", column]
    fields = {"table": table, "row_id": row_id, "column": column}
    return Location(
        "db",
        " · ".join(str(p) for p in parts if p),
        fields={k: v for k, v in fields.items() if v != ""},
        extra={"source": metadata["source"]} if metadata.get("source") else {},
    )


def _when(ts: str) -> str:
    try:
        moment = datetime.fromisoformat(ts)
    except (TypeError, ValueError):
        return ""
    return f"{moment:%-d %b %Y %H:%M} UTC"


# The locators a file type names (FileType.locator); "" and unknown names
# locate the document as a whole.
LOCATORS: dict[str, Callable[[Passage], Location]] = {
    "page": _page,
    "chat": _chat_message,
    "row": _table_row,
    "email": _email,
    "web": _web,
    "gdrive": _gdrive,
}
