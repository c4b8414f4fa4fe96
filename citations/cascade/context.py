"""Negations a quote leaves out: just before its span, or inside its elisions.

"amendment of this Agreement shall be effective" is verbatim in "No amendment
of this Agreement shall be effective", and "The Supplier shall ... deliver
goods" elides the "not" of "The Supplier shall not deliver goods". Every word
of both quotations is in the source, and both say the opposite of it. The
guard compares a quote with its span; these checks look at the source text
the quotation leaves out, where a negation reverses what the quote says.

A word counts as a negation as the guard counts it (guards.features: not,
no, never, neither, nor, none, without, unless, except, "n't", cannot), and
so does a token that is no word but which OCR could have made from one
("uot", "Neithcr").
Only the word directly before the span is read, separated by spaces or one
line break: after a comma, a full stop or a blank line the quote starts a new
clause, and quoting a main clause without its qualifier is ordinary quoting.
A quote that opens with an ellipsis or a bracketed insertion ("... shall
deliver", "[It] shall deliver") has replaced the start of its clause, so the
words back to the clause's start are read instead.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from citations.cascade import lexicon
from citations.cascade.folding import fold_text, ocr_skeleton
from citations.cascade.guards import NEGATION, features, plausible_ocr

# How far back a quote opening with an ellipsis or insertion is read: the
# start of its clause, but never more than this.
CLAUSE_REACH = 120
_CLAUSE_END = re.compile(r"[.;:!?,()\[\]\u2014]|\n[^\S\n]*\n")
_WORD = re.compile(r"[\w'\u2019]+")
_HYPHENATED = re.compile(r"([\w'\u2019]+)[-\u00ad\u2010\u2011][^\S\n]*\n[^\S\n]*\Z")
_WORD_BEFORE = re.compile(r"([\w'\u2019]+)[^\S\n]*\n?[^\S\n]*\Z")


class Dropped(NamedTuple):
    """A negation the quote leaves out, and where its clause starts."""

    reason: str
    start: int  # offset in the source: the negation, or its clause


# The negations OCR may have damaged in the source ("uot", "Neithcr").
_NEGATION_WORDS = (
    "not",
    "no",
    "never",
    "neither",
    "nor",
    "none",
    "nothing",
    "without",
    "unless",
    "except",
    "cannot",
)


@lru_cache(maxsize=4096)
def _is_negation(word: str) -> bool:
    folded = fold_text(word)
    if any(f.kind == NEGATION for f in features(folded)):
        return True
    # OCR strews apostrophes ("N'either").
    folded = folded.replace("'", "")
    if any(f.kind == NEGATION for f in features(folded)):
        return True
    # A token that is no word but a negation with look-alike glyphs ("uot",
    # "Neithcr") is read as one: the guard would accept it as the quote's
    # negation, so it must count here too.
    return not lexicon.is_word(ocr_skeleton(folded)) and any(
        len(negation) == len(folded) and plausible_ocr(negation, folded)
        for negation in _NEGATION_WORDS
    )


def _first_negation(source: str) -> re.Match[str] | None:
    return next((m for m in _WORD.finditer(source) if _is_negation(m.group())), None)


def negation_before(
    text: str, start: int, *, opens_elided: bool = False
) -> Dropped | None:
    """The negation governing the span that starts at `start`, which the
    quote leaves out, or None. `opens_elided`: the quote begins with an
    ellipsis or an insertion."""
    if start <= 0:
        return None
    lo = max(0, start - CLAUSE_REACH)
    before = text[lo:start]
    if opens_elided:
        ends = list(_CLAUSE_END.finditer(before))
        at = lo + (ends[-1].end() if ends else 0)
        m = _first_negation(text[at:start])
        if m is None:
            return None
        word = at + m.start()
        return Dropped(
            f"the quote's opening elision leaves out “{m.group()}” "
            f"(source: “{_words_around(text, word, start, reach=0)}”)",
            word,
        )
    if not before[-1:].isspace():
        return None  # punctuation or a word touches the span
    # Only the last few dozen characters can hold the word; a regex anchored
    # at the end still tries every start.
    m = _WORD_BEFORE.search(before, max(0, len(before) - 40))
    if m is None:
        return None
    word, at = m.group(1), lo + m.start(1)
    split = _HYPHENATED.search(text, max(0, at - 40), at)
    if split is not None:  # "un-\nless": the word is "unless"
        word, at = split.group(1) + word, split.start(1)
    if not _is_negation(word):
        return None
    return Dropped(
        f"the quote starts just after “{word}”, which negates it "
        f"(source: “{_words_around(text, at, start, reach=0)}”)",
        at,
    )


def negation_elided(text: str, gap_start: int, gap_end: int) -> Dropped | None:
    """The negation an ellipsis over text[gap_start:gap_end] leaves out."""
    m = _first_negation(text[gap_start:gap_end])
    if m is None:
        return None
    return Dropped(
        f"the elision leaves out “{m.group()}” "
        f"(source: “{_words_around(text, gap_start, gap_end)}”)",
        gap_start + m.start(),
    )


def _words_around(text: str, start: int, end: int, reach: int = 3) -> str:
    """text[start:end] with up to `reach` words before and 3 after, on one
    line."""
    left = text[max(0, start - 60) : start].split()[-reach:] if reach else []
    middle = text[start:end].split()
    following = text[end : end + 60].split()
    more = "…" if len(following) > 3 else ""
    return " ".join(left + middle + following[:3]) + more
