"""Split normalized text into overlapping, searchable chunks, as offsets only.

A chunk is a span ``content[start:end]``: the text is never copied or altered, so
a citation found in a chunk maps straight back to the revision. Boundaries sit at
whitespace, preferring (in order) a paragraph break, the end of a sentence, a line
break, then any space, and each chunk starts and ends on a non-space character.

The one exception: a single "word" (a run of non-space characters, such as a
base64 blob or a table rule) longer than twice the target is cut every
`target_chars` characters, because keeping it whole would make a chunk too big to
index or show. Only such a word is ever cut inside.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ingest.normalize import page_for_offset

__all__ = ["ChunkSpan", "chunk_text"]

_SPACE = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S")
_SENTENCE_END = frozenset(".!?;:。！？")
_CLOSERS = frozenset("\"')]}»”’")
# Breaks of each kind are only taken past this fraction of the target, so a chunk
# is not cut short just because a paragraph happened to end early.
_MIN_FILL = 0.5


@dataclass(frozen=True)
class ChunkSpan:
    index: int
    start: int
    end: int
    page_start: int
    page_end: int


def chunk_text(
    content: str,
    page_starts: list[int],
    *,
    target_chars: int = 1200,
    overlap_chars: int = 150,
) -> list[ChunkSpan]:
    """Chunk spans covering every non-space character of `content`.

    Chunks are about `target_chars` long (a chunk runs past the target only to
    finish a word of up to ``2 * target_chars``); consecutive chunks overlap by up
    to `overlap_chars`, starting the overlap on a word boundary.
    """
    if target_chars < 2:
        raise ValueError("target_chars must be at least 2")
    overlap_chars = max(0, min(overlap_chars, target_chars // 2))
    spans: list[ChunkSpan] = []
    match = _NON_SPACE.search(content)
    start = match.start() if match else len(content)
    end = start
    n = len(content)
    ahead: tuple[int, bool] | None = None  # the next chunk's end, if known
    while start < n:
        end, hard_cut = ahead or _chunk_end(content, start, target_chars, min_end=end)
        ahead = None
        spans.append(
            ChunkSpan(
                index=len(spans),
                start=start,
                end=end,
                page_start=page_for_offset(page_starts, start),
                page_end=page_for_offset(page_starts, end - 1),
            )
        )
        following = _NON_SPACE.search(content, end)
        if following is None:
            break
        if hard_cut:
            start = end  # continue the long word where it was cut
            continue
        overlap_start = _overlap_start(content, start, end, overlap_chars)
        start = following.start()
        # Overlap only when the next chunk can still reach new text within its
        # target, and stays within 2 * target + overlap: the space between the
        # two chunks is no overlap, and the chunk may have to finish a word of
        # up to 2 * target.
        if overlap_start is not None and start < overlap_start + target_chars:
            overlapped = _chunk_end(content, overlap_start, target_chars, min_end=end)
            if overlapped[0] - overlap_start <= 2 * target_chars + overlap_chars:
                start, ahead = overlap_start, overlapped
    return spans


def _chunk_end(
    content: str, start: int, target: int, *, min_end: int
) -> tuple[int, bool]:
    """Where the chunk starting at `start` ends (after `min_end`), and whether that cuts a word."""
    n = len(content)
    limit = start + target
    if limit >= n or not _NON_SPACE.search(content, limit):
        return len(content.rstrip()), False  # the rest fits
    base = max(start, min_end)
    floor = start + int(target * _MIN_FILL)
    best: dict[str, int] = {}
    # Whitespace runs that begin inside the window can end the chunk; the run at
    # `limit` itself counts (the word before it ends exactly at the limit).
    for run in _SPACE.finditer(content, base + 1, limit + 1):
        cut = run.start()
        if content[cut - 1].isspace():
            continue  # the tail of the run that ended the previous chunk
        best["space"] = cut
        if cut < floor:
            continue
        kind = _break_kind(content, run, start)
        if kind == "paragraph":
            best["paragraph"] = best["sentence"] = best["line"] = cut
        elif kind == "sentence":
            best["sentence"] = best["line"] = cut
        elif kind == "line":
            best["line"] = cut
    for kind in ("paragraph", "sentence", "line", "space"):
        if kind in best:
            return best[kind], False
    # One word runs from before the window's usable part past the limit.
    word = _NON_SPACE.search(content, base)
    if word is None:  # only blanks after `min_end`: the rest fits
        return len(content.rstrip()), False
    word_start = word.start()
    gap = _SPACE.search(content, word_start)
    word_end = gap.start() if gap else n
    if word_end - word_start <= 2 * target:
        return word_end, False
    cut = max(limit, word_start + target)
    while cut > word_start + 1 and unicodedata.combining(content[cut]):
        cut -= 1  # keep an accent with its letter
    return cut, True


def _break_kind(content: str, run: re.Match[str], start: int) -> str:
    newlines = content.count("\n", run.start(), run.end())
    if newlines >= 2:
        return "paragraph"
    i = run.start() - 1
    while i > start and content[i] in _CLOSERS:
        i -= 1
    if content[i] in _SENTENCE_END:
        return "sentence"
    return "line" if newlines else "space"


def _overlap_start(content: str, start: int, end: int, overlap: int) -> int | None:
    """The first word start in ``[end - overlap, end)`` after `start`, if any."""
    lo = max(start + 1, end - overlap)
    if lo >= end:
        return None
    if not content[lo].isspace() and content[lo - 1].isspace():
        return lo
    for run in _SPACE.finditer(content, lo, end):
        if run.end() < end:
            return run.end()
    return None
