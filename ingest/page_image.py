"""The printed page behind a span: the PDF page as an image, with the span's
characters outlined (boxes from pypdfium2, see ingest/extractors/pdf.py).

Rendering and geometry run in the extraction sandbox: the web process never
parses a PDF itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.errors import ExtractionError
from ingest.models import DocumentRevision
from ingest.sandbox import page_char_boxes_in_child, render_page_png_in_child
from ingest.services import ingest_limits

if TYPE_CHECKING:
    from ingest.extractors.pdf import PageGeometry

LINE_TOLERANCE = 2.0  # points: characters closer than this vertically share a line


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class PageHighlight:
    page: int
    width: float
    height: float
    rects: list[Rect]


def _merge_lines(boxes: list[tuple[float, float, float, float]]) -> list[Rect]:
    """One rectangle per line of characters, so the outline reads as a
    highlighter stroke rather than a box per glyph. Glyphs share a line when
    their vertical centres are within half the line's height (or
    LINE_TOLERANCE): capitals, descenders and punctuation have different
    boxes but one line. A line is cut where glyphs are more than 12 points
    apart (another column)."""
    rows: list[list[tuple[float, float, float, float]]] = []
    # A space's box is a sliver on the baseline: it would start a line of its own.
    inked = [b for b in boxes if b[3] - b[1] >= 1 and b[2] > b[0]]
    for box in sorted(inked, key=lambda b: (b[1] + b[3]) / 2):
        centre = (box[1] + box[3]) / 2
        if rows:
            last = rows[-1]
            top, bottom = min(b[1] for b in last), max(b[3] for b in last)
            reach = max(LINE_TOLERANCE, (bottom - top) / 2)
            if abs((top + bottom) / 2 - centre) <= reach:
                last.append(box)
                continue
        rows.append([box])
    lines: list[list[float]] = []
    for row in rows:
        row.sort(key=lambda b: b[0])
        current: list[float] | None = None
        for x0, y0, x1, y1 in row:
            if current is not None and x0 <= current[2] + 12:
                current[1], current[2] = min(current[1], y0), max(current[2], x1)
                current[3] = max(current[3], y1)
            else:
                current = [x0, y0, x1, y1]
                lines.append(current)
    return [Rect(x0 - 1, y0 - 1, x1 - x0 + 2, y1 - y0 + 2) for x0, y0, x1, y1 in lines]


def span_highlight(
    revision: DocumentRevision, start: int, end: int
) -> PageHighlight | None:
    """Rectangles outlining content[start:end] on the page where it starts.

    None when the revision is not a PDF or its pages cannot be read now.
    """
    if (
        not revision.file.filename.lower().endswith(".pdf")
        and revision.document.source_type != "pdf"
    ):
        return None
    page = revision.page_for_offset(start)
    read = _page_read(revision, page)
    if read is None or not read.matches:
        return None  # the file no longer matches this revision's text: show no boxes
    return PageHighlight(
        page=page,
        width=read.geometry.width,
        height=read.geometry.height,
        rects=read.outline(start, end),
    )


@dataclass(frozen=True)
class _PageRead:
    """A PDF page's characters' boxes, read from the file, and where its text
    starts in the revision's text."""

    geometry: PageGeometry
    start: int
    matches: bool  # the file's text of the page is still the revision's

    def outline(self, start: int, end: int) -> list[Rect]:
        """One rectangle per line of content[start:end] on this page."""
        lo = max(0, start - self.start)
        hi = min(len(self.geometry.text), end - self.start)
        return _merge_lines([b for b in self.geometry.boxes[lo:hi] if b is not None])


def _page_read(revision: DocumentRevision, page: int) -> _PageRead | None:
    """Page `page` read in a child process; None when it cannot be read now."""
    page_start = revision.page_starts[page - 1] if revision.page_starts else 0
    try:
        geometry = page_char_boxes_in_child(
            Path(revision.file.blob.path), page, limits=ingest_limits()
        )
    except (ExtractionError, OSError, ValueError):
        return None
    page_text = revision.normalized_content[
        page_start : page_start + len(geometry.text)
    ]
    return _PageRead(geometry, page_start, page_text == geometry.text)


@dataclass(frozen=True)
class PagePicture:
    """One page as the viewer draws it: its size in points, and one outline
    per line of each span on it (`current`: the span opened, else the
    citation's others)."""

    page: int
    width: float
    height: float
    current: list[Rect]
    others: list[Rect]


def page_picture(
    revision: DocumentRevision, page: int, spans: list[tuple[int, int]]
) -> PagePicture | None:
    """Page `page` of a PDF revision with every span that touches it outlined
    (the first span is the current one). A span across a page break is
    outlined on each of its pages. None when the page cannot be read now."""
    if not 1 <= page <= revision.page_count:
        return None
    read = _page_read(revision, page)
    if read is None:
        return None
    # The file no longer matching this text, or a span off this page: no boxes.
    outlines = [
        read.outline(start, end) if read.matches else [] for start, end in spans
    ]
    return PagePicture(
        page=page,
        width=read.geometry.width,
        height=read.geometry.height,
        current=outlines[0] if outlines else [],
        others=[r for rects in outlines[1:] for r in rects],
    )


def page_png(revision: DocumentRevision, page: int, *, scale: float = 1.5) -> bytes:
    return render_page_png_in_child(
        Path(revision.file.blob.path), page, limits=ingest_limits(), scale=scale
    )
