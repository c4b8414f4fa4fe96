"""A verified span never cuts a word or a number (the $1 / $12,000 trap)."""

from __future__ import annotations

import pytest

from citations.cascade import verify_quote
from citations.cascade.boundaries import cut_token

FEE = "The annual fee is $12,000, payable in advance. Units: 1,000 units were shipped."


@pytest.mark.parametrize(
    "quote",
    [
        "The annual fee is $1",
        "The annual fee is $12",
        "The annual fee is $12,0",
        "000 units were shipped",
        "nnual fee is $12,000",
        "The annual fee is $12,000, pay",
    ],
)
def test_a_quote_cut_inside_a_token_fails(quote):
    verdict = verify_quote(FEE, quote)
    assert not verdict.verified, verdict


@pytest.mark.parametrize(
    "quote",
    ["The annual fee is $12,000", "1,000 units were shipped", "payable in advance."],
)
def test_whole_token_quotes_still_verify(quote):
    verdict = verify_quote(FEE, quote)
    assert verdict.verified and verdict.method == "exact_match"


def test_a_later_whole_occurrence_is_used_when_the_first_is_cut():
    text = "Fees of $100 apply. Fees of $1 apply to samples."
    verdict = verify_quote(text, "Fees of $1")
    assert verdict.verified and verdict.start == text.index("Fees of $1 ")


def test_tolerant_matches_obey_the_same_rule():
    verdict = verify_quote("The annual fee is $12,000.", "the annual  fee is $1")
    assert not verdict.verified


def test_cut_token_describes_the_cut():
    assert "12,000" in cut_token(FEE, 0, len("The annual fee is $1"))
    assert cut_token(FEE, 0, len("The annual fee is $12,000")) is None


def test_spaceless_scripts_are_not_word_checked():
    text = "本協議自簽署之日起生效。"
    verdict = verify_quote(text, "協議自簽署")
    assert verdict.verified
