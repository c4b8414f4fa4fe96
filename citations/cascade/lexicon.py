"""Is a token of an OCR'd source a word, and which word does damage read as?

OCR damage and a different word look alike to an edit distance: "dys" for
"days" is one deletion, and so is "employe" for "employee". The difference is
that damage rarely produces a real word. So a span word that differs from the
quote's word by more than look-alike glyphs is only read as the quote's word
when it is not itself a word, and when the quote's word is what a spelling
corrector would read it as: among the known words one arbitrary edit away,
the quote's word is the most frequent (or there are none). "dys" reads as
"days" (not "dye"); "o" reads as "of", so "o waiver" never verifies "No
waiver"; "Licensor" is a word, so it never reads as "Licensee".

Words come from pyspellchecker's English frequency list (160k words, loaded
on first use), and from the source document itself: a word that occurs
elsewhere in the document is a word even when no dictionary has it (party
names, defined terms). Everything is compared as OCR skeletons (folding.py),
so "1icense" and "license" are the same key.
"""

from __future__ import annotations

import math
import string
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Mapping
from functools import lru_cache
from typing import TypeVar

from citations.cascade.folding import ocr_skeleton
from citations.cascade.glyphs import CONFUSABLE, merged_once
from citations.cascade.memo import memo

# Real one- and two-letter English words; the frequency list also holds
# letters, initials and fragments ("th", "cl", "o") that OCR leaves behind.
SHORT_WORDS = frozenset(
    [
        "a",
        "i",
        "am",
        "an",
        "as",
        "at",
        "be",
        "by",
        "do",
        "go",
        "he",
        "hi",
        "if",
        "in",
        "is",
        "it",
        "me",
        "my",
        "no",
        "of",
        "oh",
        "ok",
        "on",
        "or",
        "so",
        "to",
        "up",
        "us",
        "we",
    ]
)
# A remainder cut off at an OCR-joined word ("this|Agreement") must be a word
# this common: the cut is only allowed when it is clearly two words run together.
COMMON = 1_000

_ALPHABET = string.ascii_lowercase
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, int], dict[str, None]]:
    """OCR skeleton -> highest frequency of an English word with that
    skeleton; and the words themselves, as spelled (as dict keys: the
    garbage collector stops tracking a dict of strings after one pass, but
    walks a 128k-word frozenset on every full collection, ~5 ms each, in
    whichever query it interrupts)."""
    from spellchecker import SpellChecker

    with _lock:
        words = SpellChecker(language="en", distance=1).word_frequency.dictionary
        table: dict[str, int] = {}
        spelled: set[str] = set()
        for word, count in words.items():
            if not word.isalpha() or (len(word) <= 2 and word not in SHORT_WORDS):
                continue
            spelled.add(word)
            key = ocr_skeleton(word, remember=False)
            if count > table.get(key, 0):
                table[key] = count
        return table, dict.fromkeys(spelled)


def _frequencies() -> dict[str, int]:
    return _tables()[0]


def is_spelled(word: str) -> bool:
    """Is `word` (folded) an English word exactly as spelled? "fails" and
    "falls" share a skeleton, and both are."""
    return word in _tables()[1]


def frequency(skeleton: str) -> int:
    """How common the English word(s) with this OCR skeleton are; 0 if none."""
    return _frequencies().get(skeleton, 0)


def is_word(
    skeleton: str,
    vocabulary: Mapping[str, int] | None = None,
    rather_than: str | None = None,
) -> bool:
    """A dictionary word, or a token the document uses more than once.

    With `rather_than`, a token the document uses a tenth as often as that
    word or less does not count: damage repeats too ("th" for "the" comes up
    a dozen times in a long OCR'd text where "the" comes up a thousand)."""
    if frequency(skeleton) > 0:
        return True
    if vocabulary is None:
        return False
    count = vocabulary.get(skeleton, 0)
    if rather_than is not None and count * 10 <= vocabulary.get(rather_than, 0):
        return False
    return count >= 2


def is_common_word(skeleton: str) -> bool:
    return frequency(skeleton) >= COMMON


def _edits1(word: str) -> set[str]:
    # Not SpellChecker.edit_distance_1: that one edits with every letter of
    # the word list (accents, apostrophes); skeletons are plain a-z.
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = [a + b[1:] for a, b in splits if b]
    replaces = [a + c + b[1:] for a, b in splits if b for c in _ALPHABET]
    inserts = [a + c + b for a, b in splits for c in _ALPHABET]
    transposes = [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1]
    return set(deletes + replaces + inserts + transposes)


# Noisy channel: a reading's score is log(how common the word is) minus the
# cost of the edits that would have damaged it into the span's token. A
# look-alike glyph is a likely misreading, any other edit an unlikely one.
LOOKALIKE_COST = 1.5
ARBITRARY_COST = 4.0
# Words of the document itself outrank the dictionary's: a contract that
# says "Licensor" forty times reads a damaged "Licensot" as that.
DOCUMENT_WEIGHT = 10_000_000

_PARTNERS: dict[str, tuple[str, ...]] = {}
for _pair in CONFUSABLE:
    _a, _b = sorted(_pair)
    _PARTNERS[_a] = (*_PARTNERS.get(_a, ()), _b)
    _PARTNERS[_b] = (*_PARTNERS.get(_b, ()), _a)


def _lookalikes(word: str) -> dict[str, float]:
    """Words one or two look-alike glyphs away, with their cost."""
    out: dict[str, float] = {}
    for i, c in enumerate(word):
        for x in _PARTNERS.get(c, ()):
            once = word[:i] + x + word[i + 1 :]
            out[once] = LOOKALIKE_COST
            for j in range(i + 1, len(word)):
                for y in _PARTNERS.get(word[j], ()):
                    out.setdefault(once[:j] + y + once[j + 1 :], 2 * LOOKALIKE_COST)
    return out


def document_lookalikes(
    skeleton: str, vocabulary: Mapping[str, int], least: int = 2
) -> list[str]:
    """Dictionary words one look-alike glyph from `skeleton` that the
    document uses `least` times or more, in order."""
    return sorted(
        word
        for word in _one_lookalike_away(skeleton)
        if vocabulary.get(word, 0) >= least and frequency(word)
    )


def _one_lookalike_away(word: str) -> set[str]:
    """The strings one look-alike glyph from `word`: those `_lookalikes`
    costs LOOKALIKE_COST, without the two-glyph ones."""
    return {
        word[:i] + other + word[i + 1 :]
        for i, glyph in enumerate(word)
        for other in _PARTNERS.get(glyph, ())
    }


def common_lookalike(skeleton: str) -> str | None:
    """A common word one look-alike glyph away ("ot" for "of"), or None."""
    once = _one_lookalike_away(skeleton)
    return next((w for w in sorted(once) if is_common_word(w)), None)


def _merged_glyphs(word: str) -> dict[str, float]:
    """Words with one glyph OCR read as two put back ("eitlier" -> "either",
    "rlow" -> "now", in skeleton space where i is l), and with one look-alike
    more, with their cost."""
    out: dict[str, float] = {}
    for merged in merged_once(word):
        out[merged] = LOOKALIKE_COST
        for other, cost in _lookalikes(merged).items():
            if cost == LOOKALIKE_COST:
                out.setdefault(other, 2 * LOOKALIKE_COST)
    return out


def _channel(skeleton: str) -> dict[str, float]:
    """Every string one arbitrary edit, up to two look-alikes or one glyph
    read as two away, with the cost of the damage that would have made
    `skeleton` from it."""
    costs = dict.fromkeys(_edits1(skeleton), ARBITRARY_COST)
    costs.update(_lookalikes(skeleton))
    for word, cost in _merged_glyphs(skeleton).items():
        if cost < costs.get(word, ARBITRARY_COST + 1):
            costs[word] = cost
    return costs


def _score(skeleton: str, cost: float, vocabulary: Mapping[str, int] | None) -> float:
    in_document = vocabulary.get(skeleton, 0) if vocabulary is not None else 0
    return math.log(1 + frequency(skeleton) + in_document * DOCUMENT_WEIGHT) - cost


def reading(
    span_word: str,
    quote_word: str,
    vocabulary: Mapping[str, int] | None = None,
    *,
    rivals: Collection[str] = (),
) -> str | None:
    """Why `span_word` (OCR-damaged source) cannot read as `quote_word`, or
    None when it does. Both are OCR skeletons of single tokens (no spaces);
    the caller has already found them within look-alike glyphs and one
    arbitrary edit. A known word in `rivals` among the readings (another
    negation or modal verb) makes the reading ambiguous, however unlikely."""
    if is_word(span_word, vocabulary, quote_word):
        return f"'{span_word}' is a word of its own"
    costs = _channel(span_word)
    # One-letter words ("a", "I") are left out: OCR rarely makes two glyphs
    # of one, and "ll" must read as "all", not "I".
    candidates = {
        w: cost for w, cost in costs.items() if len(w) > 1 and is_word(w, vocabulary)
    }
    rival = next(
        (w for w in sorted(candidates) if w in rivals and w != quote_word), None
    )
    if rival is not None:
        return f"'{span_word}' could read as '{rival}'"
    # The quote's word is always a reading: the caller found it within
    # look-alikes and one arbitrary edit, which is what this costs at most.
    candidates.setdefault(quote_word, ARBITRARY_COST + 2 * LOOKALIKE_COST)
    best = max(
        candidates,
        key=lambda w: (_score(w, candidates[w], vocabulary), w == quote_word),
    )
    if best != quote_word:
        return f"'{span_word}' reads as '{best}'"
    return None


@memo(4096)
def likeliest_reading(skeleton: str) -> str | None:
    """The dictionary word a damaged token most likely was, by the same noisy
    channel as `reading` but with no quote to favour; None if no word is in
    reach (one arbitrary edit or two look-alike glyphs)."""
    candidates = {w: cost for w, cost in _channel(skeleton).items() if frequency(w)}
    if not candidates:
        return None
    return max(candidates, key=lambda w: (_score(w, candidates[w], None), w))


def reads_as_common_word(skeleton: str) -> bool:
    """Does a damaged token read as a common word ("continuca" as
    "continue")?"""
    best = likeliest_reading(skeleton)
    return best is not None and is_common_word(best)


# A clean text has almost no one-off non-words (a name or two); OCR leaves
# them everywhere: ~0.05% of the words of a clean contract, 2-6% at 1-2% OCR
# character damage, 4-9% in the ICDAR scans. Between the two sits this line.
SCANNED_NON_WORDS = 0.02
# At least this many, too: a short clean contract holds a few terms no
# dictionary lists ("Licensor", "Sublicensee"), and a clean text read as a
# scan loses the checks that refuse look-alike codes and words, while a short
# scan read as clean only refuses more.
SCANNED_MIN_NON_WORDS = 5
# In a long scan the same misreadings recur, so one-offs get rare; what grows
# is the share of distinct tokens that are no word: 4-9% in CUAD's contracts
# (names, defined terms), 16-90% in damaged text, 11-21% in the ICDAR scans.
SCANNED_NON_WORD_TYPES = 0.12

V = TypeVar("V")
# Per document (by its vocabulary's identity): what was computed for it.
_Cache = OrderedDict[Hashable, tuple[Mapping[str, int], V]]


def _per_document(
    cache: _Cache[V],
    key: Hashable,
    vocabulary: Mapping[str, int],
    limit: int,
    compute: Callable[[], V],
) -> V:
    """compute(), remembered for this document's vocabulary (by identity:
    prepared texts are cached, so the same vocabulary comes back), the last
    `limit` of them."""
    hit = cache.get(key)
    if hit is not None and hit[0] is vocabulary:
        return hit[1]
    value = compute()
    with _lock:
        cache[key] = (vocabulary, value)
        while len(cache) > limit:
            cache.popitem(last=False)
    return value


_scanned: _Cache[bool] = OrderedDict()


def looks_scanned(vocabulary: Mapping[str, int] | None) -> bool:
    """Does the document's vocabulary look like OCR output? Only then may a
    source word that is a real word stand for a look-alike word of the quote
    ("be" for "he"); in a clean text "data" is never "date"."""
    if vocabulary is None:
        return True  # no document to judge by: the word checks alone decide
    return _per_document(
        _scanned, id(vocabulary), vocabulary, 16, lambda: _scanned_by(vocabulary)
    )


def _scanned_by(vocabulary: Mapping[str, int]) -> bool:
    total = sum(vocabulary.values())
    non_words = types = non_word_types = 0
    for word, count in vocabulary.items():
        if len(word) < 3 or not word.isalpha() or not word.strip("lo"):
            # In the skeleton digits are letters: "10,000" is "lo" and "ooo".
            continue
        types += 1
        if frequency(word) == 0:
            non_word_types += 1
            non_words += count == 1
    return (
        non_words >= SCANNED_MIN_NON_WORDS and non_words >= SCANNED_NON_WORDS * total
    ) or (
        non_word_types >= SCANNED_MIN_NON_WORDS
        and non_word_types >= SCANNED_NON_WORD_TYPES * types
    )


# The share of a scan's non-words one glyph confusion must repair for it to
# count as that scan's habit ("tbe", "wben", "bim": b for h), and at least
# how many.
HABIT_SHARE = 0.25
HABIT_MIN = 3


def habitual_confusion(
    span_word: str, quote_word: str, vocabulary: Mapping[str, int]
) -> bool:
    """Is the glyph that tells `span_word` from `quote_word` (skeletons of
    the same length, one glyph apart) one this scan confuses habitually: do
    a good share of its non-words become words with it replaced?"""
    if len(span_word) != len(quote_word):
        return False
    pairs = {(a, b) for a, b in zip(span_word, quote_word, strict=True) if a != b}
    if len(pairs) != 1:
        return False
    ((wrong, right),) = pairs
    repaired, non_words = _repairs(vocabulary, wrong, right)
    return repaired >= max(HABIT_MIN, HABIT_SHARE * non_words)


_habits: _Cache[tuple[int, int]] = OrderedDict()


def _repairs(vocabulary: Mapping[str, int], wrong: str, right: str) -> tuple[int, int]:
    """How many of the document's non-words (of 3 letters or more) become
    words with `wrong` read as `right`, and how many non-words there are."""
    return _per_document(
        _habits,
        (id(vocabulary), wrong, right),
        vocabulary,
        64,
        lambda: _repaired_by(vocabulary, wrong, right),
    )


def _repaired_by(
    vocabulary: Mapping[str, int], wrong: str, right: str
) -> tuple[int, int]:
    repaired = non_words = 0
    for word in vocabulary:
        if len(word) < 3 or not word.isalpha() or frequency(word):
            continue
        non_words += 1
        if any(
            frequency(word[:i] + right + word[i + 1 :])
            for i, c in enumerate(word)
            if c == wrong
        ):
            repaired += 1
    return repaired, non_words
