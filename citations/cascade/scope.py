"""How far a negation reaches: the words between it and a quote that count.

A negation governs a quote that starts a few words after it (context.py,
NEGATION_REACH), counted from the verb it governs rather than from the word
itself. Some words between the two leave the reach where it was:

- an aside set off by commas, brackets or dashes, anywhere ("Neither party
  shall, directly or indirectly, | disclose"); not one that opens a clause
  of its own (", and the Buyer shall") or holds a modal verb;
- adverbs and phrases that stand before the verb ("shall not knowingly or
  intentionally | disclose", "shall not during the Term | disclose", "shall
  not in any event be | liable");
- the subject a negation heads, up to its verb ("Nothing in this Agreement
  | shall require", "No consent of the Buyer shall | be required"), or that
  follows the verb in an inverted clause ("In no event shall the Supplier |
  be liable", "nor shall a party or its employees | disclose").

Counting fewer words only ever refuses: a quote in reach of a negation
fails, one out of reach is compared as usual. So where a word is ambiguous
(a phrase's length, whether "no" heads the subject), the reading that
counts fewer is taken.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from citations.cascade import lexicon
from citations.cascade.folding import fold_text, ocr_skeleton

# Words are (text, offset) pairs, as context._words gives them.
Word = tuple[str, int]

MODALS = frozenset(
    ["shall", "will", "may", "must", "can", "could", "should", "would", "might"]
)
# Verbs a negated subject's verb may start with, besides the modals; unlike
# them, they also follow a "not" as the verb it negates ("does not have").
_AUXILIARIES = frozenset(
    ["is", "are", "was", "were", "has", "have", "had", "does", "do", "did"]
)
# Words that join a clause of its own: an aside starting with one, or a
# subject with one before its verb, is not the negation's.
_CLAUSE_JOINS = frozenset(
    [
        "and",
        "but",
        "or",
        "nor",
        "which",
        "who",
        "whom",
        "whose",
        "that",
        "where",
        "while",
    ]
)
_JOINS_A_CLAUSE = frozenset(["and", "but"])
_SUBORDINATES = frozenset(
    ["unless", "if", "when", "until", "provided", "except", "because", "although"]
)
_PREPOSITIONS = frozenset(
    [
        "during",
        "in",
        "within",
        "at",
        "for",
        "after",
        "before",
        "until",
        "upon",
        "on",
        "under",
        "throughout",
        "through",
        "by",
        "with",
        "from",
        "following",
    ]
)
# Prepositions before a negation that inverts its clause: "In no event
# shall", "Under no circumstances will", "At no time may", "On no account".
_INVERTING = frozenset(["in", "under", "at", "on"])
_ADVERBS = frozenset(
    [
        "also",
        "ever",
        "then",
        "thereafter",
        "hereafter",
        "hereby",
        "thereby",
        "therefore",
        "either",
        "whatsoever",
        "further",
        "again",
        "even",
        "still",
        "yet",
        "otherwise",
        "so",
    ]
)
_ASIDE_OPEN = {",": ",", "(": ")", "[": "]", "\u2014": "\u2014", "\u2013": "\u2013"}
# A phrase before the verb holds at most this many words after its
# preposition; a subject after an inverted verb at most this many words.
_PHRASE_WORDS = 3
_INVERTED_SUBJECT_WORDS = 4
# An aside, and a subject before its verb, hold at most this many words.
_ASIDE_WORDS = 16
SUBJECT_WORDS = 12


def _plain(word: str) -> str:
    return fold_text(word).lower()


_MODAL_KEYS = frozenset(ocr_skeleton(w) for w in MODALS)
_VERB_KEYS = _MODAL_KEYS | {ocr_skeleton(w) for w in _AUXILIARIES}


@lru_cache(maxsize=8192)
def _reads_as(word: str, keys: frozenset[str]) -> bool:
    """Is `word` one of `keys` (OCR skeletons), also as OCR damaged it
    ("sh0uld", "vvill"): a token that is no word and most likely was one."""
    # An "I" may be an "l" ("wiIl") or an "i": both readings are tried.
    skeleton = ocr_skeleton(fold_text(word))
    if skeleton in keys or ocr_skeleton(_plain(word)) in keys:
        return True
    if len(skeleton) < 3 or not skeleton.isalpha() or lexicon.is_word(skeleton):
        return False
    return lexicon.likeliest_reading(skeleton) in keys


def is_modal(word: str) -> bool:
    """A modal or an auxiliary: a verb a negated subject's verb starts with."""
    return _reads_as(word, _VERB_KEYS)


def _ends_a_negated_verb(word: str) -> bool:
    """A modal after a "not" starts a verb of its own ("Amounts not so
    disputed shall | be deemed"), as does "but" ("not on such day but on
    the | next")."""
    return _plain(word) == "but" or _reads_as(word, _MODAL_KEYS)


def _is_adverb(word: str) -> bool:
    """An adverb by its -ly ("knowingly", "reasonably", "happily"), or a
    few that stand before a verb ("also", "ever", "either")."""
    plain = _plain(word)
    if plain in _ADVERBS:
        return True
    if not (plain.endswith("ly") and plain.isalpha() and len(plain) >= 5):
        return False
    stem = plain[:-2]
    # knowing-ly, reasonab-ly (able), happi-ly (happy), ful-ly (full)
    stems = (stem, stem + "e", stem[:-1] + "y", stem + "l")
    return any(len(s) >= 4 and lexicon.is_common_word(ocr_skeleton(s)) for s in stems)


def _without_asides(text: str, words: Sequence[Word], lo: int, end: int) -> list[Word]:
    """`words` (after a word that ends at `lo`, before the span at `end`)
    less those inside asides: set off by brackets or dashes anywhere, or by
    commas right at the start ("shall not, without consent, | assign").
    Commas further on also set off list items and clauses, so the words
    between them count."""
    kept: list[Word] = []
    i = 0
    previous_end = lo
    while i < len(words):
        opener = next(
            (c for c in text[previous_end : words[i][1]] if c in _ASIDE_OPEN), None
        )
        closes = _closing(text, words, i, end, opener) if opener else None
        if closes is not None and (opener != "," or i == 0):
            i = closes + 1
        else:
            kept.append(words[i])
            i += 1
        previous_end = words[i - 1][1] + len(words[i - 1][0])
    return kept


def _closing(
    text: str, words: Sequence[Word], i: int, end: int, opener: str
) -> int | None:
    """The last word of an aside that `opener` opens before words[i], if it
    closes before `end` within _ASIDE_WORDS words. Brackets inside a comma
    aside are passed over ("shall not, directly or through others (agents,
    resellers), | market")."""
    closer = _ASIDE_OPEN[opener]
    depth = 0
    for j in range(i, min(len(words), i + _ASIDE_WORDS)):
        after = words[j][1] + len(words[j][0])
        following = words[j + 1][1] if j + 1 < len(words) else end
        for c in text[after:following]:
            if opener == "," and c in "([":
                depth += 1
            elif opener == "," and c in ")]" and depth:
                depth -= 1
            elif c == closer and not depth:
                return j
    return None


def opening_aside_end(text: str, words: Sequence[Word], lo: int, end: int) -> int:
    """Where the words after a negation (which ends at `lo`) go on after an
    aside opening right after it, or `lo`."""
    if not words:
        return lo
    opener = next((c for c in text[lo : words[0][1]] if c in _ASIDE_OPEN), None)
    closes = _closing(text, words, 0, end, opener) if opener else None
    if closes is None:
        return lo
    after = words[closes][1] + len(words[closes][0])
    following = words[closes + 1][1] if closes + 1 < len(words) else end
    return after + text[after:following].index(_ASIDE_OPEN[opener]) + 1


def _before_verb(words: Sequence[str]) -> int:
    """How many leading words are adverbs and phrases that stand before the
    verb (taking every phrase as long as it may be, which counts fewest)."""
    i = 0
    while i < len(words):
        plain = _plain(words[i])
        if _is_adverb(words[i]) or (
            plain in ("or", "and")
            and i > 0
            and i + 1 < len(words)
            and (_is_adverb(words[i + 1]) or _plain(words[i + 1]) in _PREPOSITIONS)
        ):
            i += 1
        elif plain in _PREPOSITIONS:
            j = i + 1
            while (
                j < len(words)
                and j - i <= _PHRASE_WORDS
                and not is_modal(words[j])
                and _plain(words[j]) not in _CLAUSE_JOINS
            ):
                j += 1
            i = j
        else:
            break
    return i


# Letters OCR ran into a number: "exceed5" of "shall not exceed5% of".
# Digits that may all be letters ("wi11", "sha1l") stay part of the word.
_RUN_INTO_NUMBER = re.compile(r"([^\W\d_]{2,})(\d(?:[\d.,]*\d)?)")
_LETTER_DIGITS = frozenset("01.,")


def _count(word: str, next_char: str) -> int:
    """How many words `word` counts for: letters OCR ran into a percentage
    or a number of several digits count as the two words they were
    ("exceed5%"), so the reach ends where it ends in the clean text. Nothing
    else is split: counting one word more would verify quotes the clean
    text refuses ("fee5" may be "fees"; "sublicense" is no "sub license"),
    and a word fewer only refuses."""
    number = _RUN_INTO_NUMBER.fullmatch(word)
    if number and set(number.group(2)) - _LETTER_DIGITS:
        return 2 if next_char == "%" or len(number.group(2)) > 1 else 1
    return 1


def _verb_at(kept: Sequence[Word]) -> int | None:
    """The index of the verb (its modal or auxiliary) after a negation that
    heads its subject, before anything joins a clause of its own."""
    for i, (w, _) in enumerate(kept[: SUBJECT_WORDS + 1]):
        if _plain(w) in _JOINS_A_CLAUSE or _plain(w) in _SUBORDINATES:
            # A verb after these is another clause's ("No waiver shall be
            # effective unless it is | in writing").
            return None
        if is_modal(w):
            return i
    return None


def words_in_reach(
    text: str,
    negation: Word,
    words: Sequence[Word],
    end: int,
    *,
    heads_subject: bool = False,
    after_preposition: bool = False,
) -> int | None:
    """How many of `words` (those between the negation and the span, which
    starts at `end`) count towards the negation's reach, or None if its
    clause ended among them. `heads_subject`: the negation heads its
    clause's subject ("No consent", "Nothing herein"), so its verb comes
    later; `after_preposition`: it follows "in", "under", "at" or "on" ("In
    no event"), so its clause may be inverted."""
    kept = _without_asides(text, words, negation[1] + len(negation[0]), end)
    if heads_subject:
        verb = _verb_at(kept)
        if verb is None:
            # The span starts at the verb: "No consent of the Buyer | shall".
            following = _WORD.match(text, end)
            if (
                following
                and is_modal(following.group())
                and len(kept) <= SUBJECT_WORDS
                and not any(_plain(w) in _CLAUSE_JOINS for w, _ in kept)
            ):
                return 0
        else:
            verb_end = kept[verb][1] + len(kept[verb][0])
            # Inverted, the subject follows its verb: "In no event shall the
            # Supplier | be liable", "nor shall its employees | disclose".
            inverted = verb == 0 or (after_preposition and verb <= 2)
            kept = _without_asides(text, kept[verb + 1 :], verb_end, end)
            if inverted:
                return _counted(text, kept[_INVERTED_SUBJECT_WORDS:])
    elif any(_ends_a_negated_verb(w) for w, _ in kept):
        return None
    return _counted(text, kept[_before_verb([w for w, _ in kept]) :])


def _counted(text: str, words: Sequence[Word]) -> int:
    return sum(_count(w, text[at + len(w) : at + len(w) + 1]) for w, at in words)


_WORD = re.compile(r"[\w'\u2019]+")
_OPENS_A_CLAUSE = _CLAUSE_JOINS | {"if", "provided", "whereas", "because", "since"}
_HEADS = frozenset(["no", "nothing", "none", "neither", "nor"])


def negation_heads_subject(
    text: str, before: Sequence[Word], negation: Word
) -> tuple[bool, bool]:
    """Does a negation ("no", "nothing", "none", "neither", "nor") head its
    clause's subject, and does it follow a preposition that may invert the
    clause ("In no event shall")? `before` are the words of its clause
    before it."""
    if _plain(negation[0]) not in _HEADS:
        return False, False
    if not before:
        return True, False
    word, at = before[-1]
    previous = _plain(word)
    if previous in _INVERTING:
        return True, True
    between = text[at + len(word) : negation[1]]
    return previous in _OPENS_A_CLAUSE or bool(re.search(r"[,;:()]", between)), False
