"""The guard: a tolerant match must not change what the quote says.

Similarity alone is never the verdict: "within 60 days" is 95% similar to
"within 30 days", and a quote with one word in five replaced still scores
above 0.85. So every tolerant or fuzzy match also passes:

- `meaning_difference`: the numbers, percentages, currencies, month names,
  negations and modal verbs of quote and span are equal, in order. Digits are
  compared exactly (an OCR'd "3O" is not "30": when digits differ we fail);
  words are compared after collapsing OCR confusions, so "n0t" and "shal1"
  still read as "not" and "shall".
- `wording_difference`: aligned word by word, every word of the quote has a
  counterpart in the span and vice versa, and each pair reads the same after
  OCR folding or differs only by edits OCR makes (confusable glyphs, thin
  strokes). A fuzzy match tolerates damage, never a different word:
  "Licensee"/"Licensor", "and"/"or", "limited"/"unlimited" all fail.
  In a scan a real word may be damage to another ("fails" read for
  "falls"), unless the document writes the source's word beside the quote's
  neighbours elsewhere and the quote's word beside them nowhere ("own data",
  never "own date"): then it is the document's word, and the quote's differs.

A paraphrase (stage 3) may reword freely, so `paraphrase_difference` only asks
that the quote's numbers, negations and modals appear in the span, and that
the span adds no negation.

All functions take folded text (see folding.py) and return None when the
strings agree, else a reason a reviewer can read.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from itertools import chain
from typing import NamedTuple, Protocol

from rapidfuzz.distance import Indel, Levenshtein, Opcode

from citations.cascade import lexicon
from citations.cascade.boundaries import SIGNS
from citations.cascade.folding import OCR_SAME_LENGTH, ocr_skeleton
from citations.cascade.glyphs import (
    CONFUSABLE_PAIRS,
    INITIAL_CONFUSABLE_PAIRS,
    MERGED,
    THIN,
)
from citations.cascade.memo import memo
from citations.cascade.numerals import (
    CURRENCY_SIGNS,
    CURRENCY_WORDS,
    NUMBER_WORDS,
    number_value,
)
from citations.cascade.refusal import Check, Refusal, first_refusal, refusal
from lib.months import MONTHS
from lib.stemming import singular

# A number stands alone ("30", "1,000.50"); digits glued to letters ("30days",
# "0rder") are read as a word and sorted out in `features`.
_TOKEN = re.compile(
    r"(?P<num>(?:(?<![\w.])\.|(?<!\w))\d+(?:[.,]\d+)*+(?!\w))"
    r"|(?P<sym>[$€£¥₹%§¶]|[<>]=?|\+/-|[≥≤±≈~×+])|(?P<word>\w+(?:[.,']\w+)*)"
)
_WORD = re.compile(r"\w+")
_DIGITS = re.compile(r"\d+")
_NON_WORD = re.compile(r"\W")
_NUMBER_OR_LETTERS = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
_NUMBER_ONLY = re.compile(r"(\d+(?:[.,]\d+)*)(?:st|nd|rd|th)?")
# Glyphs of a folded token that OCR makes of digits.
_DIGIT_LOOKALIKES = str.maketrans("lio", "110")

NUMBER = "number"
PERCENT = "percentage"
CURRENCY = "currency"
DATE = "date"
NEGATION = "negation"
MODAL = "modal verb"
LABEL = "label"  # "Section 8(b)", "Article IV", "Exhibit C"
# What joins two numbers: "2-3" is a range, "2/3" a fraction or a date, "3:1"
# a ratio, and "10 15" says neither.
SEPARATOR = "number separator"
# "§ 4" is one section, "§§ 4-5" a range: the count of signs is part of the
# reference. A paraphrase may say "Section 4" instead.
SECTION_SIGN = "section sign"
KINDS = (
    NUMBER,
    PERCENT,
    CURRENCY,
    DATE,
    NEGATION,
    MODAL,
    LABEL,
    SEPARATOR,
    SECTION_SIGN,
)
_SEPARATOR = re.compile(r" ?([-/:]) ?| ")

_NEGATIONS = [
    "not",
    "no",
    "never",
    "without",
    "unless",
    "except",
    "nor",
    "neither",
    "none",
    "non",
    "nothing",
    "nobody",
    "nowhere",
]
MODALS = frozenset(
    ["shall", "may", "must", "will", "should", "can", "might", "would", "could"]
)
# Verbs a negated subject's verb may start with, besides the modals; unlike
# them, they also follow a "not" as the verb it negates ("does not have").
AUXILIARIES = frozenset(
    ["is", "are", "was", "were", "has", "have", "had", "does", "do", "did"]
)
_MONTHS = [m for m in MONTHS if m != "may"]  # "may" is a modal verb first
# Compared by what they name, in lowercase like every folded word; "cents"
# are no currency of their own, but "50 cents" is no "50 dollars".
_CURRENCY_WORDS = {w: code.lower() for w, code in CURRENCY_WORDS.items()}
_CURRENCY_WORDS["cents"] = "cents"

_WORD_FEATURES: dict[str, tuple[tuple[str, str], ...]] = {}
for _w in _NEGATIONS:
    _WORD_FEATURES[ocr_skeleton(_w)] = ((NEGATION, _w),)
for _w in MODALS:
    _WORD_FEATURES[ocr_skeleton(_w)] = ((MODAL, _w),)
for _w in NUMBER_WORDS:
    _WORD_FEATURES[ocr_skeleton(_w)] = ((NUMBER, _w),)
for _w in _MONTHS:
    _WORD_FEATURES[ocr_skeleton(_w)] = ((DATE, _w),)
for _w, _v in _CURRENCY_WORDS.items():
    _WORD_FEATURES[ocr_skeleton(_w)] = ((CURRENCY, _v),)
_WORD_FEATURES[ocr_skeleton("percent")] = ((PERCENT, "%"),)
_WORD_FEATURES[ocr_skeleton("cannot")] = ((NEGATION, "not"), (MODAL, "can"))
# "maybe" is "may be" run together as often as it is the adverb, and both say
# something may happen: it carries the modal, so "may be" and "maybe" agree
# and "must be" and "maybe" do not.
_WORD_FEATURES[ocr_skeleton("maybe")] = ((MODAL, "may"),)

# "can't" -> can + not; "won't" -> will + not; "don't" -> not.
_CONTRACTED_MODALS = {
    "ca": "can",
    "wo": "will",
    "sha": "shall",
    "should": "should",
    "would": "would",
    "could": "could",
    "must": "must",
    "might": "might",
}
# What comes before "n't", and the "n't" words that are words without it.
_NT_STEMS = frozenset(
    [
        "do",
        "does",
        "did",
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "need",
        "must",
        "should",
        "could",
        "would",
        "might",
        "ought",
        "sha",
        "ca",
        "wo",
    ]
)
_NT_WORDS = frozenset(["cant", "wont", "shant"])


@memo(4096)
def _nt_stem(word: str) -> bool:
    """Could OCR have made `word` from a stem of "n't" ("does", "ca")?"""
    return any(plausible_ocr(stem, word) for stem in _NT_STEMS)


def _signed(folded: str, start: int) -> bool:
    """Does a sign touch the token at `start`, after a space or an opening
    bracket, or stand spaced between a word and it? "by -5%" is no "by 5%",
    nor "be - 500,000" "be 500,000" ("10-15" and "10 - 15" are ranges)."""
    if start > 0 and folded[start - 1] in SIGNS:
        return start == 1 or not folded[start - 2].isalnum()
    return (
        start > 3
        and folded[start - 3 : start] in _SPACED_SIGNS
        and folded[start - 4].isalpha()
    )


_SPACED_SIGNS = frozenset(f" {sign} " for sign in SIGNS)
_DAMAGED_NT = re.compile(r"(\w+)'([tlf1i]?)")


def _damaged_nt(word: str, folded: str, end: int) -> str | None:
    """The "n't" stem of a token OCR damaged around its apostrophe ("isri't",
    "cau't", "doesn'l", "can'" before a space), or None: the letters before
    the apostrophe could be a stem and its n, and at most a thin glyph
    follows it."""
    m = _DAMAGED_NT.fullmatch(word)
    if m is None:
        # "can' assign": the t lost after a final apostrophe.
        if folded[end : end + 1] != "'" or folded[end + 1 : end + 2].isalnum():
            return None
        letters = word
    else:
        letters = m.group(1)
    if letters.endswith("n") and letters[:-1] in _NT_STEMS and m is not None:
        return None if m.group(2) == "t" else letters[:-1]
    return next((s for s in sorted(_NT_STEMS) if plausible_ocr(s + "n", letters)), None)


# A currency sign is compared as written: "$5" is no "USD 5" to the guard.
_SYMBOLS = {"%": (PERCENT, "%")}
_SYMBOLS |= {sign: (CURRENCY, sign) for sign in CURRENCY_SIGNS}
_SYMBOLS |= {"§": (SECTION_SIGN, "§"), "¶": (SECTION_SIGN, "¶")}
# Marks that bound, round or combine a number: "≥ $5,000,000", "~5%",
# "30+ days", "±1%", "5 × 10". They count beside a number only: elsewhere
# they are typography, or a scan's specks.
_BOUNDS = {">": ">", "<": "<", ">=": "≥", "≥": "≥", "<=": "≤", "≤": "≤"}
_BOUNDS |= {"±": "±", "+/-": "±", "~": "≈", "≈": "≈", "×": "×", "+": "+"}
_SYMBOLS |= {mark: (NUMBER, value) for mark, value in _BOUNDS.items()}

_NEGATING_PREFIXES = ("non", "un", "in", "im", "ir", "il", "dis")
# "in" takes the sound of the letter after it: il- before l (illegal), ir-
# before r (irrevocable), im- before m, p and b (immaterial). Skeletons read
# i and 1 as l, hence "l" in the il- rule's own letter.
_ASSIMILATED = {"il": "l", "ir": "r", "im": "mpb"}


def _negated_form(prefix: str, word: str) -> bool:
    """Could `prefix` negate `word`? "lithe" is no "il" + "the"."""
    letters = _ASSIMILATED.get(prefix)
    return letters is None or word[:1] in letters


class Feature(NamedTuple):
    kind: str
    value: str  # normalized: "1000" for "1,000", "not" for "n't"
    raw: str
    context: str  # the neighbouring words, for reasons


def _context(text: str, start: int, end: int) -> str:
    left = text.rfind(" ", 0, max(0, start - 1))
    right = text.find(" ", end + 1)
    snippet = text[left + 1 : right if right != -1 else len(text)].strip()
    return snippet if len(snippet) <= 48 else text[start:end]


_CURRENCY_SIGNS = "".join(m for m, (kind, _) in _SYMBOLS.items() if kind == CURRENCY)
_NEGATIVE_OPENINGS = frozenset(
    [c + "(" for c in _CURRENCY_SIGNS] + ["(" + c for c in _CURRENCY_SIGNS]
)


def _beside_a_number(folded: str, start: int, end: int) -> bool:
    after = folded[end : end + 3].lstrip(" ")
    if after[:1].isdigit() or (
        after[:1] in _CURRENCY_SIGNS + "." and after[1:2].isdigit()
    ):
        return True
    return start > 0 and (folded[start - 1].isdigit() or folded[start - 1] == "%")


def _bracketed(folded: str, start: int, end: int) -> bool:
    """An amount in brackets is negative, as accounts write it: "$(500,000)",
    "($500,000)". Not "thirty (30)"."""
    if folded[end : end + 1] != ")":
        return False
    return folded[max(0, start - 4) : start].replace(" ", "")[-2:] in _NEGATIVE_OPENINGS


def ocr_letters(word: str) -> bool:
    """ "supp1ier", "0rder", "n0t": a lone 0 or 1 among three or more
    letters, or between two letters, is a misread letter, not a number (the
    wording check still compares it). "n0" and "1a" stay numbers."""
    runs = _DIGITS.findall(word)
    if not all(len(r) == 1 and r in "01" for r in runs):
        return False
    letters = sum(c.isalpha() for c in word)
    return letters >= 3 or (letters == 2 and word[0].isalpha() and word[-1].isalpha())


_PUNCTUATION = re.compile(r"[.,]")


def _two_words(joined: str) -> bool:
    key = ocr_skeleton(joined)
    return joined.isalpha() and key not in _WORD_FEATURES and not lexicon.frequency(key)


# Words that name a part of a document by a letter or roman numeral.
_LABELLED = frozenset(
    ocr_skeleton(w)
    for w in (
        "section",
        "clause",
        "article",
        "schedule",
        "exhibit",
        "annex",
        "appendix",
        "part",
        "paragraph",
        "item",
        "chapter",
        "rider",
        "attachment",
        "tranche",
        "class",
        "series",
        "subsection",
        "rule",
        # Abbreviations (their full stop is gone from the word) and plurals.
        "sec",
        "art",
        "cl",
        "para",
        "ss",
        "sections",
        "clauses",
        "articles",
        "schedules",
        "exhibits",
        "paragraphs",
    )
)
_ROMAN = re.compile(r"x{0,3}(?:ix|iv|v?i{0,3})")


def is_label(word: str, previous: str, folded: str, start: int, end: int) -> bool:
    """A letter or roman numeral naming a part: "(b)", "Article IV",
    "Exhibit C", "(ii)". Compared like a number: "8(b)" is not "8(h)". A
    lone "l" or "i" elsewhere is a stray stroke, and "a" an article."""
    if len(word) > 4 or not word.isalpha():
        return False
    if start > 0 and end < len(folded) and folded[start - 1] + folded[end] == "()":
        return True
    if len(word) > 1:
        return _ROMAN.fullmatch(word) is not None
    return ocr_skeleton(previous) in _LABELLED


_PLAIN: dict[str, bool] = {}
_PLAIN_MAX = 100_000


def _plain(word: str) -> bool:
    """Can `word` yield no feature wherever it stands? Letters only, no guard
    word, no "n't" stem, no "t" or "cent" (read with the word before), no
    single letter or roman numeral (labels), no "am", "pm" or time zone
    (read with the time before); a short word in parentheses is
    still a label, which `features` checks in place. Remembered in _PLAIN,
    which `features` reads first."""
    plain = (
        word.isalpha()
        and len(word) > 1
        and word != "cent"
        and word not in _MERIDIEMS
        and word not in _TIME_ZONES
        and (len(word) > 4 or _ROMAN.fullmatch(word) is None)
        and not (word.endswith("nt") and word[:-2] in _NT_STEMS)
        and ocr_skeleton(word) not in _WORD_FEATURES
    )
    if len(_PLAIN) < _PLAIN_MAX:
        _PLAIN[word] = plain
    return plain


def features(folded: str) -> list[Feature]:
    """The meaning-bearing tokens of a folded string, in order."""
    found: list[Feature] = []
    previous_word = ""
    number_end = -1  # where the last number token ended
    for m in _TOKEN.finditer(folded):
        raw = m.group()
        # Most tokens are plain words: skip them before any other work.
        plain = _PLAIN.get(raw)
        if plain is None:
            plain = _plain(raw)
        if plain:
            if len(raw) > 4:
                previous_word = raw
                continue
            start, end = m.span()
            if not (
                start and folded[start - 1] == "(" and folded[end : end + 1] == ")"
            ):
                previous_word = raw
                continue
        kind = m.lastgroup
        start, end = m.span()
        if kind == "num":
            value = number_value(raw)
            if _signed(folded, start) or _bracketed(folded, start, end):
                value = "-" + value
            context = _context(folded, start, end)
            joint = _SEPARATOR.fullmatch(folded, number_end, start)
            if number_end >= 0 and joint:
                joined = folded[folded.rfind(" ", 0, number_end - 1) + 1 : end]
                found.append(Feature(SEPARATOR, joint.group(1) or " ", joined, context))
            found.append(Feature(NUMBER, value, raw, context))
            number_end = end
            continue
        if kind == "sym":
            feature_kind, value = _SYMBOLS[raw]
            if raw in _BOUNDS and not _beside_a_number(folded, start, end):
                continue
            # "-$500": the sign before the currency belongs to the amount.
            if feature_kind == CURRENCY and _signed(folded, start):
                value = "-" + value
            found.append(
                Feature(feature_kind, value, raw, _context(folded, start, end))
            )
            continue
        # A stray mark inside a word ("no.tice") is OCR noise, not two words;
        # unless the letters make no word, when OCR lost the space after the
        # mark ("notice.neither").
        word = raw.replace(".", "").replace(",", "")
        if word != raw and _two_words(word):
            found.extend(features(_PUNCTUATION.sub(" ", raw)))
            previous_word = word
            continue
        fractions = [c for c in raw if c.isnumeric() and not c.isdigit()]
        if fractions:
            # "¼", "2½": a number, whatever letters or digits stand beside it.
            context = _context(folded, start, end)
            found.extend(
                Feature(NUMBER, str(unicodedata.numeric(c)), c, context)
                for c in fractions
            )
        damaged_nt = _damaged_nt(word, folded, end)
        if word.endswith("n't") or damaged_nt is not None:
            context = _context(folded, start, end)
            found.append(Feature(NEGATION, "not", raw, context))
            stem = word[:-3] if damaged_nt is None else damaged_nt
            modal = _CONTRACTED_MODALS.get(stem)
            if modal:
                found.append(Feature(MODAL, modal, raw, context))
        elif is_label(word, previous_word, folded, start, end):
            # As written: "(i)" and "(l)" name two parts, and OCR damage to
            # a label leaves it in doubt.
            found.append(Feature(LABEL, word, raw, _context(folded, start, end)))
        elif (
            word == "t" and previous_word.endswith("n") and _nt_stem(previous_word[:-1])
        ):
            # "can t", "doesn t": the apostrophe of "n't" lost to OCR. Not
            # "Agreemen t": a word split before its last letter.
            context = _context(folded, start, end)
            found.append(Feature(NEGATION, "not", "n't", context))
            if not _WORD_FEATURES.get(ocr_skeleton(previous_word)):
                modal = _CONTRACTED_MODALS.get(previous_word[:-1])
                if modal:
                    found.append(Feature(MODAL, modal, "n't", context))
        elif word.endswith("nt") and word[:-2] in _NT_STEMS:
            # "mustnt", "doesnt": "n't" without its apostrophe. "cant" and
            # "wont" are words too, so they match neither reading.
            context = _context(folded, start, end)
            if word in _NT_WORDS:
                found.append(Feature(NEGATION, f"{word} (can or cannot)", raw, context))
            else:
                found.append(Feature(NEGATION, "not", raw, context))
                modal = _CONTRACTED_MODALS.get(word[:-2])
                if modal:
                    found.append(Feature(MODAL, modal, raw, context))
        elif _names_a_time(word, folded, start):
            # "5 pm", "5:00 p.m. EST": compared as written, like a label.
            found.append(Feature(LABEL, word, raw, _context(folded, start, end)))
        elif word == "cent" and previous_word == "per":
            found.append(
                Feature(PERCENT, "%", "per cent", _context(folded, start, end))
            )
        else:
            known = _WORD_FEATURES.get(ocr_skeleton(word))
            if known:
                context = _context(folded, start, end)
                found.extend(Feature(k, v, raw, context) for k, v in known)
            elif (
                not word.isalpha()
                and any(c.isdigit() for c in word)
                and not ocr_letters(word)
            ):
                # Digits inside a word ("12b", "175,250for") still count as
                # numbers, and the words glued to them ("April2024",
                # "usd100") still count as words.
                context = _context(folded, start, end)
                found.extend(_glued_to_digits(raw, previous_word, context))
        previous_word = word
    return found


_MERIDIEMS = frozenset(["am", "pm"])
_TIME_ZONES = frozenset(
    [
        "est",
        "edt",
        "cst",
        "cdt",
        "mst",
        "mdt",
        "pst",
        "pdt",
        "akst",
        "hst",
        "gmt",
        "utc",
        "cet",
        "cest",
        "eet",
        "eest",
        "wet",
        "west",
        "bst",
        "ist",
        "jst",
        "kst",
        "aest",
        "aedt",
        "sgt",
        "hkt",
        "et",
        "ct",
        "mt",
        "pt",
    ]
)
_AFTER_A_NUMBER = re.compile(r"\d[\s.]*\Z")
_AFTER_A_TIME = re.compile(rf"{_AFTER_A_NUMBER.pattern}|\b[ap]\.?m\.?\s*\Z")


def _names_a_time(word: str, folded: str, start: int) -> bool:
    """Is `word` "am"/"pm" after a number, or a time zone after a time?"""
    if word not in _MERIDIEMS and word not in _TIME_ZONES:
        return False
    before = folded[max(0, start - 8) : start]
    after = _AFTER_A_NUMBER if word in _MERIDIEMS else _AFTER_A_TIME
    return bool(after.search(before))


def _glued_to_digits(raw: str, previous_word: str, context: str) -> list[Feature]:
    """The features of a token with digits in it that are no misread
    letters ("12b", "175,250for", "April2024", "usd100")."""
    as_digits = _NUMBER_ONLY.fullmatch(raw.translate(_DIGIT_LOOKALIKES))
    if as_digits:
        # "l5", "I50", "5O", "l2th": a glyph that looks like a digit beside
        # digits is one ("$l5" is never "$5").
        return [Feature(NUMBER, number_value(as_digits.group(1)), raw, context)]
    found = []
    pieces = list(_NUMBER_OR_LETTERS.finditer(raw))
    for n, piece in enumerate(pieces):
        part = piece.group()
        if part[0].isdigit():
            found.append(Feature(NUMBER, number_value(part), part, context))
        elif (
            len(part) == 1
            and n == len(pieces) - 1
            and n
            and ocr_skeleton(previous_word) in _LABELLED
        ):
            # "Section 8b": the letter after a number names a part (not in
            # "the 16t h day"), as written like any label ("8l" and "8i"
            # never get here: both read as 81).
            found.append(Feature(LABEL, part, part, context))
        else:
            known = _WORD_FEATURES.get(ocr_skeleton(part), ())
            found.extend(Feature(k, v, part, context) for k, v in known)
    return found


# The rule that compares each kind of meaning-bearing token (rules.py).
MEANING_RULES = {
    NUMBER: "meaning.number",
    PERCENT: "meaning.percentage",
    CURRENCY: "meaning.currency",
    DATE: "meaning.date",
    NEGATION: "meaning.negation",
    MODAL: "meaning.modal",
    LABEL: "meaning.label",
    SEPARATOR: "meaning.number_separator",
    SECTION_SIGN: "meaning.section_sign",
}


def _describe(kind: str, a: list[Feature], b: list[Feature]) -> str:
    va = [f.value for f in a]
    vb = [f.value for f in b]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, va, vb, autojunk=False
    ).get_opcodes():
        if tag == "equal":
            continue
        quoted = ", ".join(f"'{f.raw}' ({f.context})" for f in a[i1:i2])
        sourced = ", ".join(f"'{f.raw}' ({f.context})" for f in b[j1:j2])
        if tag == "replace":
            return f"{kind} differs: quote has {quoted}, source has {sourced}"
        if tag == "delete":
            return f"{kind} missing in source: quote has {quoted}"
        return f"{kind} added in source: source has {sourced}"
    return f"{kind} differs"


def _by_kind(found: Iterable[Feature]) -> dict[str, list[Feature]]:
    grouped: dict[str, list[Feature]] = {k: [] for k in KINDS}
    for f in found:
        grouped[f.kind].append(f)
    return grouped


@lru_cache(maxsize=16)
def _features_of(folded: str) -> tuple[Feature, ...]:
    # The same quote is checked against every candidate placement. Few are
    # kept: a 2,000-character quote of legal prose holds hundreds of
    # features, each an object the garbage collector walks.
    return tuple(features(folded))


class _Meaning(NamedTuple):
    """What the meaning rules read: the quote's and the span's features,
    by kind."""

    quote: dict[str, list[Feature]]
    span: dict[str, list[Feature]]


def _kind_differs(kind: str) -> Callable[[_Meaning], str | None]:
    """The rule of one kind: the quote and the span say the same values of
    it, in the same order."""

    def differs(m: _Meaning) -> str | None:
        a, b = m.quote[kind], m.span[kind]
        if [f.value for f in a] == [f.value for f in b]:
            return None
        return _describe(kind, a, b)

    differs.__name__ = f"_{kind.replace(' ', '_')}_differs"
    return differs


def _first_unmatched(said: list[Feature], other: list[Feature]) -> Feature | None:
    """The first of `said` whose value `other` does not also say (counted:
    two "not"s need two)."""
    extra = Counter(f.value for f in said) - Counter(f.value for f in other)
    return next((f for f in said if f.value in extra), None)


def _kind_missing(kind: str) -> Callable[[_Meaning], str | None]:
    """The paraphrase rule of one kind: every value of it the quote says is
    in the span (a paraphrase may reorder and add, not drop)."""

    def missing(m: _Meaning) -> str | None:
        shown = _first_unmatched(m.quote[kind], m.span[kind])
        if shown is None:
            return None
        return f"{kind} missing in source: quote has '{shown.raw}' ({shown.context})"

    missing.__name__ = f"_{kind.replace(' ', '_')}_missing"
    return missing


def _negation_added(m: _Meaning) -> str | None:
    shown = _first_unmatched(m.span[NEGATION], m.quote[NEGATION])
    if shown is None:
        return None
    return f"negation added in source: source has '{shown.raw}' ({shown.context})"


# The meaning rules, one per kind of meaning-bearing token, in KINDS order;
# the first kind that differs decides (meaning_difference).
MEANING_CHECKS: tuple[Check[_Meaning], ...] = tuple(
    Check(MEANING_RULES[kind], _kind_differs(kind)) for kind in KINDS
)
# A judged paraphrase's (paraphrase_difference): no kind's value of the
# quote missing from the span (a section sign is how a label is written,
# which a paraphrase may change), and no negation the quote lacks.
PARAPHRASE_CHECKS: tuple[Check[_Meaning], ...] = (
    *(
        Check(MEANING_RULES[kind], _kind_missing(kind))
        for kind in KINDS
        if kind != SECTION_SIGN
    ),
    Check(MEANING_RULES[NEGATION], _negation_added),
)


def meaning_difference(quote: str, span: str) -> str | None:
    """Why the span says something different from the quote, as a Refusal
    naming the rule of the first kind that differs (MEANING_CHECKS), or
    None."""
    case = _Meaning(_by_kind(_features_of(quote)), _by_kind(features(span)))
    return first_refusal(MEANING_CHECKS, case)


def paraphrase_difference(quote: str, span: str) -> str | None:
    """For a judged paraphrase: the quote's numbers, negations and modals must
    appear in the span, and the span must not add a negation
    (PARAPHRASE_CHECKS)."""
    case = _Meaning(_by_kind(features(quote)), _by_kind(features(span)))
    return first_refusal(PARAPHRASE_CHECKS, case)


def _negating_prefix(a: str, b: str) -> bool:
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return len(shorter) >= 3 and any(
        longer == p + shorter and _negated_form(p, shorter) for p in _NEGATING_PREFIXES
    )


def plausible_ocr(a: str, b: str, arbitrary: int = 0) -> bool:
    """Could OCR have turned word `a` into word `b`? Both are folded.

    The cheapest edit path that uses only OCR-like edits (confusable
    substitutions, a glyph read as two or two as one, thin strokes dropped or
    added) must be short. A DP over all paths, not one path from editops:
    "hand"/"harid" is n->r plus an i, and an equally short path through n->i
    would wrongly look implausible. `arbitrary` edits of any letter may be
    spent on top (see `_damage_reads_as` for when that is allowed).
    """
    return _plausible_folded(
        a.translate(OCR_SAME_LENGTH), b.translate(OCR_SAME_LENGTH), arbitrary
    )


@memo(65536)
def _plausible_folded(a: str, b: str, arbitrary: int = 0) -> bool:
    n, m = len(a), len(b)
    limit = 1 + max(n, m) // 4
    if abs(n - m) > 2 * limit + arbitrary or n * m > 4096:
        return False
    # Cheap exits before the DP: a glyph read as two costs one OCR edit but
    # two plain ones, so more than 2 * limit plain edits cannot be plausible;
    # same length with look-alike substitutions only is the common case.
    cutoff = 2 * limit + arbitrary
    if Levenshtein.distance(a, b, score_cutoff=cutoff + 1) > cutoff:
        return False
    if n == m and not arbitrary:
        differing = [x + y for x, y in zip(a, b, strict=True) if x != y]
        if len(differing) <= limit and all(
            pair in CONFUSABLE_PAIRS for pair in differing
        ):
            return True
    never = limit + 1
    thin_b = [y in THIN for y in b]
    merged_a, merged_b = _merged_ending(a), _merged_ending(b)
    # One table per number of arbitrary edits spent; cells hold OCR edits.
    tables: list[list[list[int]]] = []
    for layer in range(arbitrary + 1):
        below = tables[-1] if tables else None
        table: list[list[int]] = []
        for i in range(n + 1):
            x = a[i - 1] if i else ""
            thin_x = x in THIN
            above = table[i - 1] if i else []
            row: list[int] = []
            for j in range(m + 1):
                if not (i or j):
                    row.append(never if layer else 0)
                    continue
                best = never
                if i and j:
                    y = b[j - 1]
                    if x == y:
                        best = above[j - 1]
                    elif x + y in CONFUSABLE_PAIRS or (
                        i == j == 1 and x + y in INITIAL_CONFUSABLE_PAIRS
                    ):
                        best = above[j - 1] + 1
                    if y in merged_a[i]:
                        best = min(best, table[i - 2][j - 1] + 1)
                if thin_x:
                    best = min(best, above[j] + 1)
                if j and thin_b[j - 1]:
                    best = min(best, row[j - 1] + 1)
                if x in merged_b[j]:
                    best = min(best, above[j - 2] + 1)
                if below is not None:
                    if i and j:
                        best = min(best, below[i - 1][j - 1])
                    if i:
                        best = min(best, below[i - 1][j])
                    if j:
                        best = min(best, below[i][j - 1])
                row.append(min(best, never))
            table.append(row)
        tables.append(table)
    return min(table[n][m] for table in tables) <= limit


_NO_GLYPHS: frozenset[str] = frozenset()


def _merged_ending(word: str) -> list[frozenset[str]]:
    """For each j, the glyphs word[j - 2 : j] may be one glyph read as two
    (empty for j < 2), as the edit distances' rows and columns look it up."""
    return [
        MERGED.get(word[j - 2 : j], _NO_GLYPHS) if j >= 2 else _NO_GLYPHS
        for j in range(len(word) + 1)
    ]


# Parties named by the same stem: the one who grants and the one who
# receives ("Licensor"/"Licensee", "mortgagor"/"mortgagee", "appellant"/"appellee").
_GIVER_SUFFIXES = ("or", "er", "ant")


@memo(4096)
def damage_cost(a: str, b: str) -> float:
    """The noisy channel's cost (lexicon.py) of OCR making skeleton `b` from
    skeleton `a`: look-alike glyphs, thin strokes and one glyph read as two
    (or two as one) are cheap, any other edit dear. A weighted edit distance."""
    cheap, dear = lexicon.LOOKALIKE_COST, lexicon.ARBITRARY_COST
    drop_b = [cheap if y in THIN else dear for y in b]
    merged_a, merged_b = _merged_ending(a), _merged_ending(b)
    above: list[float] = [0.0]
    for drop in drop_b:
        above.append(above[-1] + drop)
    two_above = above
    for i, x in enumerate(a, 1):
        drop_x = cheap if x in THIN else dear
        row = [above[0] + drop_x]
        for j, y in enumerate(b, 1):
            if x == y:
                best = above[j - 1]
            elif x + y in CONFUSABLE_PAIRS or (
                i == j == 1 and x + y in INITIAL_CONFUSABLE_PAIRS
            ):
                best = above[j - 1] + cheap
            else:
                best = above[j - 1] + dear
            best = min(best, above[j] + drop_x, row[j - 1] + drop_b[j - 1])
            if y in merged_a[i]:
                best = min(best, two_above[j - 1] + cheap)
            if x in merged_b[j]:
                best = min(best, above[j - 2] + cheap)
            row.append(best)
        two_above, above = above, row
    return above[-1]


# Parties named other than by -or/-ee: each is the other's counterpart.
_COUNTERPARTS = frozenset(
    frozenset(map(ocr_skeleton, pair))
    for pair in (
        ("buyer", "seller"),
        ("purchaser", "seller"),
        ("purchaser", "vendor"),
        ("buyer", "vendor"),
        ("landlord", "tenant"),
        ("lender", "borrower"),
        ("customer", "supplier"),
        ("customer", "vendor"),
        ("company", "consultant"),
        ("client", "contractor"),
    )
)


def counterpart(a: str, b: str) -> bool:
    """Are skeletons `a` and `b` two parties of one pair, exactly as spelled
    ("Licensor"/"Licensee", "Buyer"/"Seller")?"""
    if a == b:
        return False
    if frozenset((a, b)) in _COUNTERPARTS:
        return True
    # Plurals and possessives: "Indemnitors"/"Indemnitees", "Licensors'".
    singular_a, singular_b = singular(a), singular(b)
    if (singular_a, singular_b) != (a, b) and singular_a != singular_b:
        return counterpart(singular_a, singular_b)
    return any(
        x.endswith("ee")
        and len(x) > 4
        and any(y == x[:-2] + suffix for suffix in _GIVER_SUFFIXES)
        for x, y in ((a, b), (b, a))
    )


def party_rival(
    quote_word: str, span_word: str, vocabulary: Mapping[str, int] | None
) -> bool:
    """Is the span word the quote's party's counterpart ("Licensor" for
    "Licensee"), or could OCR have made it from one that is a word
    ("Licensar" from "Licensor", "Employot" from "Employer")? Both are OCR
    skeletons."""
    if counterpart(quote_word, span_word):
        return True
    if quote_word.endswith("ee"):
        stem = quote_word[:-2]
        rivals = [stem + suffix for suffix in _GIVER_SUFFIXES]
    else:
        rivals = [
            quote_word[: -len(suffix)] + "ee"
            for suffix in _GIVER_SUFFIXES
            if quote_word.endswith(suffix)
        ]
    real = [r for r in rivals if len(r) > 4 and lexicon.is_word(r, vocabulary)]
    # A counterpart no dictionary lists and the document does not use
    # elsewhere ("Licensor") still names the other party: a token OCR made
    # from it more cheaply than from the quote's word ("Licenso") is none of
    # the quote's party. Party names are rare words; "order" and "under"
    # name no party, and are left out before any cost is worked out.
    if (
        span_word != quote_word
        and lexicon.frequency(quote_word) < lexicon.COMMON
        and any(
            len(r) > 4
            and damage_cost(r, span_word) < damage_cost(quote_word, span_word)
            for r in rivals
        )
    ):
        return True
    # Damage that the other party of the document explains about as well as
    # the quote's leaves the party in doubt: "Employex" is "Employer" or
    # "Employee" with one letter changed either way. "Licensce" is Licensee
    # with c/e, and Licensor only with two changes; "Employen" is Employer
    # with r/n before it is Employee with a letter changed, as OCR's own
    # confusions outnumber its arbitrary errors.
    if span_word != quote_word and any(
        (vocabulary is None or vocabulary.get(r, 0))
        and damage_cost(r, span_word) - damage_cost(quote_word, span_word)
        < lexicon.LOOKALIKE_COST
        for r in real
    ):
        return True
    return any(
        len(rival) > 4
        and (
            rival == span_word
            or (rival in real and _plausible_folded(rival, span_word))
        )
        for rival in rivals
    )


_GUARD_SKELETONS = frozenset(_WORD_FEATURES)
_SORTED_GUARD_SKELETONS = tuple(sorted(_GUARD_SKELETONS))


def _damage_reads_as(
    quote_words: str, span_words: str, vocabulary: Mapping[str, int] | None
) -> bool:
    """Span words that differ from the quote's by look-alike glyphs plus one
    arbitrary edit ("dys" for "days", "applicablg" for "applicable") read as
    the quote's when none of them is a word and a spelling corrector would
    read them as the quote's words (lexicon.py). Never for digits, and never
    between a party and its counterpart ("Licensor"/"Licensee")."""
    q = _NON_WORD.sub("", quote_words)
    s = _NON_WORD.sub("", span_words)
    if not q or not s or any(c.isdigit() for c in q + s):
        return False
    qk, sk = ocr_skeleton(q), ocr_skeleton(s)
    if party_rival(qk, sk, vocabulary) or not plausible_ocr(q, s, arbitrary=1):
        return False
    if any(
        lexicon.is_word(ocr_skeleton(w), vocabulary, qk)
        for w in _WORD.findall(span_words)
    ):
        return False
    return lexicon.reading(sk, qk, vocabulary, rivals=_GUARD_SKELETONS) is None


def _is_junk(word: str) -> bool:
    # A stray stroke read as a letter ("l", "i"): OCR noise, not a word.
    return len(word) == 1 and word in THIN


class _Group(NamedTuple):
    """Words of the quote and of the span that an alignment ties together
    (`_align_words` leaves out a word written alike in both)."""

    quote_words: tuple[tuple[int, int], ...]
    span_words: tuple[tuple[int, int], ...]
    # One word each, equal after the same-length OCR folding ("1n", "in").
    same: bool = False


def _align_words(quote: str, span: str) -> list[_Group]:
    # Words equal after the same-length OCR folding pair up one to one (a
    # token-level alignment, in C); only the stretches between them are
    # aligned character by character, where words that share characters form
    # a group, so "kingwas" vs "king was" compares as one. Quotes run to
    # 2,000 characters and every candidate placement is checked.
    qk = quote.translate(OCR_SAME_LENGTH)
    sk = span.translate(OCR_SAME_LENGTH)
    q_tokens = [(m.start(), m.end()) for m in _WORD.finditer(qk)]
    s_tokens = [(m.start(), m.end()) for m in _WORD.finditer(sk)]
    q_words = [qk[a:b] for a, b in q_tokens]
    s_words = [sk[a:b] for a, b in s_tokens]
    groups: list[_Group] = []
    region: list[int] | None = None  # [i1, i2, j1, j2] of unequal words
    opcodes = Levenshtein.opcodes(q_words, s_words)
    for k, op in enumerate(opcodes):
        tag, i1, i2, j1, j2 = _op_fields(op)
        # One equal word between two unequal stretches may be a tie the
        # token alignment broke the wrong way ("by hand, by courier" against
        # "byhand, by eou rjer" pairs the first "by" with the second): the
        # characters decide.
        lone = (
            tag == "equal"
            and i2 - i1 == 1
            and region is not None
            and k + 1 < len(opcodes)
        )
        if tag != "equal" or lone:
            region = [region[0] if region else i1, i2, region[2] if region else j1, j2]
            continue
        if region:
            groups += _align_chars(qk, sk, q_tokens, s_tokens, *region)
            region = None
        # Words written alike in quote and span need no group: every check
        # of a group is about a difference.
        groups += (
            _Group((q,), (s,), same=True)
            for q, s in zip(q_tokens[i1:i2], s_tokens[j1:j2], strict=True)
            if quote[q[0] : q[1]] != span[s[0] : s[1]]
        )
    if region:
        groups += _align_chars(qk, sk, q_tokens, s_tokens, *region)
    return groups


def _align_chars(
    qk: str,
    sk: str,
    all_q: list[tuple[int, int]],
    all_s: list[tuple[int, int]],
    i1: int,
    i2: int,
    j1: int,
    j2: int,
) -> list[_Group]:
    """Groups of quote words all_q[i1:i2] and span words all_s[j1:j2], tied
    together wherever the character alignment pairs their characters."""
    q_tokens, s_tokens = all_q[i1:i2], all_s[j1:j2]
    if len(q_tokens) == 1 and len(s_tokens) == 1:
        # Two non-empty words always share an aligned (equal or substituted)
        # character: a cheapest alignment never deletes and inserts them all.
        return [_Group((q_tokens[0],), (s_tokens[0],))]
    if not q_tokens or not s_tokens:
        return [_Group((t,), ()) for t in q_tokens] + [
            _Group((), (t,)) for t in s_tokens
        ]
    q0, s0 = q_tokens[0][0], s_tokens[0][0]
    nq = len(q_tokens)
    s_ends = [e for _, e in s_tokens]
    parent = list(range(nq + len(s_tokens)))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    blocks = [
        (
            q0 + op.src_start,
            q0
            + op.src_start
            + min(op.src_end - op.src_start, op.dest_end - op.dest_start),
            s0 + op.dest_start,
        )
        for op in Levenshtein.opcodes(
            qk[q0 : q_tokens[-1][1]], sk[s0 : s_tokens[-1][1]]
        )
        if op.tag in ("equal", "replace")
    ]
    block_starts = [b[0] for b in blocks]
    for qi, (a, b) in enumerate(q_tokens):
        k = max(0, bisect_right(block_starts, a) - 1)
        while k < len(blocks) and blocks[k][0] < b:
            x1, x2, y1 = blocks[k]
            x, y = max(a, x1), min(b, x2)
            if x < y:
                # Span tokens overlapping [y1 + x - x1, y1 + y - x1).
                lo, hi = y1 + x - x1, y1 + y - x1
                t = bisect_right(s_ends, lo)
                while t < len(s_tokens) and s_tokens[t][0] < hi:
                    parent[root(qi)] = root(nq + t)
                    t += 1
            k += 1
    members: dict[int, tuple[list[int], list[int]]] = {}
    for node in range(nq + len(s_tokens)):
        qs, ss = members.setdefault(root(node), ([], []))
        (qs if node < nq else ss).append(node if node < nq else node - nq)
    return [
        _Group(tuple(q_tokens[i] for i in qs), tuple(s_tokens[i] for i in ss))
        for qs, ss in members.values()
    ]


def _words(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    return " ".join(text[a:b] for a, b in spans)


# Codes, as the original (unfolded) text spells them: abbreviations in
# capitals ("CA", "FOB", "USD", "CFO"), a capital before a currency sign
# ("C$"), and words with a capital inside ("MWh", "kWh", "iPass"). Their
# letters are few and arbitrary, so a look-alike glyph ("GA" for "CA") is as
# likely another code as damage.
# The longest word in capitals taken for a code.
_CODE_LETTERS = 6
_CODE = re.compile(
    rf"\b(?:[A-Z][A-Z0-9&]{{1,{_CODE_LETTERS - 1}}}\b|[A-Z](?=\$)"
    r"|[A-Za-z]*(?:[a-z][A-Z]|[A-Z]{2}[a-z])[A-Za-z]*)"
)


def codes(original: str) -> frozenset[str]:
    """The code words of an original (unfolded) text, lowercased as folding
    leaves them."""
    return frozenset(
        m.group().lower() for m in _CODE.finditer(original) if not m.group().isdigit()
    )


# Words an original text writes as a person's name (after a title: "Dr.
# Kem"), or inside an address or a dotted abbreviation ("acme.com",
# "legal@acme", "N.J."). Capitals alone make no name: a contract capitalizes
# its defined terms, which a scan damages like any word ("Agreernent").
_TITLED = r"\b(?:Mr|Mrs|Ms|Mx|Dr|Prof)\.?\s+[A-Z][\w'’-]*"
_NAME = re.compile(_TITLED + r"|[\w.-]*\w[@.]\w[\w.@-]*")
# Most spans hold no address or dotted abbreviation, where _NAME would try a
# backtracking match from every letter in vain: those are read for titles only.
_TITLED_NAME = re.compile(_TITLED)
_DOTTED = re.compile(r"\w[@.]\w")
_TITLES = frozenset({"mr", "mrs", "ms", "mx", "dr", "prof"})
_CAPITALISED = re.compile(r"\b[A-Z][^\W\d_]*")


class Written(NamedTuple):
    """How a span's original text writes its words, lowercased as folding
    leaves them: as names or in addresses (`names`), or with a capital
    (`capitalised`, within a sentence: a defined term, or a name without a
    title)."""

    names: frozenset[str] = frozenset()
    capitalised: frozenset[str] = frozenset()


_PLAIN_WRITING = Written()


def written(original: str) -> Written:
    """The words of an original (unfolded) text written as names or in
    addresses, and those written with a capital."""
    names = (
        frozenset(
            word.lower()
            for m in (_NAME if _DOTTED.search(original) else _TITLED_NAME).finditer(
                original
            )
            for word in re.findall(r"[^\W_]+", m.group())
        )
        - _TITLES
    )
    capitalised = frozenset(
        m.group().lower()
        for m in _CAPITALISED.finditer(original)
        if not _opens_sentence(original, m.start())
    )
    return Written(names, capitalised)


def _opens_sentence(text: str, i: int) -> bool:
    """Does the word at i open a sentence or line (or the text, whose start
    is unknown)? Its capital then says nothing."""
    j = i
    while j and text[j - 1].isspace():
        j -= 1
    return not j or text[j - 1] in '.!?:;"“(' or "\n" in text[j:i]


def _possessive(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    """How the words at `spans` end: "'s" ("Lender's", one owner), "s'"
    ("Lenders'", several) or "" (no apostrophe)."""
    start, end = spans[0][0], spans[-1][1]
    if text[start:end].endswith("'s"):
        return "'s"
    if text[end - 1 : end + 1] == "s'":
        return "s'"
    return ""


def _as_written(text: str, spans: tuple[tuple[int, int], ...], form: str) -> str:
    return text[spans[0][0] : spans[-1][1]] + ("'" if form == "s'" else "")


def _mixed(word: str) -> bool:
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def _respelled_code(q_words: str, s_words: str, code_words: frozenset[str]) -> bool:
    """Quote and span differ in the letters of a code word of either, or in
    a word that mixes letters and digits in both ("8i" and "8l"; "0f" for
    "of" is a digit misread)."""
    if q_words.replace(" ", "") == s_words.replace(" ", ""):
        return False
    q_list, s_list = q_words.split(), s_words.split()
    if len(q_list) == len(s_list) == 1 and _mixed(q_words) and _mixed(s_words):
        return True
    return any(w in code_words for w in chain(q_list, s_list))


def _code_letter_added_to(
    q_words: str, s_words: str, code_words: frozenset[str]
) -> bool:
    """In a scan, one code is the other with a letter more ("GOOG", "GOOGL";
    "MSFT", "MSF")? OCR drops thin lowercase strokes, but a code's capitals
    are whole letters, and a one-letter-longer ticker is another company.
    Words in capitals that are English words are a heading's, and damaged
    like any word."""
    q, s = q_words, s_words
    if " " in q + s or max(len(q), len(s)) > _CODE_LETTERS:
        # One word each ("the lessee" run together is no code), as long as
        # a code in capitals: "iLicensor" is a damaged word.
        return False
    if not (q in code_words or s in code_words):
        return False
    if lexicon.is_spelled(q) or lexicon.is_spelled(s):
        return False  # a heading's word in capitals ("NOTCE" for "NOTICE")
    return Indel.distance(q, s) == 1


def _another_real_word(
    quote_word: str, span_word: str, group: _Group, vocabulary: Mapping[str, int] | None
) -> bool:
    """In a clean (not OCR'd) source, a real word, or one the document uses
    elsewhere, is not a misreading of a look-alike word: "data" is not
    "date", "hand" is not "hard". In a scan it may be, where the document
    gives no reason to doubt it."""
    if len(group.quote_words) != 1 or len(group.span_words) != 1:
        return False
    if not lexicon.looks_scanned(vocabulary):
        # In a clean source a word the document uses elsewhere is a word
        # too, dictionary or not: "COO" is not "CEO", "Kronos" not "Krones".
        used = vocabulary or {}
        return bool(
            (lexicon.frequency(quote_word) or used.get(quote_word))
            and (lexicon.frequency(span_word) or used.get(span_word, 0) >= 2)
        )
    if not (lexicon.frequency(quote_word) and lexicon.frequency(span_word)):
        return False
    # In a scan a real word may be damage, but damage is a one-off: a word
    # the document uses again where it never uses the quote's ("mouth" over
    # "month") is its own word, unless the glyph between them is one this
    # scan confuses habitually ("he" over "be" where "tbe", "wben", "bim").
    if (
        vocabulary is None
        or vocabulary.get(quote_word)
        or vocabulary.get(span_word, 0) < 2
    ):
        return False
    return not lexicon.habitual_confusion(span_word, quote_word, vocabulary)


class PhraseCount(Protocol):
    """How often the document writes two folded words in a row, counted up
    to `enough`: PreparedText.phrase_count."""

    def __call__(
        self, first: str, second: str, enough: int, *, spelled: bool = True
    ) -> int: ...


def _document_wording(
    quote: str,
    span: str,
    group: _Group,
    vocabulary: Mapping[str, int] | None,
    phrases: PhraseCount | None,
) -> str | None:
    """Why one word of a scan (which OCR may have split) is the document's
    own wording rather than damage to the quote's, or None. OCR damage is a
    one-off; a phrase the document repeats is its wording. So the quote's
    word is refused where the document never writes it beside the quote's
    neighbours, and writes twice or more beside them
    - the span's word, a dictionary word too ("own data" where the quote has
      "own date"), unless the glyph between the two is one the scan
      confuses habitually (where every "he" came out "be", "be came"
      repeats and "he came" is written nowhere); or
    - a word the span's damaged token reads as at least as cheaply as the
      quote's ("calendar month", where "menth" is "month" or "mouth")."""
    if phrases is None or vocabulary is None or len(group.quote_words) != 1:
        return None
    ((q_start, q_end),) = group.quote_words
    # A word OCR split is read whole ("f ails" for "fails").
    ours = quote[q_start:q_end]
    theirs = "".join(span[a:b] for a, b in group.span_words)
    if ours == theirs or not (
        ours.isalpha() and theirs.isalpha() and lexicon.is_spelled(ours)
    ):
        return None
    before = _WORD.findall(quote[max(0, q_start - 40) : q_start])[-1:]
    after = _WORD.findall(quote[q_end : q_end + 40])[:1]
    beside = [(word, None) for word in before] + [(None, word) for word in after]
    # First the quote's own phrases: in a document that repeats itself most
    # are found at the first place the index lists.
    if any(phrases(a or ours, b or ours, 1) for a, b in beside):
        return None
    spelled = lexicon.is_spelled(theirs)
    ours_key, theirs_key = ocr_skeleton(ours), ocr_skeleton(theirs)
    if spelled:
        readings = [theirs]
    else:
        readings = [
            word
            for word in lexicon.document_lookalikes(theirs_key, vocabulary)
            if word != ours_key
        ]
        if readings:
            own_cost = damage_cost(ours_key, theirs_key)
            readings = [w for w in readings if damage_cost(w, theirs_key) <= own_cost]
    repeated = next(
        (
            (word, f"{a or word} {b or word}")
            for word in readings
            for a, b in beside
            if phrases(a or word, b or word, 2, spelled=spelled) >= 2
        ),
        None,
    )
    if repeated is None:
        return None
    word, phrase = repeated
    # Last: the first question about a pair of glyphs reads the whole
    # vocabulary.
    if spelled and lexicon.habitual_confusion(theirs_key, ours_key, vocabulary):
        return None
    reads = "" if spelled else f", which reads as '{word}' at least as well"
    return (
        f"word differs: quote has '{ours}', source has '{theirs}'{reads} "
        f"(the document writes '{phrase}' elsewhere too, and never the "
        "quote's word there)"
    )


def _spelled_swap(quote_word: str, span_word: str, clean: bool) -> bool:
    """Words equal up to look-alike glyphs are still two words when both are
    spelled so in the dictionary ("fails"/"falls", "mail"/"mall",
    "stern"/"stem", "modern"/"modem"); in a clean source that is a different
    word, not damage."""
    if quote_word == span_word:
        return False
    return clean and lexicon.is_spelled(quote_word) and lexicon.is_spelled(span_word)


def _stray_misprint(
    q_words: str,
    s_words: str,
    vocabulary: Mapping[str, int] | None,
    as_written: Written = _PLAIN_WRITING,
) -> bool:
    """In a clean source, do the span's words that differ from the quote's
    read as a one-off misprint of them ("Licensar", "0f"), not as words of
    their own? Each must be no dictionary word and, unless a look-alike
    spelling of the quote's word, used nowhere else, and more than a letter
    ("C" and "F", "N.J." and "N.Y." are letters of their own) unless it mixes
    letters and digits ("0f"); the quote's word must be a dictionary word
    (for a two-letter misprint, "hy" for "by") or one the document uses
    elsewhere. A person's name or an address in the span (`names`) is as
    written: a quote that "corrects" it ("Dr. Kern" for "Dr. Kem",
    "acme.com" for "acrne.com") names someone else. So is a word with a
    capital inside a sentence, unless the document uses the quote's word
    elsewhere: a defined term recurs ("Licensor" for "Licensar"), a name
    may not ("Anna Kern" for "Anna Kem")."""
    used = vocabulary or {}
    q_list, s_list = q_words.split(), s_words.split()
    q_keys = {ocr_skeleton(w) for w in q_list}
    short = proper = False
    for word in s_list:
        if word in q_list:
            continue
        key = ocr_skeleton(word)
        if (
            word in as_written.names
            or lexicon.is_spelled(word)
            or (len(word) < 2 and not _mixed(word))
        ):
            return False
        if key not in q_keys and used.get(key, 0) > 1:
            return False
        short = short or (len(word) < 3 and not _mixed(word))
        proper = proper or word in as_written.capitalised
    s_keys = {ocr_skeleton(w) for w in s_list}
    for word in q_list:
        if word in s_list:
            continue
        key = ocr_skeleton(word)
        if proper:
            # The span's own look-alike spelling counts under the same key.
            if used.get(key, 0) > (key in s_keys):
                continue
            return False
        if lexicon.is_spelled(word):
            continue
        if short:
            return False  # "μg" is no misprint of "mg", nor "Ga." of "Ca."
        # A look-alike spelling of the span's word must be a word itself: the
        # vocabulary counts the span's own spelling under the same key.
        if key in s_keys or not used.get(key):
            return False
    return True


def _real_word_differs(quote_words: str, span_words: str, clean: bool) -> str:
    """A real word for another: in a clean source nothing was misread; in a
    scan there is damage, but none that makes one word of the other."""
    cause = (
        "a different word, and the source shows no OCR damage"
        if clean
        else "a different real word, which no OCR damage of the quote's explains"
    )
    return (
        f"word differs: quote has '{quote_words}', source has '{span_words}' ({cause})"
    )


# What kind of difference an aligned group of words is: the wording rules
# that apply to each (WORDING_RULES). `_align_words` leaves out words
# written alike in both.
SAME = "one word each, equal after OCR folding ('1n', 'in')"
MISSING = "a quote word the span lacks"
ADDED = "a span word the quote lacks"
SAME_LETTERS = "the same letters, set otherwise"
OTHER = "other words"


class _Shared(NamedTuple):
    """What every group of one quote and span shares."""

    quote: str
    span: str
    groups: list[_Group]
    clean: bool
    vocabulary: Mapping[str, int] | None
    code_words: frozenset[str]
    as_written: Written
    phrases: PhraseCount | None


class _WordCase:
    """One aligned group of quote and span words, and what the wording
    rules ask of it (`_wording` fills one in for each group in turn)."""

    __slots__ = ("at", "group", "kq", "ks", "q_words", "s_words", "shared")

    shared: _Shared
    at: int
    group: _Group
    q_words: str
    s_words: str
    kq: str
    ks: str


def _document_phrase(c: _WordCase) -> str | None:
    shared = c.shared
    return _document_wording(
        shared.quote, shared.span, c.group, shared.vocabulary, shared.phrases
    )


def _code_respelled(c: _WordCase) -> str | None:
    if _respelled_code(c.q_words, c.s_words, c.shared.code_words):
        return _clean_word_differs(c.q_words, c.s_words, what="code")
    return None


def _code_letter_added(c: _WordCase) -> str | None:
    if _code_letter_added_to(c.q_words, c.s_words, c.shared.code_words):
        return (
            f"code differs: quote has '{c.q_words}', source has '{c.s_words}' "
            "(a letter more or less, which no misread glyph explains)"
        )
    return None


def _words_swapped(c: _WordCase) -> str | None:
    if _spelled_swap(c.q_words, c.s_words, c.shared.clean):
        return _real_word_differs(c.q_words, c.s_words, c.shared.clean)
    return None


def _word_missing(c: _WordCase) -> str | None:
    if all(_is_junk(ocr_skeleton(w)) for w in c.q_words.split()):
        return None
    return f"word missing in source: quote has '{c.q_words}'"


def _word_added(c: _WordCase) -> str | None:
    if all(_is_junk(ocr_skeleton(w)) for w in c.s_words.split()):
        return None
    return f"word added in source: source has '{c.s_words}'"


def _one_word_swapped(c: _WordCase) -> str | None:
    if len(c.group.quote_words) == len(c.group.span_words) == 1:
        return _words_swapped(c)  # "stern"/"stem"
    return None


def _possessive_moved(c: _WordCase) -> str | None:
    quote, span, group = c.shared.quote, c.shared.span, c.group
    q_form = _possessive(quote, group.quote_words)
    s_form = _possessive(span, group.span_words)
    # A scan may lose an apostrophe; it does not move one.
    if q_form != s_form and (c.shared.clean or (q_form and s_form)):
        q_raw = _as_written(quote, group.quote_words, q_form)
        s_raw = _as_written(span, group.span_words, s_form)
        return (
            f"possessive differs: quote has '{q_raw}', source has "
            f"'{s_raw}' (one owner or several)"
        )
    return None


def _prefix_negates(c: _WordCase) -> str | None:
    if _negating_prefix(c.kq, c.ks) or _damaged_negating_prefix(c.kq, c.ks):
        return f"negation differs: quote has '{c.q_words}', source has '{c.s_words}'"
    return None


def _guard_word_run_in(c: _WordCase) -> str | None:
    if _runs_in_guard_words(c.q_words, c.s_words, c.shared.span, c.shared.groups, c.at):
        return (
            f"word differs: quote has '{c.q_words}', source has '{c.s_words}' "
            "(read as words, the source's letters hold a negation, modal "
            "verb or number the quote leaves out)"
        )
    return None


def _party_rival(c: _WordCase) -> str | None:
    if len(c.group.quote_words) == 1 and party_rival(c.kq, c.ks, c.shared.vocabulary):
        return (
            f"party differs: quote has '{c.q_words}', source has '{c.s_words}' "
            f"({_rival_cause(c)})"
        )
    return None


def _rival_cause(c: _WordCase) -> str:
    """Why the span's word names the other party, from the evidence: it is
    the counterpart as spelled; or, in a scan only, OCR damage of it; or,
    in a clean source (nothing misread), a word nearer it than the quote's."""
    if counterpart(c.kq, c.ks):
        return "the source names the other party"
    if c.shared.clean:
        return "the source's word is nearer the other party's name than the quote's"
    return "OCR could have made it from the other party"


def _real_word(c: _WordCase) -> str | None:
    if _another_real_word(c.kq, c.ks, c.group, c.shared.vocabulary):
        return _real_word_differs(c.q_words, c.s_words, c.shared.clean)
    return None


def _implausible_damage(c: _WordCase) -> str | None:
    if not plausible_ocr(
        c.q_words.replace(" ", ""), c.s_words.replace(" ", "")
    ) and not _damage_reads_as(c.q_words, c.s_words, c.shared.vocabulary):
        return f"word differs: quote has '{c.q_words}', source has '{c.s_words}'"
    return None


def _each_word(c: _WordCase) -> str | None:
    if len(c.group.quote_words) > 1:
        return _word_by_word(c.q_words, c.s_words, c.shared.vocabulary)
    return None


def _clean_source(c: _WordCase) -> str | None:
    """In a clean source the quote's words are the source's, but for a
    stray misprint (checked last: the specific reasons come first)."""
    q, s = c.q_words, c.s_words
    if q.replace(" ", "") != s.replace(" ", "") and not _stray_misprint(
        q, s, c.shared.vocabulary, c.shared.as_written
    ):
        return _clean_word_differs(q, s)
    return None


class WordingRule(NamedTuple):
    """A row of WORDING_RULES: the rule's id (rules.py), its check (the
    refusal's text, or None), the kinds of group it reads, and the sources
    it reads them in (clean, scanned or both)."""

    id: str
    check: Callable[[_WordCase], str | None]
    kinds: frozenset[str]
    sources: str = "both"


_ALL = frozenset({SAME, MISSING, ADDED, SAME_LETTERS, OTHER})
_WORDS_BOTH_SIDES = frozenset({SAME, SAME_LETTERS, OTHER})

# The wording rules, in the order they judge each aligned group of words;
# the first to refuse decides. A group passes when every row for its kind
# and source has passed it. Specific reasons come before the clean
# source's catch-all, which comes last.
WORDING_RULES: tuple[WordingRule, ...] = (
    WordingRule("wording.document_phrase", _document_phrase, _ALL, "scanned"),
    WordingRule("wording.code_respelled", _code_respelled, _ALL, "clean"),
    WordingRule("wording.code_letter_added", _code_letter_added, _ALL, "scanned"),
    WordingRule("wording.real_word_swap", _words_swapped, frozenset({SAME})),
    WordingRule("wording.word_missing", _word_missing, frozenset({MISSING})),
    WordingRule("wording.word_added", _word_added, frozenset({ADDED})),
    WordingRule("wording.real_word_swap", _one_word_swapped, frozenset({SAME_LETTERS})),
    WordingRule("wording.possessive", _possessive_moved, frozenset({SAME_LETTERS})),
    WordingRule("wording.negating_prefix", _prefix_negates, frozenset({OTHER})),
    WordingRule("wording.guard_word_run_in", _guard_word_run_in, frozenset({OTHER})),
    WordingRule("wording.party_rival", _party_rival, frozenset({OTHER})),
    WordingRule("wording.real_word_swap", _real_word, frozenset({OTHER})),
    WordingRule("wording.implausible_damage", _implausible_damage, frozenset({OTHER})),
    WordingRule("wording.word_by_word", _each_word, frozenset({OTHER})),
    WordingRule("wording.clean_source", _clean_source, _WORDS_BOTH_SIDES, "clean"),
)

# The rows each kind of group meets, in a clean source and in a scan: the
# same order, without the rows that cannot apply.
_RULES_FOR: dict[
    tuple[str, bool], tuple[tuple[str, Callable[[_WordCase], str | None]], ...]
] = {
    (kind, clean): tuple(
        (rule.id, rule.check)
        for rule in WORDING_RULES
        if kind in rule.kinds
        and rule.sources in ("both", "clean" if clean else "scanned")
    )
    for kind in _ALL
    for clean in (True, False)
}


def _wording(
    quote: str,
    span: str,
    groups: list[_Group],
    vocabulary: Mapping[str, int] | None = None,
    code_words: frozenset[str] = frozenset(),
    as_written: Written = _PLAIN_WRITING,
    phrases: PhraseCount | None = None,
) -> Refusal | None:
    """The first wording rule that refuses a group of the aligned words, as
    a Refusal naming it (WORDING_RULES); None when every group passes."""
    # In a clean (not OCR'd) source nothing misread a glyph: codes, words
    # and apostrophes are as written. In a scan they may be damaged.
    clean = not lexicon.looks_scanned(vocabulary)
    case = _WordCase()
    case.shared = _Shared(
        quote, span, groups, clean, vocabulary, code_words, as_written, phrases
    )
    rules_for = _RULES_FOR
    for at, group in enumerate(groups):
        case.at, case.group = at, group
        case.q_words = q_words = _words(quote, group.quote_words)
        case.s_words = s_words = _words(span, group.span_words)
        if group.same:
            kind = SAME
        elif not group.span_words:
            kind = MISSING
        elif not group.quote_words:
            kind = ADDED
        else:
            case.kq = kq = ocr_skeleton(q_words.replace(" ", ""))
            case.ks = ks = ocr_skeleton(s_words.replace(" ", ""))
            kind = SAME_LETTERS if kq == ks else OTHER
        for rule, check in rules_for[kind, clean]:
            reason = check(case)
            if reason is not None:
                return refusal(rule, reason)
    return None


def _clean_word_differs(quote_words: str, span_words: str, what: str = "word") -> str:
    return (
        f"{what} differs: quote has '{quote_words}', source has '{span_words}' "
        "(the source shows no OCR damage)"
    )


def _word_by_word(
    q_words: str, s_words: str, vocabulary: Mapping[str, int] | None
) -> str | None:
    """Quote words the span ran together or split otherwise ("indirector"
    for "indirect and") must each read as their own part of the span: the
    whole may pass as damage while "or" stands for "and"."""
    q_list = q_words.split()
    q_joined = "".join(q_list).translate(OCR_SAME_LENGTH)
    s_joined = s_words.replace(" ", "").translate(OCR_SAME_LENGTH)
    ends, at = [], 0
    for word in q_list:
        at += len(word)
        ends.append(at)
    opcodes = Levenshtein.opcodes(q_joined, s_joined)
    cuts = [0] + [_mapped(opcodes, end, len(s_joined)) for end in ends[:-1]]
    cuts.append(len(s_joined))
    for word, lo, hi in zip(q_list, cuts, cuts[1:], strict=False):
        part = s_joined[lo:hi]
        q_key, s_key = ocr_skeleton(word.translate(OCR_SAME_LENGTH)), ocr_skeleton(part)
        if q_key == s_key:
            continue
        if not part or _negating_prefix(q_key, s_key):
            return f"word differs: quote has '{word}', source has '{s_words}'"
        if not plausible_ocr(word, part) and not _damage_reads_as(
            word, part, vocabulary
        ):
            return f"word differs: quote has '{word}', source has '{part}'"
    return None


def _op_fields(op: Opcode) -> tuple[str, int, int, int, int]:
    """An opcode's tag and spans by field name (rapidfuzz types an unpacked
    opcode's items as int | str)."""
    return op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end


def _mapped(opcodes: Iterable[Opcode], i: int, length: int) -> int:
    """Where position `i` of one string falls in the other (of `length`)
    under their alignment `opcodes`."""
    for op in opcodes:
        tag, i1, i2, j1, j2 = _op_fields(op)
        if i1 <= i < i2 or (tag == "insert" and i == i1):
            if tag in ("equal", "replace"):
                return j1 + min(i - i1, j2 - j1)
            return j1
    return length


@memo(65536)
def _damaged_negating_prefix(a: str, b: str) -> bool:
    """ "invaIid" for "valid", "itrevocable" for "revocable": one word reads
    (give or take look-alike damage) as the other's negated form, and that
    form is a word ("invalid", "irrevocable"). `a` is the quote's word, `b`
    the span's; both are OCR skeletons."""
    for longer, shorter, span_is_longer in ((a, b, False), (b, a, True)):
        if len(longer) <= len(shorter):
            continue  # every prefix adds two letters or more, less one dropped
        for prefix in _NEGATING_PREFIXES:
            if not _negated_form(prefix, shorter):
                continue
            negated = ocr_skeleton(prefix + shorter)
            if (
                abs(len(longer) - len(negated)) <= 1
                and lexicon.frequency(negated)
                and _plausible_folded(negated, longer)
                # A damaged span word that reads better as the quote's own
                # word is that word: "nnaterial" is "material" (nn for m)
                # before it is "immaterial".
                and (
                    not span_is_longer
                    or damage_cost(negated, longer) <= damage_cost(shorter, longer)
                )
            ):
                return True
    return False


# Every word `features` may read a guard feature from: "cent" of "per cent",
# and the "t" that \w+ leaves of every "n't".
_GUARD_KEYS = frozenset(_WORD_FEATURES) | {"cent", "t"}


def _may_hold_guard_words(text: str) -> bool:
    # Most groups hold none: a set lookup per word spares `features`.
    return any(ocr_skeleton(w) in _GUARD_KEYS for w in _WORD.findall(text))


def _guard_words(text: str) -> list[tuple[str, str]]:
    """Guard features of the alphabetic words of `text`, and of words whose
    0 or 1 is a letter ("n0t"); other words with digits ("1n" for "in") are
    left out."""
    # Split on spaces only: "won't" keeps its negation ("wont" has none).
    words = " ".join(
        w for w in text.split() if not any(c.isdigit() for c in w) or ocr_letters(w)
    )
    return [(f.kind, f.value) for f in features(words)]


# Pieces longer than this are not looked up when re-segmenting a token.
_LONGEST_WORD = 24


_Said = tuple[tuple[str, str], ...]


@lru_cache(maxsize=4096)
def _likeliest_readings(skeleton: str, spaces: frozenset[int]) -> frozenset[_Said]:
    """The guard features of the likeliest ways to read `skeleton` (letters
    of span words, OCR-folded, run together) as words, where `spaces` are the
    places the span has a space. A reading costs one for every space OCR
    would have had to drop or add to make the span from it: "withoutthe" is
    "without the" (one dropped) before "with out the" (one dropped, one
    added); "nowill" is "no will" or "now ill" alike, so two readings come
    back; "with out" is itself a reading, at no cost."""
    n = len(skeleton)
    never = n + 1
    cost = [never] * (n + 1)
    said: list[set[_Said]] = [set() for _ in range(n + 1)]
    cost[n] = 0
    said[n].add(())
    for i in range(n - 1, -1, -1):
        inside = 0  # span spaces strictly inside the piece, each one dropped
        for j in range(i + 1, min(n, i + _LONGEST_WORD) + 1):
            if j - 1 > i and (j - 1) in spaces:
                inside += 1
            if cost[j] == never:
                continue
            piece = skeleton[i:j]
            # Dictionary words only: a long scan repeats its fragments
            # ("minate", "uld") often enough to pass for words of its own. A
            # lone "l" (the skeleton of "I") is a stray stroke far more often
            # than a word: "apr l l" is no reading of "apri l".
            if (len(piece) == 1 and piece != "a") or not lexicon.frequency(piece):
                continue
            added = int(j < n and j not in spaces)
            total = inside + added + cost[j]
            if total > cost[i]:
                continue
            if total < cost[i]:
                cost[i] = total
                said[i] = set()
            own = _WORD_FEATURES.get(piece, ())
            said[i].update(own + rest for rest in said[j])
    return frozenset(said[0])


def _resegmented(q_text: str, s_text: str, before: str) -> bool:
    """May the quote's guard words be granted to span words that differ from
    them only in where the spaces fall ("partymust", "effectiveunless",
    "s hould", "m aybe", "witho ut")? Only when the likeliest readings of the
    span's letters as words all carry exactly the quote's guard words
    (`_likeliest_readings`): "nowill" may be "now ill"; "notable", "now here"
    and "with out" are words as they stand, so they are never read as "not
    able", "nowhere" or "without". Never after an apostrophe: "Buyer's hall"
    is not "Buyer shall"."""
    if before and before in "'’":
        return False
    # In any order: "can not" and "cannot" list their two kinds differently.
    wanted = tuple(sorted(_guard_words(q_text)))
    readings = _span_readings(s_text)
    return readings is not None and {tuple(sorted(said)) for said in readings} == {
        wanted
    }


def _span_readings(s_text: str) -> frozenset[_Said] | None:
    """`_likeliest_readings` of the letters of the span words `s_text`, with
    the span's own spaces; None when they are too long to read."""
    pieces = [ocr_skeleton(w.lower()) for w in _WORD.findall(s_text)]
    spaces, at = set(), 0
    for piece in pieces[:-1]:
        at += len(piece)
        spaces.add(at)
    letters = "".join(pieces)
    if len(letters) > 4 * _LONGEST_WORD:
        return None
    return _likeliest_readings(letters, frozenset(spaces))


def _senses(said: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    # Negations are alike whichever word says them ("no" and "not"); a modal
    # or a number is its value.
    return {(kind, "" if kind == NEGATION else value) for kind, value in said}


def _hides_guard_words(q_text: str, s_text: str) -> bool:
    """Do the span's letters, read as words, hold a guard word the quote's
    words lack (in sense: "noither" may read as "no" and a fragment)?
    "willnothing" is "will nothing": a modal verb OCR ran into the word, not
    damage to "nothing"."""
    wanted = _senses(_guard_words(q_text))
    readings = _span_readings(s_text)
    return readings is None or any(not _senses(said) <= wanted for said in readings)


# Any guard word inside a token, found in C: most damaged tokens hold none,
# and reading a token's letters as words costs a table per token.
_GUARD_INSIDE = re.compile(
    "|".join(map(re.escape, sorted(_GUARD_SKELETONS, key=len, reverse=True)))
)

_LONGEST_GUARD_WORD = max(map(len, _GUARD_SKELETONS))
# Guard words of three letters or more by length: one edit apart is at most
# one letter longer or shorter.
_GUARD_SKELETONS_BY_LENGTH: dict[int, tuple[str, ...]] = {
    size: tuple(g for g in _SORTED_GUARD_SKELETONS if len(g) == size)
    for size in range(3, _LONGEST_GUARD_WORD + 1)
}


def _runs_in_guard_words(
    q_words: str, s_words: str, span: str, groups: list[_Group], at: int
) -> bool:
    """Did OCR run a guard word the quote leaves out into the span's words
    of groups[at] ("partywill" for "party will", where the quote has
    "party")? Only span letters beyond the quote's can hold a whole word
    more."""
    if at + 1 < len(groups) and not groups[at + 1].quote_words:
        s_words = _with_strays(span, groups, at)
    ks = ocr_skeleton(s_words.replace(" ", ""))
    if len(ks) < len(ocr_skeleton(q_words.replace(" ", ""))) + 2:
        return False
    wanted = _senses(_guard_words(q_words))
    # The quote's words with a guard word among them, either damaged, and
    # whether or not the quote's words are in the dictionary
    # ("Contrsctorwill", "Supplierwil", "mutinspect", "notesponsible",
    # "Buyerwi l pay"): the letters the span has beyond the quote's, give or
    # take one either side, compared glyph for glyph ("wiIl" is "wlll",
    # where the skeleton reads "ii" as "u").
    quoted = _NON_WORD.sub("", q_words).translate(OCR_SAME_LENGTH)
    letters = _NON_WORD.sub("", s_words).translate(OCR_SAME_LENGTH)
    for lo, hi in _extra_stretches(quoted, letters):
        for a in (lo - 1, lo, lo + 1):
            for b in (hi - 1, hi, hi + 1):
                if a < 0 or b > len(letters) or b - a < 2:
                    continue
                extra = _guard_reading(letters[a:b])
                if (
                    extra
                    and not extra <= wanted
                    and plausible_ocr(quoted, letters[:a] + letters[b:], 1)
                ):
                    return True
    return _GUARD_INSIDE.search(ks) is not None and _hides_guard_words(q_words, s_words)


def _with_strays(span: str, groups: list[_Group], at: int) -> str:
    """The span words of groups[at] and of the stray strokes after it, which
    `_wording` passes over as junk: "buyerwi l" holds "will" only whole."""
    words = [_words(span, groups[at].span_words)]
    for group in groups[at + 1 :]:
        strays = _words(span, group.span_words)
        if group.quote_words or not all(
            _is_junk(ocr_skeleton(w)) for w in strays.split()
        ):
            break
        words.append(strays)
    return " ".join(words)


def _extra_stretches(quoted: str, letters: str) -> list[tuple[int, int]]:
    """[start, end) in `letters` of each run of edits that aligns them with
    `quoted` (neighbouring edits together)."""
    stretches: list[tuple[int, int]] = []
    for op in Levenshtein.opcodes(quoted, letters):
        if op.tag == "equal":
            continue
        j1, j2 = op.dest_start, op.dest_end
        if stretches and stretches[-1][1] == j1:
            stretches[-1] = (stretches[-1][0], j2)
        else:
            stretches.append((j1, j2))
    return stretches


@memo(4096)
def _guard_reading(piece: str) -> frozenset[tuple[str, str]]:
    """The senses of the guard word `piece` is, or OCR could have made it
    from (a thin stroke lost, "wil"; a letter lost from a word of four or
    more, "mut"); empty when none."""
    key = ocr_skeleton(piece)
    if len(key) > _LONGEST_GUARD_WORD + 1:
        return frozenset()
    known = _sense(key)
    if known:
        return known
    return next(
        (
            _sense(guard)
            for size in (len(key) - 1, len(key), len(key) + 1)
            for guard in _GUARD_SKELETONS_BY_LENGTH.get(size, ())
            if Levenshtein.distance(guard, key, score_cutoff=1) <= 1
            and plausible_ocr(guard, key, int(len(guard) >= 4))
        ),
        frozenset(),
    )


def _respaced(letters: str, span_words: list[str]) -> str | None:
    """`letters` cut where the span's words are cut, when the span has as
    many letters (glyph-for-glyph damage): "maybe" spaced as "msybe"; or
    uncut, when the span is one word ("shall be" as "sliallbe")."""
    bare = _NON_WORD.sub("", span_words[0]) if len(span_words) == 1 else ""
    if bare and len(bare) != len(letters):
        # Not a damaged single word ("nohe" is "none", not "in one").
        token = ocr_skeleton(bare.lower())
        if lexicon.frequency(token) or lexicon.likeliest_reading(token):
            return None
        return letters
    lengths = [len(_NON_WORD.sub("", w)) for w in span_words]
    if sum(lengths) != len(letters):
        return None
    pieces, at = [], 0
    for length in lengths:
        pieces.append(letters[at : at + length])
        at += length
    return " ".join(pieces)


def _lookalike_digits(q_bare: str, s_bare: str) -> bool:
    """ "1u" for "in", "f0" for "to": one word whose 0 or 1 stands for a
    letter, glyph for glyph (same length, look-alikes only). A digit OCR
    added ("a1" for "a") or any other digit is a number."""
    if len(q_bare) != len(s_bare) or not q_bare.isalpha():
        return False
    digits = [c for c in s_bare if c.isdigit()]
    if not digits or set(digits) - set("01") or len(digits) == len(s_bare):
        return False
    return plausible_ocr(q_bare.lower(), s_bare.lower())


# "couldn t": the "t" after the group is what is left of "n't".
_LOST_APOSTROPHE_T = re.compile(r"(?<=n)\s*'?\s*t\b")


def _repair_guard_words(
    quote: str,
    span: str,
    groups: list[_Group],
    vocabulary: Mapping[str, int] | None = None,
) -> str:
    """The span with OCR-damaged words read as the quote's, for the meaning check.

    - A group of span words that reads the same as the quote's after OCR
      folding is the quote's words ("1n" is "in", not the number 1; "s hould"
      is "should"). Where that changes a guard word, only when every reading
      of the span's letters as words has the quote's guard words
      (`_resegmented`): "partymust" is "party must" and "no t" is "not", but
      "notable" is not "not able", and "may be" keeps its modal verb.
    - Several quote words that OCR damaged and spaced differently ("msybe"
      for "may be") are the quote's words when the quote's letters, spaced
      as the span's, read as them (`_respaced`, `_resegmented`).
    - A word whose 0 or 1 stands for a look-alike letter ("f0" for "to") is
      the quote's word, when that is no guard word (`_lookalike_digits`).
    - One quote word that is a negation, modal verb, number word or month,
      matched by span words that OCR could have made from it ("shauld" for
      "should"), counts as that word, unless the span words hold a number or
      a guard word of their own ("nor" for "not", "may" for "must").
    Never when the quote's words have a digit or the span's have no letter:
    "10" is never read as "lo".
    """
    repairs: list[tuple[int, int, str]] = []
    for group in groups:
        if not group.quote_words or not group.span_words:
            continue
        q_text = quote[group.quote_words[0][0] : group.quote_words[-1][1]]
        s_start, s_end = group.span_words[0][0], group.span_words[-1][1]
        s_text = span[s_start:s_end]
        before = span[s_start - 1] if s_start else ""
        if q_text == s_text:
            continue
        if any(c.isdigit() for c in q_text) or not any(c.isalpha() for c in s_text):
            continue
        q_bare = _NON_WORD.sub("", q_text)
        s_bare = _NON_WORD.sub("", s_text)
        if _names_a_part(span, s_start, s_end) or _names_a_part(
            quote, group.quote_words[0][0], group.quote_words[-1][1]
        ):
            continue  # "(l)" is no damaged "(i)": labels compare as written
        # Glyph for glyph too, for words that say nothing the guard weighs:
        # the skeleton reads "ii" as "u" ("unt ii" is "untu"), where it may
        # be "ll" ("until"). Guard words take the checks further down.
        if ocr_skeleton(q_bare) == ocr_skeleton(s_bare) or (
            q_bare.translate(OCR_SAME_LENGTH) == s_bare.translate(OCR_SAME_LENGTH)
            and not _may_hold_guard_words(q_text)
        ):
            guards_differ = _may_hold_guard_words(q_text + " " + s_text) and Counter(
                _guard_words(q_text)
            ) != Counter(_guard_words(s_text))
            if guards_differ and not _resegmented(q_text, s_text, before):
                continue
            repairs.append((s_start, s_end, q_text))
            continue
        q_word = ocr_skeleton(q_bare.lower())
        if len(group.quote_words) == 1 and q_word not in _WORD_FEATURES:
            if (
                len(group.span_words) == 1
                and _lookalike_digits(q_bare, s_bare)
                and not _guard_words(s_text)  # "n0t" is no "net"
            ):
                repairs.append((s_start, s_end, q_text))
            continue
        span_words = [span[a:b] for a, b in group.span_words]
        if any(any(c.isdigit() for c in w) and not ocr_letters(w) for w in span_words):
            continue
        if _guard_words(s_text) or _LOST_APOSTROPHE_T.match(span, s_end):
            continue  # the span's own guard word ("nor", "mustnt", "couldn t")
        if len(group.quote_words) == 1:
            if (
                (
                    plausible_ocr(q_bare, s_bare)
                    or _damage_reads_as(q_text, s_text, vocabulary)
                )
                and not _rival_guard_word(q_word, ocr_skeleton(s_bare.lower()))
                and not _real_word_out_of_place(
                    q_bare, s_bare, quote, group.quote_words
                )
                and not _hides_guard_words(q_text, s_text)
            ):
                repairs.append((s_start, s_end, q_text))
            continue
        # Damaged and spaced differently ("msybe" for "may be"): the quote's
        # letters, spaced as the span's, must read as the quote's words.
        respaced = _respaced(q_bare, span_words)
        if (
            respaced is not None
            and plausible_ocr(q_bare, s_bare)
            and _resegmented(q_text, respaced, before)
        ):
            repairs.append((s_start, s_end, q_text))
    for start, end, text in sorted(repairs, reverse=True):
        span = span[:start] + text + span[end:]
    return span


# Words after which "not" stands ("shall not", "does not", "need not"): there a
# real word in a scan may be a damaged "not" ("shall hot"); elsewhere it is
# the word it is ("the net amount", "net 30 days").
_BEFORE_NOT = MODALS | AUXILIARIES | {"need", "be", "been", "am"}


def _real_word_out_of_place(
    q_bare: str, s_bare: str, quote: str, quote_words: tuple[tuple[int, int], ...]
) -> bool:
    """Is the span's word a real word standing where the quote's "not"
    cannot: after no auxiliary, or before a number? Then the quote adds a
    negation the scan does not show. The quote's own words say where it
    stands: the scan may have damaged the auxiliary too ("rnust hot")."""
    if q_bare.lower() != "not" or not lexicon.is_spelled(s_bare.lower()):
        return False
    before = quote[: quote_words[0][0]].split()[-1:]
    after = quote[quote_words[-1][1] :].split()[:1]
    if after and after[0][:1].isdigit():
        return True
    return bool(before) and before[0].strip(",;:()").lower() not in _BEFORE_NOT


def _names_a_part(text: str, start: int, end: int) -> bool:
    word = text[start:end].lower()
    previous = text[max(0, start - 30) : start].split()[-1:] or [""]
    return is_label(word, _NON_WORD.sub("", previous[0].lower()), text, start, end)


def _sense(skeleton: str) -> frozenset[tuple[str, str]]:
    return frozenset(_senses(_WORD_FEATURES.get(skeleton, ())))


def _rival_guard_word(quote_word: str, span_word: str) -> str | None:
    """Another guard word OCR could have damaged into the span's token about
    as cheaply as the quote's ("shoul": "should" less a d, before "shall"
    with two look-alikes), or None. Both are OCR skeletons."""
    own = damage_cost(quote_word, span_word)
    # Three edits at most, found in C, before the weighted cost in Python.
    near = (
        rival
        for rival in _SORTED_GUARD_SKELETONS
        if Levenshtein.distance(rival, span_word, score_cutoff=3) <= 3
    )
    return next(
        (
            rival
            for rival in near
            if rival != quote_word
            and _sense(rival) != _sense(quote_word)
            and damage_cost(rival, span_word) < own + lexicon.LOOKALIKE_COST
        ),
        None,
    )


def numbers_missing(quote: str, span: str) -> bool:
    """Does the span lack a run of digits the quote has? Then a fuzzy match
    fails whatever else it says: a look-alike passage ("Section 11" for
    "Section 38"), and failing early is always the safe direction. Extra
    digits in the span may be OCR'd letters ("f0" for "to"): the full check
    decides those."""
    return bool(Counter(_DIGITS.findall(quote)) - Counter(_DIGITS.findall(span)))


def _digits_missing(m: _Meaning) -> str | None:
    # Reached only for a span `numbers_missing` fails whose features agree:
    # a run of digits no feature reads (a code's "7" in "A7"), still a
    # number the span lacks.
    return "numbers differ"


# A span that lacks a number of the quote (`numbers_missing`): the meaning
# rules say which difference; if none sees one, the number rule still
# refuses (missing_numbers_reason).
NUMBERS_MISSING_CHECKS: tuple[Check[_Meaning], ...] = (
    *MEANING_CHECKS,
    Check(MEANING_RULES[NUMBER], _digits_missing),
)


def missing_numbers_reason(quote: str, span: str) -> str:
    """Why a span that `numbers_missing` fails says something else: the
    first difference of meaning, as `fuzzy_difference` names it
    (NUMBERS_MISSING_CHECKS, whose last rule always refuses)."""
    case = _Meaning(_by_kind(_features_of(quote)), _by_kind(features(span)))
    refused = first_refusal(NUMBERS_MISSING_CHECKS, case)
    assert refused is not None  # the table's last row refuses every case
    return refused


def fuzzy_difference(
    quote: str,
    span: str,
    vocabulary: Mapping[str, int] | None = None,
    quote_codes: frozenset[str] = frozenset(),
    original: str | None = None,
    phrases: PhraseCount | None = None,
) -> str | None:
    """Everything a fuzzy match must pass: meaning, then wording (see module
    docstring). None when the span says what the quote says. `vocabulary`
    (OCR skeleton -> count in the source document) tells damaged words from
    the document's own words (lexicon.py); `quote_codes` are the words the
    quote writes as codes (`codes`), which folding lowercased, `original`
    is the span as the document writes it, before folding, and `phrases`
    counts the document's word pairs (`_document_wording`)."""
    if numbers_missing(quote, span):
        return missing_numbers_reason(quote, span)
    return numbered_difference(quote, span, vocabulary, quote_codes, original, phrases)


def numbered_difference(
    quote: str,
    span: str,
    vocabulary: Mapping[str, int] | None = None,
    quote_codes: frozenset[str] = frozenset(),
    original: str | None = None,
    phrases: PhraseCount | None = None,
) -> str | None:
    """`fuzzy_difference` of a span that has every number of the quote
    (`numbers_missing` is False): stage 2 asks that first of every
    placement, to refuse a template's look-alike copies cheaply."""
    groups = _align_words(quote, span)
    repaired = _repair_guard_words(quote, span, groups, vocabulary)
    meaning = meaning_difference(quote, repaired)
    if meaning:
        return meaning
    if original is None:
        return _wording(quote, span, groups, vocabulary, quote_codes, phrases=phrases)
    # How the span writes its words is read only for a span whose meaning
    # passed: most candidates of a long quote in a template fail before.
    return _wording(
        quote,
        span,
        groups,
        vocabulary,
        quote_codes | codes(original),
        written(original),
        phrases,
    )


def wording_difference(quote: str, span: str) -> str | None:
    """Word-level check of a fuzzy match alone (see module docstring)."""
    return _wording(quote, span, _align_words(quote, span))
