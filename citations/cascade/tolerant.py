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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain, compress, islice, repeat
from operator import add, and_, floordiv, itemgetter, mul, sub
from typing import NamedTuple

from rapidfuzz.distance import Levenshtein

from citations.cascade.align import EDGE, place, place_in_window
from citations.cascade.boundaries import cut_token, disallowed_cut
from citations.cascade.context import dropped_negation
from citations.cascade.folding import IGNORABLE, OCR_SAME_LENGTH, fold, ocr_skeleton
from citations.cascade.glyphs import merged_once
from citations.cascade.guards import (
    codes,
    missing_numbers_reason,
    numbered_difference,
    numbers_missing,
)
from citations.cascade.prepared import NUMBER_MIN_CHARS, PreparedText
from citations.cascade.refusal import Check, first_refusal, rule_of

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
# Before MIN_SEED_PAIRS keys are in, at most 4 * HIT_BUDGET hits are taken;
# when even the rarest key is over the budget (low-entropy text), up to
# HIT_CAP: the true place gathers a vote from each intact key while chance
# coincidences stay rare.
HIT_CAP = 8_000
# Stage 1 checks at most this many index hits before scanning the text.
EXACT_INDEX_MAX_HITS = 1_000
# Below this a verbatim search scans the text (a miss in 100 KB costs ~50 us)
# rather than fold the quote to look it up (~50 us for 500 characters).
EXACT_INDEX_MIN_CHARS = 200_000
# Candidates with fewer than this share of the best one's anchors are noise.
MIN_ANCHOR_SHARE = 0.2
# Boilerplate repeats a sentence with another party or number, and OCR damage
# can cost the true place more anchors than a look-alike keeps: up to
# CANDIDATES placements are ranked by a cheap whole-window similarity and the
# best JUDGED of them are placed exactly and guarded.
CANDIDATES = 12
# When the best place holds at most this many anchors, up to WEAK_CANDIDATES
# places are ranked (see _seeds).
WEAK_ANCHORS = 3
WEAK_CANDIDATES = 64
JUDGED = 6
# ... and only those whose rough window is at least this similar to the
# quote: a window at 0.45 (another stretch of low-entropy text) never places
# a passing span, and judging a 2,000-character one costs a millisecond.
# (In the evaluation the least similar window that placed a verified quote
# was 0.82 similar.)
JUDGED_MIN_WINDOW = 0.6
# When no candidate passes, a second round seeds from every key of the quote
# up to HIT_CAP hits: in templated text the rarest keys may all come from one
# sentence that recurs through the document, and only the keys of the
# sentence beside it tell the true place from the other copies.
# A damaged true place then holds fewer anchors than clean copies of the
# template, but its window is the most similar one: the second round ranks
# up to WIDE_CANDIDATES windows of WIDE_RANKED_CHARS in all, and judges the
# best WIDE_JUDGED of those at least WIDE_MIN_WINDOW similar (a passing span
# is 0.85 similar; a rough window's edges may be off by a little).
WIDE_CANDIDATES = 128
WIDE_RANKED_CHARS = 32_000
WIDE_MIN_WINDOW = 0.8
WIDE_JUDGED = 3
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
    """The closest rejected placement, kept so the UI can show a diff.
    `located`: it is the quote's passage and a rule refused what it says
    ("found, differs"), not merely the most similar stretch of text."""

    start: int
    end: int
    similarity: float
    reason: str
    located: bool = True
    rule: str | None = None  # the rule that refused it (rules.py)


@dataclass(frozen=True)
class _NumbersDiffer:
    """A placement that lacks a number of the quote, a look-alike copy in
    a template ("Section 11" for "Section 38"). Saying which difference
    reads the meaning of the whole span (~1.5 ms for 2,000 characters), and
    is done only for the one placement a failed search reports."""

    start: int
    end: int
    similarity: float
    quote: str
    candidate: str

    def near(self) -> Near:
        reason = missing_numbers_reason(self.quote, self.candidate)
        return Near(self.start, self.end, self.similarity, reason, rule=rule_of(reason))


@dataclass(frozen=True)
class Search:
    found: Found | None
    near: Near | None
    reason: str  # why nothing was found; empty when found
    rule: str | None = None  # the rule that refused, when nothing was found


@dataclass(frozen=True)
class FoldedQuote:
    folded: str
    skeleton: str  # same-length OCR folding (offsets shared with `folded`)
    ocr: str  # full OCR skeleton, for similarity
    original: str = ""  # the quote as given, before folding

    @classmethod
    def of(cls, quote: str) -> FoldedQuote:
        return _folded_quote(quote)

    @property
    def words(self) -> int:
        return len(self.tokens[1])

    @cached_property
    def tokens(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        """Offsets and words of `skeleton`, as the document is indexed."""
        found = [(m.start(), m.group()) for m in _WORD.finditer(self.skeleton)]
        if not found:
            return (), ()
        offsets, words = zip(*found, strict=True)
        return offsets, words

    @cached_property
    def codes(self) -> frozenset[str]:
        """guards.codes of the original quote: only the guard asks, and only
        stage 2 runs it."""
        return codes(self.original)

    @cached_property
    def digits(self) -> Counter[str]:
        return Counter(filter(str.isdigit, self.folded))

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
    key = _rarest_interior_key(prepared, q)
    if key is None:
        return False
    offset, hits = key
    if len(hits) > EXACT_INDEX_MAX_HITS:
        return False  # low-entropy text: one C scan beats thousands of checks
    folded = prepared.folded
    for at in _starts(folded.text, q.folded, hits, offset):
        source = folded.source_start(at)
        if prepared.text.startswith(quote, source):
            return source
    return None


def _starts(text: str, part: str, hits: Sequence[int], offset: int) -> Iterator[int]:
    """Each t - offset, for t in the sorted `hits`, where `part` starts in
    `text`, in order; the probing runs in C (low-entropy text gives a key
    hundreds of hits)."""
    # A negative start would count from the end of the text.
    first = bisect_left(hits, offset)
    probes = map(sub, islice(hits, first, None), repeat(offset))
    found = compress(
        islice(hits, first, None), map(text.startswith, repeat(part), probes)
    )
    # Only the hits that match are moved back to where `part` starts.
    return map(sub, found, repeat(offset))


# Interior keys tried when looking a verbatim quote up: the rarest of the
# first few is selective enough, and a 2,000-character quote has hundreds.
INTERIOR_KEYS = 24


def _rarest_interior_key(
    prepared: PreparedText, quote: FoldedQuote
) -> tuple[int, Sequence[int]] | None:
    """(quote offset, postings) of the rarest key made of interior words.

    The first and last words of a quote may be partial words of the
    document ("nation of" inside "termination of"), so they are not keys;
    every other word of a folded occurrence is a whole word there, so the
    key's postings list every occurrence."""
    offsets, words = quote.tokens
    n = len(words)
    if n < 4:
        return None
    found = prepared.postings(words, 1, min(n - 2, 1 + INTERIOR_KEYS), n - 1)
    counts = list(map(len, found))
    k = counts.index(min(counts))  # the first of the rarest
    return offsets[1 + k], found[k]


@lru_cache(maxsize=128)
def _folded_quote(quote: str) -> FoldedQuote:
    # Stage 1, stage 2 and every candidate placement look at the same quote.
    folded = fold(quote).text.strip(" ")
    return FoldedQuote(
        folded=folded,
        skeleton=folded.translate(OCR_SAME_LENGTH),
        ocr=ocr_skeleton(folded),
        original=quote,
    )


def find_exact(
    text: str,
    quote: str,
    region: tuple[int, int] | None,
    prepared: PreparedText | None = None,
) -> Found | None:
    """Stage 1: the quote verbatim, in the region first, else anywhere; an
    occurrence that cuts a word or number (boundaries.py) or follows a
    negation that governs it (context.py) is skipped.

    With an indexed `prepared` text the whole-text search uses the index
    (a miss in 1 MB costs ~0.5 ms as a scan)."""
    if region is not None:
        at = _whole_occurrence(text, quote, region[0], region[1])
        if at >= 0:
            return Found(at, at + len(quote), "exact", 1.0, True)
    via_index = (
        _exact_via_index(prepared, quote)
        if prepared is not None
        and prepared.indexed
        and len(text) >= EXACT_INDEX_MIN_CHARS
        else False
    )
    if via_index is None:
        return None
    first = via_index if via_index is not False else 0
    at = _whole_occurrence(text, quote, first, len(text))
    if at < 0:
        return None
    inside = region is not None and region[0] <= at and at + len(quote) <= region[1]
    return Found(at, at + len(quote), "exact", 1.0, inside)


def _whole_occurrence(text: str, quote: str, lo: int, hi: int) -> int:
    """First occurrence of quote in text[lo:hi] that cuts no token and
    follows no negation, or -1."""
    at = text.find(quote, lo, hi)
    while at >= 0 and not _quotable(text, at, at + len(quote)):
        at = text.find(quote, at + 1, hi)
    return at


def _quotable(text: str, start: int, end: int) -> bool:
    # A negated occurrence is left for match_quote to report if no other
    # occurrence is found.
    return (
        cut_token(text, start, end) is None
        and dropped_negation(text, start, end) is None
    )


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


# Folded occurrences of a quote tried for one that cuts no token and follows
# no negation (repeated boilerplate holds many).
MAX_NORMALIZED_TRIES = 50


def _normalized_starts(
    prepared: PreparedText, quote: FoldedQuote, f_region: tuple[int, int] | None
) -> Iterator[tuple[int, bool]]:
    """Folded offsets where the folded quote occurs, in the region first, each
    with whether it lies in the region."""
    folded = prepared.folded.text
    q = quote.folded
    if f_region is not None:
        at = folded.find(q, f_region[0], f_region[1])
        while at >= 0:
            yield at, True
            at = folded.find(q, at + 1, f_region[1])
    if prepared.indexed:
        key = _rarest_interior_key(prepared, quote)
        if key is not None and len(key[1]) <= EXACT_INDEX_MAX_HITS:
            offset, hits = key
            for at in _starts(folded, q, hits, offset):
                yield at, _inside(at, at + len(q), f_region)
            return
    at = folded.find(q)
    while at >= 0:
        yield at, _inside(at, at + len(q), f_region)
        at = folded.find(q, at + 1)


def _find_normalized(
    prepared: PreparedText,
    quote: FoldedQuote,
    f_region: tuple[int, int] | None,
    region_only: bool,
) -> Found | None:
    """The first quotable occurrence of the folded quote; else the first
    occurrence, for match_quote to reject with its reason."""
    first = None
    n = len(quote.folded)
    for at, inside in islice(
        _normalized_starts(prepared, quote, f_region), MAX_NORMALIZED_TRIES
    ):
        if region_only and not inside:
            break
        span = source_span(prepared, at, at + n)
        if span is None:
            continue
        found = Found(*span, "normalized", 1.0, inside)
        if _quotable(prepared.text, *span):
            return found
        first = first or found
    return first


def _inside(a: int, b: int, region: tuple[int, int] | None) -> bool:
    return region is not None and region[0] <= a and b <= region[1]


# A hit is packed as its diagonal and the number of its key among those used
# (MAX_SEED_PAIRS < 2**_KEY_BITS): in documents under 16 MB that fits one
# 30-bit digit, and CPython sorts and does arithmetic on those fastest.
_KEY_BITS = 6
_SCALE = 1 << _KEY_BITS
_KEY_MASK = _SCALE - 1
_PAIRS_ONLY = 1 << 62  # a `selective` no key exceeds


def _postings(
    prepared: PreparedText, quote: FoldedQuote, f_region: tuple[int, int] | None
) -> list[tuple[int, int, Sequence[int]]]:
    """(hit count, quote offset, hits) of each key of the quote, rarest first."""
    offsets, words = quote.tokens
    n = len(words)
    m = len(quote.skeleton)
    out: list[tuple[int, int, Sequence[int]]] = []
    # A word pair is more likely to survive OCR damage than a longer key, so
    # longer keys are used only when even the rarest pair is over the budget
    # (low-entropy text, long boilerplate).
    found = prepared.postings(words, 0, n - 1, n, selective=_PAIRS_ONLY)
    counts = list(map(len, found))
    if min(filter(None, counts), default=0) > HIT_BUDGET:
        found = prepared.postings(words, 0, n - 1, n, selective=HIT_BUDGET)
        counts = list(map(len, found))
    if f_region is None:
        # The common case, with tuples made and filtered in C.
        keys = zip(counts, offsets[: len(found)], found, strict=True)
        out = list(compress(keys, counts))
    else:
        for i, hits in enumerate(found):
            if hits:
                lo = bisect_left(hits, f_region[0] - m)
                hi = bisect_left(hits, f_region[1])
                hits = hits[lo:hi]
            if hits:
                out.append((len(hits), offsets[i], hits))
    out.sort(key=itemgetter(0))
    return out


def _keys_taken(postings: list[tuple[int, int, Sequence[int]]], wide: bool) -> int:
    """How many of the rarest keys seed: those within the budget, or, `wide`,
    every key within HIT_CAP; always one at least."""
    cap = HIT_CAP if postings[0][0] > HIT_BUDGET else 4 * HIT_BUDGET
    total = 0
    for used, (count, _, _) in enumerate(postings):
        total += count
        if used and (
            (used >= _KEY_MASK or total > HIT_CAP)
            if wide
            else (
                used >= MAX_SEED_PAIRS
                or (used >= MIN_SEED_PAIRS and total > HIT_BUDGET)
                or total > cap
            )
        ):
            return used
    return len(postings)


def _codes(
    postings: list[tuple[int, int, Sequence[int]]], taken: int
) -> tuple[list[int], list[int]]:
    """Hits of the `taken` rarest keys, each packed as diagonal (document
    offset minus quote offset) and key number in one int, sorted, so that
    sorting and bucketing stay in C; and the quote offset of each key
    number."""
    codes: list[int] = []
    offsets: list[int] = []
    for used, (_, offset, hits) in enumerate(postings[:taken]):
        # (t - offset) * _SCALE + used, for every hit t.
        codes.extend(
            map(add, map(mul, hits, repeat(_SCALE)), repeat(used - offset * _SCALE))
        )
        offsets.append(offset)
    codes.sort()
    return codes, offsets


# A seed at bucket c blocks diagonals (c - 2) * band to (c + 4) * band, ends
# included; candidate b's, b * band to (b + 2) * band, touch them exactly
# when |b - c| <= _NEAR.
_NEAR = 4


class Seed(NamedTuple):
    start: int  # guesses, from the first and last anchors' diagonals
    end: int
    anchors: int
    first: int  # quote offsets of the first and last anchored keys
    last: int


def _band(m: int) -> int:
    """Width of a diagonal bucket for a quote skeleton of `m` characters."""
    return max(8, m // 10)


def _seeds(
    prepared: PreparedText,
    quote: FoldedQuote,
    f_region: tuple[int, int] | None,
    wide: bool = False,
    wanted: int | None = None,
) -> list[Seed]:
    """Candidate placements (start guess, end guess, anchor count), best first;
    `wanted` overrides how many are kept."""
    postings = _postings(prepared, quote, f_region)
    if not postings:
        return []
    taken = _keys_taken(postings, wide)
    if wide:
        # Worth a second round only when the first left out keys that are
        # still selective; where every key is common (boilerplate repeated
        # word for word, low-entropy text) more of them add only noise.
        first = _keys_taken(postings, False)
        if first == len(postings) or postings[first][0] > HIT_BUDGET:
            return []
    codes, key_offsets = _codes(postings, taken)
    m = len(quote.skeleton)
    band = _band(m)
    # Dense diagonals: hits per pair of neighbouring band-wide buckets (a
    # cluster may straddle two); code // width is the diagonal's bucket.
    width = band * _SCALE
    buckets = list(map(floordiv, codes, repeat(width)))
    pairs = Counter(chain(buckets, map(sub, buckets, repeat(1))))
    # Sorting the bucket numbers, not (bucket, count) pairs: no tuple per
    # bucket for the garbage collector to chase.
    ranked = sorted(pairs, key=pairs.__getitem__, reverse=True)
    # Where no place holds more than a few anchors (heavy damage, or a
    # template repeated through the document), many places tie; the true one
    # is among them, so more are kept for _rank to order by similarity.
    if wanted is None:
        if wide:
            wanted = max(CANDIDATES, min(WIDE_CANDIDATES, WIDE_RANKED_CHARS // m))
        elif pairs[ranked[0]] > WEAK_ANCHORS:
            wanted = CANDIDATES
        else:
            wanted = WEAK_CANDIDATES
    chosen: list[Seed] = []
    blocked: set[int] = set()  # buckets near a chosen one, as set lookups
    for b in ranked[: wanted * 4]:
        count = pairs[b]
        if len(chosen) >= wanted or (
            chosen and count < MIN_ANCHOR_SHARE * chosen[0].anchors
        ):
            break
        if b in blocked:
            continue
        lo_d, hi_d = b * band, (b + 2) * band
        members = codes[
            bisect_left(codes, lo_d * _SCALE) : bisect_left(codes, hi_d * _SCALE)
        ]
        # Hits sharing a quote offset share a key, and among those the
        # first in code order has the lowest diagonal, as it would if codes
        # were ordered by quote offset within a diagonal.
        offsets = list(
            map(key_offsets.__getitem__, map(and_, members, repeat(_KEY_MASK)))
        )
        first, last = min(offsets), max(offsets)
        start = members[offsets.index(first)] >> _KEY_BITS
        end = (members[offsets.index(last)] >> _KEY_BITS) + m
        chosen.append(Seed(start, end, count, first, last))
        blocked.update(range(b - _NEAR, b + _NEAR + 1))
    return chosen


# Numbers of the quote (NUMBER_MIN_CHARS or more) found at no more than
# NUMBER_HITS places seed the second round.
NUMBER_HITS = 8
_NUMBER = re.compile(r"\w*\d\w*")


def _number_seeds(prepared: PreparedText, quote: FoldedQuote) -> list[Seed]:
    """A place for each occurrence of a rare number of the quote (a clause
    number, an amount) as a whole token. In numbered boilerplate the copies
    of a clause differ in little else, and OCR damage to the words around the
    number can break every word pair it is part of. A number found at many
    places tells none of them apart, and is left out."""
    m = len(quote.skeleton)
    seeds: list[Seed] = []
    # Found in the folded quote, where every digit is still a digit.
    for match in _NUMBER.finditer(quote.folded):
        if match.end() - match.start() < NUMBER_MIN_CHARS:
            continue
        offset = match.start()
        places = prepared.number_postings(quote.skeleton[offset : match.end()])
        if len(places) <= NUMBER_HITS:
            seeds.extend(
                Seed(t - offset, t - offset + m, 1, offset, offset) for t in places
            )
    return seeds


# How far a boundary may move to reach the edge of the token it cuts.
SNAP_REACH = 8
_FIRST_WORD = re.compile(r"\w+")


def _last_word(text: str) -> str | None:
    r"""The word `text` ends in, if any. (A search for r"\w+$" tries every
    word of a 2,000-character quote, ~0.1 ms; the reversed text is matched
    at its start.)"""
    found = _FIRST_WORD.match(text[::-1])
    return found.group()[::-1] if found else None


def _closer(quote_word: str, whole: str, part: str) -> bool:
    q = ocr_skeleton(quote_word)
    return _distance(q, whole) < _distance(q, part)


def _distance(q: str, token: str) -> int:
    """Edit distance from a quote word's skeleton to a token's, the token
    read with one glyph OCR made into two put back ("nnust" is "must",
    "withiri" is "within"), if that reads closer."""
    skeleton = ocr_skeleton(token)
    return min(
        Levenshtein.distance(q, reading)
        for reading in (skeleton, *merged_once(skeleton))
    )


def _snap_to_tokens(
    folded: str, quote: str, f_start: int, f_end: int
) -> tuple[int, int]:
    """A boundary inside a token moves to the token's edge when the quote's
    first or last word reads closer to the whole token: "vv|ill" for "will",
    "shoul|cl" for "should", "r|nay" for "may". A token OCR ran into its
    neighbour ("and|continuca" for a quote ending "and") keeps the cut, and
    boundaries.joined_by_ocr judges it."""
    first = _FIRST_WORD.match(quote)
    if first and 0 < f_start < f_end and _inside_token(folded, f_start):
        lo = f_start
        while lo > 0 and f_start - lo <= SNAP_REACH and folded[lo - 1].isalnum():
            lo -= 1
        if not (lo and folded[lo - 1].isalnum()):
            word_end = f_start
            while word_end < f_end and folded[word_end].isalnum():
                word_end += 1
            if _closer(first.group(), folded[lo:word_end], folded[f_start:word_end]):
                f_start = lo
    last = _last_word(quote)
    if last and f_start < f_end < len(folded) and _inside_token(folded, f_end):
        hi = f_end
        while hi < len(folded) and hi - f_end <= SNAP_REACH and folded[hi].isalnum():
            hi += 1
        if not (hi < len(folded) and folded[hi].isalnum()):
            word_start = f_end
            while word_start > f_start and folded[word_start - 1].isalnum():
                word_start -= 1
            if _closer(last, folded[word_start:hi], folded[word_start:f_end]):
                f_end = hi
    return _take_split_piece(folded, quote, f_start, f_end)


# A piece of a word OCR split off ("Lesse e") is this short at most.
SPLIT_PIECE = 3


def _take_split_piece(
    folded: str, quote: str, f_start: int, f_end: int
) -> tuple[int, int]:
    """A span that ends one space before a short piece of its last word
    ("Lesse| e" for "Lessee"), or starts one space after a piece of its
    first word ("T| he"), takes the piece in when the quote's word then
    reads closer."""
    last = _last_word(quote)
    if last and f_end + 1 < len(folded) and folded[f_end] == " ":
        hi = f_end + 1
        while hi < len(folded) and folded[hi].isalnum() and hi - f_end <= SPLIT_PIECE:
            hi += 1
        if hi > f_end + 1 and not (hi < len(folded) and folded[hi].isalnum()):
            word_start = f_end
            while word_start > f_start and folded[word_start - 1].isalnum():
                word_start -= 1
            whole = folded[word_start:f_end] + folded[f_end + 1 : hi]
            if _closer(last, whole, folded[word_start:f_end]):
                f_end = hi
    first = _FIRST_WORD.match(quote)
    if first and f_start >= 2 and folded[f_start - 1] == " ":
        lo = f_start - 1
        while lo > 0 and folded[lo - 1].isalnum() and f_start - 1 - lo < SPLIT_PIECE:
            lo -= 1
        if lo < f_start - 1 and not (lo and folded[lo - 1].isalnum()):
            word_end = f_start
            while word_end < f_end and folded[word_end].isalnum():
                word_end += 1
            whole = folded[lo : f_start - 1] + folded[f_start:word_end]
            if _closer(first.group(), whole, folded[f_start:word_end]):
                f_start = lo
    return f_start, f_end


def _inside_token(folded: str, i: int) -> bool:
    return folded[i - 1].isalnum() and folded[i].isalnum()


def _whole_tokens(folded: str, f_start: int, f_end: int) -> tuple[int, int] | None:
    """The span widened to the edges of the tokens it cuts (SNAP_REACH at
    most); None when it cuts none, or a token reaches further."""
    lo, hi = f_start, f_end
    while lo > 0 and _inside_token(folded, lo):
        lo -= 1
        if f_start - lo > SNAP_REACH:
            return None
    while hi < len(folded) and _inside_token(folded, hi):
        hi += 1
        if hi - f_end > SNAP_REACH:
            return None
    return (lo, hi) if (lo, hi) != (f_start, f_end) else None


def judge_span(
    prepared: PreparedText,
    quote: FoldedQuote,
    f_start: int,
    f_end: int,
    region: tuple[int, int] | None,
) -> Found | Near | _NumbersDiffer | None:
    """The span's edges snapped to tokens (`_snap_to_tokens`), judged; when
    that span fails, or cuts a token OCR did not run into its neighbour, the
    span of the whole tokens it cuts is judged instead: the guard reads
    their damage ("ffhe" for "the", "expotl" for "export"), and a span of
    whole tokens cuts nothing. A span without a number of the quote comes
    back as _NumbersDiffer, its reason not yet worked out."""
    folded = prepared.folded.text
    if not 0 <= f_start < f_end <= len(folded):
        return None
    f_start, f_end = _snap_to_tokens(folded, quote.folded, f_start, f_end)
    result = _judge_snapped(prepared, quote, f_start, f_end, region)
    if isinstance(result, Found) and not disallowed_cut(
        prepared.text, result.start, result.end, fuzzy=True
    ):
        return result
    wider = _whole_tokens(folded, f_start, f_end)
    if wider is None:
        return result
    other = _judge_snapped(prepared, quote, *wider, region)
    if (
        isinstance(other, Found)
        and cut_token(prepared.text, other.start, other.end) is None
    ):
        return other
    return result


def _judge_snapped(
    prepared: PreparedText,
    quote: FoldedQuote,
    f_start: int,
    f_end: int,
    region: tuple[int, int] | None,
) -> Found | Near | _NumbersDiffer | None:
    folded = prepared.folded.text
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
    refused = first_refusal(SNAPPED_CHECKS, (similarity, plain))
    if refused is not None:
        # Not located: the most similar stretch, not the quote's passage.
        return Near(*span, plain, refused, False, refused.rule)
    if numbers_missing(quote.folded, candidate):
        return _NumbersDiffer(*span, plain, quote.folded, candidate)
    reason = numbered_difference(
        quote.folded,
        candidate,
        prepared.vocabulary,
        quote.codes,
        prepared.text[span[0] : span[1]],
        prepared.phrase_count,
    )
    if reason:
        return Near(*span, plain, reason, rule=rule_of(reason))
    return Found(*span, "fuzzy", plain, _inside(f_start, f_end, region), similarity)


def _rank(
    skeleton: str, quote: FoldedQuote, seeds: list[Seed], floor: float
) -> Iterator[Seed]:
    """Seeds by how similar their rough window is to the quote (C speed),
    most similar first, ties in seed order; only those at least `floor`
    similar.

    The first one is usually judged a match, so it is found with cutoffs:
    under a score_cutoff rapidfuzz stops early and returns 0 for a
    similarity below it, and the exact similarity otherwise. The rest are
    ranked only when asked for."""
    if not seeds:
        return
    q = quote.skeleton
    windows = [skeleton[max(0, s.start) : s.end] for s in seeds]
    similarity = Levenshtein.normalized_similarity
    best = 0
    top = similarity(q, windows[0], score_cutoff=floor)
    known = {0: top}
    for i in range(1, len(windows)):
        score = similarity(q, windows[i], score_cutoff=max(top, floor))
        if score >= top:
            known[i] = score
            if score > top:
                best, top = i, score
    if not top:
        return  # none reaches the floor
    yield seeds[best]
    rest = [i for i in range(len(seeds)) if i != best]
    scores = {
        i: known[i] if i in known else similarity(q, windows[i], score_cutoff=floor)
        for i in rest
    }
    for i in sorted(rest, key=lambda i: -scores[i]):
        if not scores[i]:
            return
        yield seeds[i]


def _slack(m: int) -> int:
    return min(96, 12 + m // 12)


# A boundary is placed in a narrow window when an anchor lies this close to
# it: the drift between them is small, and so is the window to search.
NEAR_ANCHOR = 48


def _drift_slack(chars: int, wide: int) -> int:
    # OCR inserts or drops at most about a character in six between an
    # anchor and the boundary it places (spaces, split glyphs, stray marks).
    return min(wide, 4 + chars // 6) if chars <= NEAR_ANCHOR else wide


def _place(skeleton: str, quote: FoldedQuote, seed: Seed) -> tuple[int, int]:
    """Exact boundaries for a seed: in narrow windows where an anchor lies
    near a boundary, then, if a boundary may lie outside its window or
    aligns badly, in the wide ones."""
    pattern = quote.skeleton
    m = len(pattern)
    wide = _slack(m)
    head_slack = _drift_slack(seed.first, wide)
    tail_slack = _drift_slack(m - seed.last, wide)
    if head_slack < wide or tail_slack < wide:
        placed = place(skeleton, pattern, seed.start, seed.end, head_slack, tail_slack)
        limit = min(m, EDGE) // 5
        if (
            not placed.at_edge
            and placed.head_distance <= limit
            and placed.tail_distance <= limit
        ):
            return placed.start, placed.end
    placed = place(skeleton, pattern, seed.start, seed.end, wide)
    return placed.start, placed.end


def _apart(extra: list[Seed], starts: Iterable[int], band: int) -> list[Seed]:
    """The seeds of `extra` that start more than a band from every one of
    `starts`."""
    starts = sorted(starts)
    out = []
    for seed in extra:
        i = bisect_left(starts, seed.start - band)
        if i == len(starts) or starts[i] > seed.start + band:
            out.append(seed)
    return out


def _may_hold_numbers(folded: str, quote: FoldedQuote, seed: Seed) -> bool:
    """Does the seed's window hold every digit of the quote? The guard fails
    any number that is not written alike in quote and span, so a window
    without them is not worth guarding (number-heavy text: tables, amounts)."""
    needed = quote.digits
    if not needed:
        return True
    slack = _slack(len(quote.skeleton))
    window = folded[max(0, seed.start - slack) : seed.end + slack]
    return not needed - Counter(filter(str.isdigit, window))


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
    near: Near | _NumbersDiffer | None = None
    tried: set[tuple[int, int]] = set()

    def consider(result: Found | Near | _NumbersDiffer | None) -> Found | None:
        nonlocal near
        if isinstance(result, Found):
            return result
        if isinstance(result, (Near, _NumbersDiffer)) and (
            near is None or result.similarity > near.similarity
        ):
            near = result
        return None

    scopes: list[tuple[int, int] | None] = [f_region] if f_region is not None else []
    if not region_only:
        scopes.append(None)
    rounds = [(scope, False) for scope in scopes]
    if not region_only:
        rounds.append((None, True))
    judged: list[int] = []  # seed starts judged in the first round
    for scope, wide in rounds:
        seeds = _seeds(prepared, quote, scope, wide)
        if wide:
            # Only places the first round did not judge, and only windows
            # that could pass: the second round runs on every quote that
            # fails, and most of those are simply not in the document.
            band = _band(m)
            # The rarest keys' places beyond the first round's few: a damaged
            # true place keeps two or three of the keys where the sentences
            # of a template meet, while clean copies of either sentence hold
            # more of every other key and crowd it out of the wide seeds.
            # Half the wide round's characters at most: long quotes rank
            # long windows.
            rarest = max(CANDIDATES, min(WEAK_CANDIDATES, WIDE_RANKED_CHARS // (2 * m)))
            seeds += _apart(
                _seeds(prepared, quote, scope, wanted=rarest),
                (s.start for s in seeds),
                band,
            )
            seeds = _apart(seeds + _number_seeds(prepared, quote), judged, band)
        floor = WIDE_MIN_WINDOW if wide else JUDGED_MIN_WINDOW
        budget = WIDE_JUDGED if wide else JUDGED
        for seed in _rank(k, quote, seeds, floor):
            if not budget:
                break
            if wide and not _may_hold_numbers(prepared.folded.text, quote, seed):
                continue
            budget -= 1
            judged.append(seed.start)
            start, end = _place(k, quote, seed)
            if end - start < max(1, m // 2) or (start, end) in tried:
                continue
            tried.add((start, end))
            found = consider(judge_span(prepared, quote, start, end, f_region))
            if found:
                return Search(found, None, "")
        lo, hi = scope if scope is not None else (0, len(k))
        if (
            not wide
            and not seeds
            and hi - lo <= DIRECT_WINDOW
            and m <= DIRECT_MAX_PATTERN
        ):
            start, end, _ = place_in_window(k, quote.skeleton, lo, hi)
            if end - start >= max(1, m // 2) and (start, end) not in tried:
                tried.add((start, end))
                found = consider(judge_span(prepared, quote, start, end, f_region))
                if found:
                    return Search(found, None, "")
    if isinstance(near, _NumbersDiffer):
        near = near.near()
    if near is not None:
        return Search(None, near, f"no match: {near.reason}", near.rule)
    # Inline, not a table's row: the search ended with no placement for any
    # rule to read, and this names that outcome (docs/verification.md).
    return Search(None, None, "no similar passage found", "tolerant.no_passage")


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
    refused = first_refusal(FOLDED_CHECKS, (q, prepared))
    if refused is not None:
        return Search(None, None, str(refused), refused.rule)
    f_region = folded_region(prepared, region)
    normalized = _find_normalized(prepared, q, f_region, region_only)
    if normalized is not None:
        return Search(normalized, None, "")
    if not allow_fuzzy:
        # The search's outcome, not a rule's check (see find_fuzzy's end).
        return Search(
            None, None, "not found after normalization", "tolerant.no_passage"
        )
    refused = first_refusal(FUZZY_CHECKS, q)
    if refused is not None:
        return Search(None, None, str(refused), refused.rule)
    return find_fuzzy(prepared, q, f_region, region_only=region_only)


def _empty_folded(given: tuple[FoldedQuote, PreparedText]) -> str | None:
    return None if given[0].folded else "quote is empty after normalization"


def _longer_than_source(given: tuple[FoldedQuote, PreparedText]) -> str | None:
    q, prepared = given
    # OCR drops characters, so a source a little shorter may still hold it.
    if len(q.folded) * SIMILARITY_THRESHOLD > len(prepared.folded.text):
        return "quote is longer than the source text"
    return None


def _too_short(q: FoldedQuote) -> str | None:
    if q.fuzzy_eligible:
        return None
    if q.words < FUZZY_MIN_WORDS or len(q.folded) < FUZZY_MIN_CHARS:
        return "not found, and too short for an approximate match"
    return None


def _too_long(q: FoldedQuote) -> str | None:
    if q.fuzzy_eligible:
        return None
    return "not found, and too long for an approximate match"


def _not_similar(similarities: tuple[float, float]) -> str | None:
    ocr, plain = similarities
    if ocr < SIMILARITY_THRESHOLD or plain < PLAIN_SIMILARITY_FLOOR:
        return f"closest passage is only {plain:.2f} similar"
    return None


# The rule a placement of an approximate search meets before the guards
# read what it says (a table of one: the guards' own tables follow,
# guards.MEANING_CHECKS and WORDING_RULES). Its case is the placement's
# similarity after OCR folding and plain.
SNAPPED_CHECKS: tuple[Check[tuple[float, float]], ...] = (
    Check("tolerant.not_similar", _not_similar),
)

# Stage 2's rules for a folded quote before any search, in order.
FOLDED_CHECKS: tuple[Check[tuple[FoldedQuote, PreparedText]], ...] = (
    Check("tolerant.empty_folded", _empty_folded),
    Check("input.too_long", _longer_than_source),
)
# And before an approximate search (a quote not found after folding): the
# first to refuse decides; one not eligible is too short or else too long.
FUZZY_CHECKS: tuple[Check[FoldedQuote], ...] = (
    Check("tolerant.too_short", _too_short),
    Check("tolerant.too_long", _too_long),
)
