"""Letter case: style for words, meaning for codes, units and labels.

Folding lowercases, so a normalized or fuzzy match is blind to case. That is
right for words: a model capitalises the first word of its quote, lowercases
"The Seller", or quotes a disclaimer set in capitals in sentence case. It is
wrong where case is part of the name: "40 mWh" is not "40 MWh", "Section
2(A)" is not "Section 2(a)", "Rule 144a" is not "Rule 144A", "10 Gb" is not
"10 GB" and clause "(II)" is not clause "(ii)".

A case difference is style when the word is a plain word (lower, Capitalised
or CAPITALS) and, for a short word in capitals, when it is an English word
("NO", "MAY") or sits among other words in capitals (a heading, a
disclaimer). "US", "IT" and "WHO" are English words that name something
else in capitals: outside a run of capitals their case is compared. A token
with digits, a label ("(b)", "Exhibit C", "Article IV") or a word with a
capital inside ("MWh", "iPass") is compared as written, unless its side is a
run of capitals, which sets everything in capitals.
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz.distance import Indel

from citations.cascade import lexicon
from citations.cascade.guards import is_label

_TOKEN = re.compile(r"[^\W_]+")
# Words in capitals up to this many letters may be acronyms and units ("GB",
# "MM", "CO") unless they stand among other words in capitals; longer ones
# are emphasis ("NOTWITHSTANDING") or acronyms whose case carries nothing.
SHORT_CAPITALS = 3
# Short words in capitals that are words all the same ("NO", "MAY") are
# spelled; these are not, and mean the same in either case.
_TIMES = frozenset(["pm"])
# ... and these are spelled, but in capitals outside a run of capitals they
# name something else where the other side writes them in lower case: "due
# to US" is the United States, "due to us" the writer; "IT" is information
# technology, "WHO" an organisation.
_ACRONYMS_SPELLED = frozenset(["us", "it", "who"])
# Neighbours either side that show a run of capitals.
CAPITALS_REACH = 2


def _in_capitals(words: list[str], i: int) -> bool:
    """Whether the i-th word stands among other words set in capitals."""
    lo, hi = max(0, i - CAPITALS_REACH), min(len(words), i + CAPITALS_REACH + 1)
    return any(
        k != i and len(words[k]) > 1 and words[k].isalpha() and words[k].isupper()
        for k in range(lo, hi)
    )


def _plain_shape(word: str) -> bool:
    return word.islower() or word.isupper() or word.istitle()


class _Side:
    """One string's tokens, as written and folded for alignment."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.matches = list(_TOKEN.finditer(text))
        self.words = [unicodedata.normalize("NFKC", m.group()) for m in self.matches]
        self.keys = [w.casefold() for w in self.words]

    def capitals(self, i: int) -> bool:
        return self.words[i].isupper() and _in_capitals(self.words, i)

    def written(self, i: int) -> str:
        """The i-th word with what is glued to it ("2(A)")."""
        start, end = self.matches[i].span()
        while start and not self.text[start - 1].isspace():
            start -= 1
        while end < len(self.text) and not self.text[end].isspace():
            end += 1
        return self.text[start:end].strip(",.;:")

    def label(self, i: int) -> bool:
        start, end = self.matches[i].span()
        previous = self.keys[i - 1] if i else ""
        return is_label(self.keys[i], previous, self.text, start, end)


def _style_only(q: _Side, i: int, s: _Side, j: int) -> bool:
    a, b = q.words[i], s.words[j]
    if q.capitals(i) or s.capitals(j):
        return True
    if any(c.isdigit() for c in a) or q.label(i) or s.label(j):
        return False
    if not (_plain_shape(a) and _plain_shape(b)):
        return False
    short = 1 < len(a) <= SHORT_CAPITALS and (a.isupper() or b.isupper())
    if not short:
        return True
    key = a.lower()
    if key in _ACRONYMS_SPELLED and (a.islower() or b.islower()):
        # Capitals against lower case; an opening word in capitals against
        # "It" or "Us" is a sentence's first word set in capitals.
        return False
    return lexicon.is_spelled(key) or key in _TIMES


def case_difference(quote: str, span: str) -> str | None:
    """Why the span is not the quote by letter case, or None: every word the
    two share but for case differs only in style (module docstring)."""
    q, s = _Side(quote), _Side(span)
    if q.words == s.words:
        return None
    # The longest common subsequence of the words (in C): every word the two
    # share is compared, wherever the alignment pairs it.
    for i0, j0, size in Indel.opcodes(q.keys, s.keys).as_matching_blocks():
        for k in range(size):
            i, j = i0 + k, j0 + k
            if q.words[i] != s.words[j] and not _style_only(q, i, s, j):
                return (
                    f"letter case differs: quote has '{q.written(i)}', "
                    f"source has '{s.written(j)}'"
                )
    return None
