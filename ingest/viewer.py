"""What the document viewer shows, read from its address: the spans to
highlight (the cited one first, then the citation's others), the page, the
zoom; and one page's text cut into highlighted segments. Pure: no Django.

Addresses (ingest.links builds them; a person may paste one):
    ?at=START&end=END[&spans=S-E,S-E][&page=N][&zoom=fit|100|150]
    #page=N&span=S-E        (the same, read by the page's script)
Offsets index the revision's normalized text; anything unreadable is
ignored, never an error: a shared link to an older revision still opens.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

MAX_SPANS = 20
ZOOMS = {"fit": "Fit width", "100": "100%", "150": "150%"}
# Pixels per PDF point the page image is rendered at, per zoom: the fit and
# 100% images stay sharp up to ~1,200 CSS pixels wide, 150% up to ~1,800.
RENDER_SCALE = {"fit": 2.0, "100": 2.0, "150": 3.0}
POINTS_TO_CSS_PX = 96 / 72


@dataclass(frozen=True)
class Span:
    start: int
    end: int

    @property
    def key(self) -> str:
        return f"{self.start}-{self.end}"


@dataclass(frozen=True)
class Segment:
    text: str
    mark: str = ""  # "" | "current" (the span opened) | "other" (the citation's others)
    starts: int = 0  # the number of the span whose first segment this is (1: id="at")


@dataclass(frozen=True)
class ViewerState:
    spans: list[Span]  # the current span first
    page: int
    zoom: str

    @property
    def current(self) -> Span | None:
        return self.spans[0] if self.spans else None


def parse_span(value: str, length: int) -> Span | None:
    """ "S-E" as a span inside a text of `length` characters, else None."""
    start, sep, end = (value or "").strip().partition("-")
    if not sep or not start.isdigit() or not end.isdigit():
        return None
    span = Span(int(start), int(end))
    if not 0 <= span.start < span.end <= length:
        return None
    return span


def page_of(page_starts: list[int], offset: int) -> int:
    """1-based page holding `offset` (as DocumentRevision.page_for_offset)."""
    return max(1, bisect.bisect_right(page_starts or [0], offset))


def pages_of(page_starts: list[int], span: Span) -> range:
    """The pages a span touches: a quote across a page break is on both."""
    return range(
        page_of(page_starts, span.start), page_of(page_starts, span.end - 1) + 1
    )


def viewer_state(
    query: Mapping[str, str], *, length: int, page_starts: list[int]
) -> ViewerState:
    """The viewer's state from its query string."""
    spans: list[Span] = []
    at, end = query.get("at", ""), query.get("end", "")
    if at.isdigit():
        first = parse_span(f"{at}-{end if end.isdigit() else int(at) + 1}", length)
        if first is None and int(at) < length:  # an empty or overlong end
            first = Span(int(at), min(length, int(at) + 1))
        if first is not None:
            spans.append(first)
    for raw in (query.get("spans") or "").split(",")[: MAX_SPANS * 2]:
        span = parse_span(raw, length)
        if span is not None and span not in spans and len(spans) < MAX_SPANS:
            spans.append(span)
    page_count = max(1, len(page_starts or [0]))
    page_raw = query.get("page", "")
    if page_raw.isdigit() and 1 <= int(page_raw) <= page_count:
        page = int(page_raw)
    elif spans:
        page = page_of(page_starts, spans[0].start)
    else:
        page = 1
    zoom = query.get("zoom", "fit")
    return ViewerState(spans=spans, page=page, zoom=zoom if zoom in ZOOMS else "fit")


def page_bounds(page_starts: list[int], page: int, length: int) -> tuple[int, int]:
    starts = page_starts or [0]
    start = starts[page - 1]
    end = starts[page] if page < len(starts) else length
    return start, end


def page_segments(
    content: str, page_starts: list[int], page: int, spans: list[Span]
) -> list[Segment]:
    """Page `page`'s text cut at every span's edges; the first span is the
    current one (wins where spans overlap), the rest are "other"."""
    lo, hi = page_bounds(page_starts, page, len(content))
    cuts = {lo, hi}
    for span in spans:
        for edge in (span.start, span.end):
            if lo < edge < hi:
                cuts.add(edge)
    edges = sorted(cuts)
    current = spans[0] if spans else None
    segments: list[Segment] = []
    started: set[int] = set()
    for a, b in pairwise(edges):
        mark, starts = "", 0
        if current is not None and current.start <= a and b <= current.end:
            mark = "current"
        covering = [
            n for n, s in enumerate(spans, start=1) if s.start <= a and b <= s.end
        ]
        if covering and not mark:
            mark = "other"
        for n in covering:
            if n not in started:
                started.add(n)
                starts = starts or n
        segments.extend(_trimmed(Segment(content[a:b], mark, starts)))
    return segments


def _trimmed(segment: Segment) -> list[Segment]:
    """A marked segment without the blank lines at its edges: a span that
    runs over a page break ends in one, and a highlighted blank line reads
    as a stray bar."""
    if not segment.mark:
        return [segment]
    body = segment.text.strip()
    if not body:
        return [Segment(segment.text)]
    lead = segment.text[: len(segment.text) - len(segment.text.lstrip())]
    trail = segment.text[len(segment.text.rstrip()) :]
    parts = [Segment(lead), Segment(body, segment.mark, segment.starts), Segment(trail)]
    return [p for p in parts if p.text]


def span_links(
    spans: list[Span], page_starts: list[int]
) -> list[tuple[int, Span, range]]:
    """Each span with its number (1 = the current) and its pages."""
    return [(i, s, pages_of(page_starts, s)) for i, s in enumerate(spans, start=1)]
