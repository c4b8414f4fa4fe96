"""The words of a refusal never name a cause the evidence does not show: no
OCR damage is blamed in a clean (not OCR'd) source, and a scan is never said
to show no OCR damage. The rule that decided is compared by id."""

from __future__ import annotations

import re

import pytest

from citations.cascade import lexicon, verify_quote
from citations.cascade.prepared import prepare
from citations.cascade.rules import RULES
from citations.tests.rule_examples import check

# A refusal blaming OCR for the difference; and one saying there was none.
_BLAMES_OCR = re.compile(r"OCR (?:could|may|might) have|OCR damage of|OCR made")
_NO_OCR = "shows no OCR damage"

GRANT = "The Licensor grants the Licensee a licence to use the Brand in the Territory."


def _clean(text: object) -> bool:
    return isinstance(text, str) and not lexicon.looks_scanned(prepare(text).vocabulary)


def test_the_other_party_in_a_clean_source_is_not_blamed_on_ocr():
    verdict = verify_quote(GRANT, "The Licensee grants the Licensee a licence to use")
    assert not verdict.verified
    assert verdict.rule == "wording.party_rival"
    assert "OCR" not in verdict.reason


@pytest.mark.parametrize(
    "rule,example",
    [
        pytest.param(rule, example, id=f"{rule.id}-{i}")
        for rule in RULES
        for i, example in enumerate(rule.refused)
        if isinstance(example.text, str) and isinstance(example.quote, str)
    ],
)
def test_no_refusal_names_a_cause_its_source_does_not_show(rule, example):
    reason = check(example).reason
    if _clean(example.text):
        assert not _BLAMES_OCR.search(reason), reason
    else:
        assert _NO_OCR not in reason, reason
