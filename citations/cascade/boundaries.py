"""A verified span never starts or ends inside a word or a number.

"The annual fee is $1" is a verbatim prefix of "The annual fee is $12,000",
and "000 units" a verbatim suffix of "1,000 units": character matching alone
would verify both. A quotation is made of whole words, so a span that cuts a
token is no match at that place (another occurrence may still be whole).
Scripts written without spaces between words (CJK) have no word boundaries
to check; numbers are checked in every script.
"""

from __future__ import annotations

import re

_SPACELESS_FROM = 0x2E80  # CJK radicals onwards: no spaces between words


def _wordish(ch: str) -> bool:
    return ch.isalnum() and ord(ch) < _SPACELESS_FROM


def _number_joint(text: str, left: int, right: int) -> bool:
    """text[left] and text[right] belong to one number (digits, or digits
    around a thousands or decimal separator)."""
    if not (0 <= left < len(text) and 0 <= right < len(text)):
        return False
    return text[left].isdigit() and text[right].isdigit()


def cut_token(text: str, start: int, end: int) -> str | None:
    """How text[start:end] cuts a word or number, or None if it does not."""
    if start >= end:
        return None
    return _cut_at_start(text, start) or _cut_at_end(text, end)


# Marks that join two parts of one token: "non-exclusive", "Sub-Licensee",
# "1/2". A quote starting or ending at one drops a part that may reverse it.
_JOINERS = frozenset("-/\u2010\u2011\u2212")


# Signs of a number, as typeset: hyphen, minus, figure dash, en dash.
SIGNS = frozenset("-\u2212\u2012\u2013")
# Marks between digit groups besides "," and ".": "1\u00a0000\u00a0000",
# "1'000'000" (never a plain space: "clause 1 100 units" is two numbers).
_GROUP_MARKS = frozenset("\u00a0\u202f\u2009'\u2019")


def _joined_part(text: str, mark: int) -> bool:
    """Is text[mark] a hyphen, slash or minus tying a word or number to the
    quote's edge ("non-|exclusive", "1/|2", a sign: "by -|5%", "by \u2013|5%")?"""
    if not 0 <= mark < len(text):
        return False
    left = text[mark - 1] if mark > 0 else " "
    right = text[mark + 1] if mark + 1 < len(text) else " "
    if text[mark] in SIGNS and right.isdigit() and not left.isalnum():
        return True
    if text[mark] not in _JOINERS:
        return False
    return _wordish(left) and _wordish(right)


def _digit_group(text: str, left: int, right: int) -> bool:
    """Do digits at `left` and `right` stand either side of one mark that
    groups a number's digits ("1,|000", "1\u00a0|000", ".|5" after no digit)?"""
    if not (0 <= left < right < len(text)) or right - left != 2:
        return False
    mark = text[left + 1]
    if mark in ",." and text[left].isdigit() and text[right].isdigit():
        return True
    return (
        mark in _GROUP_MARKS
        and text[left].isdigit()
        and re.match(r"\d{3}(?!\d)", text[right : right + 4]) is not None
    )


def _cut_at_start(text: str, start: int) -> str | None:
    if start <= 0:
        return None
    if _joined_part(text, start - 1):
        return f"starts inside “{_token_around(text, start - 1)}”"
    before, first = text[start - 1], text[start]
    if (_wordish(before) and _wordish(first)) or _number_joint(text, start - 1, start):
        return f"starts inside “{_token_at(text, start)}”"
    if first.isdigit() and (
        _digit_group(text, start - 2, start)
        # A decimal point that opens a number: ".5%".
        or (before == "." and not (start >= 2 and text[start - 2].isalnum()))
    ):
        return f"starts inside the number “{_token_at(text, start)}”"
    return None


def _cut_at_end(text: str, end: int) -> str | None:
    if end >= len(text):
        return None
    if _joined_part(text, end) and _wordish(text[end - 1]):
        return f"ends inside “{_token_around(text, end)}”"
    last, after = text[end - 1], text[end]
    if (_wordish(last) and _wordish(after)) or _number_joint(text, end - 1, end):
        return f"ends inside “{_token_at(text, end - 1)}”"
    if last.isdigit() and _digit_group(text, end - 1, end + 1):
        return f"ends inside the number “{_token_at(text, end - 1)}”"
    return None


def _token_at(text: str, i: int) -> str:
    lo = i
    while lo > 0 and (
        text[lo - 1].isalnum()
        or (text[lo - 1] in ",." and lo > 1 and text[lo - 2].isdigit())
    ):
        lo -= 1
    hi = i + 1
    while hi < len(text) and (
        text[hi].isalnum()
        or (text[hi] in ",." and hi + 1 < len(text) and text[hi + 1].isdigit())
    ):
        hi += 1
    return text[lo:hi][:40]


def _token_around(text: str, mark: int) -> str:
    # The whole hyphenated or slashed token around text[mark], for reasons.
    lo, hi = mark, mark + 1
    while lo > 0 and (_wordish(text[lo - 1]) or text[lo - 1] in _JOINERS):
        lo -= 1
    while hi < len(text) and (_wordish(text[hi]) or text[hi] in _JOINERS):
        hi += 1
    return text[lo:hi][:40]


def _token_bounds(text: str, i: int) -> tuple[int, int]:
    """[start, end) of the run of word characters around text[i]."""
    lo = i
    while lo > 0 and _wordish(text[lo - 1]):
        lo -= 1
    hi = i + 1
    while hi < len(text) and _wordish(text[hi]):
        hi += 1
    return lo, hi


# Digits OCR makes of letters: a number cut next to one of these may go on.
_DIGIT_LOOKALIKES = frozenset("oOlIiSsBZzgq")
# A damaged remainder ("continuca") must be this long to be read as a word.
_DAMAGED_REMAINDER = 5


def _ocr_join(text: str, cut: int, outside_is_left: bool) -> bool:
    """Is `cut` inside a token where OCR ran two words together?

    Only when the token as a whole is no word, the part left outside the
    span is a common word (or, five letters or more, reads as one despite
    damage: "continuca") and holds no number or negation (a modal verb only
    after the span), and the token's number, negation and modal words all
    stay inside the span: "this|Agreement", "for|the", "party|should" and
    "Buyer|may" are joins; "no|thing", "can|not", "in|valid", "shall|not",
    "may|Buyer" and "3|0days" are not. Where digits meet letters
    ("152|days") the cut is a join when the number stays whole on one side
    and no letter beside it could be a digit ("15|Odays" could be 150).
    """
    # Deferred: lexicon loads a word list, guards imports the lexicon.
    from citations.cascade import lexicon
    from citations.cascade.folding import fold_text, ocr_skeleton
    from citations.cascade.guards import MODAL, features

    lo, hi = _token_bounds(text, cut)
    left, right = fold_text(text[lo:cut]), fold_text(text[cut:hi])
    if not (left.isalnum() and right.isalnum()):
        return False
    if text[cut - 1].isdigit() or text[cut].isdigit():
        return _number_beside_word(left, right)
    outside, inside = (left, right) if outside_is_left else (right, left)
    whole = left + right
    if len(outside) < 2 or lexicon.is_word(ocr_skeleton(whole)):
        return False
    # The part left outside may carry a modal verb only after the span
    # ("the Buyer|may": the quote just ends), never a negation or number, and
    # never before it. The whole token may read as nothing where the inside
    # part is a guard word OCR glued to a neighbour ("party|should").
    outside_says = features(outside)
    if outside_says and (outside_is_left or any(f.kind != MODAL for f in outside_says)):
        return False
    whole_says = [f.value for f in features(whole)]
    inside_says = [f.value for f in features(inside)]
    if whole_says != inside_says and (whole_says or not inside_says):
        return False
    outside_key = ocr_skeleton(outside)
    if lexicon.is_common_word(outside_key):
        return True
    return (
        len(outside) >= _DAMAGED_REMAINDER
        and not lexicon.is_word(outside_key)
        and lexicon.reads_as_common_word(outside_key)
    )


def _number_beside_word(left: str, right: str) -> bool:
    # "152|days" or "clause|12": one side all digits, the other all letters,
    # and neither letter at the cut a digit look-alike.
    for number, word, beside in ((left, right, right[:1]), (right, left, left[-1:])):
        if number.isdigit() and word.isalpha() and beside not in _DIGIT_LOOKALIKES:
            return True
    return False


def joined_by_ocr(text: str, start: int, end: int) -> bool:
    """The span [start, end) cuts tokens only where OCR ran two words
    together (see `_ocr_join`), and no number at all. For fuzzy matches of
    OCR'd text only: a clean text's "invalid" never holds a quote ending "in"."""
    if start >= end:
        return False
    if _cut_at_start(text, start) and not _ocr_join(text, start, outside_is_left=True):
        return False
    return not _cut_at_end(text, end) or _ocr_join(text, end, outside_is_left=False)


def disallowed_cut(text: str, start: int, end: int, *, fuzzy: bool) -> str | None:
    """How text[start:end] cuts a token (`cut_token`), unless it is a fuzzy
    match of OCR'd text cut only where OCR ran two words together."""
    cut = cut_token(text, start, end)
    if cut is None or (fuzzy and joined_by_ocr(text, start, end)):
        return None
    return cut
