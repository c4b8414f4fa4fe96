"""How far a negation reaches: the words between it and a quote that count.

A negation governs a quote that starts a few words after it (context.py,
NEGATION_REACH), counted from the verb it governs rather than from the word
itself. Some words between the two leave the reach where it was:

- asides: set off by brackets or dashes anywhere, or by commas right after
  the negation or its subject's verb, however many follow one another
  ("Neither party shall, without the consent of the other party, which
  shall not be unreasonably withheld, | assign");
- adverbs and phrases that stand before the verb ("shall not knowingly or
  intentionally | disclose", "shall not during the Term | disclose");
- the subject a negation heads, up to its verb ("Nothing in this Agreement
  | shall require", "No consent of the Buyer shall | be required"), or that
  follows the verb in an inverted clause ("In no event shall the Supplier |
  be liable", "nor shall a party or its employees | disclose");
- the words up to an infinitive ("shall have no right or obligation to |
  provide") or a "that" clause of a negated assurance ("does not warrant
  that the Goods | will be fit"), which the negation governs whole.

Counting fewer words only ever refuses: a quote in reach of a negation
fails, one out of reach is compared as usual. So where a reading is in
doubt (whether "no" heads the subject, where that subject ends, a verb OCR
damaged past reading), the one that counts fewer is taken; only a reading
that shows the clause ended (a modal after a "not": "Amounts not so
disputed shall | be deemed accepted"; "not on that day but on the | next")
lets a quote through.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citations.cascade import lexicon
from citations.cascade.folding import fold_text, ocr_skeleton
from citations.cascade.glyphs import DIGITS_AS_LETTERS
from citations.cascade.guards import AUXILIARIES, MODALS
from citations.cascade.memo import memo
from lib.stemming import adverb_bases

# Words are (text, offset) pairs, as context._words gives them.
Word = tuple[str, int]

# Negations that head a noun: a subject ("No Party shall") or an object
# ("has no obligation").
_NOUN_NEGATIONS = ("no", "nothing", "none", "neither", "nor")
# Words after which "no" heads an object or a complement, not the subject.
_TAKES_AN_OBJECT = frozenset(
    [
        "has",
        "have",
        "had",
        "having",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "make",
        "makes",
        "made",
        "give",
        "gives",
        "gave",
        "bear",
        "bears",
        "pay",
        "pays",
        "incur",
        "incurs",
        "assume",
        "assumes",
        "owe",
        "owes",
        "take",
        "takes",
        "grant",
        "grants",
        "provide",
        "provides",
        "receive",
        "receives",
        "acquire",
        "acquires",
        "obtain",
        "obtains",
        "confer",
        "confers",
        "impose",
        "imposes",
        "create",
        "creates",
        "constitute",
        "constitutes",
        "contain",
        "contains",
        "include",
        "includes",
        "require",
        "requires",
        "need",
        "needs",
        "with",
        "without",
        "of",
        "for",
        "to",
        "by",
        "from",
        "than",
        "into",
        "as",
        "there",
        "through",
        "about",
        "against",
        "upon",
        "within",
        "via",
        "per",
        "over",
        "among",
        "between",
        "after",
        "before",
        "during",
    ]
)
# Words that open a clause of its own ("..., and the Buyer shall") or join
# one to another.
_CLAUSE_JOINS = frozenset(["and", "but", "or", "nor"])
_SUBORDINATES = frozenset(
    ["unless", "if", "when", "until", "provided", "because", "although", "whereas"]
)
# A relative pronoun's verb follows within this many words ("No Party which
# has breached this Agreement may"); it is the relative clause's, not the
# subject's.
_RELATIVES = frozenset(["that", "which", "who", "whom", "whose"])
_RELATIVE_VERB_WORDS = 3
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
_INVERTING = frozenset(ocr_skeleton(w) for w in ["in", "under", "at", "on"])
# An inverted clause's subject ends before one of these, if it has one.
_INVERTED_VERBS = frozenset(["be", "have", "been"])
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
# Words after a negation, and before "that", that make the "that" clause
# what it negates: "does not warrant that", "makes no representation that".
_ASSURANCE = re.compile(
    r"(?:warrant|represent|guarant|ensur|assur|certif|promis|undertak|possib)\w*\Z"
)
_ASIDE_OPEN = {",": ",", "(": ")", "[": "]", "\u2014": "\u2014", "\u2013": "\u2013"}
_BRACKETS = {"(": ")", "[": "]"}
# A phrase before the verb holds at most this many words after its
# preposition.
_PHRASE_WORDS = 3
# Asides, and a subject before or after its verb, hold at most this many
# words; an infinitive or a "that" clause is governed this far.
_ASIDE_WORDS = 40
SUBJECT_WORDS = 20
_GOVERNED_WORDS = 12
_INVERTED_SUBJECT_WORDS = 10
_INFINITIVE_WORDS = 8


def _plain(word: str) -> str:
    return fold_text(word).lower()


_MODAL_KEYS = frozenset(ocr_skeleton(w) for w in MODALS)
_VERB_KEYS = _MODAL_KEYS | {ocr_skeleton(w) for w in AUXILIARIES}
_NOUN_NEGATION_KEYS = frozenset(ocr_skeleton(w) for w in _NOUN_NEGATIONS)


@memo(8192)
def _reads_as(word: str, keys: frozenset[str]) -> bool:
    """Is `word` one of `keys` (OCR skeletons), also as OCR damaged it
    ("sh0uld", "vvill", "shaII", "Neithcr"): a token that is no word and
    most likely was one."""
    # An "I" may be an "l" ("wiIl") or an "i", a "0" an "o": all are tried.
    folded = fold_text(word)
    readings = {folded, folded.lower(), folded.translate(DIGITS_AS_LETTERS).lower()}
    readings.add(fold_text(word.replace("I", "l")).lower())
    skeletons = {ocr_skeleton(r) for r in readings}
    if skeletons & keys:
        return True
    return any(
        len(s) >= 3
        and s.isalpha()
        and not lexicon.is_word(s)
        and lexicon.likeliest_reading(s) in keys
        for s in skeletons
    )


def _verb_reading(word: str, keys: frozenset[str]) -> bool:
    # Not "May" with a capital, which is far likelier the month in a clause
    # ("shall not before May 1 | commence").
    return word != "May" and _reads_as(word, keys)


def is_modal(word: str) -> bool:
    """A modal or an auxiliary: a verb a negated subject's verb starts with."""
    return _verb_reading(word, _VERB_KEYS)


def _is_adverb(word: str) -> bool:
    """An adverb by its -ly ("knowingly", "reasonably", "happily"), or a
    few that stand before a verb ("also", "ever", "either")."""
    plain = _plain(word)
    if plain in _ADVERBS:
        return True
    return any(
        len(s) >= 4 and lexicon.is_common_word(ocr_skeleton(s))
        for s in adverb_bases(plain)
    )


_PLACEHOLDER = re.compile(r"\[[^\w\]]*\]|\([^\w)]*\)")


def _gap(text: str, words: Sequence[Word], i: int, lo: int, end: int) -> str:
    """The text before words[i] (from `lo` for the first), or after the last
    word up to `end` for i == len(words), less bracketed placeholders such
    as "[***]" that stand between words."""
    start = words[i - 1][1] + len(words[i - 1][0]) if i > 0 else lo
    stop = words[i][1] if i < len(words) else end
    return _PLACEHOLDER.sub(" ", text[start:stop])


def _closing(
    text: str, words: Sequence[Word], i: int, lo: int, end: int, opener: str
) -> int | None:
    """The last word of an aside that `opener` opens before words[i], if it
    closes before `end`. Brackets nest. Commas close at the last comma of a
    run of comma asides (which reads the fewest words), each within its
    sentence, short of a colon or semicolon, neither opening a clause of its
    own (", and the Buyer shall") nor holding a modal verb outside a
    relative clause (", which consent shall not be withheld," is one)."""
    closer = _ASIDE_OPEN[opener]
    depth = 0
    last = None
    segment: list[str] = []
    for j in range(i, min(len(words), i + _ASIDE_WORDS)):
        segment.append(_plain(words[j][0]))
        gap = _gap(text, words, j + 1, lo, end)
        if opener == "," and not depth and re.search(r"[:;.!?]", gap.split(",")[0]):
            return last
        closed = False
        for c in gap:
            if c in _BRACKETS:
                depth += 1
            elif c in _BRACKETS.values() and depth:
                depth -= 1
            elif c == closer and not depth:
                closed = True
                break
        if not closed:
            continue
        if opener != ",":
            return j
        if segment[0] in _CLAUSE_JOINS or (
            segment[0] not in _RELATIVES and any(w in MODALS for w in segment)
        ):
            return last
        last = j
        segment = []
        if j + 1 < len(words) and _plain(words[j + 1][0]) in _CLAUSE_JOINS:
            break
    return last


def _without_asides(text: str, words: Sequence[Word], lo: int, end: int) -> list[Word]:
    """`words` (after a word that ends at `lo`, before the span at `end`)
    less those inside asides: set off by brackets or dashes anywhere, or by
    commas right at the start ("shall not, without consent, | assign").
    Commas further on also set off list items and clauses, so the words
    between them count."""
    kept: list[Word] = []
    i = 0
    while i < len(words):
        gap = _gap(text, words, i, lo, end)
        opener = next((c for c in gap if c in _ASIDE_OPEN), None)
        closes = None
        if opener and (opener != "," or i == 0):
            closes = _closing(text, words, i, lo, end, opener)
        if closes is not None:
            i = closes + 1
        else:
            kept.append(words[i])
            i += 1
    return kept


def opening_aside_end(text: str, words: Sequence[Word], lo: int, end: int) -> int:
    """Where the words after a negation (which ends at `lo`) go on after an
    aside opening right after it, or `lo`."""
    if not words:
        return lo
    opener = next((c for c in _gap(text, words, 0, lo, end) if c in _ASIDE_OPEN), None)
    if opener is None:
        return lo
    closes = _closing(text, words, 0, lo, end, opener)
    if closes is None:
        return lo
    after = words[closes][1] + len(words[closes][0])
    following = words[closes + 1][1] if closes + 1 < len(words) else end
    gap = text[after:following]
    return after + max(gap.find(_ASIDE_OPEN[opener]), 0) + 1


def _before_verb(words: Sequence[str]) -> int:
    """How many leading words are adverbs and phrases that stand before the
    verb (taking every phrase as long as it may be, which counts fewest)."""
    i = 0
    while i < len(words):
        plain = _plain(words[i])
        following = _plain(words[i + 1]) if i + 1 < len(words) else ""
        if (
            _is_adverb(words[i])
            or (plain == "but" and following == "for")
            or (
                plain in ("or", "and")
                and i > 0
                and bool(following)
                and (_is_adverb(words[i + 1]) or following in _PREPOSITIONS)
            )
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


def _counted(text: str, words: Sequence[Word]) -> int:
    return sum(_count(w, text[at + len(w) : at + len(w) + 1]) for w, at in words)


def _verb_at(kept: Sequence[Word], *, joins_end: bool) -> int | None:
    """The index of the subject's verb (its modal or auxiliary) after a
    negation heading the subject, skipping a relative clause's verb ("No
    Party which has breached | may"); None if a subordinate clause opens
    first, or, with `joins_end`, a clause joined by "and" or "but"."""
    relative_at = None
    for i, (w, _) in enumerate(kept[: SUBJECT_WORDS + 1]):
        plain = _plain(w)
        if plain in _SUBORDINATES or (joins_end and plain in ("and", "but")):
            return None
        if plain in _RELATIVES:
            relative_at = i
        elif is_modal(w) or (plain in _INVERTED_VERBS and i > 0):
            if relative_at is not None and i - relative_at <= _RELATIVE_VERB_WORDS:
                relative_at = None
                continue
            # "be" or "have" with no modal before it: the word before is the
            # modal, damaged past reading ("breach m us t be", "shaU be").
            return i - 1 if plain in _INVERTED_VERBS and not is_modal(w) else i
    return None


def heads_a_noun(word: str) -> bool:
    """Is the negation "no", "nothing", "none", "neither" or "nor", also as
    OCR damaged it ("Neithcr", "N0", "Nothlng", "N either")?"""
    return _reads_as(re.sub(r"[\W_]", "", word), _NOUN_NEGATION_KEYS)


# Words after which a clause starts: a negation of a noun after one heads
# the clause's subject ("and no waiver shall", "agrees that no amendment").
_OPEN_CLAUSES = frozenset(
    [
        "and",
        "but",
        "or",
        "that",
        "which",
        "if",
        "provided",
        "whereas",
        "because",
        "since",
        "where",
        "while",
        "when",
        "unless",
        "so",
    ]
)
HEADS, MAY_HEAD, OBJECT = "heads", "may head", "object"


def _subject_reading(text: str, before: Sequence[Word], negation: Word) -> str:
    """Does a negation of a noun head its clause's subject (HEADS: at the
    clause's start, after a heading, a section number, a mark or a word that
    opens a clause), head an object (OBJECT: "has no obligation", "through
    no fault"), or either (MAY_HEAD: "During the Term no Party shall")?"""
    if not before:
        return HEADS
    word, at = before[-1]
    plain = _plain(word)
    if (
        plain in _OPEN_CLAUSES
        or re.search(r"[,;:()\n\u2014-]", text[at + len(word) : negation[1]])
        or re.fullmatch(r"[\d.]+|[a-z]", plain)
    ):
        return HEADS
    return OBJECT if plain in _TAKES_AN_OBJECT else MAY_HEAD


def _after_preposition(before: Sequence[Word]) -> bool:
    return bool(before) and ocr_skeleton(_plain(before[-1][0])) in _INVERTING


def _ends_a_negated_verb(kept: Sequence[Word], i: int) -> bool:
    """After a "not", a modal starts a verb of its own ("Amounts not so
    disputed shall | be deemed"), as does "but" ("not on that day but on
    the | next"); not "but for", nor a modal after a preposition ("at
    will")."""
    word = kept[i][0]
    plain = _plain(word)
    following = _plain(kept[i + 1][0]) if i + 1 < len(kept) else ""
    if plain == "but":
        return following != "for"
    if i > 0 and _plain(kept[i - 1][0]) in _PREPOSITIONS:
        return False
    return _verb_reading(word, _MODAL_KEYS)


def _in_that_clause(kept: Sequence[Word]) -> bool:
    """Does the span start in the "that" clause of a negated assurance,
    which the negation governs whole ("does not warrant that the Goods |
    will be fit", "makes no representation that the Product |")?"""
    plain = [_plain(w) for w, _ in kept]
    if "that" not in plain:
        return False
    that = plain.index("that")
    return (
        that <= 6
        and len(plain) - that <= _GOVERNED_WORDS
        and any(_ASSURANCE.match(p) for p in plain[:that])
    )


# Words that govern an infinitive a negation may reach through ("no right
# or obligation to | provide", "not be required to | deliver").
_TAKES_AN_INFINITIVE = re.compile(
    r"(?:right|obligation|licen[sc]e|abilit|power|authorit|dut|need|intention"
    r"|permission|consent|requirement|liabilit|responsibilit|able|requir|oblig"
    r"|entitl|permit|allow|free|willing|authori[sz]|agree|attempt|seek|try|tries"
    r"|intend|undertak|elect|choose|want|wish|continue|begin|has|have|had)\w*\Z"
)


def _after_infinitive(kept: Sequence[Word]) -> bool:
    """Does the span start at the verb of an infinitive the negation
    governs ("has no right or obligation to | provide")?"""
    plain = [_plain(w) for w, _ in kept]
    return (
        len(plain) >= 2
        and plain[-1] == "to"
        and len(plain) <= _INFINITIVE_WORDS
        and any(_TAKES_AN_INFINITIVE.match(p) for p in plain[:-1])
        and not any(p in MODALS or p in ("but", "nor") for p in plain[:-1])
    )


def _inverted_subject(words: Sequence[Word]) -> int:
    """How many words of an inverted clause's subject follow its verb: up
    to "be" or "have" ("the Supplier or any of its Affiliates | be liable"),
    else as many as a subject may hold before a clause of its own opens
    (which counts fewest)."""
    for i, (w, _) in enumerate(words[: _INVERTED_SUBJECT_WORDS + 1]):
        plain = _plain(w)
        if plain in _INVERTED_VERBS:
            return i
        if plain in _SUBORDINATES or plain == "but":
            return i
    return _INVERTED_SUBJECT_WORDS


def reach(
    text: str, before: Sequence[Word], negation: Word, words: Sequence[Word], end: int
) -> int | None:
    """How many of `words` (those between the negation and the span, which
    starts at `end`) count towards the negation's reach, or None if its
    clause ended among them. `before` are the words of its clause before
    the negation."""
    kept = _without_asides(text, words, negation[1] + len(negation[0]), end)
    if _in_that_clause(kept):
        return 0
    noun = heads_a_noun(negation[0])
    if not noun and any(_ends_a_negated_verb(kept, i) for i in range(len(kept))):
        return None
    if _after_infinitive(kept):
        return 0
    plain_count = _counted(text, kept[_before_verb([w for w, _ in kept]) :])
    if not noun:
        return plain_count
    reading = _subject_reading(text, before, negation)
    if _plain(negation[0]) == "nor" and reading == HEADS:
        # "nor" joins objects as often as clauses ("does not involve nor
        # result from"); it heads a subject when its verb follows at once.
        reading = MAY_HEAD
    verb = None if reading == OBJECT else _verb_at(kept, joins_end=reading != HEADS)
    if verb is None:
        if reading != HEADS or _after_preposition(before):
            return plain_count
        # Its verb not found (damaged, or past a long subject): every word
        # of a subject's length may still be the subject's.
        return min(plain_count, max(0, _counted(text, kept) - SUBJECT_WORDS))
    verb_end = kept[verb][1] + len(kept[verb][0])
    after_verb = _without_asides(text, kept[verb + 1 :], verb_end, end)
    spelled = _plain(negation[0]) in _NOUN_NEGATIONS
    if (verb == 0 and spelled) or (_after_preposition(before) and verb <= 2):
        # Inverted, the subject follows its verb: "In no event shall the
        # Supplier | be liable", "nor shall its employees | disclose".
        subject = _inverted_subject(after_verb)
        return _counted(text, after_verb[subject:])
    if _after_preposition(before):
        # "shall in no way impair | the rights": the phrase is the verb's.
        return plain_count
    counted = _counted(text, after_verb[_before_verb([w for w, _ in after_verb]) :])
    return min(counted, plain_count)


def stands_before_verb(text: str, words: Sequence[Word], lo: int, end: int) -> bool:
    """Are `words` (after a word ending at `lo`, before `end`) only asides,
    adverbs and phrases that stand before a verb?"""
    kept = _without_asides(text, words, lo, end)
    return _before_verb([w for w, _ in kept]) == len(kept)
