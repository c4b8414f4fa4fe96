"""citations/cascade/scope.py: how far a negation reaches, counted in the
words between it and the quote that count (asides, adverbs, a subject the
negation heads do not)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citations.cascade.scope import (
    heads_a_noun,
    is_modal,
    opening_aside_end,
    reach,
    stands_before_verb,
)

_WORD = re.compile(r"[\w'\u2019]+")


def _words(text: str, lo: int, hi: int) -> list[tuple[str, int]]:
    # As context._words gives them: (word, offset in text).
    return [(m.group(), m.start()) for m in _WORD.finditer(text, lo, hi)]


def _reach(text: str, negation: str, span: str) -> int | None:
    at, start = text.index(negation), text.index(span)
    return reach(
        text,
        _words(text, 0, at),
        (negation, at),
        _words(text, at + len(negation), start),
        start,
    )


@pytest.mark.parametrize(
    ("text", "negation", "span", "counted"),
    [
        ("The Supplier shall not disclose the data.", "not", "disclose", 0),
        # Adverbs stand before the verb the negation governs.
        (
            "The Supplier shall not knowingly or intentionally disclose the data.",
            "not",
            "disclose",
            0,
        ),
        # Asides set off by commas right after the verb.
        (
            "Neither party shall, without the consent of the other party, assign "
            "this Agreement.",
            "Neither",
            "assign",
            0,
        ),
        # The subject a negation heads, up to its verb.
        (
            "Nothing in this Agreement shall require the Buyer to pay.",
            "Nothing",
            "require",
            0,
        ),
        # Inverted: the subject follows the verb.
        (
            "In no event shall the Supplier be liable for lost profits.",
            "no",
            "be liable",
            0,
        ),
        # The object's words count.
        (
            "The Supplier shall not sell the data to the Buyer or its affiliates.",
            "not",
            "its affiliates",
            7,
        ),
    ],
)
def test_the_words_between_a_negation_and_a_span_that_count(
    text, negation, span, counted
):
    assert _reach(text, negation, span) == counted


def test_a_modal_after_a_not_ends_its_clause():
    # "Amounts not so disputed | shall be deemed accepted": the "not" is the
    # subject's, and the quote after "shall" is out of its reach.
    assert (
        _reach("Amounts not so disputed shall be deemed accepted.", "not", "be deemed")
        is None
    )


ADVERBS = st.sampled_from(["knowingly", "intentionally", "reasonably", "also", "ever"])
NOUNS = st.sampled_from(["Buyer", "Seller", "goods", "records", "data", "notice"])


@settings(max_examples=60, deadline=None)
@given(st.lists(NOUNS, min_size=1, max_size=8), ADVERBS)
def test_a_bracketed_aside_after_a_negation_never_adds_to_its_reach(aside, adverb):
    plain = f"The Supplier shall not {adverb} disclose the data."
    bracketed = (
        f"The Supplier shall not ({' '.join(aside)}) {adverb} disclose the data."
    )
    assert _reach(bracketed, "not", "disclose") == _reach(plain, "not", "disclose")


def test_where_words_go_on_after_an_aside_opening_after_a_negation():
    text = "shall not, without the consent of Licensor, assign this Agreement"
    lo = text.index("not") + 3
    assert opening_aside_end(text, _words(text, lo, len(text)), lo, len(text)) == (
        text.index(" assign")
    )
    plain = "shall not assign this Agreement"
    lo = plain.index("not") + 3
    assert opening_aside_end(plain, _words(plain, lo, len(plain)), lo, len(plain)) == lo


def test_only_asides_and_adverbs_stand_before_a_verb():
    text = "shall not knowingly or intentionally disclose"
    lo, end = text.index("not") + 3, text.index("disclose")
    assert stands_before_verb(text, _words(text, lo, end), lo, end)
    text = "shall not sell the data or disclose"
    lo, end = text.index("not") + 3, text.index("disclose")
    assert not stands_before_verb(text, _words(text, lo, end), lo, end)


@pytest.mark.parametrize("word", ["shall", "sha1l", "may", "will"])
def test_modals_and_auxiliaries_are_read_also_as_ocr_damaged_them(word):
    assert is_modal(word)


@pytest.mark.parametrize("word", ["deliver", "Buyer"])
def test_other_words_are_no_modal(word):
    assert not is_modal(word)


@pytest.mark.parametrize("word", ["No", "Neithcr", "N0", "Nothlng"])
def test_a_negation_that_heads_a_noun_is_read_also_as_ocr_damaged_it(word):
    assert heads_a_noun(word)


@pytest.mark.parametrize("word", ["not", "never", "Buyer"])
def test_other_negations_and_words_head_no_noun(word):
    assert not heads_a_noun(word)
