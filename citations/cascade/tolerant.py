"""Stages 1 and 2: find a quote verbatim, after folding, or approximately.

Approximate search never scans the whole document with an edit distance.
Instead (the seed-and-extend shape of BLAST and minimap2):

1. seed: word pairs of the quote's OCR skeleton are looked up in the
   document's word-pair index (prepared.py), rarest first, within a hit budget;
2. chain: hits are grouped by diagonal (document offset minus quote offset);
   a dense band of hits is a candidate placement of the whole quote;
3. extend: the candidate's start and end are placed exactly with bit-parallel
   approximate matching of the quote's head and tail (align.py);
4. judge: similarity >= 0.85 on OCR skeletons, then the guard (guards.py).

Every offset here is in folded space until `_source_span` maps it back.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from citations.cascade.align import place, place_in_window
from citations.cascade.boundaries import cut_token
from citations.cascade.folding import IGNORABLE, OCR_SAME_LENGTH, fold, ocr_skeleton
from citations.cascade.guards import fuzzy_difference
from citations.cascade.prepared import PreparedText, word_bigrams

SIMILARITY_THRESHOLD = 0.85
# Acceptance uses the OCR-aware similarity (rn/m, l/1 cost nothing); the plain
# folded similarity is what is reported as confidence, and must not fall
# below this floor either: damage that heavy is not worth trusting.
PLAIN_SIMILARITY_FLOOR = 0.75
# Fuzzy matching of a two-word quote would verify nearly anything: quotes this
# short must match exactly or after folding.
FUZZY_MIN_WORDS = 3
FUZZY_MIN_CHARS = 15
# Edit distance over a 20k-char quote is slow and such "quotes" are pages.
FUZZY_MAX_CHARS = 20_000
# Seed hits examined per quote, rarest word pairs first, from at most this
# many word pairs: enough to find a quote whose words are half damaged.
# At least MIN_SEED_PAIRS pairs are used when they fit in 4 * HIT_BUDGET.
HIT_BUDGET = 400
MIN_SEED_PAIRS = 6
MAX_SEED_PAIRS = 40
# When even the rarest pair is everywhere, the first FIRST_PAIR_CAP hits of
# the two rarest are scored by up to MAX_FILTER_PAIRS - 2 other pairs.
FIRST_PAIR_CAP = 500
MAX_FILTER_PAIRS = 7
# Stage 1 checks at most this many index hits before scanning the text.
EXACT_INDEX_MAX_HITS = 1_000
# Candidates with fewer than this share of the best one's anchors are noise.
MIN_ANCHOR_SHARE = 0.2
# Boilerplate repeats a sentence with another party or number, and OCR damage
# can cost the true place more anchors than a look-alike keeps: up to
# CANDIDATES placements are ranked by a cheap whole-window similarity and the
# best JUDGED of them are placed exactly and guarded.
CANDIDATES = 12
JUDGED = 6
# Windows this small are aligned whole when seeding finds nothing (a cited
# chunk, a short document, the gap of an elided quote).
DIRECT_WINDOW = 6_000
DIRECT_MAX_PATTERN = 600

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Found:
    start: int  # source offsets, trimmed of whitespace
    end: int
    match_type: str  # "exact" | "normalized" | "fuzzy"
    similarity: float  # of the folded strings; reported as confidence
    in_region: bool
    ocr_similarity: float = 1.0  # after collapsing OCR confusions


@dataclass(frozen=True)
class Near:
    """The closest rejected placement, kept so the UI can show a diff."""

    start: int
    end: int
    similarity: float
    reason: str


@dataclass(frozen=True)
class Search:
    found: Found | None
    near: Near | None
    reason: str  # why nothing was found; empty when found


@dataclass(frozen=True)
class FoldedQuote:
    folded: str
    skeleton: str  # same-length OCR folding (offsets shared with `folded`)
    ocr: str  # full OCR skeleton, for similarity

    @classmethod
    def of(cls, quote: str) -> FoldedQuote:
        return _folded_quote(quote)

    @property
    def words(self) -> int:
        return len(_WORD.findall(self.folded))

    @property
    def fuzzy_eligible(self) -> bool:
        return (
            self.words >= FUZZY_MIN_WORDS
            and FUZZY_MIN_CHARS <= len(self.folded) <= FUZZY_MAX_CHARS
        )


def _exact_via_index(prepared: PreparedText, quote: str) -> int | bool | None:
    """First verbatim occurrence of `quote`, found through the word-pair index
    instead of scanning the whole text; False when the index cannot tell.

    Folding is local, so a verbatim occurrence at source offset o is also a
    folded occurrence at the folded offset of o, provided the quote starts
    and ends with a letter or digit (no whitespace run or line-break hyphen
    to fold differently at its edges). The postings of one interior word pair
    list every folded occurrence, so checking each one is complete.
    """
    if not (quote[:1].isalnum() and quote[-1:].isalnum()):
        return False
    q = FoldedQuote.of(quote)
    pairs = word_bigrams(q.skeleton)[1:-1]
    if not pairs:
        return False
    offset, key = min(pairs, key=lambda p: len(prepared.bigram_postings(p[1])))
    if len(prepared.bigram_postings(key)) > EXACT_INDEX_MAX_HITS:
        return False  # low-entropy text: one C scan beats thousands of checks
    folded = prepared.folded
    for t in prepared.bigram_postings(key):
        at = t - offset
        if at >= 0 and folded.text.startswith(q.folded, at):
            source = folded.source_start(at)
            if prepared.text.startswith(quote, source):
                return source
    return None


@lru_cache(maxsize=128)
def _folded_quote(quote: str) -> FoldedQuote:
    # Stage 1, stage 2 and every candidate placement look at the same quote.
    folded = fold(quote).text.strip(" ")
    return FoldedQuote(
        folded=folded,
        skeleton=folded.translate(OCR_SAME_LENGTH),
        ocr=ocr_skeleton(folded),
    )


def find_exact(
    text: str,
    quote: str,
    region: tuple[int, int] | None,
    prepared: PreparedText | None = None,
) -> Found | None:
    """Stage 1: the quote verbatim, in the region first, else anywhere; an
    occurrence that cuts a word or number is skipped (see boundaries.py).

    With an indexed `prepared` text the whole-text search uses the index
    (a miss in 1 MB costs ~0.5 ms as a scan)."""
    if region is not None:
        at = _whole_occurrence(text, quote, region[0], region[1])
        if at >= 0:
            return Found(at, at + len(quote), "exact", 1.0, True)
    via_index = (
        _exact_via_index(prepared, quote)
        if prepared is not None and prepared.indexed
        else False
    )
    if via_index is None:
        return None
    at = via_index if via_index is not False else text.find(quote)
    if at >= 0 and cut_token(text, at, at + len(quote)) is not None:
        at = _whole_occurrence(text, quote, at + 1, len(text))
    if at < 0:
        return None
    inside = region is not None and region[0] <= at and at + len(quote) <= region[1]
    return Found(at, at + len(quote), "exact", 1.0, inside)


def _whole_occurrence(text: str, quote: str, lo: int, hi: int) -> int:
    """First occurrence of quote in text[lo:hi] that cuts no token, or -1."""
    at = text.find(quote, lo, hi)
    while at >= 0 and cut_token(text, at, at + len(quote)) is not None:
        at = text.find(quote, at + 1, hi)
    return at


def folded_region(
    prepared: PreparedText, region: tuple[int, int] | None
) -> tuple[int, int] | None:
    if region is None:
        return None
    folded = prepared.folded
    return folded.folded_offset(region[0]), folded.folded_offset(region[1])


def source_span(
    prepared: PreparedText, f_start: int, f_end: int
) -> tuple[int, int] | None:
    """Map a folded span to source offsets, trimmed of whitespace and
    invisible characters at both ends; None when nothing is left."""
    folded = prepared.folded.text
    while f_start < f_end and folded[f_start] == " ":
        f_start += 1
    while f_end > f_start and folded[f_end - 1] == " ":
        f_end -= 1
    if f_start >= f_end:
        return None
    start, end = prepared.folded.source_span(f_start, f_end)
    text = prepared.text
    while start < end and (text[start].isspace() or text[start] in IGNORABLE):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in IGNORABLE):
        end -= 1
    return (start, end) if start < end else None


def _interior_bigram(quote: FoldedQuote) -> tuple[int, str] | None:
    # The first and last words of a quote may be partial words of the
    # document ("nation of" inside "termination of"), so they are not keys.
    pairs = word_bigrams(quote.skeleton)[1:-1]
    return pairs[0] if pairs else None


def _find_normalized(
    prepared: PreparedText, quote: FoldedQuote, f_region: tuple[int, int] | None
) -> tuple[int, bool] | None:
    folded = prepared.folded.text
    q = quote.folded
    if f_region is not None:
        at = folded.find(q, f_region[0], f_region[1])
        if at >= 0:
            return at, True
    if prepared.indexed:
        pairs = word_bigrams(quote.skeleton)[1:-1]
        if pairs:
            offset, key = min(pairs, key=lambda p: len(prepared.bigram_postings(p[1])))
            for t in prepared.bigram_postings(key):
                at = t - offset
                if at >= 0 and folded.startswith(q, at):
                    return at, _inside(at, at + len(q), f_region)
            return None
    at = folded.find(q)
    if at < 0:
        return None
    return at, _inside(at, at + len(q), f_region)


def _inside(a: int, b: int, region: tuple[int, int] | None) -> bool:
    return region is not None and region[0] <= a and b <= region[1]


_OFFSET_BITS = 16  # quote offsets fit: FUZZY_MAX_CHARS < 2**16


def _seeds(
    prepared: PreparedText, quote: FoldedQuote, f_region: tuple[int, int] | None
) -> list[tuple[int, int, int]]:
    """Candidate placements (start guess, end guess, anchor count), best first."""
    m = len(quote.skeleton)
    postings: list[tuple[int, int, list[int]]] = []
    for offset, key in word_bigrams(quote.skeleton):
        hits = prepared.bigram_postings(key)
        if not hits:
            continue
        if f_region is not None:
            lo = bisect_left(hits, f_region[0] - m)
            hi = bisect_left(hits, f_region[1])
            hits = hits[lo:hi]
            if not hits:
                continue
        postings.append((len(hits), offset, hits))
    if not postings:
        return []
    postings.sort(key=lambda p: p[0])
    band = max(8, m // 10)
    # Diagonal and quote offset packed in one int, so sorting stays in C.
    codes: list[int] = []
    if postings[0][0] > HIT_BUDGET:
        # Low-entropy or boilerplate text: even the rarest word pair is
        # everywhere. Diagonals of the two rarest pairs are candidates, and
        # each is scored by how many other pairs sit on (nearly) the same
        # diagonal; any single pair may be damaged at the true place.
        candidates: dict[int, int] = {}
        for _, offset, hits in postings[:2]:
            for t in hits[:FIRST_PAIR_CAP]:
                candidates.setdefault(t - offset, offset)
        support = dict.fromkeys(candidates, 0)
        for _, other_offset, other in postings[2:MAX_FILTER_PAIRS]:
            for d in support:
                k = bisect_left(other, d + other_offset - band)
                if k < len(other) and other[k] <= d + other_offset + band:
                    support[d] += 1
        best = sorted(support, key=support.__getitem__, reverse=True)[:HIT_BUDGET]
        codes = [(d << _OFFSET_BITS) | candidates[d] for d in best]
    else:
        for used, (count, offset, hits) in enumerate(postings):
            total = len(codes) + count
            if codes and used >= MIN_SEED_PAIRS and total > HIT_BUDGET:
                break
            if codes and (total > 4 * HIT_BUDGET or used >= MAX_SEED_PAIRS):
                break
            codes.extend(((t - offset) << _OFFSET_BITS) | offset for t in hits)
    codes.sort()
    mask = (1 << _OFFSET_BITS) - 1
    diagonals = [c >> _OFFSET_BITS for c in codes]
    # Dense diagonals: count hits per band-wide bucket, score each pair of
    # neighbouring buckets (a cluster may straddle two), best pairs first.
    buckets = Counter(d // band for d in diagonals)
    pairs = Counter({b: n + buckets.get(b + 1, 0) for b, n in buckets.items()})
    for b, n in buckets.items():
        if b - 1 not in buckets:
            pairs[b - 1] = n
    chosen: list[tuple[int, int, int]] = []
    blocked: list[tuple[int, int]] = []
    for b, count in pairs.most_common(CANDIDATES * 4):
        if len(chosen) >= CANDIDATES or (
            chosen and count < MIN_ANCHOR_SHARE * chosen[0][2]
        ):
            break
        lo_d, hi_d = b * band, (b + 2) * band
        if any(lo_d <= y and x <= hi_d for x, y in blocked):
            continue
        i = bisect_left(diagonals, lo_d)
        j = bisect_left(diagonals, hi_d)
        members = codes[i:j]
        offsets = [c & mask for c in members]
        first = members[offsets.index(min(offsets))]
        last = members[offsets.index(max(offsets))]
        chosen.append((first >> _OFFSET_BITS, (last >> _OFFSET_BITS) + m, count))
        blocked.append((lo_d - 2 * band, hi_d + 2 * band))
    return chosen


# One glyph read as two: a span must not start or end in the middle of one.
_SPLIT_GLYPHS = (
    ("rn", "m"),
    ("cl", "d"),
    ("vv", "w"),
    ("ri", "n"),
    ("li", "h"),
    ("ii", "u"),
)


def _widen_split_glyphs(
    folded: str, quote: str, f_start: int, f_end: int
) -> tuple[int, int]:
    for pair, glyph in _SPLIT_GLYPHS:
        if (
            quote.startswith(glyph)
            and folded.startswith(pair, f_start - 1)
            and f_start > 0
        ):
            f_start -= 1
            break
    for pair, glyph in _SPLIT_GLYPHS:
        if quote.endswith(glyph) and folded.startswith(pair, f_end - 1):
            f_end += 1
            break
    return f_start, f_end


def judge_span(
    prepared: PreparedText, quote: FoldedQuote, f_start: int, f_end: int, region
) -> Found | Near | None:
    folded = prepared.folded.text
    if not 0 <= f_start < f_end <= len(folded):
        return None
    f_start, f_end = _widen_split_glyphs(folded, quote.folded, f_start, f_end)
    while f_start < f_end and folded[f_start] == " ":
        f_start += 1
    while f_end > f_start and folded[f_end - 1] == " ":
        f_end -= 1
    span = source_span(prepared, f_start, f_end)
    if span is None:
        return None
    candidate = folded[f_start:f_end]
    similarity = Levenshtein.normalized_similarity(quote.ocr, ocr_skeleton(candidate))
    plain = Levenshtein.normalized_similarity(quote.folded, candidate)
    if similarity < SIMILARITY_THRESHOLD or plain < PLAIN_SIMILARITY_FLOOR:
        return Near(*span, plain, f"closest passage is only {plain:.2f} similar")
    reason = fuzzy_difference(quote.folded, candidate, prepared.vocabulary)
    if reason:
        return Near(*span, plain, reason)
    return Found(*span, "fuzzy", plain, _inside(f_start, f_end, region), similarity)


def _rank(
    skeleton: str, quote: FoldedQuote, seeds: list[tuple[int, int, int]]
) -> list[tuple[int, int, int]]:
    """Seeds by how similar their rough window is to the quote (C speed)."""
    if len(seeds) <= 1:
        return seeds
    q = quote.skeleton
    return sorted(
        seeds,
        key=lambda s: (
            -Levenshtein.normalized_similarity(q, skeleton[max(0, s[0]) : s[1]])
        ),
    )


def _slack(m: int) -> int:
    return min(96, 12 + m // 12)


def find_fuzzy(
    prepared: PreparedText,
    quote: FoldedQuote,
    f_region: tuple[int, int] | None,
    *,
    region_only: bool = False,
) -> Search:
    """Approximate placement (see module docstring)."""
    k = prepared.skeleton
    m = len(quote.skeleton)
    near: Near | None = None
    tried: set[tuple[int, int]] = set()

    def consider(result: Found | Near | None) -> Found | None:
        nonlocal near
        if isinstance(result, Found):
            return result
        if isinstance(result, Near) and (
            near is None or result.similarity > near.similarity
        ):
            near = result
        return None

    scopes: list[tuple[int, int] | None] = [f_region] if f_region is not None else []
    if not region_only:
        scopes.append(None)
    for scope in scopes:
        seeds = _rank(k, quote, _seeds(prepared, quote, scope))
        for s0, e0, _count in seeds[:JUDGED]:
            start, end = place(k, quote.skeleton, s0, e0, _slack(m))
            if end - start < max(1, m // 2) or (start, end) in tried:
                continue
            tried.add((start, end))
            found = consider(judge_span(prepared, quote, start, end, f_region))
            if found:
                return Search(found, None, "")
        lo, hi = scope if scope is not None else (0, len(k))
        if not seeds and hi - lo <= DIRECT_WINDOW and m <= DIRECT_MAX_PATTERN:
            start, end, _ = place_in_window(k, quote.skeleton, lo, hi)
            if end - start >= max(1, m // 2) and (start, end) not in tried:
                tried.add((start, end))
                found = consider(judge_span(prepared, quote, start, end, f_region))
                if found:
                    return Search(found, None, "")
    if near is not None:
        return Search(None, near, f"no match: {near.reason}")
    return Search(None, None, "no similar passage found")


def find_tolerant(
    prepared: PreparedText,
    quote: str,
    region: tuple[int, int] | None,
    *,
    region_only: bool = False,
    allow_fuzzy: bool = True,
) -> Search:
    """Stage 2: normalized match, then fuzzy match, each guarded."""
    q = FoldedQuote.of(quote)
    if not q.folded:
        return Search(None, None, "quote is empty after normalization")
    if len(q.folded) * SIMILARITY_THRESHOLD > len(prepared.folded.text):
        # OCR drops characters, so a source a little shorter may still hold it.
        return Search(None, None, "quote is longer than the source text")
    f_region = folded_region(prepared, region)
    at = _find_normalized(prepared, q, f_region)
    if at is not None and (at[1] or not region_only):
        span = source_span(prepared, at[0], at[0] + len(q.folded))
        if span is not None:
            return Search(Found(*span, "normalized", 1.0, at[1]), None, "")
    if not allow_fuzzy:
        return Search(None, None, "not found after normalization")
    if not q.fuzzy_eligible:
        if q.words < FUZZY_MIN_WORDS or len(q.folded) < FUZZY_MIN_CHARS:
            return Search(
                None, None, "not found, and too short for an approximate match"
            )
        return Search(None, None, "not found, and too long for an approximate match")
    return find_fuzzy(prepared, q, f_region, region_only=region_only)
