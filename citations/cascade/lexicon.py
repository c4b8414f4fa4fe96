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

import string
import threading
from collections.abc import Collection, Mapping
from functools import lru_cache

from citations.cascade.folding import ocr_skeleton

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
def _frequencies() -> dict[str, int]:
    """OCR skeleton -> highest frequency of an English word with that skeleton."""
    from spellchecker import SpellChecker

    with _lock:
        words = SpellChecker(language="en", distance=1).word_frequency.dictionary
        table: dict[str, int] = {}
        for word, count in words.items():
            if not word.isalpha() or (len(word) <= 2 and word not in SHORT_WORDS):
                continue
            key = ocr_skeleton(word)
            if count > table.get(key, 0):
                table[key] = count
        return table


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
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = [a + b[1:] for a, b in splits if b]
    replaces = [a + c + b[1:] for a, b in splits if b for c in _ALPHABET]
    inserts = [a + c + b for a, b in splits for c in _ALPHABET]
    transposes = [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1]
    return set(deletes + replaces + inserts + transposes)


def _score(skeleton: str, vocabulary: Mapping[str, int] | None) -> int:
    # Words of the document itself outrank the dictionary's: a contract that
    # says "Licensor" forty times reads a damaged "Licensot" as that.
    in_document = vocabulary.get(skeleton, 0) if vocabulary is not None else 0
    return frequency(skeleton) + in_document * 10_000_000


def reading(
    span_word: str,
    quote_word: str,
    vocabulary: Mapping[str, int] | None = None,
    *,
    rivals: Collection[str] = (),
) -> str | None:
    """Why `span_word` (OCR-damaged source) cannot read as `quote_word`, or
    None when it does. Both are OCR skeletons of single tokens (no spaces);
    the caller has already found them one arbitrary edit apart, give or take
    look-alike glyphs. A known word in `rivals` one edit away (another
    negation or modal verb) makes the reading ambiguous, however rare."""
    if is_word(span_word, vocabulary, quote_word):
        return f"'{span_word}' is a word of its own"
    # One-letter words ("a", "I") are left out: OCR rarely makes two glyphs
    # of one, and "ll" must read as "all", not "I".
    candidates = {
        w for w in _edits1(span_word) if len(w) > 1 and is_word(w, vocabulary)
    }
    rival = next(
        (w for w in sorted(candidates) if w in rivals and w != quote_word), None
    )
    if rival is not None:
        return f"'{span_word}' could read as '{rival}'"
    if not candidates:
        return None
    best = max(candidates, key=lambda w: (_score(w, vocabulary), w == quote_word))
    if best != quote_word:
        return f"'{span_word}' reads as '{best}'"
    return None
