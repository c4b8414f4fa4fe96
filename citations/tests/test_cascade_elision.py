"""Elided and altered quotes verify part by part; frankenquotes do not."""

from __future__ import annotations

import pytest

from citations.cascade import verify_quote
from citations.cascade.elision import split_quote

TEXT = (
    "12.1 The Supplier shall, at its own cost and within the agreed period, deliver the "
    "Goods to the Buyer's premises. The Buyer shall inspect the Goods on arrival. "
    "The warranty does not cover damage caused by misuse, accident or neglect."
)


def test_ellipsis_parts_found_in_order_verify_with_the_whole_span():
    for marker in ("...", "…", "[...]", "[…]", ". . ."):
        quote = f"The Supplier shall {marker} deliver the Goods to the Buyer's premises"
        verdict = verify_quote(TEXT, quote)
        assert verdict.verified, (marker, verdict.reason)
        assert verdict.method == "tolerant_match"
        assert verdict.match_type == "normalized"
        assert verdict.source_text.startswith("The Supplier shall, at its own cost")
        assert verdict.source_text.endswith("Buyer's premises")
        assert TEXT[verdict.start : verdict.end] == verdict.source_text
        assert "elided" in verdict.reason


def test_one_letter_bracket_is_a_case_change():
    verdict = verify_quote(
        TEXT, "[t]he warranty does not cover damage caused by misuse"
    )
    assert verdict.verified
    assert verdict.source_text == "The warranty does not cover damage caused by misuse"
    assert "alteration" in verdict.reason


def test_a_bracketed_insertion_is_a_placeholder():
    quote = "[The Supplier] shall, at its own cost and within the agreed period, deliver the Goods"
    verdict = verify_quote(TEXT, quote)
    assert verdict.verified
    assert verdict.source_text.startswith("shall, at its own cost")


def test_parts_out_of_order_fail():
    quote = "The Buyer shall inspect the Goods on arrival ... The Supplier shall, at its own cost"
    assert not verify_quote(TEXT, quote).verified


def test_parts_too_far_apart_fail():
    far = (
        TEXT
        + " filler sentence." * 40
        + " The Buyer may reject defective Goods in writing."
    )
    quote = (
        "The Supplier shall, at its own cost ... The Buyer may reject defective Goods"
    )
    verdict = verify_quote(far, quote)
    assert not verdict.verified
    assert verdict.rule == "elision.out_of_reach"


def test_a_frankenquote_of_short_fragments_fails():
    quote = "The Supplier ... deliver ... the Goods ... on arrival"
    verdict = verify_quote(TEXT, quote)
    assert not verdict.verified


def test_a_floating_negation_fragment_fails():
    quote = "The Supplier shall, at its own cost ... not ... deliver the Goods"
    verdict = verify_quote(TEXT, quote)
    assert not verdict.verified
    assert verdict.rule == "elision.guarded_fragment"


def test_each_part_is_guarded():
    quote = "The Supplier shall, at its own cost ... deliver the Goods to the Seller's premises"
    assert not verify_quote(TEXT, quote).verified


def test_short_fragments_must_be_whole_words():
    # "deliver" occurs only inside "delivery" here.
    text = "The Supplier shall, at its own cost, arrange delivery of the Goods."
    assert not verify_quote(
        text, "The Supplier shall, at its own cost ... deliver"
    ).verified


def test_literal_dots_in_the_document_match_as_written():
    text = 'The report says "Scope 1 emissions declined 10% year over year..." in its summary.'
    verdict = verify_quote(text, "Scope 1 emissions declined 10% year over year...")
    assert verdict.verified and verdict.method == "exact_match"


def test_split_quote_reads_markers():
    parts = split_quote("[T]he Supplier shall [sic] ... deliver [the Goods] promptly")
    assert parts is not None
    assert parts.parts == ("The Supplier shall", "deliver", "promptly")
    assert parts.elided and parts.altered
    assert split_quote("no markers here") is None


def test_the_tightest_placement_of_the_parts_wins():
    text = (
        "Any dispute shall first be referred to the senior officers of the parties for 30 days. "
        "Notices go by courier to the registered office of the parties for 60 days. "
        "Any dispute shall first be referred to the senior officers of the parties for 60 days."
    )
    quote = "Any dispute shall first be referred to the senior ... parties for 60 days."
    verdict = verify_quote(text, quote)
    assert verdict.verified
    assert verdict.source_text == text[text.rindex("Any dispute") :]


def test_an_elision_may_not_bridge_paragraphs():
    text = "The Supplier shall deliver the Goods.\n\nThe Buyer shall pay on delivery."
    verdict = verify_quote(
        text, "The Supplier shall deliver ... The Buyer shall pay on delivery."
    )
    assert not verdict.verified
    assert verdict.rule == "elision.paragraphs"


_LEAD = "This Agreement is made between the parties named below. "


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # An insertion stands for the words it replaces.
        (
            "The Supplier shall deliver the goods to the Buyer.",
            "The Supplier shall [not] deliver the goods to the Buyer",
        ),
        (
            "The fee is payable within 60 days of the invoice date.",
            "The fee is payable within [30] days of the invoice date",
        ),
        (
            "The Licensee may pay the fee to the Licensor.",
            "The Licensee [must] pay the fee to the Licensor",
        ),
        (
            "The Licensee shall pay the fee to the Licensor.",
            "The [Licensor] shall pay the fee to the Licensor",
        ),
        # Before the first part or after the last, it replaces nothing found.
        (
            "The Supplier shall deliver the goods to the Buyer on time.",
            "[No] Supplier shall deliver the goods to the Buyer on time",
        ),
        (
            "The Supplier shall deliver the goods to the Buyer on time.",
            "... to the Buyer [within 5 days]",
        ),
        # An ellipsis may not join two clauses, nor drop "excluding".
        (
            "The Buyer shall pay the price. The Supplier shall deliver the goods.",
            "The Buyer shall ... deliver the goods",
        ),
        (
            "The Supplier shall be liable for all damages, excluding indirect damages.",
            "The Supplier shall be liable ... indirect damages",
        ),
        # Every part starts and ends on a token's edge.
        (
            "The Licensor grants an irrevocable license to use the Software.",
            "The Licensor grants an ... revocable license to use the Software",
        ),
        (
            "The Licensee shall pay 1,500 dollars to the Licensor upon signing.",
            "The Licensee shall pay ... 500 dollars to the Licensor upon signing",
        ),
    ],
)
def test_elisions_and_insertions_never_change_what_the_source_says(source, quote):
    verdict = verify_quote(_LEAD + source, quote)
    assert not verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "It shall deliver the goods to the Buyer within 30 days of the order.",
            "[The Supplier] shall deliver the goods to the Buyer within 30 days",
        ),
        (
            "The Supplier shall within 30 days deliver the goods to the Buyer.",
            "The Supplier shall [within 30 days] deliver the goods to the Buyer",
        ),
        (
            "The Supplier shall deliver the goods to it within 30 days.",
            "The Supplier shall deliver the goods to [the Buyer] within 30 days",
        ),
        (
            "The Licensee shall promptly pay 1,500 dollars to the Licensor.",
            "The Licensee shall ... pay 1,500 dollars to the Licensor",
        ),
    ],
)
def test_insertions_that_say_what_the_source_says_verify(source, quote):
    verdict = verify_quote(_LEAD + source, quote)
    assert verdict.verified, verdict.reason


def test_an_ellipsis_after_and_may_not_drop_the_next_clauses_subject():
    source = (
        _LEAD + "The Buyer shall pay the price and the Seller shall deliver the goods."
    )
    verdict = verify_quote(
        source, "The Buyer shall pay the price and ... deliver the goods"
    )
    assert not verdict.verified
    assert verdict.rule == "elision.joins_clauses"


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Licensee shall bear all costs of enforcement.",
            "[Licensor] shall bear all costs of enforcement.",
        ),
        (
            "The Seller shall pay all amounts owed to the Consultant.",
            "The Seller shall pay all amounts owed to [the Company].",
        ),
        (
            "The Seller shall deliver the goods within 30 days after the order.",
            "The [Buyer] shall deliver the goods within 30 days after the order.",
        ),
    ],
)
def test_an_insertion_never_names_the_other_party(source, quote):
    verdict = verify_quote(_LEAD + source, quote)
    assert not verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The Buyer shall purchase at least 1,000 units in each year of the Term.",
            "The Buyer shall purchase ... 1,000 units in each year of the Term",
        ),
        (
            "Liability is limited to a maximum of $1,000,000 in aggregate for all claims.",
            "Liability is limited to ... $1,000,000 in aggregate for all claims",
        ),
        (
            "The Supplier shall notify the Buyer prior to any change in the specifications.",
            "The Supplier shall notify the Buyer ... any change in the specifications",
        ),
        # A few words of its own may follow the bound in the gap.
        (
            "The Buyer shall pay all costs, excluding in all cases any indirect taxes.",
            "The Buyer shall pay all costs ... any indirect taxes",
        ),
        (
            "The Buyer shall purchase at least the agreed 1,000 units in each year.",
            "The Buyer shall purchase ... 1,000 units in each year",
        ),
        (
            "The Fee shall equal the Gross Revenue less the Costs of sale.",
            "The Fee shall equal ... the Costs of sale",
        ),
        (
            "The Buyer shall pay the price, net of any taxes withheld, to the Seller.",
            "The Buyer shall pay the price ... any taxes withheld",
        ),
    ],
)
def test_an_ellipsis_may_not_drop_a_bound_right_before_what_it_bounds(source, quote):
    verdict = verify_quote(_LEAD + source, quote)
    assert not verdict.verified
    assert verdict.rule == "elision.reversing_word"


_AROUND = "Each party shall bear its own costs in connection with this Agreement. "


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # Red team, round 3: an ellipsis over an amount or a date...
        (
            "The Buyer shall pay fifty percent of the costs of the audit.",
            "The Buyer shall pay ... the costs of the audit",
        ),
        (
            "The Buyer shall pay the costs within 30 days after delivery of the goods.",
            "The Buyer shall pay the costs ... after delivery of the goods",
        ),
        # ... over "cease", "save"...
        (
            "The Seller shall cease disclosing any Confidential Information to the Buyer.",
            "The Seller shall ... disclosing any Confidential Information",
        ),
        (
            "The Seller shall disclose the data to any person save the Buyer at all times.",
            "The Seller shall disclose the data to any person ... the Buyer at all times",
        ),
        # ... and brackets that stand for no word of the source.
        (
            "The Seller shall pay the fees of the Buyer to the Agent.",
            "The Seller shall [withhold] the fees of the Buyer to the Agent",
        ),
        (
            "The Seller shall pay 10% of the fees to the Agent.",
            "The Seller shall pay [up to] 10% of the fees to the Agent",
        ),
        (
            "The Seller shall not disclose the fees to the Agent.",
            "The Seller shall not [knowingly] disclose the fees to the Agent",
        ),
        (
            "The Seller shall pay the fees of the Buyer to the Agent.",
            "The Seller shall pay the fees of the Buyer to the [Seller]",
        ),
        (
            "The Supplier shall not disclose any Confidential Information.",
            "[The Licensee] shall not disclose any Confidential Information.",
        ),
    ],
)
def test_elisions_and_brackets_never_drop_or_invent_substance(source, quote):
    verdict = verify_quote(_AROUND + source + " " + _AROUND, quote)
    assert not verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The Seller shall deliver the goods. It shall pay the fees of the Agent.",
            "[The Seller] shall pay the fees of the Agent",
        ),
        (
            "The Seller shall deliver the goods and its fees to the Agent.",
            "The Seller shall deliver the goods and [the Seller's] fees to the Agent",
        ),
        (
            "The Seller shall, at its own expense and in good faith, pay the costs.",
            "The Seller shall ... pay the costs",
        ),
    ],
)
def test_brackets_for_what_a_pronoun_names_and_plain_elisions_verify(source, quote):
    verdict = verify_quote(_AROUND + source + " " + _AROUND, quote)
    assert verdict.verified, verdict.reason


# Red-team round 4 (session 7): elisions and insertions that say what the
# source does not.
@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # An ellipsis joining the quote's subject to another's clause, or
        # two sentences.
        (
            "The Seller shall deliver the Goods, and the Buyer shall pay the Price "
            "within ten days.",
            "The Seller ... pay the Price within ten days.",
        ),
        (
            "The Licensor owns the Software. The Licensee owns all Improvements.",
            "The Licensor ... owns all Improvements.",
        ),
        (
            "The Licensee shall notify the Licensor of any claim, whereupon the "
            "Licensor must indemnify the Licensee.",
            "The Licensee shall notify the Licensor of any claim ... must indemnify "
            "the Licensee.",
        ),
        # A bracket for a pronoun two parties could be meant by, or for words
        # that refer to nothing it names.
        (
            "The Seller shall indemnify the Buyer against claims arising from its "
            "negligence.",
            "The Seller shall indemnify the Buyer against claims arising from "
            "[the Buyer's] negligence.",
        ),
        (
            "The Buyer shall accept all Goods that conform to the Specification.",
            "The Buyer shall accept all Goods [unrelated] to the Specification.",
        ),
        # A conjunction for another.
        (
            "The Supplier shall deliver the Goods and the Documents to the Buyer "
            "at its premises.",
            "The Supplier shall deliver the Goods [or] the Documents to the Buyer",
        ),
        (
            "The Buyer may terminate this Agreement if the Supplier fails to "
            "deliver the Goods.",
            "The Buyer may terminate this Agreement [and] the Supplier fails to "
            "deliver the Goods.",
        ),
        # Qualifiers an ellipsis may not drop.
        (
            "Consent shall not be unreasonably withheld by the Landlord in any case.",
            "Consent shall not be ... withheld by the Landlord",
        ),
        (
            "The Supplier disclaims liability for all losses arising from the goods.",
            "The Supplier ... liability for all losses arising from the goods.",
        ),
        (
            "The Supplier is liable for a portion of all losses arising from the "
            "goods.",
            "The Supplier is liable for ... all losses arising from the goods.",
        ),
        (
            "The parties shall be jointly and severally liable for the debts of "
            "the venture.",
            "The parties shall be ... severally liable for the debts of the venture.",
        ),
        # A condition or restriction anywhere in the clause the quote goes on
        # with, not only in the gap's last five words.
        (
            "The Landlord may enter the premises only in an emergency and at "
            "reasonable hours to make repairs.",
            "The Landlord may ... to make repairs",
        ),
        (
            "The Landlord may, if the Tenant defaults on the payment of rent, enter "
            "the premises.",
            "The Landlord may ... enter the premises.",
        ),
        (
            "The Licensee shall pay the royalty, provided the Licensor has delivered "
            "the Software, to the Licensor.",
            "The Licensee shall pay the royalty ... to the Licensor.",
        ),
        (
            "The Buyer shall, upon delivery of the Goods, pay the Price to the Seller.",
            "The Buyer shall ... pay the Price to the Seller.",
        ),
        (
            "The Licensee may, after the expiry of the initial term of the licence, "
            "terminate this Agreement.",
            "The Licensee may ... terminate this Agreement.",
        ),
        (
            "The Supplier shall indemnify the Buyer to the extent that the loss is "
            "caused by its negligence.",
            "The Supplier shall indemnify the Buyer ... caused by its negligence.",
        ),
        (
            "The Seller, to its knowledge after due inquiry of its officers, has "
            "good title to the Goods.",
            "The Seller ... has good title to the Goods.",
        ),
        (
            "The Auditor shall determine whether the Goods delivered to the Buyer "
            "conform to the Specification.",
            "The Auditor shall determine ... the Goods delivered to the Buyer "
            "conform to the Specification.",
        ),
        (
            "The Auditor shall determine whether the Buyer or the Seller is liable "
            "for the loss.",
            "The Auditor shall determine ... the Seller is liable for the loss.",
        ),
        (
            "The Company denies any liability whatsoever for the losses of the "
            "Investor.",
            "The Company ... any liability whatsoever for the losses of the Investor.",
        ),
        (
            "The Buyer may reject any shipment of the Goods that fails the inspection.",
            "The Buyer may ... any shipment of the Goods that fails the inspection.",
        ),
        # Time conditions, and a list's lead-in that governs every item.
        (
            "The Licensee may, once the Initial Term has expired, terminate this "
            "Agreement.",
            "The Licensee may ... terminate this Agreement.",
        ),
        (
            "The Tenant shall, until the Landlord has completed the works, pay "
            "half the rent.",
            "The Tenant shall ... pay half the rent.",
        ),
        (
            "The Tenant may, unless the Landlord objects in writing, sublet the "
            "premises.",
            "The Tenant may ... sublet the premises.",
        ),
        (
            "The Buyer shall, when invoiced by the Seller, pay the Price.",
            "The Buyer shall ... pay the Price.",
        ),
        (
            "The Buyer may, where the Goods are defective, return the Goods.",
            "The Buyer may ... return the Goods.",
        ),
        (
            "The Seller shall, before the Closing Date, deliver the title documents.",
            "The Seller shall ... deliver the title documents.",
        ),
        (
            "The Seller shall, prior to the Closing Date, deliver the title documents.",
            "The Seller shall ... deliver the title documents.",
        ),
        (
            "The Licensee may, following the acceptance of the Software, copy the "
            "Software.",
            "The Licensee may ... copy the Software.",
        ),
        (
            "The Licensee may, solely for its internal business purposes: (i) use "
            "the Software, and (ii) copy the Software.",
            "The Licensee may ... copy the Software.",
        ),
        # A leading bracket for a pronoun whose antecedent is further back
        # than the words next to the span.
        (
            "The Buyer shall pay the Seller's invoices within thirty days. It shall "
            "also reimburse the Seller's travel costs.",
            "[the Seller] shall also reimburse the Seller's travel costs",
        ),
        (
            "The Buyer, at the request of the Seller, agrees that it shall pay the "
            "costs of the audit.",
            "[the Seller] shall pay the costs of the audit",
        ),
        (
            "Licensee shall bear all costs of enforcement of the Patents. It shall "
            "also bear the costs of their maintenance.",
            "[Licensor] shall also bear the costs of their maintenance.",
        ),
    ],
)
def test_elisions_and_insertions_that_change_the_meaning_fail(source, quote):
    verdict = verify_quote(source, quote)
    assert not verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The Buyer accepts the goods and it shall pay the price within ten days.",
            "The Buyer accepts the goods and [the Buyer] shall pay the price within "
            "ten days.",
        ),
        (
            "The Licensee shall promptly and in writing notify the Licensor of any "
            "claim.",
            "The Licensee shall ... notify the Licensor of any claim.",
        ),
        # "upon" as a verb's preposition, not a condition.
        (
            "The Buyer shall, as agreed upon by the parties, pay the Price to the "
            "Seller.",
            "The Buyer shall ... pay the Price to the Seller.",
        ),
        # A neutral aside, and "provided" that is no proviso.
        (
            "The Seller, a Delaware corporation, shall deliver the Goods to the Buyer.",
            "The Seller ... shall deliver the Goods to the Buyer.",
        ),
        (
            "The Supplier shall provide the services provided by its affiliates "
            "to the Customer in full.",
            "The Supplier shall provide the services ... to the Customer in full.",
        ),
        # "whether ... or" covers every case; "as if" is no condition.
        (
            "The Supplier gives no warranty of any kind, whether written or oral, "
            "express or implied, as to the Goods.",
            "The Supplier gives no warranty of any kind ... express or implied, as "
            "to the Goods.",
        ),
        (
            "This Agreement shall be construed as if it were drafted jointly by the "
            "parties.",
            "This Agreement shall be ... drafted jointly by the parties.",
        ),
        # "where" after a noun, "at once", "the following", "when due" and
        # "once a year": no conditions.
        (
            "If the Buyer fails to pay any sum when due, the Seller may suspend "
            "performance.",
            "If the Buyer fails to pay any sum ... the Seller may suspend performance.",
        ),
        (
            "The Buyer shall keep records and allow an audit once in any 12-month "
            "period.",
            "The Buyer shall keep records ... in any 12-month period.",
        ),
        (
            "The Seller shall deliver the Goods to the warehouse where the Buyer "
            "stores its stock in Leeds.",
            "The Seller shall deliver the Goods ... stores its stock in Leeds.",
        ),
        (
            "The Seller shall at once and at its own cost replace the Goods.",
            "The Seller shall ... replace the Goods.",
        ),
        (
            "The Seller shall deliver the following items of the Goods to the Buyer.",
            "The Seller shall deliver ... items of the Goods to the Buyer.",
        ),
        # A leading bracket for a pronoun that names its antecedent.
        (
            "The Buyer shall pay the Seller's invoices within thirty days. It shall "
            "also reimburse the Seller's travel costs.",
            "[the Buyer] shall also reimburse the Seller's travel costs",
        ),
        (
            "The Buyer, at the request of the Seller, agrees that it shall pay the "
            "costs of the audit.",
            "[the Buyer] shall pay the costs of the audit",
        ),
        (
            "If the Buyer fails to pay the Seller on time, it shall pay interest "
            "on the amount due.",
            "[the Buyer] shall pay interest on the amount due.",
        ),
    ],
)
def test_elisions_and_insertions_within_their_clause_verify(source, quote):
    verdict = verify_quote(source, quote)
    assert verdict.verified, verdict.reason
