"""The rule table (citations/cascade/rules.py): every rule refuses its
refused examples by its own id and passes its passed ones, every id the code
uses is a rule and every rule is used, and docs/verification.md is the
table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citations.cascade import (
    context,
    elision,
    entities,
    guards,
    judging,
    rules,
    tolerant,
    verify,
)
from citations.cascade.refusal import Check, first_refusal, refusal, rule_of
from citations.cascade.rules import BY_ID, RULES
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


# Each stage's loop and the name the rule table gives it (Rule.place).
STAGE_TABLES = {
    "verify.INPUT_CHECKS": verify.INPUT_CHECKS,
    "verify.POST_CHECKS": verify.POST_CHECKS,
    "tolerant.FOLDED_CHECKS": tolerant.FOLDED_CHECKS,
    "tolerant.FUZZY_CHECKS": tolerant.FUZZY_CHECKS,
    "elision.PARTS_CHECKS": elision.PARTS_CHECKS,
    "elision.GAP_CHECKS": elision.GAP_CHECKS,
    "elision.OUTER_INSERTION_CHECKS": elision.OUTER_INSERTION_CHECKS,
    "elision.OUTER_MEANING_CHECKS": elision.OUTER_MEANING_CHECKS,
    "elision.INSERTED_GAP_CHECKS": elision.INSERTED_GAP_CHECKS,
    "elision.CHAIN_CHECKS": elision.CHAIN_CHECKS,
    "context.BEFORE_CHECKS": context.BEFORE_CHECKS,
    "context.OPENING_ELISION_CHECKS": context.OPENING_ELISION_CHECKS,
    "context.AFTER_CHECKS": context.AFTER_CHECKS,
    "context.ELIDED_CHECKS": context.ELIDED_CHECKS,
    "tolerant.SNAPPED_CHECKS": tolerant.SNAPPED_CHECKS,
    "guards.MEANING_CHECKS": guards.MEANING_CHECKS,
    "guards.NUMBERS_MISSING_CHECKS": guards.NUMBERS_MISSING_CHECKS,
    "guards.PARAPHRASE_CHECKS": guards.PARAPHRASE_CHECKS,
    "guards.WORDING_RULES": guards.WORDING_RULES,
    "entities.ENTITY_RULES": entities.ENTITY_RULES,
    "entities.WHOLE_SPAN_RULES": entities.WHOLE_SPAN_RULES,
    "judging.JUDGED_SPAN_CHECKS": judging.JUDGED_SPAN_CHECKS,
}


@pytest.mark.parametrize("place", STAGE_TABLES)
def test_every_rule_a_stage_loops_over_is_a_row_that_names_that_loop(place):
    for row in STAGE_TABLES[place]:
        rule_id = getattr(row, "rule", None) or getattr(row, "id", None)
        if rule_id is None:
            continue  # a family's check: it names the rule of its refusal
        assert rule_id in BY_ID, rule_id
        assert place in BY_ID[rule_id].place, (rule_id, BY_ID[rule_id].place)


def _table_rows() -> set[str]:
    return {
        getattr(row, "rule", None) or getattr(row, "id", None)
        for table in STAGE_TABLES.values()
        for row in table
    } - {None}


def test_every_rule_is_a_row_of_a_stage_table_or_says_why_it_is_not():
    in_tables = _table_rows()
    for rule in RULES:
        # Exactly one of the two: a rule no table runs gives its reason, and
        # one a table runs has none to give.
        assert (rule.id in in_tables) != bool(rule.inline), rule.id
    # A family check (Check(None, ...)) decides between rules of its own
    # table: those tables are registered above, so none hides a rule.
    inline = {rule.id for rule in RULES if rule.inline}
    assert inline == {
        "tolerant.no_passage",
        "elision.part_not_found",
        "elision.out_of_reach",
        "attribution.elsewhere",
        "judge.judge",
        "judge.ensemble",
        "judge.no_passage",
    }


def test_a_stage_loop_reports_the_rule_that_stopped_it():
    checks = (
        Check("input.empty", lambda case: None),
        Check("input.too_long", lambda case: f"{case} is too long"),
        Check("input.not_text", lambda case: "never reached"),
    )
    refused = first_refusal(checks, "the quote")
    assert rule_of(refused) == "input.too_long"
    assert first_refusal(checks[:1], "the quote") is None


def test_a_family_check_must_name_the_rule_it_refused_by():
    unnamed = (Check(None, lambda case: "a reason without a rule"),)
    with pytest.raises(ValueError):
        first_refusal(unnamed, "the quote")
    named = (Check(None, lambda case: refusal("negation.after", "cut off")),)
    assert rule_of(first_refusal(named, "the quote")) == "negation.after"


def test_the_rule_table_imports_no_stage_of_the_cascade():
    source = (CASCADE / "rules.py").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import) citations\.cascade", source, re.M)


HOW_TO = DOCS.parent / "how-to-add-a-verification-rule.md"


def test_the_how_to_names_every_stage_table():
    # The how-to lists the stages a new rule can join; a table it does not
    # name is one a reader cannot find.
    text = HOW_TO.read_text(encoding="utf-8")
    for place in STAGE_TABLES:
        table = place.split(".")[1]
        assert place in text or f"`{table}`" in text, place
