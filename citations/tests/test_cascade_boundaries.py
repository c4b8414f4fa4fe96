"""A verified span never cuts a word or a number (the $1 / $12,000 trap)."""

from __future__ import annotations

import pytest

from citations.cascade import verify_quote
from citations.cascade.boundaries import cut_token, joined_by_ocr

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


# OCR runs words together ("thisAgreement"): a fuzzy match of an OCR'd text may
# end where the two words meet, never inside a real word or a number.
OCR_JOINED = (
    "Either party vvill terminate thisAgreement on notice. There is nothing "
    "to pay. The Buyer cannot assign it. It is invalid. The Seller shallnot pay "
    "within 30days. The fee is $12,000 now. The Seller shall not pay andcontinuca "
    "to work. Signed by Mrcw. Or pay within 15Odays."
)


@pytest.mark.parametrize(
    ("quote_end", "allowed"),
    [
        ("terminate this", True),  # "this|Agreement": no word, two common words
        ("There is no", False),  # "no|thing": "nothing" is a word
        ("The Buyer can", False),  # "can|not"
        ("It is in", False),  # "in|valid"
        ("The Seller shall", False),  # "shall|not": never cut off a negation
        # "30|days": the number stays whole, as it does before "30 days".
        ("within 30", True),
        ("within 3", False),  # "3|0days": numbers are never cut
        ("pay within 15", False),  # "15|Odays": "O" may be a 0 of "150"
        ("The Seller shall not pay and", True),  # "and|continuca": damaged "continues"
        ("Signed by Mr", False),  # "Mr|cw": too short to read the rest as a word
        ("The fee is $12", False),
    ],
)
def test_a_fuzzy_match_may_end_where_ocr_joined_two_words(quote_end, allowed):
    end = OCR_JOINED.index(quote_end) + len(quote_end)
    start = OCR_JOINED.index(quote_end)
    assert joined_by_ocr(OCR_JOINED, start, end) is allowed


def test_ocr_joined_words_verify_and_slice_back():
    verdict = verify_quote(OCR_JOINED, "Either party will terminate this")
    assert verdict.verified, verdict.reason
    assert verdict.match_type == "fuzzy"
    assert OCR_JOINED[verdict.start : verdict.end] == verdict.source_text
    assert verdict.source_text == "Either party vvill terminate this"


def test_exact_and_normalized_matches_never_end_inside_a_joined_word():
    assert not verify_quote("terminate thisAgreement now", "terminate this").verified


def test_an_ocr_join_may_leave_a_word_outside_but_no_negation_before():
    # OCR glued the quote's first or last word to its neighbour.
    text = (
        "Under clause 4 the partyshould pay the fee witliin 30 days of the invoice date, "
        "and the Lessee shall notlfy the Buyermay terminate the order at any time."
    )
    verdict = verify_quote(
        text, "should pay the fee within 30 days of the invoice date"
    )
    assert verdict.verified, verdict.reason
    assert verdict.source_text.startswith("should")
    verdict = verify_quote(text, "and the Lessee shall notify the Buyer")
    assert verdict.verified, verdict.reason
    # A negation glued before the span stays outside no quote.
    text = "Under clause 4 the Buyer notshould pay the fee witliin 30 days of the invoice date."
    assert not verify_quote(
        text, "should pay the fee within 30 days of the invoice date"
    ).verified
