"""Pure: split a revision's text into pages and highlight segments for display."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Segment:
    text: str
    mark: bool = False


@dataclass(frozen=True)
class PageView:
    number: int
    start: int
    end: int
    segments: list[Segment]


def page_views(
    content: str, page_starts: list[int], *, highlight: tuple[int, int] | None = None
) -> list[PageView]:
    starts = page_starts or [0]
    bounds = [*starts[1:], len(content)]
    pages = []
    for number, (start, end) in enumerate(zip(starts, bounds, strict=True), start=1):
        segments = [Segment(content[start:end])]
        if highlight is not None:
            lo, hi = max(highlight[0], start), min(highlight[1], end)
            if lo < hi:
                segments = [
                    s
                    for s in (
                        Segment(content[start:lo]),
                        Segment(content[lo:hi], mark=True),
                        Segment(content[hi:end]),
                    )
                    if s.text
                ]
        pages.append(PageView(number=number, start=start, end=end, segments=segments))
    return pages
