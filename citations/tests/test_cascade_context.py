"""A quote that leaves out the negation governing it fails, though every one
of its words is in the source: just before its span, or under an ellipsis."""

from __future__ import annotations

import pytest

from citations.cascade import verify_quote
from citations.cascade.elision import split_quote
from citations.tests.sources import SCANNED_PREAMBLE

TEXT = (
    "12.3 No amendment of this Agreement shall be effective unless made in writing. "
    "The Supplier shall not deliver goods on Sundays. Neither party may assign this "
    "Agreement. Payment is due not less than 30 days after invoice. The Licensee "
    "shall never sublicense the Software. The Buyer doesn't accept partial deliveries. "
    "Nothing in this clause limits liability for fraud."
)


@pytest.mark.parametrize(
    ("quote", "negation"),
    [
        ("amendment of this Agreement shall be effective", "No"),
        ("party may assign this Agreement", "Neither"),
        ("less than 30 days after invoice", "not"),
        ("sublicense the Software", "never"),
        ("accept partial deliveries", "doesn't"),
        ("in this clause limits liability for fraud", "Nothing"),
        # Folding or fuzzy matching reach the same span: still refused.
        ("AMENDMENT OF THIS AGREEMENT SHALL BE EFFECTIVE", "No"),
    ],
)
def test_a_quote_starting_just_after_a_negation_fails_naming_it(quote, negation):
    verdict = verify_quote(TEXT, quote)
    assert not verdict.verified
    assert verdict.confidence is None
    assert verdict.rule == "negation.before", verdict.reason
    assert f"starts just after “{negation}”" in verdict.reason
    # The rejected placement is kept for the diff, negation included.
    assert verdict.candidate_text.startswith(negation)


@pytest.mark.parametrize(
    ("quote", "negation"),
    [("amendment of this Agreement shall be effective", "No")],
)
def test_a_fuzzy_match_starting_just_after_a_negation_fails_naming_it(quote, negation):
    # A misprint in the source ("Agreernent") makes the match fuzzy.
    verdict = verify_quote(TEXT.replace("Agreement shall", "Agreernent shall"), quote)
    assert not verdict.verified
    assert verdict.confidence is None
    assert verdict.rule == "negation.before", verdict.reason
    assert f"starts just after “{negation}”" in verdict.reason
    # The rejected placement is kept for the diff, negation included.
    assert verdict.candidate_text.startswith(negation)


@pytest.mark.parametrize(
    "quote",
    [
        "The Supplier shall ... deliver goods on Sundays",
        "The Supplier shall [...] deliver goods on Sundays",
        "The Supplier shall … deliver goods on Sundays",
        "Payment is due … less than 30 days after invoice",
    ],
)
def test_an_ellipsis_over_a_negation_fails_naming_it(quote):
    verdict = verify_quote(TEXT, quote)
    assert not verdict.verified
    assert verdict.rule == "elision.negation", verdict.reason
    assert "the elision leaves out “not”" in verdict.reason


@pytest.mark.parametrize(
    ("quote", "negation"),
    [
        ("... amendment of this Agreement shall be effective", "No"),
        ("[Any] amendment of this Agreement shall be effective", "No"),
        ("[It] shall be effective unless made in writing", "No"),
        ("... may assign this Agreement", "Neither"),
    ],
)
def test_an_opening_elision_or_insertion_that_replaced_a_negation_fails(
    quote, negation
):
    assert split_quote(quote).opens_elided
    verdict = verify_quote(TEXT, quote)
    assert not verdict.verified
    assert verdict.rule == "negation.opening_elision", verdict.reason
    assert f"opening elision leaves out “{negation}”" in verdict.reason


@pytest.mark.parametrize(
    "quote",
    [
        # The negation is quoted.
        "No amendment of this Agreement shall be effective",
        "The Supplier shall not deliver goods on Sundays",
        "not less than 30 days after invoice",
        # A full stop, comma or other clause boundary stands between.
        "The Supplier shall not deliver goods",
        "Payment is due not less than 30 days",
        # An ellipsis over words that negate nothing.
        "The Licensee shall ... sublicense the Software",
        "[t]he Licensee shall never sublicense the Software",
    ],
)
def test_negations_quoted_or_outside_the_clause_still_verify(quote):
    verdict = verify_quote(TEXT, quote)
    if "... sublicense" in quote:
        # "never" is in the gap: the elision leaves it out.
        assert not verdict.verified
        assert verdict.rule == "elision.negation", verdict.reason
        assert "leaves out “never”" in verdict.reason
        return
    assert verdict.verified, verdict.reason
    assert TEXT[verdict.start : verdict.end] == verdict.source_text


def test_sentence_ends_end_the_reach_of_a_negation():
    text = "The fee is not refundable. Payment is due in 30 days; not all interest accrues daily."
    for quote in ("Payment is due in 30 days", "all interest accrues daily"):
        verdict = verify_quote(text, quote)
        if quote.startswith("all"):
            assert not verdict.verified  # "not all": the negation governs it
            continue
        assert verdict.verified, (quote, verdict.reason)
    # "No." is an abbreviation, not a negation.
    text = "Purchase Order No. 5 governs the delivery of the Goods."
    assert verify_quote(text, "5 governs the delivery of the Goods").verified


def test_another_occurrence_that_no_negation_governs_verifies_there():
    text = (
        "No amendment shall be effective against the Buyer. "
        "An amendment shall be effective against the Supplier on signature. "
        "amendment shall be effective against the Supplier"
    )
    quote = "amendment shall be effective against the"
    verdict = verify_quote(text, quote)
    assert verdict.verified, verdict.reason
    assert text[verdict.start - 3 : verdict.start] == "An "
    # In the cited chunk the only occurrence is negated: the whole text is
    # searched and the governed occurrence is not taken.
    verdict = verify_quote(text, quote, within=(0, 51))
    assert verdict.verified
    assert verdict.start > 51


def test_a_line_break_between_negation_and_quote_still_counts():
    text = "The Licensee shall not\nassign this Agreement to any third party."
    verdict = verify_quote(text, "assign this Agreement to any third party")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason
    assert "starts just after “not”" in verdict.reason


def test_a_negation_hyphenated_across_a_line_break_counts_whole():
    text = "The fee is payable un-\nless the Buyer pays the deposit within 5 days."
    verdict = verify_quote(text, "the Buyer pays the deposit within 5 days")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason
    assert "starts just after “unless”" in verdict.reason
    # A word hyphenated across lines that is no negation ("busi-\nness").
    text = "notify the Buyer within 5 busi-\nness days of the delivery of the Goods."
    assert verify_quote(text, "days of the delivery of the Goods").verified


def test_ocr_damaged_negations_in_the_source_still_count():
    text = (
        "The Employer acknowledges that the Employee is uot responsible for the data."
    )
    verdict = verify_quote(
        text,
        "The Employer acknowledges that the Employee is ... responsible for the data",
    )
    assert not verdict.verified
    assert verdict.rule == "elision.negation", verdict.reason
    assert "leaves out “uot”" in verdict.reason
    text = "the flow of work. N'either party must be liable for any failure to perform."
    verdict = verify_quote(text, "party must be liable for any failure to perform")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason
    assert "starts just after “N'either”" in verdict.reason


@pytest.mark.parametrize(
    "before",
    ["W ithout", "Witho ut", "zithout", "Neithcr", "n0t", "N ever"],
)
def test_a_negation_ocr_split_or_damaged_just_before_the_quote_counts(before):
    text = f"a breach of this clause 63. {before} limiting clause 148, the Employee shall comply with all laws."
    verdict = verify_quote(
        text, "limiting clause 148, the Employee shall comply with all laws"
    )
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason


@pytest.mark.parametrize("before", ["with out", "now here", "note", "not e"])
def test_words_that_are_words_as_they_stand_negate_nothing(before):
    # "with out" and "now here" are two words each; "not e" ends in "e".
    text = f"the parties agree {before} limiting clause 148, the Employee shall comply with all laws."
    verdict = verify_quote(
        text, "limiting clause 148, the Employee shall comply with all laws"
    )
    assert verdict.verified, verdict.reason


@pytest.mark.parametrize("before", ["lnot", "no,t", "Withou t", "Neither ,"])
def test_more_negations_ocr_damaged_or_punctuated_still_count(before):
    text = f"The Licensee acknowledges that the Licensor is {before} responsible for the data."
    verdict = verify_quote(text, "responsible for the data")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason


def test_a_word_ocr_split_before_its_last_letters_negates_nothing():
    # "p rior" is "prior", not "nor"; "Agreemen t" is no "n't".
    text = "without the p rior written consent of the Licensor, which may be withheld."
    assert verify_quote(text, "written consent of the Licensor").verified


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "In the event of force majeure Neithcrparty sha1l be liab1e for any "
            "de1ay in performance.",
            "party shall be liable for any delay in performance.",
        ),
        (
            "The Se1ler sha1l nevcrdeliver goocls to the Buyer at its premises.",
            "deliver goods to the Buyer at its premises.",
        ),
        (
            "The Se1ler sha1l N everdeliver goocls to the Buyer at its premises.",
            "deliver goods to the Buyer at its premises.",
        ),
    ],
)
def test_a_negation_ocr_ran_into_the_quotes_first_word_counts(source, quote):
    # In a scan a fuzzy match may start where OCR ran two words together;
    # the word run into the quote's first one is still the word before it.
    verdict = verify_quote(SCANNED_PREAMBLE + source, quote)
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason


def test_a_plain_word_ocr_ran_into_the_quotes_first_word_negates_nothing():
    source = (
        "In the event of force majeure thisparty sha1l be liab1e for any "
        "de1ay in performance."
    )
    verdict = verify_quote(
        SCANNED_PREAMBLE + source, "party shall be liable for any delay in performance."
    )
    assert verdict.verified, verdict.reason


def test_a_not_that_lost_its_o_still_governs_the_quote():
    # The guard will not let a quote drop "nt" (no word), nor grant it as
    # "not"; so a quote leaving it out, by its start or an ellipsis, fails.
    source = SCANNED_PREAMBLE + (
        "The Company's aggregate liability shall nt exceed 15% of the fees paid "
        "in the 9 months before the claim."
    )
    for quote in (
        "exceed 15% of the fees paid in the 9 months before the claim.",
        "The Company's aggregate liability shall ... exceed 15% of the fees paid",
    ):
        verdict = verify_quote(source, quote)
        assert not verdict.verified, quote
        assert verdict.rule in {"negation.before", "elision.negation"}, verdict.reason
        assert "“nt”" in verdict.reason
    # "nt" that ends a word OCR split ("Agreeme nt") negates nothing.
    source = (
        SCANNED_PREAMBLE + "the parties to this Agreeme nt should keep accurate books."
    )
    verdict = verify_quote(source, "should keep accurate books.")
    assert verdict.verified, verdict.reason
    # "ot" is "of" before it is "not".
    source = (
        SCANNED_PREAMBLE
        + "an event ot force majeure - including fire, flood or strike."
    )
    verdict = verify_quote(source, "force majeure - including fire, flood or strike.")
    assert verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The Seller shall no\u200bt assign this Agreement to any third party.",
            "assign this Agreement to any third party.",
        ),
        (
            "The Seller may assign this Agreement with\u00adout the prior written "
            "consent of the Buyer.",
            "the prior written consent of the Buyer.",
        ),
        (
            "The Seller shall n\u2060ot assign this Agreement to any third party.",
            "assign this Agreement to any third party.",
        ),
    ],
)
def test_a_negation_with_an_invisible_character_inside_still_counts(source, quote):
    # Web pages and PDFs carry soft hyphens and zero-width marks inside words.
    verdict = verify_quote(source, quote)
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason


def test_a_word_with_a_soft_hyphen_before_a_quote_is_one_word():
    # "Recipie\xadnt" is "Recipient", not "Recipie" and a damaged "not".
    source = "12. The Recipie\u00adnt should keep accurate books and records."
    verdict = verify_quote(source, "should keep accurate books and records.")
    assert verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # A page break (pages are joined by a blank line) or a comma does not
        # end a sentence.
        (
            "The Supplier shall not\n\ndeliver the goods to the Buyer on Sundays.",
            "deliver the goods to the Buyer on Sundays",
        ),
        (
            "The Buyer shall not, however, be liable for any delay in performance.",
            "be liable for any delay in performance",
        ),
        # Up to three words after the negation.
        (
            "No amendment or waiver of this Agreement shall be effective unless "
            "in writing.",
            "waiver of this Agreement shall be effective",
        ),
        (
            "Neither the Supplier nor the Buyer shall assign this Agreement.",
            "Buyer shall assign this Agreement",
        ),
        (
            "In no event shall the Supplier be liable for lost profits.",
            "the Supplier be liable for lost profits",
        ),
        (
            "The Seller shall not be required to deliver the goods.",
            "required to deliver the goods",
        ),
        # An invisible character or a touching mark is no boundary.
        (
            "No\u200b amendment of this Agreement shall be effective unless signed.",
            "amendment of this Agreement shall be effective",
        ),
        (
            "The Buyer shall not,be liable for any delay in performance.",
            "be liable for any delay in performance",
        ),
    ],
)
def test_a_negation_a_few_words_before_the_quote_governs_it(source, quote):
    verdict = verify_quote(source, quote)
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason


def test_a_drop_cap_split_off_the_negation_the_quote_starts_inside():
    verdict = verify_quote(
        "N either party may terminate this Agreement for convenience.",
        "either party may terminate this Agreement",
    )
    assert not verdict.verified
    assert verdict.rule == "negation.split_off", verdict.reason


def test_a_phrase_of_a_condition_a_few_words_after_without_verifies():
    # "without" opens a condition: only a quote starting just after it
    # leaves it out.
    text = "Neither party may assign this Agreement without the prior written consent of the other Party."
    assert verify_quote(text, "prior written consent of the other Party").verified
    verdict = verify_quote(text, "the prior written consent of the other Party")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason
    assert "“without”" in verdict.reason


def test_a_negation_before_the_sentence_governs_nothing():
    text = (
        "The Supplier shall not deliver on Sundays. The Buyer shall pay the "
        "price in full."
    )
    assert verify_quote(text, "The Buyer shall pay the price in full").verified
    text = "The Supplier shall not deliver on Sundays, and the Buyer shall pay."
    assert verify_quote(text, "the Buyer shall pay").verified


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # From CUAD's contracts: each verified before the reach was three words.
        (
            "The relationship will be that of independent contractor and nothing in "
            "this Agreement gives either Party the power or authority to bind the other.",
            "Agreement gives either Party the power or authority to bind the other.",
        ),
        (
            "Nothing herein shall prevent the Licensor from assigning the monetary "
            "rights hereunder.",
            "shall prevent the Licensor from assigning the monetary rights",
        ),
    ],
)
def test_real_clauses_a_quote_reverses_by_starting_after_the_negation(source, quote):
    verdict = verify_quote(source, quote)
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "including, but not limited to, securities laws and regulations of any state.",
            "securities laws and regulations of any state.",
        ),
        (
            'Any Party (the "Non-Breaching Party") may terminate this Agreement at once.',
            "may terminate this Agreement at once.",
        ),
    ],
)
def test_idioms_with_a_negation_negate_nothing_after_them(source, quote):
    verdict = verify_quote(source, quote)
    assert verdict.verified, verdict.reason


def test_quotes_of_real_web_email_and_scanned_text_that_negate_nothing_verify():
    cases = [
        # A capitalized name is no damaged "not" in a web page.
        (
            "coupled with the NBT format's nesting allows us to craft a packet.",
            "format's nesting allows us to craft a packet.",
        ),
        # A closing quote after the question mark ends the sentence.
        (
            "\u201cI just said that aloud, didn\u2019t I?\u201d\n\nOf the responses "
            "Izuku had expected, this was one.",
            "Of the responses Izuku had expected",
        ),
        # The source's own bracket (a redaction) opens no elision.
        (
            "such proceeding shall not be dismissed within\n[**] or an order for "
            "relief by a court of competent jurisdiction shall be entered.",
            "[**] or an order for relief by a court of competent jurisdiction",
        ),
        # "into" is no misread "not", even in a scan.
        (
            SCANNED_PREAMBLE
            + "and thatthe Priour came into thekitchin and tooke the rope.",
            "thekitchin and tooke the rope.",
        ),
    ]
    for source, quote in cases:
        verdict = verify_quote(source, quote)
        assert verdict.verified, (quote, verdict.reason)


def test_a_colon_after_a_negation_does_not_end_its_reach():
    source = (
        "Each party agrees that it will not: (a) disclose Confidential "
        "Information to any third party; or (b) use it for any other purpose."
    )
    verdict = verify_quote(
        source, "disclose Confidential Information to any third party"
    )
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason


def test_an_abbreviations_full_stop_does_not_end_the_reach():
    source = "The Company shall pay no U.S. federal income tax on such amounts."
    verdict = verify_quote(source, "federal income tax on such amounts")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Licensee shall not, directly or indirectly, sublicense the Software.",
            "sublicense the Software",
        ),
        (
            "Licensee shall not, without the prior written consent of Licensor, "
            "assign this Agreement.",
            "assign this Agreement",
        ),
        (
            "Licensee will not (and will not allow any third party to) reverse "
            "engineer the Software.",
            "reverse engineer the Software",
        ),
    ],
)
def test_a_negation_governs_across_an_aside(source, quote):
    verdict = verify_quote(source, quote)
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason


def test_an_aside_after_a_plain_word_governs_nothing():
    text = "The parties agree, on the date hereof, that the Buyer shall pay."
    assert verify_quote(text, "that the Buyer shall pay").verified


@pytest.mark.parametrize(
    ("source", "quote", "verified"),
    [
        # Letters OCR ran into a percentage count as two words: the clean
        # text's quote four words after the negation verifies...
        (
            "The liability shall not exceed5% of the fees paid in the year.",
            "the fees paid in the year.",
            True,
        ),
        # Only a number is split off: words run together count as one, the
        # side that refuses ("sublicense" must not count as two).
        (
            "Neither partymay be liable for any failure caused by strike.",
            "liable for any failure caused by strike.",
            False,
        ),
        # ... and one three words after still fails.
        (
            "The liability shall not exceed5% of the fees paid in the year.",
            "of the fees paid in the year.",
            False,
        ),
        (
            "Neither partymay be liable for any failure caused by strike.",
            "be liable for any failure caused by strike.",
            False,
        ),
        # Digits that may be letters stay in their word: "wi11" is "will".
        (
            "Neither party wi11 be liable for any failure caused by strike.",
            "be liable for any failure caused by strike.",
            False,
        ),
    ],
)
def test_words_ocr_ran_together_count_as_the_words_they_were(source, quote, verified):
    verdict = verify_quote(SCANNED_PREAMBLE + source, quote)
    assert verdict.verified is verified, verdict.reason


@pytest.mark.parametrize(
    "source",
    [
        "The Licensee shall not sell, lease or sublicense the Software to anyone.",
        "The Licensee shall not rent, lease, lend, or sublicense the Software to anyone.",
        "The Licensee may not copy, modify or otherwise sublicense the Software to anyone.",
    ],
)
def test_a_quote_starting_in_a_list_a_negation_governs_fails(source):
    verdict = verify_quote(source, "sublicense the Software to anyone.")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason
    assert "in a list after" in verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # "whether or not" and "not limited to" negate nothing after them.
        (
            "Deliver all work product, whether or not complete, prepared by or "
            "on behalf of the Provider.",
            "on behalf of the Provider.",
        ),
        (
            "including, but not limited to, securities laws and regulations of "
            "the United States.",
            "regulations of the United States.",
        ),
        # Items of more than one word are no such list ("at all, owned or").
        (
            "A Party that has no ownership interest at all, owned or co-owned "
            "information being exempt.",
            "co-owned information being exempt.",
        ),
        # A list with no negation before it.
        (
            "The Licensee may sell, lease or sublicense the Software to anyone.",
            "sublicense the Software to anyone.",
        ),
    ],
)
def test_a_list_no_negation_governs_verifies(source, quote):
    verdict = verify_quote(source, quote)
    assert verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote", "verified"),
    [
        # A common word OCR ran into the negation after it still negates.
        (
            "The Buyer acknowledges that the Supplier isnot responsible for it.",
            "responsible for it.",
            False,
        ),
        (
            "The aggregate liability shouldnot exceed 5% of the fees paid.",
            "exceed 5% of the fees paid.",
            False,
        ),
        # A word that ends in "not" negates nothing.
        (
            "The knot responsible for the data is tied.",
            "responsible for the data is tied.",
            True,
        ),
    ],
)
def test_a_word_ocr_ran_into_a_negation_still_negates(source, quote, verified):
    verdict = verify_quote(source, quote)
    assert verdict.verified is verified, verdict.reason


@pytest.mark.parametrize("prefix", ["", SCANNED_PREAMBLE])
@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # A damaged word counts once: "hecome" is "become", not "he come";
        # "fee5" may be "fees" (red team).
        (
            "The Supplier shall not hecome liable for any loss suffered by the Customer.",
            "for any loss suffered by the Customer",
        ),
        (
            "The Buyer shall not pay fee5 to the Seller for the goods.",
            "to the Seller for the goods",
        ),
        # A negation run into the word after it.
        (
            "The Licensee shall notbe liable to pay any damages at all.",
            "to pay any damages at all.",
        ),
    ],
)
def test_damage_never_moves_a_quote_out_of_a_negations_reach(prefix, source, quote):
    verdict = verify_quote(prefix + source, quote)
    assert not verdict.verified, verdict.reason


def test_a_negation_with_a_0_for_its_o_governs_in_a_scan():
    source = (
        SCANNED_PREAMBLE
        + "The Licensee shall r0t be required to pay any damages at all."
    )
    verdict = verify_quote(source, "be required to pay any damages at all.")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason
    assert "r0t" in verdict.reason


@pytest.mark.parametrize(
    "items",
    [
        "sell, lease and/or",
        "sell; lease; or",
        "sell, rent, lease,",
        "(i) sell, (ii) lease or (iii)",
        "sell, lease/rent or",
    ],
)
def test_every_form_of_a_negated_list_governs_its_items(items):
    source = f"The Licensee shall not {items} sublicense the Software to anyone."
    verdict = verify_quote(source, "sublicense the Software to anyone.")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason
    assert "in a list after" in verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # Red team, round 2: a compound the dictionary lacks is one word...
        (
            "The Licensee shall not sublicense any rights under this Agreement.",
            "rights under this Agreement",
        ),
        # ... a negation run into a word counts in capitals too...
        ("THE SELLER SHALLNOT BE LIABLE FOR ANY DAMAGES.", "BE LIABLE FOR ANY DAMAGES"),
        # ... and where a look-alike word is as near ("donor").
        (
            "The Seller donot be liable for any damages at all.",
            "be liable for any damages at all.",
        ),
        (
            "None of the fees, costs or expenses shall be reimbursed.",
            "expenses shall be reimbursed.",
        ),
    ],
)
def test_a_negation_governs_what_ocr_or_a_compound_hides(source, quote):
    verdict = verify_quote(source, quote)
    assert not verdict.verified, verdict.reason


@pytest.mark.parametrize(
    "source",
    [
        "The Seller shall not in any event be liable for any indirect damages.",
        "The Seller shall not under any circumstances or at any time be liable for any indirect damages.",
        "The Seller shall not directly or indirectly be liable for any indirect damages.",
    ],
)
def test_words_that_only_stress_a_negation_do_not_end_its_reach(source):
    verdict = verify_quote(source, "liable for any indirect damages.")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason
    assert "which still negates it" in verdict.reason


def test_stress_after_a_finished_negated_clause_governs_nothing():
    source = "The Seller did not sell any goods, and in any event the Buyer shall pay the price."
    assert verify_quote(source, "the Buyer shall pay the price.").verified


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # An aside after the verb a negated subject governs.
        (
            "Neither party shall, directly or indirectly, disclose the terms of "
            "this Agreement.",
            "disclose the terms of this Agreement.",
        ),
        # A phrase or adverbs between the negation and its verb.
        (
            "The Recipient shall not during the Term disclose the Confidential "
            "Information.",
            "disclose the Confidential Information.",
        ),
        (
            "The Recipient shall not knowingly or intentionally disclose the "
            "Confidential Information.",
            "disclose the Confidential Information.",
        ),
        # The subject a negation heads, up to its verb and just after it.
        (
            "Nothing in this Agreement shall require the Licensor to deliver "
            "source code.",
            "shall require the Licensor to deliver source code.",
        ),
        (
            "Nothing in this Agreement shall require the Licensor to deliver "
            "source code.",
            "require the Licensor to deliver source code.",
        ),
        (
            "No consent of the Buyer shall be required for the transfer.",
            "shall be required for the transfer.",
        ),
        (
            "No amendment of this Agreement will be valid or effective unless "
            "made in writing.",
            "will be valid or effective unless made in writing.",
        ),
        (
            "During the past three (3) years, no insurance policy relating to "
            "the Station has been cancelled by the insurer.",
            "has been cancelled by the insurer.",
        ),
        # An auxiliary after "not" is the verb it negates.
        (
            "The Supplier does not have any obligation to indemnify the Buyer.",
            "any obligation to indemnify the Buyer.",
        ),
        # An inverted clause: its verb, then its subject.
        (
            "In no event shall the Supplier be liable for indirect damages.",
            "be liable for indirect damages.",
        ),
        (
            "Under no circumstance will the late payment fee payable to Seller "
            "exceed the maximum rate.",
            "late payment fee payable to Seller exceed the maximum rate.",
        ),
        (
            "The Recipient shall keep it secret; nor shall a party or its "
            "employees disclose any such information.",
            "or its employees disclose any such information.",
        ),
        # A list the negation heads, with "or" between its first items, or
        # after an aside holding brackets of its own.
        (
            "The Recipient shall not use or disclose, or permit any third party "
            "to access, the Confidential Information.",
            "permit any third party to access",
        ),
        (
            "The Company shall not, directly or through other parties (whether "
            "agents, resellers or other parties), market, promote, sell, "
            "distribute or procure orders to any person.",
            "distribute or procure orders to any person.",
        ),
    ],
)
def test_a_negation_reaches_the_verb_it_governs_past_words_that_precede_it(
    source, quote
):
    verdict = verify_quote(source, quote)
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # The negation was its subject's, and the clause's verb is affirmed.
        ("Amounts not so disputed shall be deemed accepted.", "be deemed accepted."),
        # "not X but Y" affirms Y.
        (
            "Such action shall be taken not on such day but on the first "
            "succeeding Business Day.",
            "first succeeding Business Day.",
        ),
        # A "no" that is no subject: its clause ends where another starts.
        (
            "The Buyer has no obligation to pay and the Seller shall deliver "
            "the goods.",
            "deliver the goods.",
        ),
        # A subject's verb, then words enough.
        (
            "Nothing in this Agreement shall be construed to create a "
            "partnership between the parties.",
            "a partnership between the parties.",
        ),
        # An aside later in a clause is as many words as it holds.
        (
            "The Licensee shall not sell the Software, the Documentation, "
            "the Manuals or the Keys to anyone.",
            "the Manuals or the Keys to anyone.",
        ),
    ],
)
def test_a_negations_reach_ends_where_its_clause_does(source, quote):
    verdict = verify_quote(source, quote)
    assert verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The Recipient is prohibited from disclosing the Confidential Information.",
            "disclosing the Confidential Information.",
        ),
        (
            "The Recipient is prohibited from directly or indirectly soliciting "
            "the employees.",
            "soliciting the employees.",
        ),
        ("The Licensor may refuse to deliver the Software.", "deliver the Software."),
        (
            "If the Buyer fails to pay the fees, the Seller may terminate.",
            "pay the fees, the Seller may terminate.",
        ),
        ("The Recipient shall refrain from using the Marks.", "using the Marks."),
        (
            "Absent written consent, the Supplier may not disclose it.",
            "written consent, the Supplier may not",
        ),
    ],
)
def test_a_quote_starting_just_after_a_verb_that_reverses_it_fails(source, quote):
    verdict = verify_quote(source, quote)
    assert not verdict.verified
    assert verdict.rule == "negation.reversing_verb", verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # The reversing verb governs its own verb only.
        (
            "The Recipient is prohibited from disclosing the Confidential Information.",
            "the Confidential Information.",
        ),
        # "Absent" opens a condition, as "without" does: the main clause
        # may be quoted without it.
        (
            "Absent written consent, the Supplier may not disclose it.",
            "the Supplier may not disclose it.",
        ),
    ],
)
def test_words_a_reversing_verb_does_not_govern_verify(source, quote):
    verdict = verify_quote(source, quote)
    assert verdict.verified, verdict.reason


def test_a_quote_starting_inside_an_aside_and_going_past_it_fails():
    source = (
        "Licensee shall not, without the prior written consent of Licensor, "
        "assign this Agreement."
    )
    verdict = verify_quote(source, "consent of Licensor, assign this Agreement.")
    assert not verdict.verified
    assert verdict.rule == "negation.before", verdict.reason
    assert "inside an aside after “not”" in verdict.reason


def test_a_negation_in_small_capitals_governs_and_is_guarded():
    source = "The Supplier shall ɴᴏᴛ disclose the Confidential Information to anyone."
    added = verify_quote(
        source, "The Supplier shall disclose the Confidential Information"
    )
    assert not added.verified
    assert added.rule == "meaning.negation", added.reason
    assert not verify_quote(source, "disclose the Confidential Information").verified
    assert verify_quote(
        source, "The Supplier shall not disclose the Confidential Information"
    ).verified


# Red-team round 4 (session 7): quotes that drop the negation governing them.
_DROPPED = [
    # A negation heading its subject after a heading, a section number
    # or an opening phrase, and as OCR damaged it.
    "12.1 Neither party will | be liable to the other for failure to perform.",
    "ARTICLE 9 ASSIGNMENT\nNo Party shall | assign this Agreement.",
    "During the Term no Party shall | solicit employees of the other Party.",
    "The parties agree no amendment shall | be effective unless in writing.",
    "Neithcr party shall | be liable for any delay.",
    "N0 Party shall | assign this Agreement.",
    # A long subject, "and" inside it, a relative clause, a damaged verb.
    "No failure or delay by either party in exercising any right, power or "
    "privilege hereunder shall | operate as a waiver thereof.",
    "No variation of these terms and conditions will | be valid unless in writing.",
    "No Party which has breached this Agreement may | terminate it.",
    "No consent of the Buyer shal | be required for the transfer.",
    # Inverted clauses with long subjects.
    "In no event shall Licensor, its affiliates or their respective "
    "suppliers | be liable for any damages.",
    "In no event shall the aggregate liability of the Supplier under this "
    "Agreement | exceed the fees paid.",
    # A run of comma asides.
    "Neither party shall, without the prior written consent of the other "
    "party, which consent shall not be unreasonably withheld, conditioned or "
    "delayed, | assign or transfer this Agreement.",
    "Employee shall not, during the Term and for a period of twelve (12) "
    "months following the termination of Employee's employment for any "
    "reason, | solicit any customer.",
    # The "that" clause of a negated assurance, an infinitive.
    "The Supplier does not warrant that the Goods | will be fit for any "
    "particular purpose.",
    "The Company makes no representation or warranty that the Product | "
    "complies with applicable law.",
    "Licensee shall have no further right or obligation to | provide any services.",
    # Words that only look like they end the reach.
    "Licensee shall not before May 1, 2025 | commence sales of the Product.",
    "The Company shall not at will | terminate the Employee's employment.",
    "The Supplier would not but for this Section | be liable for the loss.",
]
_REVERSED = [
    # Reversing verbs with words between them and their particle.
    "The Recipient is prohibited, without the prior consent of the "
    "Disclosing Party, from | disclosing the information.",
    "If Licensee fails for any reason to | cure such breach, Licensor may terminate.",
    "Licensee waives its right to | terminate this Agreement for convenience.",
]


@pytest.mark.parametrize(
    ("source", "rule"),
    [
        *((source, "negation.before") for source in _DROPPED),
        *((source, "negation.reversing_verb") for source in _REVERSED),
    ],
)
def test_a_quote_that_drops_a_negation_governing_it_fails(source, rule):
    text = source.replace("| ", "")
    verdict = verify_quote(text, source.split("| ")[1])
    assert not verdict.verified
    assert verdict.rule == rule, verdict.reason


@pytest.mark.parametrize(
    "source",
    [
        # "at no charge", and bounds, negate no clause.
        "PageMaster will provide at no charge programming software that will | "
        "allow Go Call to broadcast messages.",
        "No later than thirty (30) days after the Effective Date, the Company "
        "shall | deliver the Initial Release.",
        # A negation inside brackets that close before the quote.
        "Parties shall answer interrogatories (none of which may have "
        "subparts) | of the following kinds.",
        # A redaction is no aside.
        "The Licensee may not [***]any portion of an accepted [***]unless "
        "approved, and the Licensor shall | deliver the goods.",
        "Force majeure may include, but not be limited to, fire, flood, "
        "explosion, | war and strike.",
        # "no" of an object; "in no way" of the verb after it.
        "Each Party shall retain no copies of the Confidential | Information "
        "of the other Party.",
        "Such waiver shall in no way impair the rights of the | party granting "
        "such waiver.",
        # A sentence end closes any aside.
        "If he will not, I will be very well content to depart. When the | "
        "morning came they left.",
    ],
)
def test_a_quote_no_negation_governs_verifies(source):
    text = source.replace("| ", "")
    verdict = verify_quote(text, source.split("| ")[1])
    assert verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "It is agreed that the Licensee may not, in any event, sublicense the "
            "Software.",
            "It is agreed that the Licensee may",
        ),
        (
            "The Licensee shall be liable under no circumstances for indirect loss.",
            "The Licensee shall be liable",
        ),
        ("The Buyer shall pay no interest on late payments.", "The Buyer shall pay"),
        ("The Licensee can't sublicense the Software.", "The Licensee can"),
    ],
)
def test_a_quote_that_stops_just_before_a_negation_fails(source, quote):
    verdict = verify_quote(source, quote)
    assert not verdict.verified
    assert verdict.rule == "negation.after", verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The Buyer shall pay no later than thirty days after delivery.",
            "The Buyer shall pay",
        ),
        (
            "The Buyer shall pay the fees. No interest accrues.",
            "The Buyer shall pay the fees",
        ),
        (
            "The Licensor grants a royalty-free, non-exclusive licence.",
            "The Licensor grants a royalty-free,",
        ),
        (
            "Any invention, whether patentable or not, is assigned.",
            "Any invention, whether patentable or",
        ),
    ],
)
def test_a_quote_that_stops_before_a_bound_idiom_or_sentence_verifies(source, quote):
    verdict = verify_quote(source, quote)
    assert verdict.verified, verdict.reason
