"""The rule table (citations/cascade/rules.py): every rule refuses its
refused examples by its own id and passes its passed ones, every id the code
uses is a rule and every rule is used, and docs/verification.md is the
table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citations.cascade import rules
from citations.cascade.rules import RULES
from citations.tests.rule_examples import check

CASCADE = Path(rules.__file__).parent
DOCS = CASCADE.parent.parent / "docs" / "verification.md"
_ID = re.compile(
    r"[\"']((?:input|tolerant|meaning|wording|post|negation|elision|insertion"
    r"|attribution|judge|entity)\.[a-z_]+)[\"']"
)


def _cases(kind: str):
    return [
        pytest.param(rule, example, id=f"{rule.id}-{i}")
        for rule in RULES
        for i, example in enumerate(getattr(rule, kind))
    ]


def test_every_rule_has_an_id_of_its_own_and_examples_both_ways():
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    for rule in RULES:
        assert rule.refused and rule.passed, rule.id
        assert rule.refuses and rule.stage and rule.place, rule.id


@pytest.mark.parametrize(("rule", "example"), _cases("refused"))
def test_each_rule_refuses_its_examples_by_its_own_id(rule, example):
    verdict = check(example)
    assert not verdict.verified
    assert verdict.rule == rule.id, verdict.reason
    # The stage that decided records the rule too.
    assert rule.id in [stage.get("rule") for stage in verdict.stages] or rule.id in (
        "input.not_text",
        "input.empty",
        "input.too_long",
    )


@pytest.mark.parametrize(("rule", "example"), _cases("passed"))
def test_each_rule_passes_its_examples(rule, example):
    verdict = check(example)
    assert verdict.verified, verdict.reason
    assert verdict.rule is None


def test_every_id_the_cascade_uses_is_a_rule_and_every_rule_is_used():
    used = set()
    for path in CASCADE.glob("*.py"):
        if path.name != "rules.py":
            used |= set(_ID.findall(path.read_text(encoding="utf-8")))
    assert used == {rule.id for rule in RULES}


def test_docs_are_the_rule_table():
    assert DOCS.read_text(encoding="utf-8") == rules.markdown(), (
        "docs/verification.md is out of date: "
        "python -m citations.cascade.rules > docs/verification.md"
    )
