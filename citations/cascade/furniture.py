"""Page furniture: running headers, footers and page numbers.

Text extracted from a paginated document runs each page's header and footer
into the body at every page break ("...the fees of the\\nIndependent
Auditor's Report   Page 5\\nCompany's counsel"). Whitespace folding makes
"the fees of the Independent Auditor" a match, though no page says it: a
quote may read across a page break, but only by skipping the furniture.

Furniture is recognised from the pages themselves: a line among the first or
last few of its page whose text recurs at the edges of many pages (with
other numbers, as "Page 5" and "Page 6", of most pages), or that is nothing
but a page number ("7", "- 7 -", "Page 7 of 22"). Without page offsets (or form feeds)
there are no pages, and nothing is furniture.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache

from rapidfuzz.distance import Indel

from citations.cascade.folding import fold_text, ocr_skeleton

# Headers and footers sit within this many non-blank lines of a page's edge
# (a two-line legend and a date line above a page number are common).
EDGE_LINES = 5
# A line recurring at the edges of this share of pages (and at least two) is
# furniture. A body line a contract repeats lands on a page edge now and then,
# rarely on three pages in ten.
MIN_PAGE_SHARE = 0.25
# A line recurring with other numbers ("Report, page 5") must be on this share
# of pages: headings that differ by a number ("ARTICLE 4") often open a page,
# but not most of them.
MIN_PAGE_SHARE_NUMBERED = 0.5

_PAGE_NUMBER = re.compile(
    r"\W*(?:page\W*)?(?:\d{1,4}|[ivx]{1,5})(?:\W*(?:of|/)\W*\d{1,4})?\W*",
    re.IGNORECASE,
)
_LINE = re.compile(r"[^\r\n\f]*\S[^\r\n\f]*")
_WORD = re.compile(r"\w+")


def _pages(text: str, page_starts: Sequence[int] | None) -> list[int]:
    if page_starts and len(page_starts) > 1:
        return sorted({0, *(int(s) for s in page_starts if 0 <= int(s) <= len(text))})
    if "\f" in text:
        return [0] + [m.end() for m in re.finditer("\f", text)]
    return [0]


def _keys(line: str) -> tuple[str, str]:
    """The line as written, and with its numbers left out."""
    key = " ".join(line.split()).casefold()
    return key, re.sub(r"\d+", "#", key)


@lru_cache(maxsize=4)
def furniture(
    text: str, page_starts: tuple[int, ...] | None
) -> tuple[tuple[int, int], ...]:
    """Sorted [start, end) of every furniture line of `text`."""
    return tuple((a, b) for a, b, _ in _furniture_lines(text, page_starts))


RECURRING = "recurring"
PAGE_NUMBER = "page number"
_FIRST_NUMBER = re.compile(r"\d{1,4}")


@lru_cache(maxsize=4)
def _furniture_lines(
    text: str, page_starts: tuple[int, ...] | None
) -> tuple[tuple[int, int, str], ...]:
    """Every furniture line of `text`, with what makes it furniture: it
    recurs at the edges of the pages, or it is a bare page number."""
    starts = _pages(text, page_starts)
    if len(starts) < 2:
        return ()
    ends = [*starts[1:], len(text)]
    edges: list[tuple[int, int, str, str]] = []
    pages_with: dict[str, set[int]] = defaultdict(set)
    pages_with_numbered: dict[str, set[int]] = defaultdict(set)
    for page, (start, end) in enumerate(zip(starts, ends, strict=True)):
        lines = [(m.start(), m.end()) for m in _LINE.finditer(text, start, end)]
        if len(lines) > 2 * EDGE_LINES:
            lines = lines[:EDGE_LINES] + lines[-EDGE_LINES:]
        for a, b in lines:
            key, numbered_key = _keys(text[a:b])
            edges.append((a, b, key, numbered_key))
            pages_with[key].add(page)
            pages_with_numbered[numbered_key].add(page)
    recurring = max(2, MIN_PAGE_SHARE * len(starts))
    numbered = max(2, MIN_PAGE_SHARE_NUMBERED * len(starts))
    found: list[tuple[int, int, str]] = []
    for a, b, key, numbered_key in edges:
        # A bare number is a page number or nothing, however often it recurs.
        if _PAGE_NUMBER.fullmatch(text, a, b):
            found.append((a, b, PAGE_NUMBER))
        elif (
            len(pages_with[key]) >= recurring
            or len(pages_with_numbered[numbered_key]) >= numbered
        ):
            found.append((a, b, RECURRING))
    return tuple(found)


def _numbering(
    text: str, lines: Sequence[tuple[int, int, str]], starts: list[int]
) -> dict[tuple[int, int], int]:
    """{(start, end): how far its number is from its page's} of each bare
    page-number line with digits."""
    offsets: dict[tuple[int, int], int] = {}
    for a, b, kind in lines:
        number = _FIRST_NUMBER.search(text, a, b)
        if kind == PAGE_NUMBER and number:
            page = bisect_right(starts, a)  # 1-based
            offsets[(a, b)] = int(number.group()) - page
    return offsets


@lru_cache(maxsize=4)
def without_furniture(text: str, page_starts: tuple[int, ...] | None) -> str | None:
    """`text` with its proven furniture blanked (each character a space, so
    every offset stays), or None when there is none. Proven: a running header
    or footer (recurring at the edges of the pages), or a bare page number
    that counts the pages as at least one other page's does ("5" on page 5
    and "6" on page 6, or "7" on page 5 and "8" on page 6). A number alone on
    a line at a page's edge that numbers no page is left as text: a quote
    that leaves it out still adds nothing the source lacks."""
    lines = _furniture_lines(text, page_starts)
    if not lines:
        return None
    starts = _pages(text, page_starts)
    offsets = _numbering(text, lines, starts)
    agreeing: dict[int, int] = defaultdict(int)
    for offset in offsets.values():
        agreeing[offset] += 1
    blanked = list(text)
    for a, b, kind in lines:
        if kind == PAGE_NUMBER and agreeing[offsets.get((a, b), -(10**6))] < 2:
            continue
        blanked[a:b] = " " * (b - a)
    out = "".join(blanked)
    return out if out != text else None


def furniture_inside(
    text: str, page_starts: tuple[int, ...] | None, start: int, end: int
) -> bool:
    """Does a furniture line lie inside [start, end)?"""
    lines = furniture(text, page_starts)
    i = bisect_left(lines, (start, -1))
    return i < len(lines) and lines[i][0] < end


def _tokens(text: str) -> list[str]:
    return [ocr_skeleton(w) for w in _WORD.findall(fold_text(text))]


def furniture_difference(
    text: str,
    start: int,
    end: int,
    quote: str,
    page_starts: Sequence[int] | None,
) -> str | None:
    """Why the span [start, end) of `quote` reads page furniture as text, or
    None. A quote of the furniture alone (one line or several) is its own
    business; one that skips it across a page break is fine, and so is one
    that copies it whole between the body text either side."""
    lines = furniture(text, tuple(page_starts) if page_starts else None)
    if not lines:
        return None
    first = bisect_right(lines, (start, len(text) + 1)) - 1
    inside = [
        (a, b)
        for a, b in lines[max(0, first) : bisect_left(lines, (end, -1))]
        if a < end and b > start
    ]
    if not inside or (
        len(inside) == 1 and inside[0][0] <= start and end <= inside[0][1]
    ):
        return None
    body, at = [], start
    for a, b in inside:
        body += _tokens(text[at:a])
        at = max(at, b)
    if not body + _tokens(text[at:end]):
        # Furniture alone, over a page break ("7\f8"): nothing read as text.
        return None
    quoted = _tokens(quote)
    span = _tokens(text[start:end])
    whole = Indel.distance(quoted, span)
    for a, b in inside:
        line = _tokens(text[a:b])
        without = _tokens(text[start:a]) + _tokens(text[b:end])
        # Aligning the quote with the whole span costs one deletion per
        # furniture word it leaves out: it skips the line. One that reads
        # the whole line, between body text on both sides, copies the
        # page as extracted, furniture in view ("merger, Page 2 acquisition").
        apart = Indel.distance(quoted, without)
        skipped = whole - apart >= len(line)
        through = (
            apart - whole >= len(line)
            and _tokens(text[start:a])
            and _tokens(text[b:end])
        )
        if not (skipped or through):
            return _reads(text, a, b)
    return None


def _reads(text: str, a: int, b: int) -> str:
    shown = " ".join(text[a:b].split())
    return (
        f"the quote reads the page header or footer “{shown[:80]}” as part of the text"
    )
