"""PDF text, page geometry and page images.

PDFium (through pypdfium2) does all of the hot-path work: it opens the file,
tells a user password (refused) from owner-only restrictions (ignored, so such
files read normally), counts pages before anything is parsed, and returns each
page's text in one call, about 100x faster than pdfminer/pdfplumber (~800 vs ~6
pages/s of prose on these machines). Its character boxes and per-run rectangles
give the geometry: lines are cut at wide gaps and `pdf_layout` puts multi-column
pages into reading order (columns left to right under full-width headings);
single-column pages keep PDFium's order at no extra cost. The same code serves
`page_char_boxes`, so the text the viewer highlights is character-for-character
the text that was indexed, with a box per character in top-left-origin points;
`render_page_png` draws the page with PDFium. pdfplumber (pdfminer) is used only
off the hot path, for `find_tables`, where its ruling-line table finder is
better than anything PDFium offers. Pages are closed as soon as they are read.
"""

from __future__ import annotations

import ctypes
import io
import itertools
import math
import re
from bisect import bisect_left
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from statistics import median
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ingest.errors import ErrorCode, ExtractionError
from ingest.extractors import Extracted
from ingest.extractors._common import Progress
from ingest.extractors.pdf_layout import Segment, may_have_columns, reading_order
from ingest.extractors.titles import document_title, opening_of, title_metadata
from ingest.limits import Limits
from ingest.normalize import normalize_page, normalize_page_with_map

__all__ = [
    "PageGeometry",
    "extract_pdf",
    "find_tables",
    "page_char_boxes",
    "render_page_png",
]

Box = tuple[float, float, float, float]

# PDFium reports a hyphen it judged to be a line-end hyphen as U+FFFE (GetText) or
# 0x02 (GetUnicode); in every file we checked it is a printed hyphen ("Know-How").
_HYPHEN_MARKS = {0xFFFE: "-", 0x02: "-"}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_MAX_RENDER_PIXELS = 40_000_000
_PDF_DATE = re.compile(
    r"D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+\-])?(\d{2})?'?(\d{2})?"
)


@dataclass(frozen=True)
class PageGeometry:
    width: float
    height: float
    # normalize_page of the page's text: identical to what extract() produced.
    text: str
    # One box per character of `text`, (x0, y0, x1, y1) in points from the top-left
    # of the rendered page; None for characters the layout inserted (line breaks).
    boxes: list[Box | None]


def extract_pdf(
    path: Path, *, filename: str, limits: Limits, progress: Progress
) -> Extracted:
    pages: list[str] = []
    empty_pages = 0
    column_pages = 0
    damaged: list[int] = []
    total_chars = 0
    with _open(path) as pdf:
        count = len(pdf)
        if count == 0:
            raise ExtractionError(ErrorCode.CORRUPT, "This PDF has no pages.")
        if count > limits.max_pages:
            raise ExtractionError(
                ErrorCode.TOO_MANY_PAGES,
                f"This PDF has {count:,} pages; the limit is {limits.max_pages:,}. "
                "Split it into smaller files.",
            )
        metadata = _metadata(pdf)
        progress(0, count)
        for index in range(count):
            try:
                with _page(pdf, index) as (page, textpage):
                    raw, pieces = _page_text(page, textpage)
            except _DamagedPage:
                # One unreadable page (a broken page tree entry) must not cost the
                # reader the rest of the document; the page stays, empty.
                damaged.append(index + 1)
                raw, pieces = "", None
            text = normalize_page(raw)
            if len(text) > limits.max_chars_per_page:
                raise ExtractionError(
                    ErrorCode.TOO_COMPLEX,
                    f"Page {index + 1} holds {len(text):,} characters of text, more than any real "
                    f"page ({limits.max_chars_per_page:,}); the file was refused as too complex.",
                )
            total_chars += len(text)
            if total_chars > limits.max_total_chars:
                raise ExtractionError(
                    ErrorCode.TOO_LARGE,
                    f"This PDF holds more than {limits.max_total_chars:,} characters of text.",
                )
            empty_pages += not text.strip()
            column_pages += pieces is not None
            pages.append(text)
            progress(index + 1, count)
    if damaged and empty_pages == count:
        raise ExtractionError(
            ErrorCode.CORRUPT,
            "This PDF is damaged: no page with readable text could be loaded.",
        )
    if empty_pages == count:
        raise ExtractionError(
            ErrorCode.NO_TEXT,
            "This PDF has no text layer: it looks like scanned images. OCR is not available, "
            "so upload a PDF with selectable text (for example, export it from the original "
            "document or run OCR first).",
        )
    metadata.update(
        page_count=count,
        pages_without_text=empty_pages,
        multi_column_pages=column_pages,
    )
    if damaged:
        metadata["damaged_pages"] = damaged[:1000]
    # The metadata Title, else page 1's heading, else the file name (titles.py).
    choice = document_title(metadata.get("title") or "", opening_of(pages), filename)
    metadata.update(title_metadata(choice))
    return Extracted(
        title=choice.title, source_type="pdf", pages=pages, metadata=metadata
    )


def page_char_boxes(path: Path, page_number: int) -> PageGeometry:
    """The page's text (as extracted) and a box per character, for highlighting.

    ``text`` equals the page's entry in ``extract(...).pages``, so a span found at
    ``content[page_starts[p] + i : page_starts[p] + j]`` is highlighted with
    ``boxes[i:j]``. Raises ExtractionError for an unreadable file or page, and
    ValueError for a page number out of range.
    """
    with _open(path) as pdf:
        index = _page_index(pdf, page_number)
        with _page(pdf, index) as (page, textpage):
            raw, pieces = _page_text(page, textpage)
            raw_boxes = _raw_boxes(page, textpage, raw, pieces)
            width, height = page.get_size()
    text, mapping = normalize_page_with_map(raw)
    boxes = [raw_boxes[i] if i >= 0 else None for i in mapping]
    return PageGeometry(width=width, height=height, text=text, boxes=boxes)


def render_page_png(path: Path, page_number: int, *, scale: float = 1.5) -> bytes:
    """The page as a PNG, `scale` pixels per point (capped to ~40 megapixels).

    Errors as for `page_char_boxes`.
    """
    with _open(path) as pdf:
        page = _load_page(pdf, _page_index(pdf, page_number))
        try:
            width, height = page.get_size()
            if width * height * scale * scale > _MAX_RENDER_PIXELS:
                scale = math.sqrt(_MAX_RENDER_PIXELS / max(1.0, width * height))
            bitmap = page.render(scale=scale)
            try:
                image = bitmap.to_pil()
                buf = io.BytesIO()
                image.save(buf, format="PNG", optimize=False)
            finally:
                bitmap.close()
        finally:
            page.close()
    return buf.getvalue()


def find_tables(path: Path, page_number: int) -> list[list[list[str | None]]]:
    """Tables on one page (rows of cells) found by pdfplumber's ruling-line finder.

    Slow (pdfminer parses the whole page): for on-demand use, never per ingestion.
    """
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        if not 1 <= page_number <= len(pdf.pages):
            raise ValueError(f"page {page_number} is out of range")
        page = pdf.pages[page_number - 1]
        try:
            return page.extract_tables()
        finally:
            page.close()


# -- opening ---------------------------------------------------------------


@contextmanager
def _open(path: Path) -> Iterator[pdfium.PdfDocument]:
    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code == pdfium_c.FPDF_ERR_PASSWORD:
            raise ExtractionError(
                ErrorCode.ENCRYPTED,
                "This PDF is password-protected; upload an unlocked copy.",
            ) from exc
        if code == pdfium_c.FPDF_ERR_SECURITY:
            raise ExtractionError(
                ErrorCode.ENCRYPTED,
                "This PDF uses an encryption scheme that cannot be opened; upload an unlocked copy.",
            ) from exc
        raise ExtractionError(
            ErrorCode.CORRUPT,
            "This PDF is damaged (its structure cannot be read), so it could not be opened.",
        ) from exc
    try:
        yield pdf
    finally:
        pdf.close()


class _DamagedPage(ExtractionError):
    def __init__(self, page_number: int) -> None:
        super().__init__(
            ErrorCode.CORRUPT,
            f"Page {page_number} of this PDF is damaged and cannot be read.",
        )


def _load_page(pdf: pdfium.PdfDocument, index: int) -> pdfium.PdfPage:
    try:
        return pdf[index]
    except pdfium.PdfiumError as exc:
        raise _DamagedPage(index + 1) from exc


@contextmanager
def _page(
    pdf: pdfium.PdfDocument, index: int
) -> Iterator[tuple[pdfium.PdfPage, pdfium.PdfTextPage]]:
    # Closed per page, not at the end: a 5,000-page file must not hold every page (UPL-09).
    page = _load_page(pdf, index)
    try:
        try:
            textpage = page.get_textpage()
        except pdfium.PdfiumError as exc:
            raise _DamagedPage(index + 1) from exc
        try:
            yield page, textpage
        finally:
            textpage.close()
    finally:
        page.close()


def _page_index(pdf: pdfium.PdfDocument, page_number: int) -> int:
    if not 1 <= page_number <= len(pdf):
        raise ValueError(f"page {page_number} is out of range (1-{len(pdf)})")
    return page_number - 1


# -- text and layout -------------------------------------------------------

# A piece of page text: a range of PDFium char indices, or a separator we inserted.
Piece = tuple[int, int] | str


def _page_text(
    page: pdfium.PdfPage, textpage: pdfium.PdfTextPage
) -> tuple[str, list[Piece] | None]:
    """Raw page text (before normalize_page) and, for reordered pages, its pieces.

    With pieces None the text is PDFium's own, char i being PDFium char i.
    """
    chars = _chars(textpage)
    if page.get_rotation() % 360 != 0:
        return chars, None  # column geometry below assumes upright text
    if not may_have_columns(_rects(textpage, 0, -1)):
        return chars, None
    segments = _segments(textpage, chars)
    lines = reading_order(segments)
    if lines is None:
        return chars, None
    pieces: list[Piece] = []
    for line in lines:
        if pieces:
            pieces.append("\n")
        for k, seg in enumerate(line):
            if k:
                pieces.append(" ")
            pieces.append((seg.start, seg.end))
    text = "".join(p if isinstance(p, str) else chars[p[0] : p[1]] for p in pieces)
    return text, pieces


def _chars(textpage: pdfium.PdfTextPage) -> str:
    """The page's characters, exactly one Python character per PDFium char index."""
    count = textpage.count_chars()
    text = textpage.get_text_range(0, count) if count > 0 else ""
    if len(text) != count:
        # Characters outside the BMP come back as surrogate pairs: ask per char.
        raw = textpage.raw
        text = "".join(
            _safe_chr(pdfium_c.FPDFText_GetUnicode(raw, i)) for i in range(count)
        )
    return text.translate(_HYPHEN_MARKS)


def _safe_chr(code: int) -> str:
    return chr(code) if 0 <= code <= 0x10FFFF else "\ufffd"


def _segments(textpage: pdfium.PdfTextPage, chars: str) -> list[Segment]:
    """Each line's characters as one segment, or several where the line has wide gaps."""
    segments: list[Segment] = []
    pos = 0
    for brk in [*_LINE_BREAK.finditer(chars), None]:
        end = brk.start() if brk else len(chars)
        start, stop = _strip_range(chars, pos, end)
        pos = brk.end() if brk else len(chars)
        if start >= stop:
            continue
        rects = _rects(textpage, start, stop - start)
        if not rects:
            continue  # nothing drawn (e.g. only generated characters)
        groups = _gap_groups(rects)
        if len(groups) == 1:
            x0, y0, x1, y1 = _union(rects)
            segments.append(Segment(start, stop, x0, y0, x1, y1))
        else:
            segments.extend(_split_line(textpage, chars, start, stop, groups))
    return segments


def _rects(textpage: pdfium.PdfTextPage, start: int, count: int) -> list[Box]:
    """PDFium's rectangles for runs of text in a char range (one per text object and line)."""
    raw = textpage.raw
    left, top, right, bottom = (ctypes.c_double() for _ in range(4))
    rects: list[Box] = []
    for i in range(pdfium_c.FPDFText_CountRects(raw, start, count)):
        if pdfium_c.FPDFText_GetRect(raw, i, left, top, right, bottom):
            rects.append((left.value, bottom.value, right.value, top.value))
    return rects


def _strip_range(chars: str, start: int, end: int) -> tuple[int, int]:
    while start < end and chars[start].isspace():
        start += 1
    while end > start and chars[end - 1].isspace():
        end -= 1
    return start, end


def _union(rects: list[Box]) -> Box:
    return (
        min(r[0] for r in rects),
        min(r[1] for r in rects),
        max(r[2] for r in rects),
        max(r[3] for r in rects),
    )


def _gap_groups(rects: list[Box]) -> list[Box]:
    """Boxes of a line's parts: runs split by gaps wider than the text height, or
    by not sharing the line's height at all (PDFium sometimes joins a footer in
    tiny type to the last line of a column)."""
    height = median(r[3] - r[1] for r in rects)
    min_gap = max(6.0, height)
    groups: list[list[float]] = []
    for x0, y0, x1, y1 in sorted(rects):
        for g in reversed(groups):
            if x0 - g[2] <= min_gap and min(y1, g[3]) > max(y0, g[1]):
                g[0], g[1], g[2], g[3] = (
                    min(g[0], x0),
                    min(g[1], y0),
                    max(g[2], x1),
                    max(g[3], y1),
                )
                break
        else:
            groups.append([x0, y0, x1, y1])
    return [(g[0], g[1], g[2], g[3]) for g in groups]


def _split_line(
    textpage: pdfium.PdfTextPage, chars: str, start: int, stop: int, groups: list[Box]
) -> list[Segment]:
    """Cut one PDFium line into one segment per group of glyphs.

    Usually the groups sit side by side and the line's characters run left to
    right, so each cut is found by bisection over glyph positions (a few box
    lookups); otherwise every glyph is placed by its own box.
    """
    side_by_side = all(a[2] < b[0] for a, b in itertools.pairwise(groups))
    if not side_by_side:
        return _split_line_per_glyph(textpage, chars, start, stop, groups)
    raw = textpage.raw
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))

    seen: dict[int, float] = {}

    def glyph_x(i: int) -> float:
        # A space (PDFium's own may have no box) counts as the glyph before it.
        while i > start and chars[i].isspace():
            i -= 1
        if i not in seen:
            found = pdfium_c.FPDFText_GetCharBox(raw, i, left, right, bottom, top)
            seen[i] = (left.value + right.value) / 2 if found else math.nan
        return seen[i]

    positions = range(start, stop)
    middles = [(groups[g - 1][2] + groups[g][0]) / 2 for g in range(1, len(groups))]
    cuts = [start]
    for middle in middles:
        cuts.append(
            start + bisect_left(positions, middle, lo=cuts[-1] - start, key=glyph_x)
        )
    cuts.append(stop)
    # Bisection assumed left-to-right order: confirm it where it matters.
    ordered = (
        all(
            start < cut < stop and glyph_x(cut - 1) < middle <= glyph_x(cut)
            for cut, middle in zip(cuts[1:-1], middles, strict=True)
        )
        and glyph_x(start) <= groups[0][2]
        and glyph_x(stop - 1) >= groups[-1][0]
    )
    if not ordered:
        return _split_line_per_glyph(textpage, chars, start, stop, groups)
    out = []
    for g, box in enumerate(groups):
        first, end = _strip_range(chars, cuts[g], cuts[g + 1])
        if first < end:
            out.append(Segment(first, end, *box))
    return out


def _split_line_per_glyph(
    textpage: pdfium.PdfTextPage, chars: str, start: int, stop: int, groups: list[Box]
) -> list[Segment]:
    raw = textpage.raw
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    out: list[Segment] = []
    current: list[Any] | None = None  # [group, start, end, x0, y0, x1, y1]
    for i in range(start, stop):
        if chars[i].isspace() or not pdfium_c.FPDFText_GetCharBox(
            raw, i, left, right, bottom, top
        ):
            if current is not None:
                current[2] = i + 1
            continue
        x_mid = (left.value + right.value) / 2
        y_mid = (bottom.value + top.value) / 2
        group = min(
            range(len(groups)), key=lambda g: _distance(x_mid, y_mid, groups[g])
        )
        if current is not None and current[0] == group:
            current[2] = i + 1
            current[3] = min(current[3], left.value)
            current[4] = min(current[4], bottom.value)
            current[5] = max(current[5], right.value)
            current[6] = max(current[6], top.value)
            continue
        if current is not None:
            out.append(_finish_segment(chars, current))
        current = [group, i, i + 1, left.value, bottom.value, right.value, top.value]
    if current is not None:
        out.append(_finish_segment(chars, current))
    return [s for s in out if s.end > s.start]


def _finish_segment(chars: str, item: list[Any]) -> Segment:
    start, end = _strip_range(chars, item[1], item[2])
    return Segment(start, end, item[3], item[4], item[5], item[6])


def _distance(x: float, y: float, box: Box) -> float:
    dx = max(box[0] - x, 0.0, x - box[2])
    dy = max(box[1] - y, 0.0, y - box[3])
    return math.hypot(dx, dy)


def _raw_boxes(
    page: pdfium.PdfPage,
    textpage: pdfium.PdfTextPage,
    raw_text: str,
    pieces: list[Piece] | None,
) -> list[Box | None]:
    """A box (top-left origin) for each character of the raw page text."""
    indices: list[int] = []
    if pieces is None:
        indices = list(range(len(raw_text)))
    else:
        for piece in pieces:
            if isinstance(piece, str):
                indices.extend([-1] * len(piece))
            else:
                indices.extend(range(piece[0], piece[1]))
    to_view = _user_to_view(page)
    raw = textpage.raw
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    boxes: list[Box | None] = []
    for i in indices:
        if i < 0 or pdfium_c.FPDFText_IsGenerated(raw, i) == 1:
            boxes.append(None)
        elif pdfium_c.FPDFText_GetCharBox(raw, i, left, right, bottom, top):
            ax, ay = to_view(left.value, bottom.value)
            bx, by = to_view(right.value, top.value)
            boxes.append((min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)))
        else:
            boxes.append(None)
    return boxes


def _user_to_view(page: pdfium.PdfPage):
    """Map PDF user space to rendered-page points (top-left origin, rotation applied)."""
    width, height = page.get_size()
    # PDFium's own mapping (crop box, /Rotate) at 100 device units per point, so
    # the integer device coordinates it returns are precise to 0.01 pt.
    res = 100
    size_x, size_y = max(1, round(width * res)), max(1, round(height * res))
    dx, dy = ctypes.c_int(), ctypes.c_int()

    def device(x: float, y: float) -> tuple[float, float]:
        pdfium_c.FPDF_PageToDevice(page.raw, 0, 0, size_x, size_y, 0, x, y, dx, dy)
        return dx.value / res, dy.value / res

    ox, oy = device(0.0, 0.0)
    ux, uy = device(1000.0, 0.0)
    vx, vy = device(0.0, 1000.0)
    a, b = (ux - ox) / 1000, (uy - oy) / 1000
    c, d = (vx - ox) / 1000, (vy - oy) / 1000
    return lambda x, y: (ox + a * x + c * y, oy + b * x + d * y)


# -- metadata --------------------------------------------------------------


def _metadata(pdf: pdfium.PdfDocument) -> dict[str, Any]:
    try:
        info = pdf.get_metadata_dict(skip_empty=True)
    except Exception:  # a broken /Info dictionary must not fail the document
        info = {}
    meta: dict[str, Any] = {}
    for key in ("Title", "Author", "Subject", "Keywords", "Creator", "Producer"):
        value = str(info.get(key, "")).replace("\x00", "").strip()
        if value:
            meta[key.lower()] = value[:1000]
    for key, out in (("CreationDate", "created"), ("ModDate", "modified")):
        iso = _pdf_date(str(info.get(key, "")))
        if iso:
            meta[out] = iso
    try:
        version = pdf.get_version()
        if version:
            meta["pdf_version"] = f"{version // 10}.{version % 10}"
    except Exception:
        pass
    return meta


def _pdf_date(value: str) -> str | None:
    match = _PDF_DATE.match(value.strip())
    if not match:
        return None
    year, month, day, hour, minute, second, sign, tz_h, tz_m = match.groups()
    try:
        tz = UTC
        if sign in ("+", "-") and tz_h:
            offset = timedelta(hours=int(tz_h), minutes=int(tz_m or 0))
            tz = timezone(offset if sign == "+" else -offset)
        return datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=tz,
        ).isoformat()
    except ValueError:
        return None
