"""Letter case: style for words, meaning for codes, units and labels
(citations/cascade/lettercase.py). Folding lowercases, so without this a
normalized match read "40 mWh" as "40 MWh"."""

from __future__ import annotations

import pytest

from citations.cascade import verify_quote
from citations.cascade.lettercase import case_difference

PADDING = " The parties have signed this Agreement on the date written above."

CODES = [
    (
        "The plant shall deliver 40 MWh of energy to the Buyer each month.",
        "deliver 40 mWh of energy to the Buyer",
    ),
    (
        "as provided in Section 2(a) of this Agreement, the Licensee shall pay.",
        "as provided in Section 2(A) of this Agreement",
    ),
    (
        "securities sold under Rule 144A of the Securities Act are restricted.",
        "securities sold under Rule 144a of the Securities Act",
    ),
    (
        "the storage shall be at least 10 GB per user for the Term.",
        "the storage shall be at least 10 Gb per user",
    ),
    (
        "pursuant to clause (ii) of Section 4, the Buyer may terminate.",
        "pursuant to clause (II) of Section 4",
    ),
    (
        "the terms of Exhibit B apply to every order placed by the Buyer.",
        "the terms of Exhibit b apply to every order",
    ),
    (
        "the fees for Phase II are payable on completion of the work.",
        "the fees for Phase ii are payable on completion",
    ),
    (
        "emissions of CO shall not exceed the limits set out in the permit.",
        "emissions of co shall not exceed the limits",
    ),
    (
        "the licence covers the iPass client on every device of the Licensee.",
        "the licence covers the IPass client on every device",
    ),
    # English words that name something else in capitals
    (
        "The royalties are payable to US within 30 days of each quarter.",
        "payable to us within 30 days",
    ),
    (
        "The Supplier shall provide IT support to the Customer's staff.",
        "shall provide it support",
    ),
]


@pytest.mark.parametrize(("source", "quote"), CODES)
@pytest.mark.parametrize("direction", ["quote differs", "source differs"])
def test_a_code_unit_or_label_in_another_case_fails(source, quote, direction):
    if direction == "source differs":
        # The same pair the other way round: the quote is right about its own
        # words and the source says the other thing.
        source, quote = _swap(source, quote)
    verdict = verify_quote(source + PADDING, quote)
    assert not verdict.verified
    assert verdict.rule == "post.letter_case", verdict.reason


def _swap(source: str, quote: str) -> tuple[str, str]:
    """Rewrite the source with the quote's words, and the quote with the
    source's, keeping the rest of the sentence."""
    start = source.lower().index(quote.lower())
    original = source[start : start + len(quote)]
    return source[:start] + quote + source[start + len(quote) :], original


STYLE = [
    # the first word capitalised, or lowercased to run into a sentence
    ("the Seller shall deliver the Goods to the Buyer.", "The Seller shall deliver"),
    ("The Seller shall deliver the Goods to the Buyer.", "the Seller shall deliver"),
    # defined terms written as ordinary words
    (
        "The Seller shall deliver the Goods to the Buyer.",
        "the seller shall deliver the goods",
    ),
    # a disclaimer set in capitals, quoted in sentence case, short words too
    (
        "THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY OF ANY KIND. NO ORAL ADVICE "
        "SHALL CREATE A WARRANTY.",
        "The software is provided as is, without warranty of any kind",
    ),
    (
        "THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY OF ANY KIND. NO ORAL ADVICE "
        "SHALL CREATE A WARRANTY.",
        "No oral advice shall create a warranty",
    ),
    # a heading in capitals, its label included
    (
        "SECTION 2(A) FEES AND PAYMENT. The Buyer shall pay.",
        "Section 2(a) Fees and Payment",
    ),
    # a quote set in capitals; short English words in capitals
    ("The Licensee may not assign this Agreement.", "MAY NOT ASSIGN"),
    ("THE GOODS SHIPPED TO US REMAIN THE SELLER'S PROPERTY.", "goods shipped to us"),
    ("There is NO warranty of any kind.", "there is no warranty"),
    # a sentence's first word set in capitals, as old books set it
    ("IT was reported about the country.", "It was reported about the country"),
    ("Delivery is due by 5 PM on the Delivery Date.", "Delivery is due by 5 pm"),
    (
        "Emphasis: NOTWITHSTANDING the foregoing, the Buyer may audit.",
        "notwithstanding the foregoing",
    ),
    # a single letter that is no label: an article
    ("A party may terminate on notice.", "a party may terminate"),
]


@pytest.mark.parametrize(("source", "quote"), STYLE)
def test_a_case_difference_of_style_verifies(source, quote):
    verdict = verify_quote(source + PADDING, quote)
    assert verdict.verified, verdict.reason
    assert verdict.match_type == "normalized"
    assert (source + PADDING)[verdict.start : verdict.end] == verdict.source_text
    assert verdict.source_text.lower().split() == quote.lower().split()


def test_a_fuzzy_match_is_held_to_case_too():
    # The source's misprint makes this fuzzy; the unit still counts.
    source = (
        "The plant shall deliver 40 MWh of energy to the Buyer each rnonth." + PADDING
    )
    right = verify_quote(
        source, "The plant shall deliver 40 MWh of energy to the Buyer each month"
    )
    assert right.verified and right.match_type == "fuzzy", right.reason
    verdict = verify_quote(
        source, "The plant shall deliver 40 mWh of energy to the Buyer each month"
    )
    assert not verdict.verified
    assert verdict.rule == "post.letter_case", verdict.reason


def test_case_difference_names_the_word_as_written():
    assert case_difference("Section 2(A) applies", "Section 2(a) applies") == (
        "letter case differs: quote has '2(A)', source has '2(a)'"
    )
    assert case_difference("The Seller", "the Seller") is None
    assert case_difference("40 MWh", "40 MWh") is None


@pytest.mark.parametrize(
    ("source", "quote", "why"),
    [
        (
            "as stated in §§ 4-5 of the Code, payment is due.",
            "as stated in § 4-5 of the Code",
            "added",
        ),
        (
            "as stated in § 4 of the Code, payment is due.",
            "as stated in §§ 4 of the Code",
            "missing",
        ),
        (
            "as stated in ¶ 4 of the Code, payment is due.",
            "as stated in § 4 of the Code",
            "differs",
        ),
    ],
)
def test_section_signs_count(source, quote, why):
    verdict = verify_quote(source + PADDING, quote)
    assert not verdict.verified
    assert verdict.rule == "meaning.section_sign", verdict.reason
    assert f"section sign {why}" in verdict.reason
