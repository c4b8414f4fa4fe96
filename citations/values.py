"""Typed values read from text: what a question asks for, and the durations,
amounts of money, dates and jurisdictions a passage states, with offsets.

An answer may state a value ("90 days", "USD 5,000,000", "New York") only
when the value is read from the verified quote it shows. This module does the
reading, for the chat's offline answers (issue 23) and the tabular review's
typed cells (issue 25):

- `value_kind(question)`: which kind of value a question asks for, decided by
  a table of named rules (`QUESTION_RULES`; `classify_question` says which
  rule decided).
- `find_durations`, `find_money`, `find_dates`, `find_jurisdictions` (or
  `find_values(text, kind)`): every value of that kind in a text, best
  first, each with `start`/`end` such that `text[start:end]` is the value's
  own words ("ninety (90) days", "five hundred thousand dollars ($500,000)").
  Where a text says a number twice and the two disagree ("ninety (60)
  days"), nothing is read from that span: which is meant is not ours to
  guess.
- `find_numbers`, `find_parties` (kinds `number`, `party`) and
  `find_options(text, options)`: the quantities, companies (by their legal
  form, with the role the contract gives them) and a column's own options a
  text states, for the tabular review's typed columns (issue 25).
- `value_supported(value, quote)`: is a value (typed, or the short string a
  model or a reviewer wrote) consistent with a quote: its duration, amount,
  date or place occurs in the quote, and any other number in it occurs there
  as the citation guard reads numbers (citations/cascade/guards.py).

Numbers are read with the guard's tables (citations/cascade/numerals.py):
the same number words, month names, currency words and signs, and the same
normalisation of digits ("1,000" is 1000).

Pure: no Django, no I/O.
"""

from __future__ import annotations

import datetime as dt
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

from citations.cascade.folding import fold_text
from citations.cascade.guards import CURRENCY, DATE, NUMBER, PERCENT, features
from citations.cascade.numerals import (
    CARDINALS,
    CURRENCY_SIGNS,
    CURRENCY_WORDS,
    ORDINALS,
    SCALES,
    number_value,
)
from lib.months import MONTH_ABBREVIATIONS, MONTHS
from lib.stemming import singular

DURATION = "duration"
MONEY = "money"
DATE_KIND = "date"
JURISDICTION = "jurisdiction"
YES_NO = "yes_no"
NUMBER_KIND = "number"  # guards.NUMBER is the guard's own feature kind
PARTY = "party"
KINDS = (DURATION, MONEY, DATE_KIND, JURISDICTION, YES_NO, NUMBER_KIND, PARTY)


# --- What a question asks for ------------------------------------------------


class QuestionRule(NamedTuple):
    """A named rule: a question it matches asks for `kind` (None: for no
    value, e.g. a party). `examples` it decides, `not_examples` it must not
    match (tests check both)."""

    name: str
    kind: str | None
    pattern: re.Pattern[str]
    examples: tuple[str, ...]
    not_examples: tuple[str, ...]
    unless: re.Pattern[str] | None = None

    def matches(self, question: str) -> bool:
        if not self.pattern.search(question):
            return False
        return self.unless is None or not self.unless.search(question)


class KindDecision(NamedTuple):
    kind: str | None
    rule: str | None  # the deciding rule's name; None when no rule matched


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_AUXILIARY_OPENING = (
    r"(?:is|are|was|were|does|do|did|can|could|may|might|must|shall|should"
    r"|will|would|has|have|had)"
)
# Inside a yes/no question an interrogative asks for a value only when it
# opens an embedded question: after a verb of saying or a preposition ("say
# how long", "as to which law"), or as a phrase that asks for an amount, a
# period or a place ("how long", "which state's law"). A bare "when" or
# "where" there is a conjunction: "Must it return the information when the
# agreement ends?" asks yes or no.
_EMBEDDED_WH = _rx(
    r"\b(?:say|says|state|states|specify|specifies|set|sets|mention|mentions"
    r"|tell|tells|define|defines|indicate|indicates|explain|explains|show|shows"
    r"|know|about|on|as\s+to|regarding|concerning)\s+"
    r"(?:how|what|what's|which|when|where|who|whom|whose)\b"
    r"|\bhow\s+(?:long|much|many|soon|far|often)\b"
    r"|\b(?:which|what|whose)\b"
)

# Ordered: the first rule that matches decides. A yes/no opening comes first
# (unless the question also asks "how long", "which law" ...), then the
# interrogatives ("how long" before "how much": "how much notice" is a
# period), then the words that name a value ("notice period", "cap").
QUESTION_RULES: tuple[QuestionRule, ...] = (
    QuestionRule(
        "yes_no_opening",
        YES_NO,
        # The auxiliary opens the question, or the clause after a lead-in
        # ("Under the Acme agreement, can ...").
        _rx(rf"^\s*(?:[^,;:?]{{0,80}}[,;:]\s*)?{_AUXILIARY_OPENING}\b"),
        (
            "Is there a cap on liability?",
            "Can either party terminate the distributor agreement for convenience?",
            "Does the agreement renew automatically?",
            "Under the Acme license, may the licensee sublicense its rights?",
            "Must the supplier maintain insurance?",
            "Must the recipient return the information when the agreement ends?",
            "May the licensee sublicense where the licensor consents?",
        ),
        (
            "Does the agreement say how long the notice period is?",
            "Does the contract say when it expires?",
            "Which law governs the agreement?",
            "This agreement is governed by which law?",
        ),
        unless=_EMBEDDED_WH,
    ),
    QuestionRule(
        "who",
        None,
        _rx(r"\b(?:who|whom|whose)\b|\b(?:which|what) part(?:y|ies)\b"),
        (
            "Who may terminate the agreement?",
            "Which party bears the cost of insurance?",
        ),
        ("How long is the term?", "What is the fee?"),
    ),
    QuestionRule(
        "how_long",
        DURATION,
        _rx(
            r"\bhow (?:long|soon)\b|\bhow far in advance\b"
            r"|\bhow much (?:advance |prior |written )?(?:notice|time)\b"
            r"|\bhow many (?:\w+ )?(?:days|weeks|months|years)\b"
            r"|\bwithin how many\b"
        ),
        (
            "How long is the initial term?",
            "How much notice must be given to terminate?",
            "Within how many days must invoices be paid?",
            "How many business days does the supplier have to cure a breach?",
        ),
        ("How much is the license fee?", "When does the agreement expire?"),
    ),
    QuestionRule(
        "how_much",
        MONEY,
        _rx(r"\bhow much\b"),
        (
            "How much is the license fee?",
            "How much can the licensor recover at most?",
        ),
        ("How long is the warranty?", "What is the governing law?"),
    ),
    QuestionRule(
        "when",
        DATE_KIND,
        _rx(r"\bwhen\b|\b(?:what|which) (?:date|day)\b"),
        (
            "When does the agreement expire?",
            "What date was the agreement signed?",
            "On which date does the license start?",
        ),
        ("What is the term?", "Where are disputes heard?"),
    ),
    QuestionRule(
        "which_law_or_where",
        JURISDICTION,
        _rx(
            r"\bwhere\b|\b(?:which|what)(?: \w+)? (?:law|laws|state|state's|states"
            r"|country|jurisdiction|jurisdictions|court|courts|forum|venue"
            r"|province)\b"
        ),
        (
            "Which law governs the agreement?",
            "Which state's law applies?",
            "Where must disputes be resolved?",
            "What courts have jurisdiction over disputes?",
        ),
        ("What is the notice period?", "When is the fee due?"),
    ),
    QuestionRule(
        "period_words",
        DURATION,
        _rx(r"\b(?:period|term|duration|length)\b"),
        (
            "What is the notice period for termination?",
            "What is the term of the agreement?",
            "Tell me the renewal term.",
            "What is the duration of the non-compete?",
        ),
        ("What are the payment terms?", "What is the governing law?"),
    ),
    QuestionRule(
        "money_words",
        MONEY,
        _rx(
            r"\b(?:caps?|capped|fees?|prices?|pricing|amounts?|costs?|payments?"
            r"|royalt(?:y|ies)|compensation|deposit|penalty|liquidated damages"
            r"|limit(?:ation)? (?:of|on) liability|liability (?:cap|limit))\b"
        ),
        (
            "What is the liability cap?",
            "What is the cap on liability?",
            "What is the minimum annual royalty payment?",
            "What is the purchase price?",
            "What's the limitation of liability?",
        ),
        ("What is the effective date?", "What is the governing law?"),
    ),
    QuestionRule(
        "date_words",
        DATE_KIND,
        _rx(r"\bdate\b|\beffective\b|\bexpir\w*|\bcommence\w*"),
        (
            "What is the effective date?",
            "What is the expiration of the agreement?",
            "Agreement commencement?",
        ),
        ("What is the governing law?", "Is there an exclusivity clause?"),
    ),
    QuestionRule(
        "jurisdiction_words",
        JURISDICTION,
        _rx(
            r"\bgovern(?:s|ed|ing)?\b|\bvenue\b|\bjurisdictions?\b|\bforum\b"
            r"|\bchoice of law\b|\bapplicable law\b|\bcourts?\b|\barbitration seat\b"
            r"|\bseat of (?:the )?arbitration\b"
        ),
        (
            "What is the governing law?",
            "What is the venue for disputes?",
            "Governing law and jurisdiction?",
        ),
        ("What is the notice period?", "Is there a non-compete?"),
    ),
)


def classify_question(question: str) -> KindDecision:
    """The kind of value `question` asks for and the rule that decided."""
    for rule in QUESTION_RULES:
        if rule.matches(question):
            return KindDecision(rule.kind, rule.name)
    return KindDecision(None, None)


def value_kind(question: str) -> str | None:
    """duration, money, date, jurisdiction, yes_no, or None."""
    return classify_question(question).kind


# --- Typed values --------------------------------------------------------------

DURATION_UNITS = ("day", "business_day", "week", "month", "year")
_UNIT_NAMES = {
    "day": ("day", "days"),
    "business_day": ("business day", "business days"),
    "week": ("week", "weeks"),
    "month": ("month", "months"),
    "year": ("year", "years"),
}


@dataclass(frozen=True)
class Duration:
    amount: int
    unit: str  # one of DURATION_UNITS
    start: int
    end: int
    kind = DURATION

    @property
    def display(self) -> str:
        singular, plural = _UNIT_NAMES[self.unit]
        return f"{self.amount} {singular if self.amount == 1 else plural}"

    @property
    def key(self) -> tuple[int, str]:
        return (self.amount, self.unit)


@dataclass(frozen=True)
class Money:
    currency: str  # ISO 4217
    amount: Decimal
    start: int
    end: int
    kind = MONEY

    @property
    def display(self) -> str:
        return f"{self.currency} {format_amount(self.amount)}"

    @property
    def key(self) -> tuple[str, Decimal]:
        return (self.currency, self.amount)


@dataclass(frozen=True)
class DateValue:
    value: dt.date
    start: int
    end: int
    # A numeric date whose day and month could be swapped ("03/04/2002"):
    # `value` is the month-first (US) reading unless day-first was asked for.
    ambiguous: bool = False
    kind = DATE_KIND

    @property
    def display(self) -> str:
        return self.value.isoformat()

    @property
    def readings(self) -> frozenset[dt.date]:
        """Every date the words may mean (two for an ambiguous one)."""
        if not self.ambiguous:
            return frozenset([self.value])
        swapped = dt.date(self.value.year, self.value.day, self.value.month)
        return frozenset([self.value, swapped])


# How a jurisdiction is named, best first: the governing-law clause
# ("governed by the laws of"), a forum ("the courts of"), other law ("the
# laws of"), any other mention ("a Delaware corporation", "organized under
# the laws of Delaware").
GOVERNING_LAW = "governing_law"
FORUM = "forum"
LAW = "law"
MENTION = "mention"
JURISDICTION_ROLES = (GOVERNING_LAW, FORUM, LAW, MENTION)


@dataclass(frozen=True)
class Jurisdiction:
    name: str  # canonical: "New York", "England and Wales", "Ontario"
    start: int
    end: int
    role: str = MENTION  # one of JURISDICTION_ROLES
    kind = JURISDICTION

    @property
    def display(self) -> str:
        return self.name

    @property
    def key(self) -> str:
        return self.name


def format_amount(amount: Decimal) -> str:
    """ "5,000,000", "10.33": thousands commas, decimals only when there are
    cents."""
    if amount == amount.to_integral_value():
        return f"{int(amount):,}"
    exact = amount.normalize()
    if exact.as_tuple().exponent > -2:  # type: ignore[operator]
        exact = exact.quantize(Decimal("0.01"))
    return f"{exact:,f}"


# --- Reading fast ------------------------------------------------------------------
#
# Patterns are matched against the text with ASCII capitals lowered one
# character for one (offsets hold; IGNORECASE costs four times as much), and
# only around an anchor every value of a kind contains (a unit, a currency
# marker, a year, a capitalised place name): a 2,000-character passage
# reads in well under a millisecond.

_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
# A stretch's ends move out to whitespace, at most _SNAP characters, so no
# word is cut in two.
_SNAP = 40


def _lowered(text: str) -> str:
    return text.translate(_LOWER)


def _windows(
    low: str, anchors: re.Pattern[str], before: int, after: int
) -> list[tuple[int, int]]:
    """The merged stretches of `low` around every anchor."""
    n = len(low)
    spans: list[tuple[int, int]] = []
    for m in anchors.finditer(low):
        lo = max(0, m.start() - before)
        stop = max(0, lo - _SNAP)
        while lo > stop and not low[lo - 1].isspace():
            lo -= 1
        hi = min(n, m.end() + after)
        if after:
            stop = min(n, hi + _SNAP)
            while hi < stop and not low[hi].isspace():
                hi += 1
        if spans and lo <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(hi, spans[-1][1]))
        else:
            spans.append((lo, hi))
    return spans


def _scan(
    pattern: re.Pattern[str],
    low: str,
    anchors: re.Pattern[str],
    before: int,
    after: int,
) -> Iterator[re.Match[str]]:
    for lo, hi in _windows(low, anchors, before, after):
        yield from pattern.finditer(low, lo, hi)


# --- Number words ----------------------------------------------------------------

_COUNTING = {**CARDINALS, **SCALES}
_COUNT_WORD = "|".join(sorted(_COUNTING, key=len, reverse=True))
_DASH = r"\-" + "\u2010\u2011\u2012\u2013"  # for a character class
# A run of counting words: "one hundred and eighty", "seventy-five".
_WORDS_RUN = (
    rf"\b(?:{_COUNT_WORD})\b(?:(?:[\s{_DASH}]+and)?[\s{_DASH}]+(?:{_COUNT_WORD})\b)*"
)
_WORD_IN_RUN = re.compile(r"[a-z]+")


def _words_value(words: list[str]) -> int | None:
    """The number that counting words say, or None when they are no
    well-formed number ("five thirty", "hundred", "thousand million")."""
    if words == ["zero"]:
        return 0
    total = 0
    current = 0
    last_scale = None
    for word in words:
        scale = SCALES.get(word)
        if scale == 100:
            if current == 0 or current >= 100:
                return None
            current *= 100
        elif scale is not None:
            if current == 0 or (last_scale is not None and scale >= last_scale):
                return None
            total += current * scale
            current = 0
            last_scale = scale
        else:
            value = CARDINALS[word]
            tens_only = current % 100 >= 20 and current % 10 == 0
            if value == 0 or not (current % 100 == 0 or (value < 10 and tens_only)):
                return None
            current += value
    return total + current


def _read_words(low: str, start: int, end: int) -> tuple[int, int] | None:
    """(offset, value) of the longest well-formed number that ends a run of
    counting words at low[start:end]: in "ten one" the number is "one"."""
    found = [(m.start(), m.group()) for m in _WORD_IN_RUN.finditer(low, start, end)]
    for i, (offset, word) in enumerate(found):
        if word == "and":
            continue
        value = _words_value([w for _, w in found[i:] if w != "and"])
        if value is not None:
            return offset, value
    return None


# Digits as the guard reads them: a whole token, never part of a word or of a
# longer number ("130", "1.5", "30days").
_INTEGER = r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d{1,9})(?![\w]|[.,]\d)"


def _int(raw: str) -> int:
    return int(number_value(raw))


# --- Durations ---------------------------------------------------------------------

_QUALIFIER = r"calendar|business|working|banking|consecutive|full|additional|successive"
_DURATION = re.compile(
    rf"""
    (?:
        (?P<words>{_WORDS_RUN})(?:\s*\(\s*(?P<wfig>{_INTEGER})\s*\))?
      | \(\s*(?P<pfig>{_INTEGER})\s*\)
      | (?P<fig>{_INTEGER})
    )
    (?P<qualifiers>(?:[\s{_DASH}]+(?:{_QUALIFIER})){{0,2}})
    [\s{_DASH}]+(?P<unit>days?|weeks?|months?|years?)\b
    """,
    re.VERBOSE,
)
_UNIT_ANCHOR = re.compile(r"\b(?:day|week|month|year)s?\b")
_DURATION_REACH = 160
_BUSINESS = re.compile(r"business|working|banking")


def find_durations(text: str) -> list[Duration]:
    """Periods of time, in order of position: "ninety (90) days", "90 days",
    "thirty (30) calendar days", "one (1) year", "six months", "5 business
    days", "a 30-day period". Whole numbers only; a span whose words and
    figure disagree is skipped."""
    low = _lowered(text)
    found = []
    for m in _scan(_DURATION, low, _UNIT_ANCHOR, _DURATION_REACH, 0):
        start = m.start()
        figure = m.group("wfig") or m.group("pfig") or m.group("fig")
        amount = _int(figure) if figure else None
        if m.group("words"):
            read = _read_words(low, m.start("words"), m.end("words"))
            if read is None:
                continue
            start, said = read
            if amount is not None and said != amount:
                continue  # "ninety (60) days": don't guess
            amount = said
        if not amount:
            continue
        unit = singular(m.group("unit"))
        if unit == "day" and _BUSINESS.search(m.group("qualifiers")):
            unit = "business_day"
        found.append(Duration(amount, unit, start, m.end()))
    return found


# --- Money ---------------------------------------------------------------------------

# Before an amount: "$", "US$", "U.S. $", "C$", "€" (lowercased, as matched).
# A lettered sign starts a word: the "s" of "fees $5,000" is no Singapore
# dollar.
_SIGN_PREFIXES = {
    rf"(?<![a-z]){sign}": code
    for sign, code in {
        r"u\.?\s?s\.?\s?\$": "USD",
        r"(?:c|ca|cad|cdn)\s?\$": "CAD",
        r"(?:a|au|aud)\s?\$": "AUD",
        r"nz\s?\$": "NZD",
        r"hk\s?\$": "HKD",
        r"(?:s|sg)\s?\$": "SGD",
        r"r\$": "BRL",
        r"mex\s?\$": "MXN",
    }.items()
} | {re.escape(sign): code for sign, code in CURRENCY_SIGNS.items()}
# ISO codes, written in capitals ("EUR 5,000", "5,000 USD"); the guard's
# currency words among them ("usd") count in any case.
_ISO_CODES = (
    "USD",
    "EUR",
    "GBP",
    "CAD",
    "AUD",
    "NZD",
    "CHF",
    "JPY",
    "CNY",
    "INR",
    "HKD",
    "SGD",
    "SEK",
    "NOK",
    "DKK",
    "ILS",
    "MXN",
    "BRL",
    "ZAR",
    "KRW",
    "TWD",
)
_CODES = {code: code for code in _ISO_CODES} | {"RMB": "CNY", "NIS": "ILS"}
# Words before "dollars" that say whose: "U.S. dollars", "Canadian dollars".
_DOLLAR_OWNERS = {
    "u.s.": "USD",
    "u.s": "USD",
    "us": "USD",
    "united states": "USD",
    "american": "USD",
    "canadian": "CAD",
    "australian": "AUD",
    "new zealand": "NZD",
    "hong kong": "HKD",
    "singapore": "SGD",
}
_CURRENCY_NOUNS = {w: c for w, c in CURRENCY_WORDS.items() if w.isalpha()}
_CURRENCY_NOUNS |= {"swiss francs": "CHF", "pounds sterling": "GBP"}


def _alternation(keys: Iterable[str]) -> str:
    return "|".join(sorted(keys, key=len, reverse=True))


def _spaced(words: str) -> str:
    return re.escape(words).replace(r"\ ", r"\s+")


_CODE = _alternation(code.lower() for code in _CODES)
# A code may touch its figure ("USD500,000"), never another letter.
_PREFIX = rf"(?P<{{g}}>{_alternation(_SIGN_PREFIXES)}|\b(?:{_CODE})(?![a-z]))"
_OWNER = _alternation(_spaced(owner) for owner in _DOLLAR_OWNERS)
_NOUN = _alternation(_spaced(noun) for noun in _CURRENCY_NOUNS)
_PHRASE = rf"(?P<{{g}}>(?:(?:{_OWNER})\s*)?(?:{_NOUN})\b|\b(?:{_CODE})\b)"
# Digits of an amount: "5,000,000", "1.5", "1 000 000", "1.000.000,00" (two
# or more groups: "1.500" is one and a half).
_FIGURE = (
    r"(?:\d{1,3}(?:,\d{3})+(?:\.\d{1,4})?"
    r"|\d{1,3}(?:\.\d{3}){2,}(?:,\d{1,2})?|\d{1,3}\.\d{3},\d{1,2}"
    r"|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d{1,2})?"
    r"|\d{1,15}(?:\.\d{1,4})?)(?![\w]|[.,]\d)"
)
# After a currency prefix the figure may touch it ("USD500,000"); alone it
# is a whole token.
_DIGITS = rf"(?<![\w.,]){_FIGURE}"
_SCALE = r"(?:\s*(?P<{g}>thousand|million|billion|trillion)\b)?"
_MONEY = re.compile(
    rf"""
    (?P<words_fig>(?P<wf_words>{_WORDS_RUN})\s*\(\s*{_PREFIX.format(g="wf_prefix")}?\s*
        (?P<wf_digits>{_FIGURE}){_SCALE.format(g="wf_scale")}\s*\)
        (?:\s*{_PHRASE.format(g="wf_phrase")})?)
  | (?P<words_form>(?P<w_words>{_WORDS_RUN})\s+{_PHRASE.format(g="w_phrase")})
  | (?P<prefixed>{_PREFIX.format(g="p_prefix")}\s?(?P<p_digits>{_FIGURE})
        {_SCALE.format(g="p_scale")})
  | (?P<suffixed>(?P<s_digits>{_DIGITS}){_SCALE.format(g="s_scale")}\s?
        {_PHRASE.format(g="s_phrase")})
    """,
    re.VERBOSE,
)
_MONEY_ANCHOR = re.compile(rf"[{''.join(CURRENCY_SIGNS)}]|\b(?:{_CODE}|{_NOUN})\b")
_MONEY_BEFORE = 160
_MONEY_AFTER = 60
_SPACES = re.compile(r"[\s\u00a0\u202f]")
_SIGN_PATTERNS = [(re.compile(p), code) for p, code in _SIGN_PREFIXES.items()]


def _decimal(raw: str, scale: str | None) -> Decimal | None:
    raw = _SPACES.sub("", raw)
    if raw.count(".") > 1 or (
        "." in raw and "," in raw and raw.index(".") < raw.index(",")
    ):
        raw = raw.replace(".", "").replace(",", ".")  # 1.000.000,00
    else:
        raw = number_value(raw)
        if "," in raw:  # "1 000,50": a decimal comma
            raw = raw.replace(",", ".")
    try:
        amount = Decimal(raw)
    except InvalidOperation:
        return None
    return amount * SCALES[scale] if scale else amount


def _code(text: str, m: re.Match[str], group: str) -> str | None:
    """The currency a prefix or phrase names; None for a code not written in
    capitals ("zar" is no rand)."""
    written = text[m.start(group) : m.end(group)]
    said = " ".join(m.group(group).split())
    if said.upper() in _CODES:
        if said in _CURRENCY_NOUNS or written.isupper():
            return _CODES[said.upper()]
        return None
    for pattern, code in _SIGN_PATTERNS:
        if pattern.fullmatch(said):
            return code
    for noun in _NOUNS_LONGEST_FIRST:
        if said.endswith(noun):
            code = _CURRENCY_NOUNS[noun]
            owner = said[: -len(noun)].strip()
            return _DOLLAR_OWNERS.get(owner, code) if code == "USD" and owner else code
    return None


_NOUNS_LONGEST_FIRST = sorted(_CURRENCY_NOUNS, key=len, reverse=True)


class _Mention(NamedTuple):
    money: Money | None  # None: the span disagrees with itself
    start: int
    end: int


def _mention(text: str, low: str, m: re.Match[str]) -> _Mention | None:
    start, end = m.span()
    if m.group("words_fig"):
        read = _read_words(low, m.start("wf_words"), m.end("wf_words"))
        figure = _decimal(m.group("wf_digits"), m.group("wf_scale"))
        marks = [g for g in ("wf_prefix", "wf_phrase") if m.group(g)]
        if read is None or figure is None or not marks:
            return None  # "thirty (30)": a number, no money
        start = read[0]
        codes = {_code(text, m, g) for g in marks}
        if None in codes:
            return None
        if read[1] != figure or len(codes) != 1:
            return _Mention(None, start, end)
        return _Mention(Money(codes.pop(), figure, start, end), start, end)  # type: ignore[arg-type]
    if m.group("words_form"):
        read = _read_words(low, m.start("w_words"), m.end("w_words"))
        code = _code(text, m, "w_phrase")
        if read is None or code is None:
            return None
        start = read[0]
        return _Mention(Money(code, Decimal(read[1]), start, end), start, end)
    if m.group("prefixed"):
        amount = _decimal(m.group("p_digits"), m.group("p_scale"))
        code = _code(text, m, "p_prefix")
    else:
        amount = _decimal(m.group("s_digits"), m.group("s_scale"))
        code = _code(text, m, "s_phrase")
    if amount is None or code is None:
        return None
    return _Mention(Money(code, amount, start, end), start, end)


_OPEN = re.compile(r"\s*\(\s*")
_CLOSE = re.compile(r"\s*\)")


def find_money(text: str) -> list[Money]:
    """Amounts of money, in order of position: "$5,000,000", "US$ 1.5
    million", "USD 250,000", "EUR 1 000 000", "£10,000", "five hundred
    thousand dollars ($500,000)", "U.S.$1,000,000 (one million U.S.
    dollars)". An amount said twice is one value spanning both, and nothing
    when the two disagree. A bare "$" is taken for US dollars."""
    low = _lowered(text)
    mentions = [
        found
        for m in _scan(_MONEY, low, _MONEY_ANCHOR, _MONEY_BEFORE, _MONEY_AFTER)
        if (found := _mention(text, low, m)) is not None
    ]
    values = []
    i = 0
    while i < len(mentions):
        first = mentions[i]
        if i + 1 < len(mentions):
            second = mentions[i + 1]
            opening = _OPEN.match(text, first.end)
            closing = _CLOSE.match(text, second.end)
            if opening and opening.end() == second.start and closing:
                # "two million U.S. dollars ($2,000,000)": one amount.
                a, b = first.money, second.money
                if a is not None and b is not None and a.key == b.key:
                    values.append(
                        Money(a.currency, a.amount, first.start, closing.end())
                    )
                i += 2
                continue
        if first.money is not None:
            values.append(first.money)
        i += 1
    return values


# --- Dates -------------------------------------------------------------------------

_MONTH_NAMES = {**MONTHS, **MONTH_ABBREVIATIONS}
_MONTH = rf"\b(?P<{{g}}>{_alternation(_MONTH_NAMES)})\b\.?"
_ORDINAL_SUFFIX = r"(?:st|nd|rd|th)"
_DAY = rf"(?P<{{g}}>[0-3]?\d)(?:{_ORDINAL_SUFFIX})?(?!\d)"
_YEAR = r"(?P<{g}>(?:19|20)\d\d)(?!\d)"
_DAY_ORDINALS = {
    **ORDINALS,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
    "thirtieth": 30,
}
for _tens in ("twenty", "thirty"):
    for _word, _n in ORDINALS.items():
        if _n < 10 and CARDINALS[_tens] + _n <= 31:
            _DAY_ORDINALS[f"{_tens}-{_word}"] = CARDINALS[_tens] + _n
_DAY_WORD = _alternation(w.replace("-", rf"[\s{_DASH}]+") for w in _DAY_ORDINALS)
_DATES = re.compile(
    rf"""
    (?P<mdy>{_MONTH.format(g="mdy_month")}\s*{_DAY.format(g="mdy_day")},?\s*
        {_YEAR.format(g="mdy_year")})
  | (?P<dmy>(?<!\d){_DAY.format(g="dmy_day")}\s+(?:of\s+)?{_MONTH.format(g="dmy_month")},?\s*
        {_YEAR.format(g="dmy_year")})
  | (?P<dayof>(?:(?<![\w.])(?P<do_digits>[0-3]?\d){_ORDINAL_SUFFIX}|\b(?P<do_word>{_DAY_WORD}))
        \s+day\s+of\s+{_MONTH.format(g="do_month")},?\s*(?:in\s+the\s+year\s+)?
        {_YEAR.format(g="do_year")})
  | (?P<iso>(?<![\w./-])(?P<iso_year>(?:19|20)\d\d)-(?P<iso_month>[01]\d)-(?P<iso_day>[0-3]\d)
        (?![\w/-]|\.\d))
  | (?P<numeric>(?<![\w./-])(?P<n_first>[0-3]?\d)(?P<sep>[/.-])(?P<n_second>[0-3]?\d)(?P=sep)
        (?P<n_year>(?:19|20)\d\d|(?<=/)\d\d)(?![\w/-]|\.\d))
    """,
    re.VERBOSE,
)
# Every date has a four-digit year, or is numeric with slashes.
_DATE_ANCHOR = re.compile(r"(?:19|20)\d\d|\d/\d")
_DATE_BEFORE = 70
_DATE_AFTER = 12


def _month(name: str) -> int:
    return _MONTH_NAMES[name.rstrip(".")]


def _date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _date_of(m: re.Match[str], day_first: bool) -> DateValue | None:
    start, end = m.span()
    if m.group("numeric"):
        first, second = int(m.group("n_first")), int(m.group("n_second"))
        year = int(m.group("n_year"))
        if year < 100:
            year += 2000 if year < 50 else 1900
        # "27.03.2002" is day-first wherever it is written.
        first_is_day = day_first or m.group("sep") == "."
        ambiguous = first != second and first <= 12 and second <= 12
        if first > 12 or second > 12:
            first_is_day = first > 12
        day, month = (first, second) if first_is_day else (second, first)
        value = _date(year, month, day)
        return None if value is None else DateValue(value, start, end, ambiguous)
    if m.group("mdy"):
        year, month, day = (
            int(m.group("mdy_year")),
            _month(m.group("mdy_month")),
            int(m.group("mdy_day")),
        )
    elif m.group("dmy"):
        year, month, day = (
            int(m.group("dmy_year")),
            _month(m.group("dmy_month")),
            int(m.group("dmy_day")),
        )
    elif m.group("dayof"):
        year, month = int(m.group("do_year")), _month(m.group("do_month"))
        if m.group("do_digits"):
            day = int(m.group("do_digits"))
        else:
            day = _DAY_ORDINALS[re.sub(rf"[\s{_DASH}]+", "-", m.group("do_word"))]
    else:
        year, month, day = (
            int(m.group("iso_year")),
            int(m.group("iso_month")),
            int(m.group("iso_day")),
        )
    value = _date(year, month, day)
    return None if value is None else DateValue(value, start, end)


def find_dates(text: str, *, day_first: bool = False) -> list[DateValue]:
    """Calendar dates, unambiguous first, then in order of position: "January
    1, 2020", "1 January 2020", "the 15th day of March, 2019", "2019-11-01",
    "03/27/2002". A numeric date is month-first, as US contracts write it
    (`day_first` for others), and marked ambiguous when both parts could be
    the month; dotted dates ("27.03.2002") are day-first. Two-digit years
    (slashes only) are 1950-2049."""
    low = _lowered(text)
    found = [
        value
        for m in _scan(_DATES, low, _DATE_ANCHOR, _DATE_BEFORE, _DATE_AFTER)
        if (value := _date_of(m, day_first)) is not None
    ]
    return sorted(found, key=lambda d: (d.ambiguous, d.start))


# --- Jurisdictions -----------------------------------------------------------------

US_STATES = [
    "Alabama",
    "Alaska",
    "Arizona",
    "Arkansas",
    "California",
    "Colorado",
    "Connecticut",
    "Delaware",
    "District of Columbia",
    "Florida",
    "Georgia",
    "Hawaii",
    "Idaho",
    "Illinois",
    "Indiana",
    "Iowa",
    "Kansas",
    "Kentucky",
    "Louisiana",
    "Maine",
    "Maryland",
    "Massachusetts",
    "Michigan",
    "Minnesota",
    "Mississippi",
    "Missouri",
    "Montana",
    "Nebraska",
    "Nevada",
    "New Hampshire",
    "New Jersey",
    "New Mexico",
    "New York",
    "North Carolina",
    "North Dakota",
    "Ohio",
    "Oklahoma",
    "Oregon",
    "Pennsylvania",
    "Rhode Island",
    "South Carolina",
    "South Dakota",
    "Tennessee",
    "Texas",
    "Utah",
    "Vermont",
    "Virginia",
    "Washington",
    "West Virginia",
    "Wisconsin",
    "Wyoming",
]
CANADIAN_PROVINCES = [
    "Alberta",
    "British Columbia",
    "Manitoba",
    "New Brunswick",
    "Newfoundland and Labrador",
    "Nova Scotia",
    "Ontario",
    "Prince Edward Island",
    "Quebec",
    "Saskatchewan",
    "Northwest Territories",
    "Nunavut",
    "Yukon",
]
COUNTRIES = [
    "England and Wales",
    "England",
    "Scotland",
    "Northern Ireland",
    "United Kingdom",
    "Ireland",
    "United States",
    "Canada",
    "Mexico",
    "Brazil",
    "Israel",
    "Singapore",
    "Hong Kong",
    "China",
    "Japan",
    "South Korea",
    "Taiwan",
    "India",
    "Australia",
    "New Zealand",
    "Netherlands",
    "Germany",
    "France",
    "Switzerland",
    "Luxembourg",
    "Belgium",
    "Spain",
    "Portugal",
    "Italy",
    "Austria",
    "Sweden",
    "Norway",
    "Denmark",
    "Finland",
    "Cyprus",
    "Malta",
    "Cayman Islands",
    "Bermuda",
    "British Virgin Islands",
    "South Africa",
    "United Arab Emirates",
]
# Other names for the same place.
JURISDICTION_ALIASES = {
    "New York State": "New York",
    "Washington, D.C.": "District of Columbia",
    "Washington D.C.": "District of Columbia",
    "Québec": "Quebec",
    "United States of America": "United States",
    "U.S.A.": "United States",
    "USA": "United States",
    "U.K.": "United Kingdom",
    "UK": "United Kingdom",
    "Great Britain": "United Kingdom",
    "People's Republic of China": "China",
    "PRC": "China",
    "Republic of Korea": "South Korea",
    "Hong Kong SAR": "Hong Kong",
    "Federal Republic of Germany": "Germany",
    "Swiss Confederation": "Switzerland",
    "Grand Duchy of Luxembourg": "Luxembourg",
    "UAE": "United Arab Emirates",
}
_PLACES = (*US_STATES, *CANADIAN_PROVINCES, *COUNTRIES, *JURISDICTION_ALIASES)
_CANONICAL = {
    name.lower(): name for name in (*US_STATES, *CANADIAN_PROVINCES, *COUNTRIES)
}
_CANONICAL |= {alias.lower(): name for alias, name in JURISDICTION_ALIASES.items()}
# Aliases in capitals ("UK", "PRC"): read only as written.
_CAPITALS_ONLY = frozenset(a.lower() for a in JURISDICTION_ALIASES if a.isupper())
_DESIGNATIONS = (
    "state",
    "commonwealth",
    "province",
    "territory",
    "republic",
    "kingdom",
)
_DESIGNATION = rf"(?:(?:{'|'.join(_DESIGNATIONS)})\s+of\s+(?:the\s+)?)"
_PLACE = _alternation(_spaced(p.lower()).replace("'", "['’]") for p in _PLACES)
_JURISDICTION = re.compile(
    rf"(?P<designation>{_DESIGNATION})?(?P<place>{_PLACE})(?!\w)"
)
# "construed in accordance with English law": a place named by its
# adjective, only before "law" (the span is "English law").
LAW_ADJECTIVES = {
    "English": "England and Wales",
    "Scots": "Scotland",
    "Scottish": "Scotland",
    "Irish": "Ireland",
    "Israeli": "Israel",
    "Canadian": "Canada",
    "Mexican": "Mexico",
    "Brazilian": "Brazil",
    "Japanese": "Japan",
    "Chinese": "China",
    "Korean": "South Korea",
    "Indian": "India",
    "Australian": "Australia",
    "Dutch": "Netherlands",
    "German": "Germany",
    "French": "France",
    "Swiss": "Switzerland",
    "Belgian": "Belgium",
    "Spanish": "Spain",
    "Portuguese": "Portugal",
    "Italian": "Italy",
    "Austrian": "Austria",
    "Swedish": "Sweden",
    "Norwegian": "Norway",
    "Danish": "Denmark",
    "Finnish": "Finland",
    "Cypriot": "Cyprus",
    "Maltese": "Malta",
    "South African": "South Africa",
}
_CANONICAL |= {adjective.lower(): name for adjective, name in LAW_ADJECTIVES.items()}
_LAW_ADJECTIVE = re.compile(
    rf"(?P<place>{_alternation(_spaced(a.lower()) for a in LAW_ADJECTIVES)})"
    r"\s+laws?\b"
)
# A capitalised word that may open a place's name (or "State of").
_CAPITALISED = re.compile(r"(?<![\w.])[A-Z][\w'’.]*")
_OPENING_WORDS = frozenset(
    [
        re.match(r"[\w'.]+", p.lower()).group().rstrip(".")  # type: ignore[union-attr]
        for p in (*_PLACES, *LAW_ADJECTIVES)
    ]
    + list(_DESIGNATIONS)
)
# The words that say what a place is named for, nearest before it deciding:
# "organized under the laws of" is incorporation, never the governing law.
_ROLE_CUES = re.compile(
    r"\b(?:"
    r"(?P<mention>(?:organi[sz]ed|incorporated|existing|formed|registered|domiciled)"
    r"\b[^.;]{0,40}?\blaws?\s+of)"
    r"|(?P<governing_law>govern(?:ed|s|ing)?|constru(?:ed|ction)|interpret(?:ed|ation)"
    r"|enforced\s+in\s+accordance|choice\s+of\s+law|subject\s+to\s+the\s+laws?)"
    r"|(?P<forum>courts?|venue|jurisdiction|arbitration|forum|seat|tribunal)"
    r"|(?P<law>laws?\s+of)"
    r")\b"
)
_LOOKBACK = 240
_SENTENCE_END = re.compile(r"[.;!?]\s+(?=[A-Z(\d])")
_ROLE_RANK = {role: rank for rank, role in enumerate(JURISDICTION_ROLES)}


# "The laws of California shall govern", "Delaware law governs": the verb
# after the place.
_GOVERNS_AFTER = re.compile(
    r"(?:\s+laws?)?\s+(?:(?:shall|will|is\s+to|are\s+to)\s+)?"
    r"(?:govern|governs|apply|applies|control|controls)\b"
)


def _role(text: str, low: str, start: int, end: int) -> str:
    if _GOVERNS_AFTER.match(low, end):
        return GOVERNING_LAW
    lo = max(0, start - _LOOKBACK)
    ends = list(_SENTENCE_END.finditer(text, lo, start))
    if ends:
        lo = ends[-1].end()
    # "governed by the laws of": "laws of" only says which law, so the cue
    # before it decides; "governed by the laws of Delaware and the courts of
    # New York" names New York as the forum.
    roles = [cue.lastgroup for cue in _ROLE_CUES.finditer(low, lo, start)]
    named = [role for role in roles if role != LAW]
    if named:
        return named[-1] or MENTION
    return LAW if roles else MENTION


def find_jurisdictions(text: str) -> list[Jurisdiction]:
    """Places whose law or courts a contract may name: US states, Canadian
    provinces and common countries, by canonical name ("the laws of the
    State of New York" -> "New York"; the span is "State of New York"), or by
    an adjective before "law" ("English law"). Names are read capitalised ("Delaware", "NEW YORK"): "georgia" in
    lowercase prose is no place. Best first: named by governing-law wording
    ("governed by and construed in accordance with the laws of"), then by a
    forum ("the courts of"), then "the laws of", then any other mention
    (incorporation, addresses), each in order of position."""
    low = _lowered(text)
    found = []
    end = 0
    for word in _CAPITALISED.finditer(text):
        opening = word.group().lower().replace("’", "'").rstrip(".")
        if word.start() < end or opening not in _OPENING_WORDS:
            continue
        m = _JURISDICTION.match(low, word.start()) or _LAW_ADJECTIVE.match(
            low, word.start()
        )
        if m is None:
            continue
        place = text[m.start("place") : m.end("place")]
        key = " ".join(place.replace("’", "'").lower().split())
        if not place[:1].isupper() or (key in _CAPITALS_ONLY and not place.isupper()):
            continue
        start = m.start()
        found.append(
            Jurisdiction(
                _CANONICAL[key], start, m.end(), _role(text, low, start, m.end())
            )
        )
        end = m.end()
    return sorted(found, key=lambda j: (_ROLE_RANK[j.role], j.start))


# --- Numbers (tabular number columns, issue 25) -------------------------------------


@dataclass(frozen=True)
class Number:
    value: Decimal
    start: int
    end: int
    percent: bool = False
    kind = NUMBER_KIND

    @property
    def display(self) -> str:
        value = self.value
        shown = (
            f"{int(value):,}"
            if value == value.to_integral_value()
            else f"{value.normalize():,f}"
        )
        return shown + ("%" if self.percent else "")

    @property
    def key(self) -> tuple[Decimal, bool]:
        return (self.value, self.percent)


# Digits, a decimal part allowed ("1,000", "2.5"); never part of a word, a
# code or a longer number.
_NUMBER_FIGURE = (
    r"(?<![\w.,$€£¥/-])(?:\d{1,3}(?:,\d{3})+|\d{1,12})(?:\.\d{1,6})?(?![\w/]|[.,]\d)"
)
_PERCENT = r"(?P<pct>\s*(?:%|percent\b|per\s+cent\b))?"
_NUMBER = re.compile(
    rf"""
    (?:
        (?P<words>{_WORDS_RUN})\s*\(\s*(?P<wfig>{_NUMBER_FIGURE})\s*(?P<wpct>%)?\s*\)
      | (?P<fig>{_NUMBER_FIGURE})
      | (?P<alone>{_WORDS_RUN})(?=\s*(?:%|percent\b|per\s+cent\b))
    )
    {_PERCENT}
    """,
    re.VERBOSE,
)
# A figure that names a part of the document, not a quantity: "Section 4.2".
_REFERENCE_BEFORE = re.compile(
    r"(?:section|sections|clause|clauses|article|articles|exhibit|schedule|annex"
    r"|appendix|paragraph|item|no\.|number|§|§§)\s*$"
)


_HEADING_NUMBER = re.compile(r"[.)](?:\s|$)")


def find_numbers(text: str) -> list[Number]:
    """Quantities, in order of position: "1,000", "2.5", "ten (10)", "15%",
    "twenty percent (20%)". Not read as numbers: the figures of a date or an
    amount of money (those are values of their own kinds), references to a
    part of the document ("Section 4.2"), and counting words standing alone
    ("one party") unless a percentage follows. Words and figure that
    disagree ("ten (12)") give nothing."""
    low = _lowered(text)
    dated: list[DateValue | Money] = [*find_dates(text), *find_money(text)]
    taken = [(v.start, v.end) for v in dated]
    found: list[Number] = []
    for m in _NUMBER.finditer(low):
        start, end = m.span()
        if any(a < end and start < b for a, b in taken):
            continue
        if _REFERENCE_BEFORE.search(low, max(0, start - 16), start):
            continue
        if _HEADING_NUMBER.match(low, end) and not low[
            low.rfind("\n", 0, start) + 1 : start
        ].strip(" \t("):
            continue  # "2. Term.", "(3) ...": a heading's number
        percent = bool(m.group("pct") or m.group("wpct"))
        if m.group("words") or m.group("alone"):
            group = "words" if m.group("words") else "alone"
            read = _read_words(low, m.start(group), m.end(group))
            if read is None:
                continue
            start, said = read
            if m.group("wfig") and Decimal(number_value(m.group("wfig"))) != said:
                continue
            value = Decimal(said)
        else:
            try:
                value = Decimal(number_value(m.group("fig")))
            except InvalidOperation:
                continue
        if m.group("pct") and not m.group("pct").strip():
            end = m.start("pct")
        number = Number(value, start, end, percent)
        previous = found[-1] if found else None
        opening = _OPEN.match(text, previous.end) if previous else None
        closing = _CLOSE.match(text, end)
        if previous and opening and opening.end() == start and closing:
            # "twenty percent (20%)": one number said twice.
            found.pop()
            if previous.key == number.key:
                found.append(Number(value, previous.start, closing.end(), percent))
            continue
        found.append(number)
    return found


# --- Parties (tabular party columns, issue 25) --------------------------------------


@dataclass(frozen=True)
class Party:
    name: str  # as written, spacing folded: "Acme Tools Ltd"
    start: int
    end: int
    role: str = ""  # the name the contract gives it: "Supplier"
    kind = PARTY

    @property
    def display(self) -> str:
        return self.name

    @property
    def key(self) -> str:
        return " ".join(re.sub(r"[^\w&]+", " ", self.name.casefold()).split())


# Legal-form suffixes that end a company's name ("Ltd.", "B.V.", "PTE, LTD.").
_PARTY_SUFFIXES = (
    "Inc",
    "INC",
    "Incorporated",
    "INCORPORATED",
    "Corp",
    "CORP",
    "Corporation",
    "CORPORATION",
    "Company",
    "COMPANY",
    "Co",
    "CO",
    "Ltd",
    "LTD",
    "Limited",
    "LIMITED",
    "LLC",
    "L\\.L\\.C",
    "LLP",
    "L\\.L\\.P",
    "LP",
    "L\\.P",
    "plc",
    "PLC",
    "GmbH",
    "GMBH",
    "AG",
    "SA",
    "S\\.A",
    "SE",
    "NV",
    "N\\.V",
    "BV",
    "B\\.V",
    "N\\.A",
    "Pte",
    "PTE",
    "Pty",
    "PTY",
    "S\\.p\\.A",
    "S\\.r\\.l",
    "AB",
    "A/S",
    "Oy",
    "K\\.K",
)
_SUFFIX = r"(?:" + "|".join(sorted(_PARTY_SUFFIXES, key=len, reverse=True)) + r")\.?"
_NAME_WORD = r"(?:[A-Z][\w'’.\-]*|&|of|and|the|de|du|der|la|le|für)"
_PARTY_NAME = re.compile(
    rf"""
    (?P<name>[A-Z][\w'’.\-]*(?:[ \t]+{_NAME_WORD}){{0,7}}?)
    ,?[ \t]+(?P<suffix>{_SUFFIX}(?:,?[ \t]+{_SUFFIX})?)(?![\w])
    (?:\s*\(\s*(?:the\s+|each\s+a\s+|hereinafter(?:\s+referred\s+to\s+as)?\s+)?
       ["“](?P<role>[^"”\n]{{1,40}})["”])?
    """,
    re.VERBOSE,
)
# Words that may precede a name in capitals but are no part of it.
# fmt: off
_PARTY_LEADS = frozenset([
    "between", "and", "by", "among", "amongst", "with", "to", "from", "of", "this",
    "that", "agreement", "party", "parties", "dated", "made", "entered", "into",
    "hereby", "is", "as", "for",
])
# fmt: on


def find_parties(text: str) -> list[Party]:
    """Companies named with their legal form, in order of position, each
    once: "Acme Tools Ltd ("Supplier")", "TELCOSTAR PTE, LTD.", "Go Call,
    Inc.", "PHILIPS MEDICAL SYSTEMS NEDERLAND B.V.". The defined name in
    quotes that follows one is its role. People and unregistered names are
    not read (no legal form to anchor them)."""
    found: list[Party] = []
    seen: set[str] = set()
    for m in _PARTY_NAME.finditer(text):
        words = m.group("name").split()
        lead = 0
        while lead < len(words) and words[lead].casefold() in _PARTY_LEADS:
            lead += 1
        if lead == len(words):
            continue
        start = m.start("name")
        for word in words[:lead]:
            start = text.index(word, start) + len(word)
        start = len(text) - len(text[start:].lstrip())
        end = m.end("suffix")
        name = " ".join(text[start:end].split())
        party = Party(name, start, end, (m.group("role") or "").strip())
        if party.key in seen:
            continue
        seen.add(party.key)
        found.append(party)
    return found


# --- Options (tabular option columns, issue 25) -------------------------------------


@dataclass(frozen=True)
class OptionValue:
    name: str  # the option as the column lists it
    start: int
    end: int
    kind = "options"

    @property
    def display(self) -> str:
        return self.name

    @property
    def key(self) -> str:
        return self.name.casefold()


def find_options(text: str, options: Iterable[str]) -> list[OptionValue]:
    """Which of a column's options a text states, by their own words (any
    case and spacing, whole words), in order of position."""
    found = []
    for option in options:
        words = option.split()
        if not words:
            continue
        pattern = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)"
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            found.append(OptionValue(option, m.start(), m.end()))
    return sorted(found, key=lambda o: o.start)


# --- Any kind ------------------------------------------------------------------------

Value = Duration | Money | DateValue | Jurisdiction | Number | Party

_FINDERS: dict[str, Callable[[str], Sequence[Value]]] = {
    DURATION: find_durations,
    MONEY: find_money,
    DATE_KIND: find_dates,
    JURISDICTION: find_jurisdictions,
    NUMBER_KIND: find_numbers,
    PARTY: find_parties,
}


def find_values(text: str, kind: str) -> list[Value]:
    """The values of `kind` in `text`, best first; [] for yes_no (read from
    the relevance of a passage, not its words)."""
    if kind not in KINDS:
        raise ValueError(f"unknown value kind {kind!r}; expected one of {KINDS}")
    finder = _FINDERS.get(kind)
    return list(finder(text)) if finder else []


def read_value(display: str, kind: str | None = None) -> Value | None:
    """The first typed value a short value string states ("90 days", "USD
    5,000,000", "New York", "2020-01-01"), or None."""
    for k in (kind,) if kind else (DURATION, MONEY, DATE_KIND, JURISDICTION):
        found = find_values(display, k)
        if found:
            return min(found, key=lambda v: v.start)
    return None


_YES_NO = re.compile(r"\s*(?:yes|no|true|false)\s*[.!]?\s*", re.IGNORECASE)
_AMOUNT_KINDS = (NUMBER, PERCENT, CURRENCY, DATE)


def _same(a: Value, b: Value) -> bool:
    if isinstance(a, DateValue) and isinstance(b, DateValue):
        return bool(a.readings & b.readings)
    return type(a) is type(b) and a.key == b.key  # type: ignore[union-attr]


def _figures(text: str) -> Counter[tuple[str, str]]:
    """The numbers, amounts, percentages and dates the guard reads in a
    text (citations/cascade/guards.py `features`)."""
    return Counter(
        (f.kind, f.value) for f in features(fold_text(text)) if f.kind in _AMOUNT_KINDS
    )


def value_supported(value: Value | str, quote: str, *, kind: str | None = None) -> bool:
    """Is `value` consistent with `quote`?

    A typed value is when the quote states the same value of its kind (the
    same amount and unit, currency and amount, date — either reading of an
    ambiguous one — or place). A string (what a model or reviewer wrote) is
    read for typed values (of `kind`, or of every kind), each of which must
    be supported; the rest of it must say no number, amount, percentage or
    month the quote does not, compared as the citation guard compares them
    ("1,000" is "1000"; "ninety" is a word there, not 90). Yes and no are
    always consistent: whether a clause answers is the relevance signal's to
    say. Any other string without a figure must occur in the quote (case and
    spacing aside)."""
    if not isinstance(value, str):
        return any(_same(value, found) for found in find_values(quote, value.kind))
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown value kind {kind!r}; expected one of {KINDS}")
    if kind == YES_NO or _YES_NO.fullmatch(value):
        return True
    typed: list[Value] = []
    for k in (kind,) if kind else (DURATION, MONEY, DATE_KIND, JURISDICTION):
        typed.extend(find_values(value, k))
    rest = list(value)
    for found in typed:
        rest[found.start : found.end] = " " * (found.end - found.start)
    remainder = "".join(rest)
    figures = _figures(remainder)
    if not typed and not figures:
        wanted = " ".join(fold_text(value).split())
        return bool(wanted) and wanted in " ".join(fold_text(quote).split())
    if figures and figures - _figures(quote):
        return False
    return all(value_supported(found, quote) for found in typed)
