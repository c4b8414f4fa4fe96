"""The finding rules: each decides its own examples; nothing meets the
standard without a verified quote that states the value."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playbook import findings
from playbook.findings import FINDING_RULES, CellFacts, PositionFacts, decide


@pytest.mark.parametrize(
    ("rule", "example"),
    [(r, e) for r in FINDING_RULES for e in r.examples],
    ids=lambda x: getattr(x, "name", ""),
)
def test_each_rule_decides_its_examples(rule, example):
    got = decide(example.cell, example.position)
    assert (got.rule, got.kind) == (rule.name, example.kind)


def test_every_rule_has_an_example():
    assert all(r.examples for r in FINDING_RULES)


def test_a_missing_clause_carries_the_if_absent_severity_and_what_was_searched():
    position = PositionFacts(
        "Cap",
        "money",
        rule={"at_least": {"kind": "money", "currency": "USD", "amount": "1"}},
        if_absent="high",
    )
    got = decide(
        CellFacts(
            outcome="not_found",
            searched_terms=("liability", "cap", "cap"),
            searched_pages=(3, 1),
        ),
        position,
    )
    assert (got.kind, got.severity) == ("missing", "high")
    assert "liability, cap" in got.reason and "pages 1, 3" in got.reason
    acceptable = decide(
        CellFacts(outcome="not_found"), replace(position, if_absent="acceptable")
    )
    assert (acceptable.kind, acceptable.severity) == ("missing", "")


def test_a_contract_that_failed_to_ingest_says_so():
    got = decide(
        CellFacts(
            status="failed",
            row_state="not_ready",
            row_error="The document is not ready: encrypted PDF",
        ),
        PositionFacts("Law", severity="high"),
    )
    assert (
        got.kind == "needs_review"
        and "could not be read" in got.reason
        and got.severity == "high"
    )


cells = st.builds(
    CellFacts,
    status=st.sampled_from(["done", "failed"]),
    row_state=st.sampled_from(["ready", "not_ready", "missing"]),
    outcome=st.sampled_from(["answered", "not_found"]),
    typed=st.one_of(
        st.none(),
        st.builds(
            lambda n: {"kind": "duration", "amount": n, "unit": "day"},
            st.integers(0, 400),
        ),
        st.builds(lambda b: {"kind": "yes_no", "value": b}, st.booleans()),
    ),
    quote_verified=st.booleans(),
    support=st.sampled_from(["supported", "unsupported", "unchecked", ""]),
    relevance=st.sampled_from(["answers", "related", "off_topic", ""]),
    offline=st.booleans(),
)
positions = st.builds(
    PositionFacts,
    title=st.just("P"),
    rule=st.sampled_from(
        [
            None,
            {"at_least": {"kind": "duration", "amount": 60, "unit": "day"}},
            {"is": True},
        ]
    ),
    fallback_rule=st.sampled_from(
        [None, {"at_least": {"kind": "duration", "amount": 30, "unit": "day"}}]
    ),
    severity=st.sampled_from(["low", "medium", "high"]),
    if_absent=st.sampled_from(["acceptable", "low", "high"]),
    judged_by_model=st.booleans(),
)


@given(cell=cells, position=positions)
def test_nothing_meets_or_falls_back_without_a_verified_supported_relevant_quote(
    cell, position
):
    got = decide(cell, position)
    assert got.kind in findings.KINDS
    if got.kind in (findings.MEETS, findings.FALLBACK, findings.DEVIATES):
        assert (
            cell.quote_verified
            and cell.support != "unsupported"
            and cell.relevance != "off_topic"
        )
        assert cell.status == "done" and cell.row_state == "ready" and position.rule
    if got.kind == findings.DEVIATES:
        assert got.severity == position.severity
    if got.kind in (findings.MEETS, findings.FALLBACK):
        assert got.severity == ""
