"""OCR damage that is not a look-alike glyph: read as the quote's word only
when the damaged token is no word of its own and a spelling corrector would
read it as the quote's word (citations/cascade/lexicon.py)."""

from __future__ import annotations

import pytest

from citations.cascade import verify_quote
from citations.cascade.folding import ocr_skeleton
from citations.cascade.guards import fuzzy_difference
from citations.cascade.lexicon import is_word, looks_scanned, reading
from citations.cascade.prepared import prepare
from citations.tests.sources import SCANNED_PREAMBLE

QUOTE = (
    "The Supplier must deliver the Goods within 30 days of the Order Date and "
    "the Buyer may inspect them."
)


@pytest.mark.parametrize(
    "damaged",
    [
        # a letter dropped, a letter replaced: not look-alikes, not words
        "The Supplier must deliver the Goods within 30 dys of the Order Date and "
        "the Buyer may inspect them.",
        "The Suppller must deliver th Goods within 30 days of the Order Date and "
        "the Buyer may inspect thcm.",
        "The Supplier must deliver the Goods withim 30 days of the Order Dafe and "
        "the Buycr may inspoct them.",
    ],
)
def test_damage_that_is_no_word_reads_as_the_quotes_word(damaged):
    # The defined terms recur, as they do in a contract (a capitalised word
    # used once in a clean text is as written: guards._stray_misprint).
    source = damaged + " The Supplier, the Buyer and the Order Date are defined below."
    verdict = verify_quote(source, QUOTE)
    assert verdict.verified, verdict.reason
    assert verdict.match_type == "fuzzy"
    assert source[verdict.start : verdict.end] == verdict.source_text


@pytest.mark.parametrize(
    ("source_word", "quote_word"),
    [
        ("dye", "days"),  # a word of its own
        ("gods", "goods"),
        ("vent", "event"),
        ("from", "form"),
    ],
)
def test_a_real_word_never_reads_as_another(source_word, quote_word):
    source = f"The Supplier must deliver the {source_word} within the period agreed."
    quote = f"The Supplier must deliver the {quote_word} within the period agreed."
    assert fuzzy_difference(source.lower(), quote.lower()) is not None
    assert not verify_quote(source, quote).verified


@pytest.mark.parametrize(
    ("damaged", "quote"),
    [
        # "o" reads as "of", "av" as "as": an illegible negation or modal verb
        # never verifies one
        (
            "o waiver of any breach shall be effective",
            "No waiver of any breach shall be effective",
        ),
        (
            "The Supplier av appoint an officer to supervise",
            "The Supplier may appoint an officer to supervise",
        ),
        # "ot" reads as "of" (or "it", "at", "or"), not as "not"
        (
            "the Supplier shall ot be liable for delay",
            "the Supplier shall not be liable for delay",
        ),
    ],
)
def test_an_illegible_guard_word_is_not_granted(damaged, quote):
    verdict = verify_quote(damaged, quote)
    assert not verdict.verified, verdict.source_text


def test_parties_never_read_as_their_counterparts():
    # "Licensor" is not in the dictionary, and r->e is one edit; the party
    # still differs.
    source = "The Licensor shall indemnify the Licensee against all claims arising."
    for quote in (
        "The Licensee shall indemnify the Licensee against all claims arising.",
        "The Licensor shall indemnify the Licensor against all claims arising.",
    ):
        assert not verify_quote(source, quote).verified
    assert not verify_quote(
        "the Mortgagor shall insure the premises in full",
        "the Mortgagee shall insure the premises in full",
    ).verified


def test_the_documents_own_words_are_words():
    # "Zentrix" is in no dictionary, but a document naming it twice makes it
    # a word: "Zentrax" there is another name, not damage.
    vocabulary = {ocr_skeleton("zentrix"): 5, ocr_skeleton("zentrax"): 3}
    assert not is_word(ocr_skeleton("zentrax"))
    assert is_word(ocr_skeleton("zentrax"), vocabulary)
    source = (
        "Zentrix Ltd and Zentrax Ltd agree that Zentrax shall supply the parts. "
        "Zentrix shall pay for the parts. Zentrix shall audit the records."
    )
    verdict = verify_quote(source, "agree that Zentrix shall supply the parts")
    assert not verdict.verified


def test_damage_repeated_in_the_document_is_still_damage():
    # "th" for "the" comes up again and again in a damaged document; it is
    # still not a word next to the thousand real "the"s.
    vocabulary = {ocr_skeleton("the"): 1000, ocr_skeleton("th"): 12}
    assert not is_word(ocr_skeleton("th"), vocabulary, ocr_skeleton("the"))
    assert reading(ocr_skeleton("th"), ocr_skeleton("the"), vocabulary) is None


def test_an_ambiguous_token_reads_as_the_more_common_word():
    assert reading(ocr_skeleton("dys"), ocr_skeleton("days")) is None
    assert reading(ocr_skeleton("dys"), ocr_skeleton("dye")) is not None


CLEAN = (
    "The Licensee acknowledges that the Licensor is not responsible for the "
    "sufficiency of the Licensee's own data. All notices must be delivered by "
    "hand, by courier or by e-mail to the registered office of the Licensor."
)


@pytest.mark.parametrize(
    ("source_word", "quote_word"),
    [("data", "date"), ("hand", "hard"), ("notices", "novices")],
)
def test_in_a_clean_text_a_look_alike_real_word_is_another_word(
    source_word, quote_word
):
    quote = CLEAN.replace(source_word, quote_word, 1)
    verdict = verify_quote(CLEAN, quote)
    assert not verdict.verified, verdict.source_text
    assert verdict.rule == "wording.real_word_swap"


def test_in_a_scanned_text_look_alike_real_words_are_read_as_damage():
    # Scans turn "he" into "be" and "his" into "bis" all the time; a text full
    # of one-off non-words is a scan, and there the look-alike reading stands.
    scan = (
        "Tbe knigbt rode to tbe towne, and wben be came tbere be found bis "
        "horse lame, wbich grieued bim sore, for be loued tbe beast well. "
        "Tben be sougbt a smitb, wbo sbod tbe steed and cbarged bim nougbt."
    )
    quote = "when he came there he found his horse lame"
    verdict = verify_quote(scan, quote)
    assert verdict.verified, verdict.reason
    assert scan[verdict.start : verdict.end] == verdict.source_text


def test_in_a_scan_a_word_the_document_uses_again_is_its_own_word():
    # "month" recurs and "mouth" never occurs: the scan's "month" is no
    # misreading of the quote's "mouth", though one glyph tells them apart.
    scan = (
        SCANNED_PREAMBLE
        + "The fee is due each month. Payment is made within one month of the "
        "invoice, and interest accrues from the end of that month."
    )
    quote = "Payment is made within one mouth of the invoice"
    verdict = verify_quote(scan, quote)
    assert not verdict.verified
    assert verdict.rule == "wording.real_word_swap"
    # A scan shows OCR damage: the reason must not say it shows none.
    assert verdict.rule == "wording.real_word_swap", verdict.reason
    assert "shows no OCR damage" not in verdict.reason
    assert verify_quote(
        scan, "Payment is made within one month of the invoice"
    ).verified


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Payment is due within ten days after the invoice date in CA.",
            "Payment is due within ten days after the invoice date in GA.",
        ),
        (
            "The Goods shall be delivered FOB Houston in lots of 75 tons each.",
            "The Goods shall be delivered FOB Houston in lots of 75 tens each.",
        ),
    ],
)
def test_a_short_clean_contract_with_amounts_and_legal_terms_reads_as_clean(
    source, quote
):
    # Digit groups are letters in the skeleton ("10,000" is "lo ooo"), and
    # "Licensor" and "Sublicensee" are in no dictionary: three one-off
    # non-words made this a "scan", where look-alike glyphs may be damage.
    preamble = "The Licensee shall pay the Licensor $10,000 for each Sublicensee. "
    prepared = prepare(preamble + source)
    assert not looks_scanned(prepared.vocabulary)
    verdict = verify_quote(preamble + source, preamble + quote)
    assert not verdict.verified, verdict.reason
    assert looks_scanned(prepare(SCANNED_PREAMBLE + source).vocabulary)
