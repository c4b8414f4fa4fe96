"""docs/how-to-add-a-verification-rule.md, walked: a made-up rule is one
check in its stage's table and one row of the rule table, and from then on
the cascade refuses by it and names it, the reviewer's pages name it from
the row, and the generated docs list it."""

from __future__ import annotations

import pytest

from citations.cascade import rules, verify
from citations.cascade.refusal import Check
from citations.cascade.rules import Example, Rule
from citations.refusing_rules import rule_choices, rule_shown
from citations.tests.rule_examples import check

TEXT = "The Buyer shall pay the   fee (DRAFT) within 30 days of the invoice."
ROW = Rule(
    "post.draft_marker",
    "Quotes a draft marker",
    "post-check",
    "verify.POST_CHECKS",
    "A quote that takes a draft marker for the document's words.",
    (Example(TEXT, "The Buyer shall pay the fee (DRAFT) within 30 days"),),
    (Example(TEXT, "within 30 days of the invoice"),),
)


def _draft_marker(p: verify.Placed) -> str | None:
    span = p.text[p.found.start : p.found.end]
    return "the passage holds a draft marker" if "(DRAFT)" in span else None


@pytest.fixture
def added(monkeypatch):
    # Step 2: the check, in its stage's table, where it should decide.
    monkeypatch.setattr(
        verify,
        "POST_CHECKS",
        (*verify.POST_CHECKS, Check(ROW.id, _draft_marker)),
    )
    # Step 3: its row in the rule table.
    monkeypatch.setattr(rules, "RULES", (*rules.RULES, ROW))
    monkeypatch.setitem(rules.BY_ID, ROW.id, ROW)
    return ROW


def test_the_new_rule_refuses_its_examples_by_its_id_and_passes_the_others(added):
    for example in added.refused:
        verdict = check(example)
        assert not verdict.verified
        assert verdict.rule == added.id
        assert added.id in [stage.get("rule") for stage in verdict.stages]
    for example in added.passed:
        assert check(example).verified


def test_without_the_check_the_quote_verifies():
    assert check(ROW.refused[0]).verified


def test_reviewers_read_its_name_and_description_from_the_row(added):
    shown = rule_shown(added.id)
    assert (shown.name, shown.refuses) == (added.name, added.refuses)
    assert added.id in dict(rule_choices())


def test_the_generated_docs_list_it(added):
    # Step 4: docs/verification.md is generated from the table.
    assert f"| `{added.id}` | {added.name} |" in rules.markdown(rules.RULES)
