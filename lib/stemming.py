"""Stemmed content words: the light stemmer every app reads text with.

`terms` lower-cases, folds compatibility letters (`lib.textfold`), drops
stopwords and strips a few endings, enough to match terminate / terminated /
termination. `same_word` says whether two stems are one word in two forms.
Search (ingest), relevance (citations), chat and tabular read questions and
passages with it, and the offline responder (llm.extractive) picks its quotes
with it: one stemmer, so what one reads as a word the others do too.

`form_written` is `same_word` against a text's sorted stems (search's
"They never mention"). `singular`, `without_possessive`, `same_root` and
`adverb_bases` are the verification cascade's word-form readers: lighter on
purpose, as a stem that says "assign" for "assignable" would let a quote's
name pass for another. Every reader of a word's forms is here
(docs/ground-floor.md, "The stemmers"); snowballstemmer was measured in
place of `stem` and lost (same page). Pure Python, no Django.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Container, Sequence

from lib.textfold import fold_compat

__all__ = [
    "ENDINGS",
    "MIN_SHARED_STEM",
    "adverb_bases",
    "form_written",
    "same_root",
    "same_word",
    "singular",
    "stem",
    "terms",
    "without_possessive",
]

# A word list reads best as a paragraph.
_STOPWORD_TEXT = """
    a about above after again against all am an and any are aren as at be because
    been before being below between both but by can cannot could couldn did didn
    do does doesn doing don down during each either else ever few for from further
    had has hasn have haven having he her here hers herself him himself his how i
    if in into is isn it its itself just let me might more most much must mustn my
    myself neither nor of off on once only or other ought our ours ourselves out
    over own per same shan she should shouldn so some such than that the their
    theirs them themselves then there these they this those through to too under
    until up upon us very was wasn we were weren what whatever when where whether
    which while who whom whose why will with within won would wouldn you your
    yours yourself yourselves s t d ll m re ve
    also tell please say says said according document documents text source
    sources give show find list describe explain mention mentioned state stated
    kind anything something thing things
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_SUFFIXES = (
    ("ational", "ate"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("ities", "ity"),
    ("ments", ""),
    ("ment", ""),
    ("ings", ""),
    ("ing", ""),
    ("edly", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ed", ""),
)


def stem(word: str) -> str:
    """A light stemmer: enough to match terminate/terminated/termination."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            break
    else:
        if (word.endswith("es") and word[-3] in "sxz") or word.endswith(
            ("ches", "shes")
        ):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


_WORD_RE = re.compile(r"\w+")

# Endings the light stemmer leaves on a word: a stem and a written word that
# differ only by one of them are one word in two forms ("assignabl" /
# "assign", "commit" / "commitment", "restrictiv" / "restrict"), while
# "franc" (France) and "franchis" are not. Both keep MIN_SHARED_STEM letters.
ENDINGS = frozenset(
    [
        "abl",
        "ibl",
        "able",
        "ible",
        "ment",
        "ments",
        "m",
        "ion",
        "ions",
        "iv",
        "ive",
        "ing",
        "ed",
        "er",
        "or",
        "ity",
        "iti",
        "al",
        "ly",
        "anc",
        "ance",
        "enc",
        "ence",
        "s",
        "e",
        "es",
        "ship",
        "ness",
        "it",
        "itiv",
        "itor",
        "ition",
    ]
)
MIN_SHARED_STEM = 4


def same_word(a: str, b: str) -> bool:
    """Two stems of one word: equal, or one is the other plus an ending."""
    if a == b:
        return True
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return (
        len(short) >= MIN_SHARED_STEM
        and long.startswith(short)
        and long[len(short) :] in ENDINGS
    )


def form_written(stem: str, vocabulary: Sequence[str], written: Container[str]) -> bool:
    """Is `stem` written, as itself or as another form of its word
    (`same_word`)? `written` holds a text's stems; `vocabulary` is the same
    stems sorted, so the longer forms are found by prefix, not by a scan."""
    if stem in written:
        return True
    if len(stem) < MIN_SHARED_STEM:
        return False
    at = bisect_left(vocabulary, stem)
    while at < len(vocabulary) and vocabulary[at].startswith(stem):
        if vocabulary[at][len(stem) :] in ENDINGS:
            return True  # "commit" / "commitment"
        at += 1
    return any(
        stem[n:] in ENDINGS and stem[:n] in written
        for n in range(MIN_SHARED_STEM, len(stem))
    )  # "assignabl" / "assign"


def terms(text: str) -> list[str]:
    """Stemmed content words of ``text``, in order (stopwords removed);
    ligatures and other compatibility letters read as the letters they stand
    for ("Conﬁdential" is "confidential", issue 32)."""
    words = _WORD_RE.findall(fold_compat(text).lower())
    return [stem(w) for w in words if w not in _STOPWORDS]


# A possessive, written with a straight or a curly apostrophe: "Lender's",
# "Lenders'". Longest first, so "s'" goes whole.
_POSSESSIVES = ("s'", "s\u2019", "'s", "\u2019s")


def singular(word: str) -> str:
    """A plural or possessive read as its word: one final "s", "'s" or "s'"
    dropped ("licensors", "licensor's", "licensors'" are "licensor") when
    three letters stand before it. Words with a digit there keep theirs
    ("1990s" is no plural of "1990"), and so do short ones ("its", "has").
    The ending is dropped whatever the word, "business" too: both sides of
    a comparison are read with it, so it only has to be consistent."""
    for ending in (*_POSSESSIVES, "s"):
        if word.endswith(ending):
            base = word[: -len(ending)]
            return base if len(base) >= 3 and base[-3:].isalpha() else word
    return word


def without_possessive(word: str) -> str:
    """The word without a final possessive ("Seller's", "Sellers'" are
    "Seller"), plurals kept: a plural name can be another name."""
    for ending in _POSSESSIVES:
        if word.endswith(ending):
            return word[: -len(ending)]
    return word


def same_root(a: str, b: str) -> bool:
    """Two words open with the same MIN_SHARED_STEM letters, or one is the
    start of the other: "deliver" / "delivery", "Buyer" / "Buyers". Cruder
    than `same_word`, for short lists of words already known to be related
    (an elided quote's words against what its gap replaced)."""
    shared = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
        min(len(a), len(b)),
    )
    return shared >= min(MIN_SHARED_STEM, len(a), len(b))


def adverb_bases(word: str) -> tuple[str, ...]:
    """The words a lower-case adverb in -ly may be made from, for a word list
    to confirm: knowing-ly, tru-ly (true), happi-ly (happy), ful-ly (full). None
    for a word of under 5 letters or with a non-letter. An -ably adverb
    gives no word ("reasonab", "reasonabe"): the rule has always read so,
    and the cascade's benchmarks were measured with it."""
    if not (word.endswith("ly") and word.isalpha() and len(word) >= 5):
        return ()
    base = word[:-2]
    return (base, base + "e", base[:-1] + "y", base + "l")
