"""How DocuIQ reads numbers: number words, month names, currency words and
signs, and digit strings, with their values.

One table for two readers: the guard (guards.py) compares the words a quote
and its source use, so it reads these as words ("thirty" is not "30" there:
a quote must say what the source says); the typed-value readers
(citations/values.py) need their values ("thirty" is 30 days). Both read the
same words, so a word the guard treats as a number is one the value readers
can count, and digits are normalised the same way ("1,000" is "1000").

Pure: no Django, no I/O.
"""

from __future__ import annotations

import re
from fractions import Fraction

# The number words, in the guard's order (it builds its word table from
# them): cardinals, scales, multiples, then the ordinals it compares.
CARDINALS: dict[str, int] = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
SCALES: dict[str, int] = {
    "hundred": 100,
    "thousand": 1_000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
    "trillion": 1_000_000_000_000,
}
# "half a year", "twice the fees", "a dozen units": numbers, but no count a
# value reader takes alone.
MULTIPLES: dict[str, Fraction] = {
    "half": Fraction(1, 2),
    "twice": Fraction(2),
    "dozen": Fraction(12),
}
ORDINALS: dict[str, int] = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
NUMBER_WORDS: tuple[str, ...] = (*CARDINALS, *SCALES, *MULTIPLES, *ORDINALS)

# Currency words and the ISO 4217 code each names ("dollars" are US dollars
# unless a word before says otherwise: values.py reads "Canadian dollars").
CURRENCY_WORDS: dict[str, str] = {
    "usd": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "eur": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "gbp": "GBP",
    "pound": "GBP",
    "pounds": "GBP",
    "sterling": "GBP",
    "yen": "JPY",
    "jpy": "JPY",
    "chf": "CHF",
    "francs": "CHF",
}
# Currency signs and the code each stands for when nothing else is written
# ("$" alone is taken for US dollars; "¥" for yen).
CURRENCY_SIGNS: dict[str, str] = {
    "$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
}

_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")


def number_value(raw: str) -> str:
    """A digit string as the guard compares it: thousands commas dropped
    ("1,000" is "1000", "1,000.50" is "1000.50"), a leading point given its
    zero (".5" is "0.5", never "5"); anything else as written ("1.000",
    "3,5" stay: which reading is meant is not the guard's to guess)."""
    if raw.startswith("."):
        return "0" + raw
    return raw.replace(",", "") if _THOUSANDS.fullmatch(raw) else raw
