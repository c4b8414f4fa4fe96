"""What a connector produces: one `Item` per document, its text built block
by block so every block's offsets are known (`TextBuilder`).

A segment is a dict with `start` and `end` (offsets into the item's text)
and the block's location: `message_id`, `ts`, `sender`, … for a chat message,
`column` for a database column. The text is normalized as it is built
(`normalize_page`, the same rule every document's text follows), so the
offsets are the final ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ingest.normalize import normalize_page

__all__ = ["Item", "ItemAttachment", "LazyItem", "TextBuilder", "Warning_"]

BLOCK_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class ItemAttachment:
    """A file that came with an item (a Slack upload present in the export)."""

    filename: str
    content_type: str
    data: bytes


@dataclass
class Item:
    key: str
    title: str
    source_type: str
    text: str
    segments: list[dict[str, Any]]
    metadata: dict[str, Any]
    origin_url: str = ""
    attachments: list[ItemAttachment] = field(default_factory=list)
    # What decides whether the document changed, when its source knows it
    # more cheaply than the built text does (a database row's raw values).
    fingerprint: str = ""

    def item(self) -> Item:
        """The item itself (a `LazyItem` builds one)."""
        return self

    @property
    def content_sha256(self) -> str:
        """What decides whether the document changed: its fingerprint when
        its source gave one, else its title, text, locations and metadata
        (attachments are documents of their own)."""
        if self.fingerprint:
            return self.fingerprint
        payload = json.dumps(
            [
                self.title,
                self.source_type,
                self.text,
                self.segments,
                self.metadata,
                self.origin_url,
            ],
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return hashlib.sha256(payload.encode()).hexdigest()


@dataclass(frozen=True)
class LazyItem:
    """An item known by its key and fingerprint, built only when it changed:
    an unchanged row of a 100,000-row table costs a hash, not a document's
    text."""

    key: str
    content_sha256: str
    build: Callable[[], Item]

    def item(self) -> Item:
        return self.build()


@dataclass(frozen=True)
class Warning_:
    """A problem with one part of a source that did not stop the rest."""

    item: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"item": self.item, "message": self.message}


class TextBuilder:
    """Blocks of text separated by a blank line, each with its location."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0
        self.segments: list[dict[str, Any]] = []

    def add(self, text: str, location: dict[str, Any] | None = None) -> None:
        """Append a block; an empty block is skipped (no empty segment)."""
        block = _clean_block(text)
        if not block:
            return
        if self._parts:
            self._parts.append(BLOCK_SEPARATOR)
            self._length += len(BLOCK_SEPARATOR)
        start = self._length
        self._parts.append(block)
        self._length += len(block)
        if location is not None:
            self.segments.append({"start": start, "end": self._length, **location})

    @property
    def length(self) -> int:
        return self._length

    def text(self) -> str:
        return "".join(self._parts)


def _clean_block(text: str) -> str:
    """A block as the document's text holds it: normalized, without blank
    lines at either end, no run of blank lines inside (a block never looks
    like two)."""
    block = normalize_page(text).strip("\n")
    while "\n\n\n" in block:
        block = block.replace("\n\n\n", "\n\n")
    return block.strip()
