"""Approximate span boundaries: where exactly does a damaged quote start and end?

`rapidfuzz.fuzz.partial_ratio_alignment` slides a window of the quote's
length, so the span it reports can never be longer than the quote and may stop
early (rapidfuzz/RapidFuzz#309, #323); a global alignment of the quote against
a wider window leaves the ends ambiguous. We instead run Myers' bit-parallel
approximate matching (Myers 1999, Hyyrö's formulation): for each window
position it gives the edit distance of the best alignment of the pattern that
ends there, with a free start. Run forward with the quote's tail it finds the
end; run on reversed strings with the quote's head it finds the start. Python
integers are the bit vectors, laid along the window, and the head or tail is
streamed through them: one Python step per character of it.
"""

from __future__ import annotations

from itertools import accumulate, repeat
from operator import or_, sub
from typing import NamedTuple

# Head and tail length used to place boundaries of long quotes: long enough to
# be unambiguous, short enough that few Python steps place each boundary.
EDGE = 64


def end_scores(pattern: str, text: str) -> list[int]:
    """scores[j] = min edit distance between `pattern` and any substring of
    `text` that ends at j + 1 (semi-global: the start is free)."""
    m = len(pattern)
    n = len(text)
    if m == 0:
        return [0] * n
    if n == 0:
        return []
    # The Python loop runs once per character of the string streamed through
    # the bit vectors, so the shorter one is streamed: the pattern, for the
    # head or tail (EDGE) against its window (EDGE plus twice the slack).
    if m > n:
        return _streaming_text(pattern, text)
    return _streaming_pattern(pattern, text)


def _streaming_text(pattern: str, text: str) -> list[int]:
    m = len(pattern)
    peq: dict[str, int] = {}
    for i, c in enumerate(pattern):
        peq[c] = peq.get(c, 0) | (1 << i)
    mask = (1 << m) - 1
    high = 1 << (m - 1)
    pv = mask
    mv = 0
    score = m
    scores: list[int] = []
    append = scores.append
    get = peq.get
    for c in text:
        eq = get(c, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        # mask ^ x is ~x & mask for x within mask; the carry of the addition
        # may set bit m of xh, which the shift below masks off again.
        ph = mv | (mask ^ (xh | pv))
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        # No carry-in of 1: the top row of the DP is all zeros (free start).
        ph = (ph << 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (mask ^ (xv | ph))
        mv = ph & xv
        append(score)
    return scores


def _streaming_pattern(pattern: str, text: str) -> list[int]:
    # The same table transposed: bit j of a vector is text position j, and
    # what comes out is its last row (pattern fully used) as vertical deltas.
    n = len(text)
    peq = _positions(text, 0)
    get = peq.get
    mask = (1 << n) - 1
    # Row 0 is all zeros (free start): no vertical deltas to begin with.
    pv = 0
    mv = 0
    for eq in map(get, pattern, repeat(0)):
        # The carry may set bit n of d0 and so of hp: harmless, bits below n
        # never depend on bits above, and x and pv are masked.
        d0 = (((eq & pv) + pv) ^ pv) | eq | mv
        hp = mv | (mask ^ (d0 | pv))
        hn = pv & d0
        # Carry-in of 1: against the empty text each pattern character costs one.
        x = ((hp << 1) | 1) & mask
        mv = x & d0
        pv = ((hn << 1) | (mask ^ (x | d0))) & mask
    up, down = _bits(pv, n), _bits(mv, n)
    return _sums(up, down, len(pattern))


def paired_scores(
    pattern: str, text: str, other_pattern: str, other_text: str
) -> tuple[list[int], list[int]]:
    """end_scores of both pairs, for patterns of one length (a quote's head
    and tail): one Python loop steps through both."""
    m = len(pattern)
    n1 = len(text)
    n2 = len(other_text)
    if m != len(other_pattern) or not (m and n1 and n2):
        return end_scores(pattern, text), end_scores(other_pattern, other_text)
    # The texts lie side by side in one vector with a zero bit between them:
    # the addition's carry out of the first stops there, no shift moves a
    # bit from one into the other unmasked (the second's lowest bit of x is
    # its carry-in, set anyway), so each half computes what it would alone.
    gap = n1 + 1
    get = _positions(text, 0).get
    get_other = _positions(other_text, gap).get
    mask = ((1 << n1) - 1) | (((1 << n2) - 1) << gap)
    carry_in = 1 | (1 << gap)
    pv = 0
    mv = 0
    # Match vectors looked up in C, before the loop.
    eqs = map(
        or_, map(get, pattern, repeat(0)), map(get_other, other_pattern, repeat(0))
    )
    for eq in eqs:
        d0 = (((eq & pv) + pv) ^ pv) | eq | mv
        hp = mv | (mask ^ (d0 | pv))
        hn = pv & d0
        x = ((hp << 1) | carry_in) & mask
        mv = x & d0
        pv = ((hn << 1) | (mask ^ (x | d0))) & mask
    up, down = _bits(pv, gap + n2), _bits(mv, gap + n2)
    return _sums(up[:n1], down[:n1], m), _sums(up[gap:], down[gap:], m)


def _positions(text: str, offset: int) -> dict[str, int]:
    """Each character of `text` -> the bits of its positions, from `offset`."""
    peq: dict[str, int] = {}
    get = peq.get
    bit = 1 << offset
    for c in text:
        peq[c] = get(c, 0) | bit
        bit <<= 1
    return peq


def _bits(vector: int, n: int) -> bytes:
    """Bit j of `vector` as byte j (b"0" or b"1"), for j < n."""
    return format(vector, f"0{n}b")[::-1].encode()


def _sums(up: bytes, down: bytes, start: int) -> list[int]:
    # Running sum of the deltas (+1 where `up`, -1 where `down`), in C.
    scores = list(accumulate(map(sub, up, down), initial=start))
    del scores[0]
    return scores


def _is_word(c: str) -> bool:
    return c.isalnum()


def _lowest(scores: list[int]) -> tuple[int, list[int]]:
    """The lowest score and every index where it occurs (found in C)."""
    low = min(scores)
    where = []
    j = scores.index(low)
    try:
        while True:
            where.append(j)
            j = scores.index(low, j + 1)
    except ValueError:
        return low, where


def best_end(
    text: str, pattern: str, lo: int, hi: int, expected: int
) -> tuple[int, int]:
    """Best end offset (exclusive) in text[lo:hi] for `pattern`'s tail.

    Returns (end, distance). Ties go to an end that does not cut a word when
    the pattern ends inside one, then to the end closest to `expected`.
    """
    lo, hi = max(0, lo), min(len(text), hi)
    tail = pattern[-EDGE:]
    scores = end_scores(tail, text[lo:hi]) if lo < hi else []
    return _chosen_end(text, tail, lo, scores, expected)


def _chosen_end(
    text: str, tail: str, lo: int, scores: list[int], expected: int
) -> tuple[int, int]:
    if not scores:
        return max(0, min(expected, len(text))), len(tail)
    low, where = _lowest(scores)
    last = tail[-1]
    best: tuple[int, int, int] | None = None
    for j in where:
        end = lo + j + 1
        if _is_word(last):
            cut = end < len(text) and _is_word(text[end])
            penalty = 2 * (int(cut) + int(not _is_word(text[end - 1])))
            penalty += int(text[end - 1] != last)
        else:
            penalty = int(text[end - 1] != last)
        key = (penalty, abs(end - expected), end)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[2], low


def best_start(
    text: str, pattern: str, lo: int, hi: int, expected: int
) -> tuple[int, int]:
    """Best start offset in text[lo:hi] for `pattern`'s head (mirror of best_end)."""
    lo, hi = max(0, lo), min(len(text), hi)
    head = pattern[:EDGE]
    window = text[lo:hi] if lo < hi else ""
    scores = end_scores(head[::-1], window[::-1])
    return _chosen_start(text, head, hi, scores, expected)


def _chosen_start(
    text: str, head: str, hi: int, scores: list[int], expected: int
) -> tuple[int, int]:
    if not scores:
        return max(0, min(expected, len(text))), len(head)
    low, where = _lowest(scores)
    first = head[0]
    best: tuple[int, int, int] | None = None
    for j in where:
        start = hi - j - 1
        if _is_word(first):
            cut = start > 0 and _is_word(text[start - 1])
            penalty = 2 * (int(cut) + int(not _is_word(text[start])))
            penalty += int(text[start] != first)
        else:
            penalty = int(text[start] != first)
        key = (penalty, abs(start - expected), start)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[2], low


class Placement(NamedTuple):
    start: int
    end: int
    head_distance: int  # edit distance of the pattern's head at `start`
    tail_distance: int  # and of its tail at `end`
    # A boundary landed on the outer edge of its search window, so the best
    # one may lie beyond it.
    at_edge: bool


def place(
    text: str,
    pattern: str,
    start_guess: int,
    end_guess: int,
    slack: int,
    end_slack: int | None = None,
) -> Placement:
    """Refine an estimated span [start_guess, end_guess) of `pattern` in `text`.

    The head is searched within `slack` of the start guess and the tail within
    `end_slack` (default `slack`) of the end guess. The placement has
    0 <= start, end <= len(text), possibly empty or inverted when nothing
    sensible aligns (callers reject those), how well head and tail align, and
    whether a boundary may lie beyond its window (a caller with a tight slack
    widens it then).
    """
    n = len(text)
    if end_slack is None:
        end_slack = slack

    def clamp(x: int) -> int:
        # A negative bound would slice from the end of the text.
        return max(0, min(x, n))

    head_len = min(len(pattern), EDGE)
    tail_len = min(len(pattern), EDGE)
    s_lo = clamp(start_guess - slack)
    s_hi = clamp(start_guess + head_len + slack)
    e_lo = clamp(end_guess - tail_len - end_slack)
    e_hi = clamp(end_guess + end_slack)
    head = pattern[:EDGE]
    tail = pattern[-EDGE:]
    head_scores, tail_scores = paired_scores(
        head[::-1], text[s_lo:s_hi][::-1], tail, text[e_lo:e_hi]
    )
    start, head_distance = _chosen_start(text, head, s_hi, head_scores, start_guess)
    if start > e_lo:
        # The end may not precede the start: its window shrinks, and
        # alignments that began before the start no longer count.
        end, tail_distance = best_end(text, pattern, start, e_hi, end_guess)
    else:
        end, tail_distance = _chosen_end(text, tail, e_lo, tail_scores, end_guess)
    at_edge = (s_lo > 0 and start <= s_lo + 1) or (e_hi < n and end >= e_hi - 1)
    return Placement(start, end, head_distance, tail_distance, at_edge)


def place_in_window(text: str, pattern: str, lo: int, hi: int) -> tuple[int, int, int]:
    """Best span of the whole `pattern` anywhere in text[lo:hi].

    Returns (start, end, distance); for small windows (elided parts, short
    documents, a cited chunk) where there is no estimate to refine.
    """
    lo, hi = max(0, lo), min(len(text), hi)
    scores = end_scores(pattern, text[lo:hi]) if lo < hi else []
    if not scores:
        return lo, lo, len(pattern)
    low = min(scores)
    # The first end with the lowest distance, then the start for that end.
    j = scores.index(low)
    end = lo + j + 1
    # Let the tie-breaking prefer word boundaries around the chosen end.
    end, _ = best_end(
        text, pattern, max(lo, end - len(pattern) - 2), min(hi, end + 2), end
    )
    start_lo = max(lo, end - 2 * len(pattern) - 2)
    start, _ = best_start(text, pattern, start_lo, end, end - len(pattern))
    return start, end, low
