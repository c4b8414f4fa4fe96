"""Reading order for multi-column PDF pages, from line-segment boxes alone.

PDFium returns text in content-stream order and joins glyphs that share a
baseline into one line. That is right for single-column pages, and wrong when a
producer writes two columns row by row: each "line" then holds the left and the
right column side by side. The PDF extractor therefore cuts lines at wide
horizontal gaps into segments, and this module decides from their boxes whether
the page has columns:

* a gutter is a vertical strip, at least about one line-height wide, that almost
  no segment crosses (a few full-width lines such as a heading or a page number
  may), with a real column on each side;
* each column must hold a fair share of the text in lines that fill most of its
  width and hold a dozen characters or more (this keeps tables, forms and
  tab-aligned lists, whose cells are short, in row order), and neighbouring
  columns must stand side by side for most of their height;
* full-width segments cut the page into horizontal bands; within a band the
  columns are read left to right, each top to bottom.

If the page does not qualify, `reading_order` returns None and the extractor
keeps PDFium's order untouched: the common single-column case costs nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import accumulate, pairwise
from statistics import median

__all__ = ["Segment", "may_have_columns", "reading_order"]

_MIN_SEGMENTS = 6
_MIN_COLUMN_SEGMENTS = 3
_MIN_COLUMN_SHARE = 0.10  # of the characters outside full-width segments
_MAX_SPANNING_SHARE = 0.5  # of all characters
_MIN_FILL = 0.4  # median segment width / column width
_MIN_LINE_CHARS = 12  # median characters per line of a column of running text
_SPANNING_ALLOWANCE = 0.2  # of segments that may cross a gutter
_MIN_SIDE_BY_SIDE = 0.5  # vertical overlap of neighbouring columns / the shorter one


@dataclass(frozen=True)
class Segment:
    """A run of a line's characters: PDFium char indices [start, end) and a box.

    Coordinates are PDF user space (y grows upwards), as PDFium reports them.
    """

    start: int
    end: int
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def chars(self) -> int:
        return self.end - self.start

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def y_mid(self) -> float:
        return (self.y0 + self.y1) / 2


def may_have_columns(boxes: list[tuple[float, float, float, float]]) -> bool:
    """Cheap pre-check on a page's text-run boxes: is there any gutter at all?

    Most pages have none, and then the line-by-line work is skipped.
    """
    segs = [Segment(0, 1, *box) for box in boxes if box[2] > box[0] and box[3] > box[1]]
    return len(segs) >= _MIN_SEGMENTS and bool(_find_gutters(segs))


def reading_order(segments: list[Segment]) -> list[list[Segment]] | None:
    """Lines (each a left-to-right list of segments) in reading order, or None.

    None means "no columns found": keep the order the segments came in.
    """
    segs = [s for s in segments if s.x1 > s.x0 and s.y1 > s.y0]
    if len(segs) < _MIN_SEGMENTS:
        return None
    # Vertical text (margin notes, "printed on" stamps) is read after the page.
    line_height = median(s.height for s in segs)
    vertical = [
        s for s in segs if s.height > 3 * line_height and s.height > 2 * (s.x1 - s.x0)
    ]
    segs = [s for s in segs if s not in vertical]
    if len(segs) < _MIN_SEGMENTS:
        return None
    gutters = _find_gutters(segs)
    while gutters:
        columns = _split(segs, gutters)
        if columns is not None:
            return _order(columns, gutters) + [[s] for s in vertical]
        # Drop the narrowest gutter and try again: a three-column guess may be a
        # two-column page with a table inside one column.
        gutters.remove(min(gutters, key=lambda g: g[1] - g[0]))
    return None


def _find_gutters(segs: list[Segment]) -> list[tuple[float, float]]:
    left = min(s.x0 for s in segs)
    right = max(s.x1 for s in segs)
    width = math.ceil(right - left) + 2
    delta = [0] * (width + 1)
    for s in segs:
        delta[int(s.x0 - left)] += 1
        delta[min(width, math.ceil(s.x1 - left) + 1)] -= 1
    coverage = list(accumulate(delta[:width]))
    allowance = max(2, int(len(segs) * _SPANNING_ALLOWANCE))
    min_width = max(8.0, median(s.height for s in segs))
    gutters: list[tuple[float, float]] = []
    run_start: int | None = None
    seen_text = False
    for x, covered in enumerate(coverage):
        low = covered <= allowance
        if low and run_start is None and seen_text:
            run_start = x
        elif not low:
            if run_start is not None and x - run_start >= min_width:
                core = _core(coverage, run_start, x)
                if core[1] - core[0] >= min_width / 2:
                    gutters.append((left + core[0], left + core[1]))
            run_start = None
            seen_text = True
    # A low-coverage strip that reaches the right edge is a ragged margin, not a gutter.
    return gutters


def _core(coverage: list[int], start: int, stop: int) -> tuple[int, int]:
    """The widest stretch of [start, stop) at the strip's lowest coverage.

    The strip's edges are crossed by the ends of the longer column lines; only the
    core is crossed by nothing but full-width lines.
    """
    lowest = min(coverage[start:stop])
    best = (start, start)
    run: int | None = None
    for x in range(start, stop + 1):
        if x < stop and coverage[x] == lowest:
            run = x if run is None else run
        elif run is not None:
            if x - run > best[1] - best[0]:
                best = (run, x)
            run = None
    return best


def _crosses(s: Segment, gutter: tuple[float, float]) -> bool:
    return s.x0 < gutter[1] and s.x1 > gutter[0]


def _split(
    segs: list[Segment], gutters: list[tuple[float, float]]
) -> tuple[list[Segment], list[list[Segment]]] | None:
    """(spanning segments, one list per column) if every column is a real column."""
    gutters.sort()
    spanning = [s for s in segs if any(_crosses(s, g) for g in gutters)]
    columns: list[list[Segment]] = [[] for _ in range(len(gutters) + 1)]
    for s in segs:
        if any(_crosses(s, g) for g in gutters):
            continue
        columns[sum(1 for g in gutters if s.x0 >= g[1])].append(s)
    total = sum(s.chars for s in segs)
    body = total - sum(s.chars for s in spanning)
    if total == 0 or body <= total * (1 - _MAX_SPANNING_SHARE):
        return None
    for column in columns:
        if len(column) < _MIN_COLUMN_SEGMENTS:
            return None
        if sum(s.chars for s in column) < body * _MIN_COLUMN_SHARE:
            return None
        col_width = max(s.x1 for s in column) - min(s.x0 for s in column)
        if median(s.x1 - s.x0 for s in column) < _MIN_FILL * col_width:
            return None
        if median(s.chars for s in column) < _MIN_LINE_CHARS:
            return None  # cells of a table or a form, which read across
    for a, b in pairwise(columns):
        if _vertical_overlap(a, b) < _MIN_SIDE_BY_SIDE:
            return None  # blocks at different heights are read top to bottom anyway
    return spanning, columns


def _vertical_overlap(a: list[Segment], b: list[Segment]) -> float:
    a0, a1 = min(s.y0 for s in a), max(s.y1 for s in a)
    b0, b1 = min(s.y0 for s in b), max(s.y1 for s in b)
    shorter = min(a1 - a0, b1 - b0)
    return max(0.0, min(a1, b1) - max(a0, b0)) / shorter if shorter > 0 else 0.0


def _order(
    split: tuple[list[Segment], list[list[Segment]]], gutters: list[tuple[float, float]]
) -> list[list[Segment]]:
    spanning, columns = split
    separators = _lines(spanning)
    # Band k lies above separator k (bands run top to bottom; the last is below all).
    bands: list[list[list[Segment]]] = [
        [[] for _ in columns] for _ in range(len(separators) + 1)
    ]
    for c, column in enumerate(columns):
        for s in column:
            band = sum(1 for line in separators if line[0].y_mid > s.y_mid)
            bands[band][c].append(s)
    out: list[list[Segment]] = []
    for k, band_columns in enumerate(bands):
        for column in band_columns:
            out.extend(_lines(column))
        if k < len(separators):
            out.append(separators[k])
    return out


def _lines(segs: list[Segment]) -> list[list[Segment]]:
    """Group segments into visual lines, top to bottom, each sorted left to right."""
    lines: list[list[Segment]] = []
    for s in sorted(segs, key=lambda s: (-s.y1, s.x0)):
        if lines:
            first = lines[-1][0]
            # Both ways, so one tall segment cannot swallow several lines.
            if first.y0 <= s.y_mid <= first.y1 and s.y0 <= first.y_mid <= s.y1:
                lines[-1].append(s)
                continue
        lines.append([s])
    for line in lines:
        line.sort(key=lambda s: s.x0)
    return lines
