"""A verified span never starts or ends inside a word or a number.

"The annual fee is $1" is a verbatim prefix of "The annual fee is $12,000",
and "000 units" a verbatim suffix of "1,000 units": character matching alone
would verify both. A quotation is made of whole words, so a span that cuts a
token is no match at that place (another occurrence may still be whole).
Scripts written without spaces between words (CJK) have no word boundaries
to check; numbers are checked in every script.
"""

from __future__ import annotations

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
    if start > 0:
        before, first = text[start - 1], text[start]
        if (_wordish(before) and _wordish(first)) or _number_joint(
            text, start - 1, start
        ):
            return f"starts inside “{_token_at(text, start)}”"
        if before in ",." and first.isdigit() and _number_joint(text, start - 2, start):
            return f"starts inside the number “{_token_at(text, start)}”"
    if end < len(text):
        last, after = text[end - 1], text[end]
        if (_wordish(last) and _wordish(after)) or _number_joint(text, end - 1, end):
            return f"ends inside “{_token_at(text, end - 1)}”"
        if after in ",." and last.isdigit() and _number_joint(text, end - 1, end + 1):
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
