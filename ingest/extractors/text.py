"""Plain text and Markdown: decoded and kept as written (Markdown markup included),
so quotes match the file a reader opens."""

from __future__ import annotations

import re
from pathlib import Path

from ingest.extractors import Extracted
from ingest.extractors._common import (
    Progress,
    decode_text,
    read_limited,
    title_from_filename,
)
from ingest.extractors.titles import document_title, opening_of, title_metadata
from ingest.limits import Limits

__all__ = ["extract_markdown", "extract_text", "markdown_title"]

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_ATX_H1 = re.compile(r"^\s{0,3}#(?!#)\s+(.+?)(?:\s+#+)?\s*$")
_SETEXT_H1 = re.compile(r"^\s{0,3}=+\s*$")
_FRONT_MATTER_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.M)
_INLINE_MARKUP = re.compile(r"[*_`]+")


def extract_text(
    path: Path, *, filename: str, limits: Limits, progress: Progress
) -> Extracted:
    text, encoding = _read(path, limits)
    pages = _pages(text)
    progress(len(pages), len(pages))
    metadata = {"encoding": encoding, "page_count": len(pages)}
    # A contract saved as text is titled by its kind ("Distributor
    # Agreement"); any other text keeps its file name.
    choice = document_title("", opening_of(pages), filename)
    title = choice.title if choice.kind else title_from_filename(filename)
    if choice.kind:
        metadata.update(title_metadata(choice))
    return Extracted(title=title, source_type="text", pages=pages, metadata=metadata)


def extract_markdown(
    path: Path, *, filename: str, limits: Limits, progress: Progress
) -> Extracted:
    text, encoding = _read(path, limits)
    progress(1, 1)
    return Extracted(
        title=markdown_title(text) or title_from_filename(filename),
        source_type="markdown",
        pages=[text],
        metadata={"encoding": encoding},
    )


def markdown_title(text: str) -> str | None:
    """Front-matter ``title:``, else the first level-1 heading outside code blocks."""
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end > 0:
            match = _FRONT_MATTER_TITLE.search(text, 4, end)
            if match:
                return match.group(1).strip("'\"") or None
    in_fence = False
    previous = ""
    for line in text.splitlines()[:2000]:
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            match = _ATX_H1.match(line)
            if match:
                return _INLINE_MARKUP.sub("", match.group(1)).strip() or None
            if previous.strip() and _SETEXT_H1.match(line):
                return _INLINE_MARKUP.sub("", previous).strip() or None
        previous = "" if in_fence else line
    return None


def _read(path: Path, limits: Limits) -> tuple[str, str]:
    return decode_text(read_limited(path, limits.max_file_bytes))


def _pages(text: str) -> list[str]:
    # Form feeds are page breaks in text exported from paged documents.
    if "\f" not in text:
        return [text]
    pages = text.split("\f")
    while len(pages) > 1 and not pages[-1].strip():
        pages.pop()
    return pages
