"""A real word in a scan where the quote has another: damage, or the
document's own wording? The document's repeated phrases decide
(guards._document_wording, PreparedText.phrase_count)."""

from __future__ import annotations

import pytest

from citations.cascade import verify_quote
from citations.cascade.prepared import prepare
from citations.tests.sources import SCANNED_PREAMBLE


def test_phrase_count_reads_the_spelling_not_the_skeleton():
    # "fails" and "falls" share a skeleton (l/i), so one index key.
    prepared = prepare(
        "If the Buyer fails to pay, the Seller may stop. If the Seller falls "
        "to pay, the Buyer may stop. If the Agent fails to pay, it ends."
    )
    assert prepared.phrase_count("fails", "to", 9) == 2
    assert prepared.phrase_count("falls", "to", 9) == 1
    assert prepared.phrase_count("fails", "pay", 9) == 0


def test_phrase_count_stops_at_enough_and_reads_past_punctuation():
    prepared = prepare("own data, own data; own data. Own, data and own date")
    assert prepared.phrase_count("own", "data", 9) == 4  # "Own, data" too
    assert prepared.phrase_count("own", "data", 2) == 2
    assert prepared.phrase_count("own", "date", 9) == 1
    assert prepared.phrase_count("date", "own", 9) == 0


def test_a_scan_that_writes_the_quotes_phrase_elsewhere_reads_damage():
    # The same glyph, the other way: "own date" is the document's phrase,
    # and the one "own data" reads as damage to it.
    scan = SCANNED_PREAMBLE + (
        "The notice states its own date. The invoice states its own date. "
        "The order form of the Buyer states its own data and its number."
    )
    quote = "The order form of the Buyer states its own date and its number."
    verdict = verify_quote(scan, quote)
    assert verdict.verified, verdict.reason
    assert verdict.source_text.endswith("own data and its number.")


def test_damage_that_makes_a_real_word_once_still_reads_as_damage():
    # "mouth" for "month", at the quoted place only: the scan's phrase
    # "each mouth" is written nowhere else, so it is no evidence against
    # the quote.
    scan = SCANNED_PREAMBLE + (
        "The Buyer pays the fee each mouth in advance, by bank transfer to "
        "the account the Seller names."
    )
    quote = "The Buyer pays the fee each month in advance, by bank transfer"
    verdict = verify_quote(scan, quote)
    assert verdict.verified, verdict.reason
    assert verdict.source_text.startswith("The Buyer pays the fee each mouth")


def test_a_glyph_the_scan_confuses_habitually_is_no_evidence():
    # Every "he" came out "be": "be came" repeats and "he came" is written
    # nowhere, yet the scan's habit, not the document, wrote it.
    scan = (
        "Tbe knigbt rode to tbe towne, and wben be came tbere be found bis "
        "horse lame, wbich grieued bim sore. Tben be came to a smitb, wbo "
        "sbod tbe steed, and be came bome, and tben be came to tbe inne."
    )
    for quote in (
        "and when he came there he found his horse lame",
        "Then he came to a smith, who shod the steed, and he came home",
    ):
        verdict = verify_quote(scan, quote)
        assert verdict.verified, verdict.reason


def test_a_damaged_token_with_no_repeated_rival_phrase_reads_as_damage():
    # The same damage where the document never repeats "calendar month":
    # nothing tells "menth" from damage to the quote's word.
    scan = SCANNED_PREAMBLE + (
        "The Tenant pays the fee for each calendar menth of the Term, and "
        "the month ends on its last day. A month is a month."
    )
    quote = "The Tenant pays the fee for each calendar month of the Term"
    verdict = verify_quote(scan, quote)
    assert verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("body", "quote", "differs", "phrase", "right"),
    [
        pytest.param(
            # "date" is a word of this document too ("Effective Date"), so
            # the vocabulary alone leaves "data" in doubt as damage; but the
            # document writes "own data" three times and "own date" never.
            "The Buyer keeps its own data. The Seller keeps its own data. The "
            "Effective Date is the date of signing. The Supplier is not "
            "responsible for the sufficiency of the Buyer's own data.",
            "The Supplier is not responsible for the sufficiency of the Buyer's "
            "own date.",
            "quote has 'date', source has 'data'",
            "'own data'",
            "The Supplier is not responsible for the sufficiency of the Buyer's "
            "own data.",
            id="real-word",
        ),
        pytest.param(
            # "falls" for "fails": l and i are one glyph to OCR, so only the
            # spelling tells them apart, and the document spells "fails to"
            # twice.
            "If the Buyer fails to pay any sum when due, interest accrues. If "
            "the Agent fails to pay any sum when due, the fee lapses. If the "
            "Seller fails to pay any sum when due, the Buyer may set it off.",
            "If the Seller falls to pay any sum when due, the Buyer may set it off.",
            "quote has 'falls', source has 'fails'",
            "'fails to'",
            None,
            id="look-alike-real-word",
        ),
        pytest.param(
            # "menth" is "month" with one look-alike glyph, "mouth" with two;
            # the document writes "calendar month" twice and "calendar
            # mouth" never.
            "Rent is due in each calendar month. Interest accrues per calendar "
            "month. The Tenant pays the fee for each calendar menth of the Term.",
            "The Tenant pays the fee for each calendar mouth of the Term.",
            "source has 'menth', which reads as 'month'",
            "'calendar month'",
            "The Tenant pays the fee for each calendar month of the Term.",
            id="damaged-token",
        ),
        pytest.param(
            # OCR damaged the word before too ("thind"): the phrases are
            # looked up with the quote's neighbours, so "third party" still
            # counts.
            "No third party may rely on it. Each third party is bound. The "
            "Contractor shall not tell any thind party the terms of this "
            "Agreement.",
            "The Contractor shall not tell any third panty the terms of this "
            "Agreement.",
            "quote has 'panty', source has 'party'",
            "'third party'",
            None,
            id="damaged-neighbour",
        ),
        pytest.param(
            # "losse s" is "losses" split in two; the document writes "all
            # losses" twice elsewhere and "all tosses" never.
            "The Seller bears all losses in transit. The Buyer bears all losses "
            "after delivery. The Employer must indemnify the Employee against "
            "all losse s arising from a breach of this clause.",
            "The Employer must indemnify the Employee against all tosses arising",
            "quote has 'tosses', source has 'losses'",
            "'all losses'",
            "The Employer must indemnify the Employee against all losses arising",
            id="split-word",
        ),
    ],
)
def test_a_phrase_the_scan_repeats_refuses_the_quotes_word(
    body, quote, differs, phrase, right
):
    scan = SCANNED_PREAMBLE + body
    verdict = verify_quote(scan, quote)
    assert not verdict.verified
    assert verdict.rule == "wording.document_phrase", verdict.reason
    assert differs in verdict.reason
    assert phrase in verdict.reason
    if right is not None:
        fixed = verify_quote(scan, right)
        assert fixed.verified, fixed.reason
