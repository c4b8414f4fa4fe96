"""The canonical text every offset in DocuIQ points into.

Normalization is deliberately minimal: it makes text safe to store and index
(one newline convention, no control characters, NFC so equal text compares
equal) but never folds quotes, dashes or ligatures, because a citation's
`normalized_content[start:end]` must be the document's own wording. Folding for
matching is the citation engine's job, on its own copy.

`normalize_page` is idempotent, so the ingest service may normalize pages that an
extractor already normalized.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass

__all__ = [
    "PAGE_SEPARATOR",
    "NormalizedText",
    "normalize_page",
    "normalize_page_with_map",
    "normalize_pages",
    "page_for_offset",
]

# Two newlines read as a paragraph break, so chunking prefers to cut between pages.
PAGE_SEPARATOR = "\n\n"

# Vertical tab, form feed, NEL and the Unicode line/paragraph separators all end a
# line in some producer's output; keeping them as line breaks keeps words apart.
_NEWLINES = re.compile(r"\r\n?|[\v\f\x85\u2028\u2029]")
# C0/C1 controls other than \t and \n (which survive the step above), and lone
# surrogates, which no database or JSON encoder accepts.
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff]")
_NEWLINE_CHARS = frozenset("\r\n\v\f\x85\u2028\u2029")
# No-break spaces (some PDFs write every space as U+00A0) become plain spaces,
# one character for one so every offset holds: answers, "Copy quote" and
# exports would otherwise carry them, and a grid wraps mid-word at the others.
_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " "})


@dataclass(frozen=True)
class NormalizedText:
    content: str
    # page_starts[p] is where 0-based page p begins in `content`; page_starts[0] == 0.
    page_starts: list[int]


def normalize_page(text: str) -> str:
    """NFC, newlines as ``\\n``, no control characters but ``\\n``/``\\t``,
    no-break spaces as spaces, no trailing spaces."""
    text = _NEWLINES.sub("\n", text)
    text = _CONTROLS.sub("", text).translate(_SPACES)
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    # Per line, not a regex with `$`: a huge run of spaces must stay linear.
    return "\n".join(line.rstrip() for line in text.split("\n"))


def normalize_page_with_map(text: str) -> tuple[str, list[int]]:
    """`normalize_page(text)` plus, for each output character, the input index it came from.

    Used to carry per-character data (PDF glyph boxes) through normalization. When
    a character comes from several input characters (``\\r\\n``, a composed accent)
    it maps to the first. If the mapping cannot be made exact (exotic composition
    across clusters), every entry is -1 rather than a wrong index.
    """
    expected = normalize_page(text)
    chars: list[tuple[str, int]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _NEWLINE_CHARS:
            chars.append(("\n", i))
            i += 2 if text.startswith("\r\n", i) else 1
            continue
        if not _CONTROLS.match(ch):
            chars.append((ch.translate(_SPACES), i))
        i += 1
    plain = "".join(c for c, _ in chars)
    if not unicodedata.is_normalized("NFC", plain):
        chars = _nfc_with_map(chars)
    out: list[tuple[str, int]] = []
    line: list[tuple[str, int]] = []
    for item in [*chars, ("\n", -1)]:
        if item[0] == "\n":
            while line and line[-1][0].isspace():
                line.pop()
            out.extend(line)
            out.append(item)
            line = []
        else:
            line.append(item)
    out.pop()  # the sentinel newline
    result = "".join(c for c, _ in out)
    if result != expected:
        return expected, [-1] * len(expected)
    return result, [idx for _, idx in out]


def _nfc_with_map(chars: list[tuple[str, int]]) -> list[tuple[str, int]]:
    # Composition only happens inside a cluster: a character plus what combines with it.
    clusters: list[list[tuple[str, int]]] = []
    for ch, idx in chars:
        if clusters:
            current = "".join(c for c, _ in clusters[-1])
            joined = unicodedata.normalize("NFC", current + ch)
            if unicodedata.combining(ch) or len(joined) <= len(
                unicodedata.normalize("NFC", current)
            ):
                clusters[-1].append((ch, idx))
                continue
        clusters.append([(ch, idx)])
    out: list[tuple[str, int]] = []
    for cluster in clusters:
        first = cluster[0][1]
        out.extend(
            (c, first)
            for c in unicodedata.normalize("NFC", "".join(c for c, _ in cluster))
        )
    return out


def normalize_pages(pages: list[str]) -> NormalizedText:
    """Join normalized pages with :data:`PAGE_SEPARATOR`.

    Page p (0-based) is ``content[page_starts[p]:page_starts[p + 1]]`` (its text plus
    the separator); its own text is exactly ``normalize_page(pages[p])``. No pages
    gives one empty page, so `page_starts` is never empty.
    """
    normalized = [normalize_page(p) for p in pages] or [""]
    starts: list[int] = []
    pos = 0
    for page in normalized:
        starts.append(pos)
        pos += len(page) + len(PAGE_SEPARATOR)
    return NormalizedText(content=PAGE_SEPARATOR.join(normalized), page_starts=starts)


def page_for_offset(page_starts: list[int], offset: int) -> int:
    """The 1-based page holding `offset`; separators belong to the page before them."""
    return max(1, bisect_right(page_starts, offset))
