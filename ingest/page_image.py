"""The printed page behind a span: the PDF page as an image, with the span's
characters outlined (boxes from pypdfium2, see ingest/extractors/pdf.py).

Rendering and geometry run in the extraction sandbox: the web process never
parses a PDF itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ingest.errors import ExtractionError
from ingest.models import DocumentRevision
from ingest.sandbox import page_char_boxes_in_child, render_page_png_in_child
from ingest.services import ingest_limits

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
    highlighter stroke rather than a box per glyph."""
    lines: list[list[float]] = []
    for x0, y0, x1, y1 in sorted(boxes, key=lambda b: (round(b[1]), b[0])):
        last = lines[-1] if lines else None
        if (
            last is not None
            and abs(last[1] - y0) <= LINE_TOLERANCE
            and x0 <= last[2] + 12
        ):
            last[0], last[1] = min(last[0], x0), min(last[1], y0)
            last[2], last[3] = max(last[2], x1), max(last[3], y1)
        else:
            lines.append([x0, y0, x1, y1])
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
    page_start = revision.page_starts[page - 1]
    try:
        geometry = page_char_boxes_in_child(
            Path(revision.file.blob.path), page, limits=ingest_limits()
        )
    except (ExtractionError, OSError, ValueError):
        return None
    page_text = revision.normalized_content[
        page_start : page_start + len(geometry.text)
    ]
    if page_text != geometry.text:
        return None  # the file no longer matches this revision's text: show no boxes
    lo = max(0, start - page_start)
    hi = min(len(geometry.text), end - page_start)
    boxes = [b for b in geometry.boxes[lo:hi] if b is not None]
    return PageHighlight(
        page=page,
        width=geometry.width,
        height=geometry.height,
        rects=_merge_lines(boxes),
    )


def page_png(revision: DocumentRevision, page: int) -> bytes:
    return render_page_png_in_child(
        Path(revision.file.blob.path), page, limits=ingest_limits()
    )
