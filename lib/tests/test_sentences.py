"""The offline responder's sentences (issue 32 item 4): running headers and
footers are no part of a quote, and no quote starts right after a negating
or conditioning word (the verifier would refuse it as a dropped negation)."""

from __future__ import annotations

import itertools
import re

from hypothesis import given
from hypothesis import strategies as st

from lib.negations import HOLDING_WORDS
from lib.sentences import split_sentences

PAGE_BREAK = (
    "The Distributor shall pay the fees within thirty days. Neither\n"
    "Source: THRIVENT VARIABLE INSURANCE ACCOUNT B, N-6, 7/1/2019\n"
    "party may assign this Agreement without consent. The term is five years.\n"
    "*Confidential treatment requested\n"
    "Each party shall keep the terms secret."
)


def _quotes(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def test_running_headers_and_footers_are_not_quoted():
    quotes = _quotes(PAGE_BREAK)
    assert "The term is five years." in quotes
    assert "Each party shall keep the terms secret." in quotes
    for quote in quotes:
        assert "Source:" not in quote and "Confidential treatment" not in quote


def test_a_sentence_cut_by_a_footer_after_a_negation_is_not_quoted_alone():
    quotes = _quotes(PAGE_BREAK)
    assert not any(q.startswith("party may assign") for q in quotes)


def test_a_blank_line_or_a_bullet_after_unless_does_not_end_the_sentence():
    text = (
        "The Company shall not be liable for any delay unless\n\n"
        "the Distributor gave written notice. No\n"
        "(a) party may terminate early."
    )
    quotes = _quotes(text)
    assert quotes[0] == (
        "The Company shall not be liable for any delay unless\n\n"
        "the Distributor gave written notice."
    )
    assert quotes[1].startswith("No\n(a) party")


def test_a_full_stop_still_ends_a_sentence_that_ends_in_none():
    assert _quotes("He has none. The next sentence.") == [
        "He has none.",
        "The next sentence.",
    ]


_WORDS = st.sampled_from(
    ["the", "party", "shall", "pay", "not", "unless", "No", "neither", "12",
     "Page 3 of 9", "fees.", "notice;", "(a)", "Confidential", "\n", "\n\n"]
)  # fmt: skip


@given(st.lists(_WORDS, max_size=60))
def test_no_quote_starts_right_after_a_holding_word(words):
    text = " ".join(words)
    spans = split_sentences(text)
    for start, end in spans:
        assert text[start:end] == text[start:end].strip() and start < end
        before = re.search(r"(\w+)\W*$", text[:start])
        if before and not re.search(r"[.!?;]\W*$", text[:start]):
            assert before.group(1).lower() not in HOLDING_WORDS, (text, start)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
