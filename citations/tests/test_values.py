"""Typed values (citations/values.py): what a question asks for, the
durations, amounts, dates and places a passage states, and whether a value
is consistent with a quote.

Examples are short sentences written in the style of the CUAD contracts
(../shared/corpus/cuad). Properties (hypothesis): offsets slice the text to
the value's own words; a value reads the same whatever surrounds it; every
supported way of writing a duration or an amount reads back to it; a value
whose number changed is never supported by the quote; no reader raises.
Deadlines are off: timings are measured, never asserted.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citations import values
from citations.values import (
    DATE_KIND,
    DURATION,
    FORUM,
    GOVERNING_LAW,
    JURISDICTION,
    MENTION,
    MONEY,
    QUESTION_RULES,
    YES_NO,
    DateValue,
    Duration,
    Money,
    classify_question,
    find_dates,
    find_durations,
    find_jurisdictions,
    find_money,
    find_values,
    read_value,
    value_kind,
    value_supported,
)

SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
FINDERS = {
    DURATION: find_durations,
    MONEY: find_money,
    DATE_KIND: find_dates,
    JURISDICTION: find_jurisdictions,
}


def spans(text: str, found: list) -> list[tuple[str, str]]:
    return [(v.display, text[v.start : v.end]) for v in found]


# --- What a question asks for ---------------------------------------------------


RULE_EXAMPLES = [(r.name, e) for r in QUESTION_RULES for e in r.examples]
RULE_NON_EXAMPLES = [(r.name, e) for r in QUESTION_RULES for e in r.not_examples]


@pytest.mark.parametrize(("name", "question"), RULE_EXAMPLES)
def test_each_rule_decides_its_examples(name, question):
    assert classify_question(question).rule == name


@pytest.mark.parametrize(("name", "question"), RULE_NON_EXAMPLES)
def test_each_rule_does_not_match_its_non_examples(name, question):
    rule = next(r for r in QUESTION_RULES if r.name == name)
    assert not rule.matches(question)


def test_rules_have_unique_names_and_known_kinds():
    names = [r.name for r in QUESTION_RULES]
    assert len(names) == len(set(names))
    assert {r.kind for r in QUESTION_RULES} <= {*values.KINDS, None}


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How long is the notice period to terminate for convenience?", DURATION),
        ("How much notice must the distributor give before the term ends?", DURATION),
        ("What is the renewal term of the Conformis license?", DURATION),
        ("What is the cap on the licensor's liability?", MONEY),
        ("How much does the licensee pay up front?", MONEY),
        ("When does the supply agreement expire?", DATE_KIND),
        ("What is the effective date of the agreement?", DATE_KIND),
        ("Which law governs the distribution agreement?", JURISDICTION),
        ("What is the governing law?", JURISDICTION),
        ("Where will disputes be arbitrated?", JURISDICTION),
        ("Can either party terminate the agreement for convenience?", YES_NO),
        ("Is there a most favored nation clause?", YES_NO),
        ("Does the contract say how long the warranty lasts?", DURATION),
        ("Who owns the improvements?", None),
        ("Summarize the exclusivity clause.", None),
        ("", None),
    ],
)
def test_value_kind(question, kind):
    assert value_kind(question) == kind


def test_no_rule_matched_is_reported_as_no_rule():
    assert classify_question("Summarize the agreement.") == (None, None)


# --- Durations --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Either party may terminate this Agreement upon ninety (90) days "
            "prior written notice.",
            [("90 days", "ninety (90) days")],
        ),
        ("payable within 90 days of invoice", [("90 days", "90 days")]),
        (
            "cure such breach within thirty (30) calendar days",
            [("30 days", "thirty (30) calendar days")],
        ),
        (
            "shall continue for one (1) year from the Effective Date",
            [("1 year", "one (1) year")],
        ),
        ("a term of 12 months", [("12 months", "12 months")]),
        ("for six months after termination", [("6 months", "six months")]),
        ("for two (2) years thereafter", [("2 years", "two (2) years")]),
        ("within 5 business days", [("5 business days", "5 business days")]),
        (
            "within five (5) Business Days after receipt",
            [("5 business days", "five (5) Business Days")],
        ),
        ("for a period of sixty days", [("60 days", "sixty days")]),
        ("a TWELVE (12) MONTHS warranty", [("12 months", "TWELVE (12) MONTHS")]),
        ("a 30-day cure period", [("30 days", "30-day")]),
        (
            "no later than seventy-five (75) days",
            [("75 days", "seventy-five (75) days")],
        ),
        (
            "within one hundred eighty (180) days",
            [("180 days", "one hundred eighty (180) days")],
        ),
        (
            "within one hundred and twenty (120) days",
            [("120 days", "one hundred and twenty (120) days")],
        ),
        ("for three (3) weeks", [("3 weeks", "three (3) weeks")]),
        (
            "automatically renew for successive one (1) year periods unless "
            "either party gives notice at least ninety (90) days prior",
            [("1 year", "one (1) year"), ("90 days", "ninety (90) days")],
        ),
        # Words and figure disagree: nothing is read from that span.
        ("within ninety (60) days", []),
        ("within eighty (180) days", []),
        # No whole period here.
        ("during the first year", []),
        ("within 1.5 years", []),
        ("pursuant to Section 30 of the Agreement", []),
        ("on a day-to-day basis each year", []),
    ],
)
def test_find_durations(text, expected):
    assert spans(text, find_durations(text)) == expected


def test_duration_unit_and_amount():
    (found,) = find_durations("ten (10) working days")
    assert (found.amount, found.unit, found.key) == (
        10,
        "business_day",
        (10, "business_day"),
    )
    assert find_durations("one (1) day")[0].display == "1 day"


# --- Money ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("liability shall not exceed $5,000,000.", [("USD 5,000,000", "$5,000,000")]),
        ("a fee of US$ 1.5 million", [("USD 1,500,000", "US$ 1.5 million")]),
        ("USD 250,000 per year", [("USD 250,000", "USD 250,000")]),
        ("EUR 1 000 000 in aggregate", [("EUR 1,000,000", "EUR 1 000 000")]),
        (
            "in the amount of five hundred thousand dollars ($500,000)",
            [("USD 500,000", "five hundred thousand dollars ($500,000)")],
        ),
        ("a deposit of £10,000", [("GBP 10,000", "£10,000")]),
        (
            "shall pay Conformis a total of two million U.S. dollars ($2,000,000); and",
            [("USD 2,000,000", "two million U.S. dollars ($2,000,000)")],
        ),
        (
            "up to a maximum of U.S.$1,000,000 (one million U.S. dollars).",
            [("USD 1,000,000", "U.S.$1,000,000 (one million U.S. dollars)")],
        ),
        (
            "three hundred thousand U.S. dollars (U.S. $300,000.00) for the year",
            [
                (
                    "USD 300,000",
                    "three hundred thousand U.S. dollars (U.S. $300,000.00)",
                )
            ],
        ),
        ("a rate of $10.33 per month", [("USD 10.33", "$10.33")]),
        ("the sum of $100,000.50", [("USD 100,000.50", "$100,000.50")]),
        ("ten (10) Canadian dollars", [("CAD 10", "ten (10) Canadian dollars")]),
        ("1.000.000,00 EUR", [("EUR 1,000,000", "1.000.000,00 EUR")]),
        ("500,000 pounds sterling", [("GBP 500,000", "500,000 pounds sterling")]),
        ("CHF 2 million", [("CHF 2,000,000", "CHF 2 million")]),
        (
            "$150,000 per annum and $2000 per Gigabyte",
            [("USD 150,000", "$150,000"), ("USD 2,000", "$2000")],
        ),
        # The words and the figure disagree: nothing.
        ("five hundred dollars ($500,000)", []),
        # Not money: a count, a percentage, a lowercase code that is no code.
        ("within thirty (30) days", []),
        ("a royalty of 5% of Net Sales", []),
        ("500 zar", []),
    ],
)
def test_find_money(text, expected):
    assert spans(text, find_money(text)) == expected


# --- Dates -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("effective as of January 1, 2020", [("2020-01-01", "January 1, 2020")]),
        ("dated 1 January 2020", [("2020-01-01", "1 January 2020")]),
        (
            "made this the 15th day of March, 2019",
            [("2019-03-15", "15th day of March, 2019")],
        ),
        (
            "executed on this twenty-first day of June, 2018",
            [("2018-06-21", "twenty-first day of June, 2018")],
        ),
        ("Date: 03/27/2002", [("2002-03-27", "03/27/2002")]),
        ("as of 2019-11-01", [("2019-11-01", "2019-11-01")]),
        ("until Dec. 31, 2021", [("2021-12-31", "Dec. 31, 2021")]),
        (
            "entered into on October 1, 2019 and made effective as of November 1, 2019",
            [("2019-10-01", "October 1, 2019"), ("2019-11-01", "November 1, 2019")],
        ),
        # Unambiguous first: 11/1/2019 could be 1 November or 11 January.
        (
            "Signed 11/1/2019; received 4/18/2017",
            [("2017-04-18", "4/18/2017"), ("2019-11-01", "11/1/2019")],
        ),
        ("27.03.2002", [("2002-03-27", "27.03.2002")]),
        # No calendar date: no day, no such day, a section number.
        ("in March 2019", []),
        ("on February 30, 2020", []),
        ("under Section 5.1.10", []),
    ],
)
def test_find_dates(text, expected):
    assert spans(text, find_dates(text)) == expected


def test_an_ambiguous_numeric_date_says_so_and_reads_both_ways():
    (us,) = find_dates("11/1/2019")
    assert us.ambiguous
    assert us.value == dt.date(2019, 11, 1)
    assert us.readings == {dt.date(2019, 11, 1), dt.date(2019, 1, 11)}
    (uk,) = find_dates("11/1/2019", day_first=True)
    assert uk.value == dt.date(2019, 1, 11)
    (plain,) = find_dates("4/18/2017")
    assert not plain.ambiguous
    assert plain.readings == {dt.date(2017, 4, 18)}


# --- Jurisdictions -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "governed by the laws of the State of New York",
            [("New York", "State of New York", GOVERNING_LAW)],
        ),
        ("governed by the laws of Delaware", [("Delaware", "Delaware", GOVERNING_LAW)]),
        (
            "construed in accordance with the laws of England and Wales",
            [("England and Wales", "England and Wales", GOVERNING_LAW)],
        ),
        (
            "construed under the laws of the Commonwealth of Virginia without regard",
            [("Virginia", "Commonwealth of Virginia", GOVERNING_LAW)],
        ),
        (
            "construed in accordance with the laws of the Province of Ontario, Canada.",
            [
                ("Ontario", "Province of Ontario", GOVERNING_LAW),
                ("Canada", "Canada", GOVERNING_LAW),
            ],
        ),
        (
            "construed in accordance with the laws of New York State (without regard",
            [("New York", "New York State", GOVERNING_LAW)],
        ),
        (
            "THE LAW OF THE STATE OF NEW YORK",
            [("New York", "STATE OF NEW YORK", "law")],
        ),
        (
            "the Commonwealth of Massachusetts",
            [("Massachusetts", "Commonwealth of Massachusetts", MENTION)],
        ),
        (
            "will be governed by and construed in accordance with the Laws of the Netherlands",
            [("Netherlands", "Netherlands", GOVERNING_LAW)],
        ),
        ("offices in Tel Aviv, Israel", [("Israel", "Israel", MENTION)]),
        (
            "12.6 The laws of California shall govern the construction of the Agreement.",
            [("California", "California", GOVERNING_LAW)],
        ),
        ("Delaware law governs.", [("Delaware", "Delaware", GOVERNING_LAW)]),
        (
            "shall be construed in accordance with English law.",
            [("England and Wales", "English law", GOVERNING_LAW)],
        ),
        # An adjective names a place only before "law".
        ("payable in Canadian dollars to a German bank", []),
        (
            "the People’s Republic of China",
            [("China", "People’s Republic of China", MENTION)],
        ),
        # Lowercase words that are also places are prose, not places.
        ("in georgia and turkey", []),
    ],
)
def test_find_jurisdictions(text, expected):
    found = find_jurisdictions(text)
    assert [(j.name, text[j.start : j.end], j.role) for j in found] == expected


@pytest.mark.parametrize(
    "text",
    [
        # "Avenue" holds no venue, nor "Applicable Laws" a choice of law.
        "a principal business address at 100 Park Avenue, New York",
        "violate any Applicable Laws, regulations or decrees of any authority of the United States",
    ],
)
def test_cues_are_whole_words(text):
    assert [j.role for j in find_jurisdictions(text)] == [MENTION]


def test_the_governing_law_comes_before_other_places():
    text = (
        "ABC Corp., a company organized and existing under the laws of Singapore, "
        "and XYZ Inc., a Delaware corporation. This Agreement shall be governed by "
        "the laws of the State of California, and the parties submit to the "
        "exclusive jurisdiction of the courts located in New York."
    )
    found = find_jurisdictions(text)
    assert [(j.name, j.role) for j in found] == [
        ("California", GOVERNING_LAW),
        ("New York", FORUM),
        ("Singapore", MENTION),
        ("Delaware", MENTION),
    ]


# --- Any kind, and read_value ----------------------------------------------------------


def test_find_values_dispatches_and_refuses_unknown_kinds():
    assert find_values("within 30 days", DURATION) == find_durations("within 30 days")
    assert find_values("Is there a cap?", YES_NO) == []
    with pytest.raises(ValueError, match="unknown value kind"):
        find_values("text", "colour")
    with pytest.raises(ValueError, match="unknown value kind"):
        value_supported("90 days", "ninety (90) days", kind="colour")


@pytest.mark.parametrize(
    ("display", "expected"),
    [
        ("90 days", Duration(90, "day", 0, 7)),
        ("USD 5,000,000", Money("USD", Decimal(5_000_000), 0, 13)),
        ("2020-01-01", DateValue(dt.date(2020, 1, 1), 0, 10)),
        ("Yes", None),
    ],
)
def test_read_value(display, expected):
    assert read_value(display) == expected


def test_read_value_of_a_place():
    assert read_value("New York").name == "New York"


# --- value_supported -------------------------------------------------------------------

QUOTE = (
    "Either party may terminate this Agreement upon ninety (90) days prior "
    "written notice. In no event shall liability exceed Five Hundred Thousand "
    "Dollars (US$500,000). This Agreement is dated as of January 1, 2020 and "
    "shall be governed by the laws of the State of New York."
)


@pytest.mark.parametrize(
    ("value", "supported"),
    [
        ("90 days", True),
        ("ninety days", True),
        ("Ninety (90) days", True),
        ("91 days", False),
        ("90 business days", False),
        ("3 months", False),  # the same time, not the same words
        ("USD 500,000", True),
        ("$500,000", True),
        ("five hundred thousand dollars", True),
        ("USD 500,001", False),
        ("EUR 500,000", False),
        ("2020-01-01", True),
        ("January 1, 2020", True),
        ("January 2, 2020", False),
        ("New York", True),
        ("the State of New York", True),
        ("New York law", True),
        ("Delaware", False),
        ("Yes", True),
        ("No.", True),
        ("90", True),  # no unit: compared as the guard compares numbers
        ("30", False),
        ("90 days and 5%", False),  # the percentage is not in the quote
        ("written notice", True),
        ("oral notice", False),
        ("", False),
    ],
)
def test_value_supported(value, supported):
    assert value_supported(value, QUOTE) is supported


def test_typed_values_are_supported_by_their_own_quote_only():
    duration = find_durations("a 90-day period")[0]
    assert value_supported(duration, QUOTE)
    assert not value_supported(find_durations("60 days")[0], QUOTE)
    assert value_supported(find_dates("1/1/2020")[0], QUOTE)
    ambiguous = find_dates("1/2/2020")[0]  # 2 January or 1 February
    assert ambiguous.ambiguous
    assert not value_supported(ambiguous, QUOTE)


def test_a_quote_that_disagrees_with_itself_supports_no_figure_of_it():
    quote = "within ninety (60) days"
    assert not value_supported("90 days", quote)
    assert not value_supported("60 days", quote)


def test_kind_narrows_what_is_read():
    # Read as money, "90 days" holds no amount: its 90 is compared as a
    # number, and the quote has it.
    assert value_supported("90 days", "within 90 months", kind=MONEY)
    assert not value_supported("90 days", "within 90 months")
    assert value_supported("anything", "quote", kind=YES_NO)


# --- Properties ------------------------------------------------------------------------

ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
TENS = [
    "_",
    "_",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
]


def spell(n: int, *, hyphen: bool = True, and_: bool = False) -> str:
    """English words for 0 <= n < 10**12: "one hundred and eighty"."""
    if n < 20:
        return ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return TENS[tens] + (("-" if hyphen else " ") + ONES[ones] if ones else "")
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand")):
        if n >= size:
            high, rest = divmod(n, size)
            head = f"{spell(high, hyphen=hyphen, and_=and_)} {name}"
            return head + (f" {spell(rest, hyphen=hyphen, and_=and_)}" if rest else "")
    hundreds, rest = divmod(n, 100)
    head = f"{ONES[hundreds]} hundred"
    joint = " and " if and_ else " "
    return head + (joint + spell(rest, hyphen=hyphen, and_=and_) if rest else "")


UNIT_WORDS = {
    "day": ["day", "calendar day", "consecutive day"],
    "business_day": ["business day", "Business Day", "working day"],
    "week": ["week"],
    "month": ["month", "calendar month"],
    "year": ["year", "full year"],
}


@st.composite
def durations(draw):
    amount = draw(st.integers(min_value=1, max_value=999_999))
    unit = draw(st.sampled_from(sorted(UNIT_WORDS)))
    return amount, unit


@st.composite
def written_duration(draw, amount: int, unit: str) -> str:
    word = draw(st.sampled_from(UNIT_WORDS[unit]))
    plural = word if amount == 1 else word + "s"
    words = spell(amount, hyphen=draw(st.booleans()), and_=draw(st.booleans()))
    form = draw(st.sampled_from(["digits", "words", "both", "hyphen", "capitals"]))
    if form == "digits":
        return f"{amount:,} {plural}" if draw(st.booleans()) else f"{amount} {plural}"
    if form == "words":
        return f"{words} {plural}"
    if form == "both":
        return f"{words} ({amount}) {plural}"
    if form == "hyphen":
        return f"{amount}-{word}"
    return f"{words.upper()} ({amount}) {plural.upper()}"


CURRENCIES = {
    "USD": ["$", "US$", "U.S. $", "USD "],
    "EUR": ["€", "EUR "],
    "GBP": ["£", "GBP "],
    "CAD": ["C$", "CAD "],
    "JPY": ["¥", "JPY "],
    "CHF": ["CHF "],
}
NOUNS = {"USD": "dollars", "EUR": "euros", "GBP": "pounds", "CHF": "Swiss francs"}


@st.composite
def amounts(draw):
    currency = draw(st.sampled_from(sorted(CURRENCIES)))
    whole = draw(st.integers(min_value=0, max_value=10**12 - 1))
    cents = draw(st.one_of(st.none(), st.integers(min_value=0, max_value=99)))
    amount = Decimal(whole) if cents is None else Decimal(f"{whole}.{cents:02d}")
    return currency, amount


@st.composite
def written_money(draw, currency: str, amount: Decimal) -> str:
    prefix = draw(st.sampled_from(CURRENCIES[currency]))
    whole = int(amount)
    figure = f"{amount:,f}" if amount != whole else f"{whole:,}"
    forms = ["display", "prefix", "code_after"]
    if amount == whole:
        forms += ["spaces"]
        if currency in NOUNS:
            forms += ["words", "words_and_figure", "figure_and_words"]
        if whole and whole % 100_000 == 0:
            forms += ["millions"]
    form = draw(st.sampled_from(forms))
    if form == "display":
        return f"{currency} {values.format_amount(amount)}"
    if form == "prefix":
        return f"{prefix}{figure}"
    if form == "code_after":
        return f"{figure} {currency}"
    if form == "spaces":
        return f"{currency} {whole:,}".replace(",", " ")
    if form == "millions":
        return f"{prefix}{Decimal(whole) / 10**6:f} million"
    words = f"{spell(whole)} {NOUNS[currency]}"
    if form == "words":
        return words
    if form == "words_and_figure":
        return f"{words} ({prefix.strip()}{figure})"
    return f"{prefix}{figure} ({words})"


@st.composite
def calendar_dates(draw):
    return draw(
        st.dates(min_value=dt.date(1950, 1, 1), max_value=dt.date(2049, 12, 31))
    )


MONTH_NAMES = [
    [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
][0]


def ordinal(n: int) -> str:
    suffix = (
        "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    )
    return f"{n}{suffix}"


@st.composite
def written_date(draw, day: dt.date) -> str:
    month = MONTH_NAMES[day.month - 1]
    return draw(
        st.sampled_from(
            [
                f"{month} {day.day}, {day.year}",
                f"{month} {ordinal(day.day)}, {day.year}",
                f"{day.day} {month} {day.year}",
                f"the {ordinal(day.day)} day of {month}, {day.year}",
                day.isoformat(),
                f"{day.month:02d}/{day.day:02d}/{day.year}",
                f"{day.month}/{day.day}/{day.year}",
            ]
        )
    )


PLACES = [
    ("State of New York", "New York"),
    ("Delaware", "Delaware"),
    ("England and Wales", "England and Wales"),
    ("Province of Ontario", "Ontario"),
    ("Commonwealth of Massachusetts", "Massachusetts"),
    ("Israel", "Israel"),
    ("STATE OF CALIFORNIA", "California"),
    ("English law", "England and Wales"),
]


@st.composite
def written_values(draw):
    """(kind, written text, key of the value it states)."""
    kind = draw(st.sampled_from([DURATION, MONEY, DATE_KIND, JURISDICTION]))
    if kind == DURATION:
        amount, unit = draw(durations())
        return kind, draw(written_duration(amount, unit)), (amount, unit)
    if kind == MONEY:
        currency, amount = draw(amounts())
        return kind, draw(written_money(currency, amount)), (currency, amount)
    if kind == DATE_KIND:
        day = draw(calendar_dates())
        return kind, draw(written_date(day)), day
    written, name = draw(st.sampled_from(PLACES))
    return kind, written, name


def key_of(value) -> object:
    if isinstance(value, DateValue):
        return value.readings
    return value.key


def states(value, key) -> bool:
    if isinstance(value, DateValue):
        return key in value.readings
    return value.key == key


SPECIALS = [
    "\u00a0",
    "\u200b",
    "\r",
    "\n",
    " ",
    "’",
    "–",
    "(",
    ")",
    "$",
    "€",
    ",",
    ".",
]
ANY_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(exclude_categories=("Cs",)),
        st.sampled_from(SPECIALS),
        st.sampled_from(list("0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGNY/-")),
    ),
    max_size=120,
)
FILLER_WORDS = [
    "the",
    "Licensee",
    "shall",
    "deliver",
    "goods",
    "to",
    "Buyer",
    "under",
    "this",
    "Agreement",
    "and",
    "any",
    "notice",
    "in",
    "writing",
    "provided",
    "that",
    "Supplier",
    "agrees",
]
FILLER = st.lists(st.sampled_from(FILLER_WORDS), max_size=12).map(" ".join)
FRAGMENTS = st.one_of(
    written_values().map(lambda v: v[1]),
    ANY_TEXT,
    FILLER,
)


@SETTINGS
@given(st.lists(FRAGMENTS, max_size=6).map(" ".join))
def test_offsets_slice_the_text_to_the_values_own_words(text):
    for kind, finder in FINDERS.items():
        for value in finder(text):
            assert 0 <= value.start < value.end <= len(text)
            words = text[value.start : value.end]
            assert words == words.strip()
            again = [v for v in finder(words) if v.start == 0 and v.end == len(words)]
            assert again, (kind, words)
            assert key_of(again[0]) == key_of(value)


# The separator keeps the value's words apart from what surrounds them.
SEPARATOR = " ;\n"


@SETTINGS
@given(written_values(), ANY_TEXT, ANY_TEXT)
def test_a_value_reads_the_same_whatever_surrounds_it(written, before, after):
    kind, phrase, key = written
    finder = FINDERS[kind]
    alone = finder(phrase)
    assert any(states(v, key) for v in alone), phrase
    text = before + SEPARATOR + phrase + SEPARATOR + after
    shift = len(before) + len(SEPARATOR)
    found = {(key_of(v), v.start, v.end) for v in finder(text)}
    for v in alone:
        assert (key_of(v), v.start + shift, v.end + shift) in found


@SETTINGS
@given(durations(), st.data())
def test_every_written_form_of_a_duration_reads_back(duration, data):
    amount, unit = duration
    written = data.draw(written_duration(amount, unit))
    found = find_durations(written)
    assert [(v.key, v.start, v.end) for v in found] == [
        ((amount, unit), 0, len(written))
    ]
    assert find_durations(found[0].display)[0].key == (amount, unit)


@SETTINGS
@given(amounts(), st.data())
def test_every_written_form_of_an_amount_reads_back(money, data):
    currency, amount = money
    written = data.draw(written_money(currency, amount))
    found = find_money(written)
    assert [(v.key, v.start, v.end) for v in found] == [
        ((currency, amount), 0, len(written))
    ], written
    assert find_money(found[0].display)[0].key == (currency, amount)


@SETTINGS
@given(calendar_dates(), st.data())
def test_every_written_form_of_a_date_reads_back(day, data):
    written = data.draw(written_date(day))
    (found,) = find_dates(written)
    assert day in found.readings
    # "the 1st day of May, 2020" is the date's words without "the".
    start = len("the ") if written.startswith("the ") else 0
    assert (found.start, found.end) == (start, len(written))


def _changed(kind: str, key, data) -> str:
    """The display of another value of the same kind, one number changed."""
    if kind == DURATION:
        amount, unit = key
        other = data.draw(
            st.integers(min_value=1, max_value=999_999).filter(lambda n: n != amount)
        )
        return Duration(other, unit, 0, 0).display
    if kind == MONEY:
        currency, amount = key
        other = data.draw(
            st.decimals(min_value=0, max_value=10**12, places=2).filter(
                lambda d: d != amount
            )
        )
        return Money(currency, other, 0, 0).display
    day = key
    part = data.draw(st.sampled_from(["year", "month", "day"]))
    if part == "year":
        changes = [{"year": day.year - 1}, {"year": day.year + 1}]
    elif part == "month":
        changes = [{"month": m} for m in range(1, 13) if m != day.month]
    else:
        changes = [{"day": d} for d in (day.day - 1, day.day + 1)]
    candidates = []
    for change in changes:
        try:
            candidates.append(day.replace(**change))
        except ValueError:
            continue  # 29 February in another year, 31 April
    return data.draw(st.sampled_from(candidates)).isoformat()


@SETTINGS
@given(written_values(), FILLER, FILLER, st.data())
def test_a_value_with_a_number_changed_is_never_supported(written, before, after, data):
    kind, phrase, key = written
    if kind == JURISDICTION:
        return
    quote = f"{before} {phrase} {after}"
    (value,) = [v for v in find_values(phrase, kind) if states(v, key)][:1]
    assert value_supported(value, quote)
    assert value_supported(value.display, quote)
    other_display = _changed(kind, key, data)
    assert not value_supported(other_display, quote), (other_display, quote)
    typed = read_value(other_display, kind)
    assert typed is not None and not value_supported(typed, quote)


@SETTINGS
@given(ANY_TEXT, ANY_TEXT)
def test_no_reader_raises_on_any_text(text, quote):
    for finder in FINDERS.values():
        finder(text)
    find_dates(text, day_first=True)
    value_kind(text)
    read_value(text)
    value_supported(text, quote)
    for kind in values.KINDS:
        value_supported(text, quote, kind=kind)


# --- Numbers, parties and options (tabular columns, issue 25) ----------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("order at least ten (10) units", [("10", "ten (10)")]),
        ("a minimum of 1,500 pallets", [("1,500", "1,500")]),
        ("a discount of 15% on list", [("15%", "15%")]),
        ("twenty percent (20%) of net sales", [("20%", "twenty percent (20%)")]),
        ("2.5 units a month", [("2.5", "2.5")]),
        # Words and figure that disagree: nothing.
        ("twenty percent (25%) of net sales", []),
        # Dates, money and references are not quantities.
        ("as set out in Section 4.2 on June 1, 2020", []),
        ("a fee of $5,000 per month", []),
        # Counting words alone are words ("one party"), unless a percentage follows.
        ("one party may terminate", []),
        # A heading's number is no quantity; a sentence's last figure is.
        ("2. Term. It runs\n(3) until then", []),
        ("The minimum order is 12.", [("12", "12")]),
        ("fifty percent of the units", [("50%", "fifty percent")]),
    ],
)
def test_find_numbers(text, expected):
    assert spans(text, values.find_numbers(text)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'made between Acme Tools Ltd ("Supplier") and Beta Retail plc ("Buyer").',
            [("Acme Tools Ltd", "Supplier"), ("Beta Retail plc", "Buyer")],
        ),
        (
            "TELCOSTAR PTE, LTD. and Ability Computer & Software Industries Ltd",
            [
                ("TELCOSTAR PTE, LTD.", ""),
                ("Ability Computer & Software Industries Ltd", ""),
            ],
        ),
        (
            "BETWEEN PHILIPS MEDICAL SYSTEMS NEDERLAND B.V. AND Go Call, Inc.",
            [("PHILIPS MEDICAL SYSTEMS NEDERLAND B.V.", ""), ("Go Call, Inc.", "")],
        ),
        (
            'Morgan Stanley Investment Management Inc. (the "Licensor")',
            [("Morgan Stanley Investment Management Inc.", "Licensor")],
        ),
        # A legal form in lower case is a description, not a name.
        ("a Delaware corporation with offices in Texas", []),
    ],
)
def test_find_parties(text, expected):
    found = values.find_parties(text)
    assert [(p.name, p.role) for p in found] == expected
    assert all(" ".join(text[p.start : p.end].split()) == p.name for p in found)


def test_a_party_named_twice_is_listed_once():
    text = "Acme Tools Ltd shall deliver. ACME TOOLS LTD shall invoice."
    assert [p.name for p in values.find_parties(text)] == ["Acme Tools Ltd"]


def test_find_options_reads_a_columns_own_words():
    text = "Termination is MUTUAL: either party may end it."
    found = values.find_options(text, ["Mutual", "Unilateral", "None"])
    assert [(o.name, text[o.start : o.end]) for o in found] == [("Mutual", "MUTUAL")]
    assert values.find_options("Immutual", ["Mutual"]) == []


def test_number_and_party_values_are_checked_against_the_quote():
    assert value_supported("10 units", "order at least ten (10) units", kind="number")
    assert not value_supported(
        "12 units", "order at least ten (10) units", kind="number"
    )
    assert value_supported(
        "Acme Tools Ltd", 'between Acme Tools Ltd ("Supplier")', kind="party"
    )
    assert not value_supported(
        "Gamma Ltd", 'between Acme Tools Ltd ("Supplier")', kind="party"
    )


NUMBER_FORMS = st.sampled_from(["{n}", "{w} ({n})", "{n}%", "{w} percent ({n}%)"])


@SETTINGS
@given(st.integers(min_value=1, max_value=999), NUMBER_FORMS, FILLER, FILLER)
def test_every_written_form_of_a_number_reads_back_with_its_offsets(n, form, a, b):
    from citations.cascade.numerals import CARDINALS

    words = {v: k for k, v in CARDINALS.items()}
    if "{w}" in form and n not in words:
        return
    written = form.format(n=n, w=words.get(n, ""))
    text = f"{a} {written} {b}"
    found = [v for v in values.find_numbers(text) if v.value == n]
    assert found, text
    assert text[found[0].start : found[0].end] == written


@pytest.mark.parametrize(
    ("text", "currency"),
    [
        ("the fees $12,500 are due", "USD"),
        ("goods $5", "USD"),
        ("bonus $3", "USD"),
        ("S$ 500", "SGD"),
        ("paid in SG$1,000", "SGD"),
        ("a fee of C$ 9", "CAD"),
        ("HK$ 20", "HKD"),
    ],
)
def test_a_lettered_dollar_sign_starts_a_word(text, currency):
    """The 's' that ends 'fees' or 'goods' is no Singapore dollar."""
    (found,) = find_values(text, MONEY)
    assert found.currency == currency
