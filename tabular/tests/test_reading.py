"""The offline cell reader (tabular/reading.py), value support, column types
and the confidence rules: pure, no database."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citations import values
from tabular import column_types
from tabular.confidence import CONFIDENCE_RULES, CellFacts, calibrate
from tabular.reading import Passage, read_cell, value_support

SUPPLY = (
    "SUPPLY AGREEMENT. This Supply Agreement is made on 1 March 2024 between Acme "
    'Tools Ltd ("Supplier") and Beta Retail plc ("Buyer"). The Supplier has its '
    "offices at 10 Main Street, Albany, New York."
)
TERMS = (
    "1. Payment. The Buyer shall pay each invoice within thirty (30) days of "
    "receipt. 2. Term. This Agreement renews automatically for successive one (1) "
    "year terms unless either party gives ninety (90) days' prior written notice "
    "of non-renewal."
)
LAW = (
    "3. Governing Law. This Agreement is governed by the laws of England and "
    "Wales. 4. Liability. The Supplier's aggregate liability shall not exceed GBP "
    "250,000."
)
PASSAGES = [
    Passage(index=i, text=t, rank=i) for i, t in enumerate([SUPPLY, TERMS, LAW])
]


def read(question: str, kind: str, name: str = "", **kw):
    return read_cell(
        question=question, column_type=kind, passages=PASSAGES, name=name, **kw
    )


@pytest.mark.parametrize(
    ("name", "question", "kind", "value", "typed"),
    [
        (
            "Governing law",
            "Which law governs the agreement?",
            "jurisdiction",
            "England and Wales",
            values.Jurisdiction,
        ),
        (
            "Payment",
            "Within how many days must invoices be paid?",
            "duration",
            "30 days",
            values.Duration,
        ),
        (
            "Renewal term",
            "For how long does the agreement renew?",
            "duration",
            "1 year",
            values.Duration,
        ),
        (
            "Non-renewal notice",
            "How much notice of non-renewal is needed?",
            "duration",
            "90 days",
            values.Duration,
        ),
        (
            "Liability cap",
            "What is the cap on liability?",
            "money",
            "GBP 250,000",
            values.Money,
        ),
        (
            "Agreement date",
            "When was the agreement made?",
            "date",
            "2024-03-01",
            values.DateValue,
        ),
    ],
)
def test_a_typed_column_reads_the_value_its_answering_sentence_states(
    name, question, kind, value, typed
):
    got = read(question, kind, name)
    assert got.found and got.value == value, got
    assert isinstance(got.typed, typed)
    passage = PASSAGES[got.rank].text
    assert got.quote in passage  # a slice of the passage: verifies exactly
    assert passage[got.typed.start : got.typed.end] in got.quote


def test_the_governing_law_beats_an_address_in_the_same_document():
    got = read("Which state's law applies?", "jurisdiction", "Governing law")
    assert got.value == "England and Wales" and got.role == values.GOVERNING_LAW


def test_a_party_column_names_the_companies_with_their_roles():
    got = read("Who are the parties?", "party", "Parties")
    assert got.value == 'Acme Tools Ltd ("Supplier"); Beta Retail plc ("Buyer")'
    assert [p.name for p in got.typed] == ["Acme Tools Ltd", "Beta Retail plc"]


def test_a_clause_the_document_lacks_is_not_found_with_what_was_read():
    got = read("Is there a non-compete?", "yes_no", "Non-compete")
    assert not got.found and got.value == "" and got.typed is False
    assert got.quote == "" and got.rule == "not_found"
    assert [p["chunk_index"] for p in got.searched] == [0, 1, 2]
    money = read("What is the minimum annual royalty?", "money", "Royalty")
    assert not money.found and money.typed is None


def test_yes_needs_a_sentence_that_holds_the_whole_question():
    got = read("Does the agreement renew automatically?", "yes_no", "Auto-renewal")
    assert got.found and got.value == "Yes" and got.typed is True
    assert "renews automatically" in got.quote
    # "notice" and "liability" are each somewhere, never in one sentence.
    partial = read("Is notice needed to cap liability?", "yes_no", "Odd question")
    # No "Yes", and no "not found" either: word rules prove neither, so the
    # closest sentence is quoted with no value (issue 35).
    assert partial.rule == "closest_passage"
    assert partial.value == "" and partial.typed is None and partial.quote


def test_not_found_only_when_no_passage_shares_a_word_of_the_question():
    passages = [Passage(0, "The Customer shall pay each invoice within 30 days.")]
    got = read_cell(
        question="Is there a non-compete covenant?",
        column_type="yes_no",
        passages=passages,
    )
    assert not got.found and got.rule == "not_found" and not got.quote


def test_a_heading_is_never_the_answer_when_its_clause_follows():
    got = read("Which law governs the agreement?", "text", "Governing law")
    assert got.quote.startswith("This Agreement is governed")


def test_options_and_numbers_are_read_from_the_columns_own_words():
    passages = [
        Passage(0, "Termination is mutual: either party may end this Agreement."),
        Passage(1, "Late payments bear interest at one percent (1%) per month.", 1),
    ]
    got = read_cell(
        question="Who may terminate the agreement?",
        name="Termination right",
        column_type="options",
        passages=passages,
        options=["Mutual", "Customer only", "None"],
    )
    assert got.found and got.value == "Mutual"
    rate = read_cell(
        question="What interest applies to late payments?",
        name="Late interest",
        column_type="number",
        passages=passages,
    )
    assert rate.found and rate.value == "1%"


PASSAGE_TEXT = st.lists(
    st.sampled_from(
        [
            "The Buyer shall pay within 30 days.",
            "This Agreement is governed by the laws of Delaware.",
            "Payment is due on March 1, 2024.",
            "The fee is USD 5,000.",
            "Notice of termination must be given ninety (90) days in advance.",
            "2. Term.",
            "the rest of a sentence cut by a chunk boundary.",
            "Nothing here is relevant to anything.",
        ]
    ),
    min_size=1,
    max_size=6,
).map(" ".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(PASSAGE_TEXT, min_size=1, max_size=4),
    st.sampled_from(
        [
            ("When is payment due?", "date"),
            ("Which law governs?", "jurisdiction"),
            ("How long is the notice period?", "duration"),
            ("What is the fee?", "money"),
            ("Is there a payment clause?", "yes_no"),
            ("What does the agreement say about payment?", "text"),
        ]
    ),
)
def test_a_reading_quotes_a_slice_of_one_passage_that_holds_its_value(texts, column):
    question, kind = column
    passages = [Passage(i, t, i) for i, t in enumerate(texts)]
    got = read_cell(question=question, column_type=kind, passages=passages)
    if not got.found:
        assert got.quote == "" and got.chunk_index is None
        return
    passage = passages[got.rank]
    assert passage.index == got.chunk_index and got.quote in passage.text
    assert got.quote == got.quote.strip()
    typed = got.typed
    if hasattr(typed, "start"):
        assert passage.text[typed.start : typed.end] in got.quote
        assert value_support(kind, got.value, got.quote).state == "supported"


# --------------------------------------------------------------- value support


@pytest.mark.parametrize(
    ("kind", "value", "quote", "state"),
    [
        ("duration", "30 days", "within thirty (30) days of receipt", "supported"),
        ("duration", "60 days", "within thirty (30) days of receipt", "unsupported"),
        ("duration", "soon", "within thirty (30) days of receipt", "unsupported"),
        ("money", "GBP 250,000", "shall not exceed GBP 250,000", "supported"),
        ("money", "USD 250,000", "shall not exceed GBP 250,000", "unsupported"),
        ("date", "2024-03-01", "made on 1 March 2024", "supported"),
        ("date", "2024-03-02", "made on 1 March 2024", "unsupported"),
        ("jurisdiction", "New York", "governed by the laws of New York", "supported"),
        ("jurisdiction", "Delaware", "governed by the laws of New York", "unsupported"),
        ("number", "1%", "interest at one percent (1%)", "supported"),
        ("party", "Acme Tools Ltd", 'between Acme Tools Ltd ("Supplier")', "supported"),
        ("party", "Gamma plc", 'between Acme Tools Ltd ("Supplier")', "unsupported"),
        ("yes_no", "Yes", "renews automatically", "supported"),
        ("yes_no", "Perhaps", "renews automatically", "unsupported"),
        ("text", "Mutual termination", "either party may terminate", "unchecked"),
        ("text", "Within 45 days", "within thirty (30) days", "unsupported"),
        ("text", "Within 30 days", "within thirty (30) days", "supported"),
        ("duration", "30 days", "", "unsupported"),  # no verified quote
    ],
)
def test_value_support(kind, value, quote, state):
    assert value_support(kind, value, quote).state == state


def test_an_option_must_be_one_of_the_columns():
    options = ["Mutual", "Customer only"]
    assert value_support("options", "mutual", "x", options).state == "supported"
    assert value_support("options", "Supplier only", "x", options).state == (
        "unsupported"
    )


# --------------------------------------------------------------- column types


def test_column_types_are_known_by_their_names_and_aliases():
    assert column_types.column_type("Yes/No").key == "yes_no"
    assert column_types.column_type("amount").key == "money"
    assert column_types.column_type("list").key == "text"  # former list columns
    assert column_types.column_type("colour") is None
    assert {t.key for t in column_types.COLUMN_TYPES} == {
        "text",
        "date",
        "duration",
        "money",
        "number",
        "yes_no",
        "party",
        "jurisdiction",
        "options",
    }


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (values.Duration(90, "day", 0, 0), "90 days"),
        (values.Money("USD", Decimal("5000000"), 0, 0), "USD 5,000,000"),
        (values.DateValue(dt.date(2024, 3, 1), 0, 0), "2024-03-01"),
        (values.Jurisdiction("New York", 0, 0), "New York"),
        (values.Number(Decimal("12.5"), 0, 0, True), "12.5%"),
        (
            [values.Party("Acme Ltd", 0, 0), values.Party("Beta plc", 0, 0)],
            "Acme Ltd; Beta plc",
        ),
        (True, "Yes"),
        (False, "No"),
    ],
)
def test_a_typed_value_is_stored_as_json_and_reads_back(value, shown):
    stored = column_types.typed_json(value)
    assert column_types.typed_display(stored) == shown


def test_typed_values_sort_as_quantities_and_empty_cells_last():
    def key(typed, shown=""):
        return column_types.sort_key(typed, shown)

    week, month = (
        column_types.typed_json(values.Duration(2, "week", 0, 0)),
        column_types.typed_json(values.Duration(1, "month", 0, 0)),
    )
    year = column_types.typed_json(values.Duration(1, "year", 0, 0))
    assert sorted([key(year), key(None), key(week), key(month)]) == [
        key(week),
        key(month),
        key(year),
        key(None),
    ]
    assert key(None, "b") < key(None, "")


def test_spreadsheet_values_are_numbers_and_dates():
    number, fmt = column_types.xlsx_value(
        column_types.typed_json(values.Money("USD", Decimal("5000000"), 0, 0))
    )
    assert number == 5_000_000 and "USD" in fmt
    day, fmt = column_types.xlsx_value({"kind": "date", "value": "2024-03-01"})
    assert day == dt.date(2024, 3, 1) and fmt == "yyyy-mm-dd"
    days, fmt = column_types.xlsx_value(
        {"kind": "duration", "amount": 90, "unit": "day"}
    )
    assert days == 90 and fmt == '0 "days"'
    assert column_types.xlsx_value({"kind": "jurisdiction", "name": "Ohio"}) == (
        None,
        None,
    )


# --------------------------------------------------------------- confidence


@pytest.mark.parametrize(
    ("rule", "facts"),
    [(r, e) for r in CONFIDENCE_RULES for e in r.examples],
    ids=lambda x: getattr(x, "name", ""),
)
def test_each_confidence_rule_decides_its_examples(rule, facts):
    assert calibrate(facts) == (rule.band, rule.name)


def test_every_confidence_rule_has_examples_and_a_unique_name():
    names = [r.name for r in CONFIDENCE_RULES]
    assert len(names) == len(set(names))
    assert all(r.examples for r in CONFIDENCE_RULES)


def test_nothing_unchecked_is_ever_high():
    for verified in (True, False):
        for support in ("supported", "unsupported", "unchecked", ""):
            for relevance in ("answers", "related", "off_topic", ""):
                facts = CellFacts(
                    "model",
                    True,
                    values.DURATION,
                    verified=verified,
                    method="exact_match" if verified else "failed",
                    support=support,
                    relevance=relevance,
                    model_confidence="high",
                )
                band, _ = calibrate(facts)
                if band == "high":
                    assert verified and support == "supported"
                    assert relevance == "answers"


def test_the_docs_name_every_column_type_and_confidence_rule_with_its_band():
    from pathlib import Path

    from django.conf import settings as django_settings

    docs = (Path(django_settings.BASE_DIR) / "docs" / "tabular.md").read_text()
    for kind in column_types.COLUMN_TYPES:
        assert f"| `{kind.key}` |" in docs, kind.key
    for rule in CONFIDENCE_RULES:
        assert f"| `{rule.name}` | {rule.band} |" in docs, rule.name


def test_a_column_line_names_its_type_and_an_options_columns_options():
    from tabular.services import ReviewError, parse_column

    spec = parse_column(
        "Termination right (options): Who may terminate? [Either party | Customer only]"
    )
    assert (spec.type, spec.question) == ("options", "Who may terminate?")
    assert spec.options == ("Either party", "Customer only")
    assert parse_column("Renewal (duration): How long?").type == "duration"
    assert parse_column("Parties (list): Who?").type == "text"  # former list columns
    with pytest.raises(ReviewError, match="2 to 20 options"):
        parse_column("Pick (options): Which one? [Only one]")
    with pytest.raises(ReviewError, match="Unknown column type"):
        parse_column("A (colour): b?")


def test_a_yes_may_rest_on_one_word_holding_the_whole_question():
    """Chat marks no one-word match "answers"; a yes/no column's "Yes" keeps
    a sentence that holds the whole question, even by one word."""
    passages = [Passage(0, "Neither party may assign this Agreement without consent.")]
    got = read_cell(
        question="Is the agreement assignable?", column_type="yes_no", passages=passages
    )
    assert got.found and got.value == "Yes" and got.rule == "answering_clause"
