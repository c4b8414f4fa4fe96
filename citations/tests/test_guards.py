"""The guard: a tolerant match never verifies a quote that says something else.

Each trap differs from the source by one meaning-bearing token; all of them
are similar enough to pass a plain 0.85 similarity threshold.
"""

from __future__ import annotations

import pytest

from citations.cascade import verify_quote
from citations.cascade.guards import features, meaning_difference, paraphrase_difference
from citations.cascade.refusal import rule_of
from citations.cascade.verdict import Verdict
from citations.tests.sources import SCANNED_PREAMBLE

SOURCE = (
    "Section 4.2. The Supplier shall deliver the Goods within 30 days of the Order Date. "
    "The Buyer may not assign this Agreement without the Supplier's prior written consent. "
    "The Licensor shall indemnify the Licensee against all claims and losses. "
    "The fee of $1,000 is payable on 1 March 2023 and bears interest at 5% per annum. "
    "This licence is non-exclusive and limited to the Territory."
)


def _fails(quote: str) -> Verdict:
    verdict = verify_quote(SOURCE, quote)
    assert not verdict.verified, f"trap verified: {quote!r} -> {verdict.source_text!r}"
    assert verdict.method == "failed" and verdict.match_type == "not_found"
    assert verdict.confidence is None and verdict.start is None
    return verdict


def test_a_changed_number_fails_and_the_reason_names_both_numbers():
    verdict = _fails(
        "The Supplier shall deliver the Goods within 60 days of the Order Date."
    )
    assert verdict.rule == "meaning.number", verdict.reason
    # The difference shown names both numbers, in their words.
    reason = verdict.reason
    assert "'60'" in reason and "'30'" in reason
    assert "60 days" in reason and "30 days" in reason


def test_a_dropped_negation_fails():
    verdict = _fails(
        "The Buyer may assign this Agreement without the Supplier's prior written consent."
    )
    assert verdict.rule == "meaning.negation", verdict.reason
    assert "'not'" in verdict.reason


def test_an_added_negation_fails():
    verdict = _fails(
        "The Supplier shall not deliver the Goods within 30 days of the Order Date."
    )
    assert verdict.rule == "meaning.negation", verdict.reason


@pytest.mark.parametrize(
    ("quote", "rule"),
    [
        (
            "The Supplier may deliver the Goods within 30 days of the Order Date.",
            "meaning.modal",
        ),
        (
            "The Supplier must deliver the Goods within 30 days of the Order Date.",
            "meaning.modal",
        ),
        (
            "The Buyer shall not assign this Agreement without the Supplier's prior",
            "meaning.modal",
        ),
        (
            "The fee of $10,000 is payable on 1 March 2023 and bears interest",
            "meaning.number",
        ),
        (
            "The fee of $1,000 is payable on 1 March 2024 and bears interest",
            "meaning.number",
        ),
        (
            "The fee of $1,000 is payable on 1 April 2023 and bears interest",
            "meaning.date",
        ),
        (
            "and bears interest at 50% per annum. This licence is non-exclusive",
            "meaning.number",
        ),
        (
            "The fee of €1,000 is payable on 1 March 2023 and bears interest",
            "meaning.currency",
        ),
        (
            "and bears interest at 5 per annum. This licence is non-exclusive",
            "meaning.percentage",
        ),
    ],
)
def test_changed_modals_amounts_dates_and_percentages_fail(quote, rule):
    verdict = _fails(quote)
    assert verdict.rule == rule, verdict.reason


@pytest.mark.parametrize(
    "quote",
    [
        "The Licensee shall indemnify the Licensor against all claims and losses.",
        "The Licensor shall indemnify the Licensee against all claims or losses.",
        "The Seller may not assign this Agreement without the Supplier's prior written consent.",
        "This licence is exclusive and limited to the Territory.",
        "This licence is non-exclusive and unlimited to the Territory.",
        "The Licensor shall indemnify the Licensee against some claims and losses.",
        "The Supplier shall deliver the Goods within 30 days of the Invoice Date.",
        "The Supplier shall deliver the defective Goods within 30 days of the Order Date.",
        # one word in five replaced
        "The Vendor shall ship the Goods within 30 days of the Purchase Date.",
    ],
)
def test_a_different_word_fails_even_when_very_similar(quote):
    _fails(quote)


def test_swapped_modals_fail_even_though_the_same_words_appear():
    text = "The Licensor may audit the books and the Licensee shall keep records for audit."
    verdict = verify_quote(
        text,
        "The Licensor shall audit the books and the Licensee may keep records for audit.",
    )
    assert not verdict.verified


def test_ocr_damaged_digits_fail_rather_than_guess():
    text = "Payment is due within 3O days of the invoice date, without deduction."
    verdict = verify_quote(
        text, "Payment is due within 30 days of the invoice date, without deduction."
    )
    assert not verdict.verified
    assert verdict.rule == "meaning.number", verdict.reason


def test_ocr_damaged_negation_and_modal_words_are_still_read():
    text = (
        "The Buyer rnay n0t assign this Agreernent without prior written consent. "
        "This Agreement binds the parties."
    )
    verdict = verify_quote(
        text, "The Buyer may not assign this Agreement without prior written consent."
    )
    assert verdict.verified, verdict.reason


def test_features_read_numbers_words_and_contractions():
    found = [
        (f.kind, f.value)
        for f in features("can't pay $1,000.50 or 5 per cent before 1 june")
    ]
    assert ("negation", "not") in found and ("modal verb", "can") in found
    assert ("number", "1000.50") in found and ("currency", "$") in found
    assert ("percentage", "%") in found and ("date", "june") in found


def test_meaning_difference_is_none_for_the_same_meaning():
    assert (
        meaning_difference("within 30 days, not later", "within 30 days, not later")
        is None
    )


def test_paraphrase_must_keep_the_quotes_numbers_and_add_no_negation():
    dropped = paraphrase_difference(
        "payable in 30 days", "the fee is due thirty days after"
    )
    assert rule_of(dropped) == "meaning.number", dropped
    assert (
        paraphrase_difference("payable in 30 days", "due within 30 days of invoice")
        is None
    )
    added = paraphrase_difference("may assign", "may not assign")
    assert rule_of(added) == "meaning.negation", added
    assert "negation added in source" in str(added)


@pytest.mark.parametrize(
    ("quote", "span", "rule"),
    [
        ("within 30 days", "within 60 days", "meaning.number"),
        ("at 5% a year", "at 5 a year", "meaning.percentage"),
        ("a fee of $500", "a fee of €500", "meaning.currency"),
        ("on 1 june", "on 1 july", "meaning.date"),
        ("the buyer shall pay", "the buyer shall not pay", "meaning.negation"),
        ("the buyer shall pay", "the buyer may pay", "meaning.modal"),
        ("under section 8(b) hereof", "under section 8(c) hereof", "meaning.label"),
        ("a ratio of 2-3 parts", "a ratio of 2/3 parts", "meaning.number_separator"),
        ("under §§ 4 and 5", "under § 4 and 5", "meaning.section_sign"),
    ],
)
def test_each_kind_of_meaning_is_its_own_rule_in_the_meaning_table(quote, span, rule):
    difference = meaning_difference(quote, span)
    assert rule_of(difference) == rule, difference


def test_a_real_word_one_look_alike_away_fails_in_a_clean_source():
    # "fails"/"falls" and "mail"/"mall" are equal up to i/l, and all four are
    # words: in a text without OCR damage that is a different word.
    text = (
        "If the Manufacturer fails to pay any sum when due, the Distributor may suspend "
        "performance. All notices shall be delivered by hand or by e-mail to the office."
    )
    for quote, word in (
        (
            "If the Manufacturer falls to pay any sum when due, the Distributor may",
            "falls",
        ),
        ("All notices shall be delivered by hand or by e-mall to the office", "mall"),
    ):
        verdict = verify_quote(text, quote)
        assert not verdict.verified
        assert verdict.rule == "wording.real_word_swap", verdict.reason
        assert f"quote has '{word}'" in verdict.reason
        assert "shows no OCR damage" in verdict.reason


def test_a_word_split_before_its_final_t_is_no_lost_apostrophe():
    # "Agreemen t" is "Agreement"; "doesn t", "can t", "couldn t" are "n't".
    assert not [f for f in features("this agreemen t shall") if f.kind == "negation"]
    assert not [f for f in features("the shipnnen t arrived") if f.kind == "negation"]
    for text in ("the buyer doesn t pay", "we can t", "it couldn t", "it c0uldn t"):
        assert [f.value for f in features(text) if f.kind == "negation"] == ["not"], (
            text
        )
    text = "This Agreemen t shall bind the parties and their successors in title."
    assert verify_quote(
        text, "This Agreement shall bind the parties and their successors"
    ).verified
    text = "The Buyer doesn t pay the fee for the Goods delivered late in the month."
    verdict = verify_quote(
        text, "The Buyer does pay the fee for the Goods delivered late"
    )
    assert not verdict.verified
    assert verdict.rule == "meaning.negation", verdict.reason


PARTIES = (
    "The Employer shall pay the Employee monthly. The Employee shall report to the "
    "Employer. The Licensor grants the Licensee a licence; the Licensee shall pay "
    "the Licensor. "
)


def test_damage_on_the_ending_that_tells_two_parties_apart_leaves_the_party_in_doubt():
    # "Employex": Employer or Employee, one letter changed either way.
    text = (
        PARTIES
        + "Upon termination the Employex shall return all documents within 30 days."
    )
    for quote in (
        "Upon termination the Employer shall return all documents within 30 days",
        "Upon termination the Employee shall return all documents within 30 days",
    ):
        verdict = verify_quote(text, quote)
        assert not verdict.verified
        assert verdict.rule == "wording.party_rival", verdict.reason


def test_damage_that_only_one_party_explains_still_reads_as_that_party():
    # "Licensce" is Licensee with c/e; Licensor would need two changes.
    text = (
        PARTIES
        + "Upon termination the Licensce shall return all documents within 30 days."
    )
    verdict = verify_quote(
        text, "Upon termination the Licensee shall return all documents within 30 days"
    )
    assert verdict.verified, verdict.reason
    verdict = verify_quote(
        text, "Upon termination the Licensor shall return all documents within 30 days"
    )
    assert not verdict.verified


def test_damage_that_reads_better_as_the_plain_word_is_no_negating_prefix():
    # "nnaterial" is "material" (nn for m) before it is "immaterial";
    # "invaIid" is "invalid" and never "valid".
    text = "Any nnaterial breach of this Agreement by the Supplier entitles the Buyer to damages."
    verdict = verify_quote(
        text, "Any material breach of this Agreement by the Supplier entitles"
    )
    assert verdict.verified, verdict.reason
    text = (
        "The clause is invaIid and of no effect between the parties to this Agreement."
    )
    verdict = verify_quote(
        text, "The clause is valid and of no effect between the parties"
    )
    assert not verdict.verified


def test_a_negating_prefix_fits_the_word_it_negates():
    # il- negates only before l, ir- before r, im- before m, p or b: "llie"
    # (OCR for "the") is no damaged "il" + "the", however much "lithe" looks
    # like it; "iIlegal" against "legal" is still a negation.
    text = "The Buyer must pay a fee for each calendar month of llie Term, in advance."
    verdict = verify_quote(
        text, "The Buyer must pay a fee for each calendar month of the Term"
    )
    assert verdict.verified, verdict.reason
    text = "The claim is iIlegal under the laws of England and Wales in every respect."
    verdict = verify_quote(
        text, "The claim is legal under the laws of England and Wales in every respect."
    )
    assert not verdict.verified
    assert verdict.rule == "wording.code_respelled", verdict.reason


def test_a_capital_c_read_as_g_is_damage_only_at_a_words_start():
    text = (
        "The Gompany shall keep accurate books and records and allow an audit once "
        "a year. The Company's auditor is named in Schedule 2."
    )
    verdict = verify_quote(
        text, "The Company shall keep accurate books and records and allow"
    )
    assert verdict.verified, verdict.reason
    text = (
        "Neither party is liable for any failure caused by an event of forge majeure."
    )
    verdict = verify_quote(
        text, "Neither party is liable for any failure caused by an event of force"
    )
    assert not verdict.verified


@pytest.mark.parametrize("prefix", ["", SCANNED_PREAMBLE])
@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # One glyph read as two is read back before the quote's word wins
        # on frequency: "Eitlier" is Either (li for h), not Neither.
        (
            "Eitlier party may terminate this Agreement upon thirty days notice.",
            "Neither party may terminate this Agreement upon thirty days notice.",
        ),
        (
            "The Supplier sliould use reasonable efforts to deliver on time.",
            "The Supplier could use reasonable efforts to deliver on time.",
        ),
        (
            "The Licensee may riow assign this Agreement to an affiliate.",
            "The Licensee may not assign this Agreement to an affiliate.",
        ),
        (
            "The total liability shall not exceed eiglity dollars in any year.",
            "The total liability shall not exceed eight dollars in any year.",
        ),
        # A damaged token another guard word explains about as well.
        (
            "The Licensee shoul assign this Agreement to an affiliate.",
            "The Licensee shall assign this Agreement to an affiliate.",
        ),
        (
            "The total liability shall not exceed five miliion dollars.",
            "The total liability shall not exceed five billion dollars.",
        ),
        # An "n't" OCR damaged around its apostrophe is still a negation.
        (
            "The warranty isri't transferable to any third party at all.",
            "The warranty is transferable to any third party at all.",
        ),
        (
            "The Licensee cau't assign this Agreement to any third party.",
            "The Licensee can assign this Agreement to any third party.",
        ),
        (
            "The Company doesn'l guarantee delivery dates for any order.",
            "The Company does guarantee delivery dates for any order.",
        ),
        (
            "The Licensee can' assign this Agreement to any third party.",
            "The Licensee can assign this Agreement to any third party.",
        ),
    ],
)
def test_damage_never_reads_as_a_different_guard_word(prefix, source, quote):
    verdict = verify_quote(prefix + source, quote)
    assert not verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Eitlier party may terminate this Agreement upon thirty days notice.",
            "Either party may terminate this Agreement upon thirty days notice.",
        ),
        (
            "The Supplier sliould use reasonable efforts to deliver on time.",
            "The Supplier should use reasonable efforts to deliver on time.",
        ),
    ],
)
def test_a_glyph_read_as_two_reads_as_the_quotes_word(source, quote):
    verdict = verify_quote(SCANNED_PREAMBLE + source, quote)
    assert verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # A 0 between two letters is a letter: "r0t" is "not".
        (
            "The Employee shall r0t discloae the terms of this Agreement to anyone.",
            "The Employee shall not disclose the terms of this Agreement to anyone.",
        ),
        # Glyph for glyph, where the skeleton would read "ii" as "u".
        (
            "Interest accrues from the due date unt ii payment in full.",
            "Interest accrues from the due date until payment in full.",
        ),
        (
            "Neither party must be ii able for any failure caused by strike.",
            "Neither party must be liable for any failure caused by strike.",
        ),
        # Two quote words run together and damaged in one span word.
        (
            "Neither party sliallbe liable for any failure caused by strike.",
            "Neither party shall be liable for any failure caused by strike.",
        ),
        # The token alignment pairs the first "by" with the second; the
        # characters pair it with "byhand".
        (
            "Notices are delivered byhand, by eou rjer or hy e-mail to the office.",
            "Notices are delivered by hand, by courier or by e-mail to the office.",
        ),
    ],
)
def test_damage_that_spacing_hides_reads_as_the_quotes_words(source, quote):
    verdict = verify_quote(SCANNED_PREAMBLE + source, quote)
    assert verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # The same damage never lends the quote a guard word it lacks.
        (
            "The Employee shall r0t discloae the terms of this Agreement to anyone.",
            "The Employee shall now disclose the terms of this Agreement to anyone.",
        ),
        (
            "The Employee shall r0t discloae the terms of this Agreement to anyone.",
            "The Employee shall disclose the terms of this Agreement to anyone.",
        ),
        (
            "Neither party sliallbe liable for any failure caused by strike.",
            "Neither party may be liable for any failure caused by strike.",
        ),
        # One damaged word is not two run together: "nohe" is "none".
        (
            "The Seller shall deliver nohe of the goods to the Buyer at all.",
            "The Seller shall deliver in one of the goods to the Buyer at all.",
        ),
        # A 0 that is a letter still says its guard word: "n0t" is no "nor",
        # nor "net".
        (
            "The Licensee shall n0t be liable for any indirect damages at all.",
            "The Licensee shall nor be liable for any indirect damages at all.",
        ),
        (
            "The Licensee shall n0t be liable for any indirect damages at all.",
            "The Licensee shall net be liable for any indirect damages at all.",
        ),
        (
            "The Provider acknowledges that the Recipient isriot responsible.",
            "The Provider acknowledges that the Recipient is responsible.",
        ),
    ],
)
@pytest.mark.parametrize("prefix", ["", SCANNED_PREAMBLE])
def test_damage_that_spacing_hides_grants_no_other_guard_word(prefix, source, quote):
    verdict = verify_quote(prefix + source, quote)
    assert not verdict.verified, verdict.reason


def test_a_0_between_letters_in_a_clean_source_is_no_damaged_not():
    verdict = verify_quote(
        "The Employee shall r0t disclose the terms of this Agreement.",
        "The Employee shall not disclose the terms of this Agreement.",
    )
    assert not verdict.verified, verdict.reason


def test_a_sign_before_a_currency_belongs_to_the_amount():
    source = SCANNED_PREAMBLE + "The Seller shall pay -$500 to the Buyer on demand."
    verdict = verify_quote(source, "The Seller shall pay $500 to the Buyer on demand.")
    assert not verdict.verified


@pytest.mark.parametrize("prefix", ["", SCANNED_PREAMBLE])
@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # A letter naming a part after a number, spaced or not (red team).
        (
            "as provided in Section 8 b of this Agreement, the Buyer shall pay.",
            "as provided in Section 8 h of this Agreement",
        ),
        (
            "as provided in Section 8b of this Agreement, the Buyer shall pay.",
            "as provided in Section 8h of this Agreement",
        ),
        (
            "as provided in Sec. 8b of this Agreement, the Buyer shall pay.",
            "as provided in Sec. 8h of this Agreement",
        ),
        (
            "The Buyer shall pay on the l2th day of each month of the Term.",
            "The Buyer shall pay on the 2th day of each month of the Term.",
        ),
        # Red team, round 3: part letters compare as written...
        (
            "The Buyer shall comply with its duties under Section 2(l) of this Agreement.",
            "The Buyer shall comply with its duties under Section 2(i) of this Agreement",
        ),
        (
            "The Buyer shall comply with its duties under Exhibit I of this Agreement.",
            "The Buyer shall comply with its duties under Exhibit l of this Agreement",
        ),
        # ... and a fraction is a number.
        (
            "The Buyer shall pay the Seller \u00bc of the fees on delivery.",
            "The Buyer shall pay the Seller \u00be of the fees on delivery.",
        ),
        # A glyph that looks like a digit beside digits is one.
        (
            "The Buyer shall pay a fee of $l5 for each month of the Term.",
            "The Buyer shall pay a fee of $5 for each month of the Term.",
        ),
        (
            "The Buyer shall deliver within l0 days of the order date.",
            "The Buyer shall deliver within 0 days of the order date.",
        ),
        (
            "The Buyer shall pay I50 dollars for each month of the Term.",
            "The Buyer shall pay 50 dollars for each month of the Term.",
        ),
    ],
)
def test_letters_beside_numbers_keep_their_meaning(prefix, source, quote):
    verdict = verify_quote(prefix + source, quote)
    assert not verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # Words the document uses are words, in a clean source.
        (
            "The CEO and the COO shall each sign. Any expense above $10,000 must "
            "be approved by the CEO in writing.",
            "Any expense above $10,000 must be approved by the COO in writing.",
        ),
        (
            "The Borrower is Kronos Ltd and the Lender is Krones Ltd. Kronos shall "
            "repay Krones.",
            "The Borrower is Krones Ltd and the Lender is Kronos Ltd.",
        ),
        # Times compare as written.
        (
            "The Seller shall deliver the Goods no later than 5 pm on the Delivery "
            "Date.",
            "The Seller shall deliver the Goods no later than 5 am on the Delivery "
            "Date.",
        ),
        (
            "Notices received after 5:00 pm EST on a business day are deemed received.",
            "Notices received after 5:00 pm CST on a business day are deemed received.",
        ),
    ],
)
def test_a_word_or_time_of_the_document_never_reads_as_another(source, quote):
    verdict = verify_quote(source, quote)
    assert not verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The Company is a corporation organized under the laws of CA and has "
            "its principal office in Atlanta.",
            "The Company is a corporation organized under the laws of GA and has "
            "its principal office in Atlanta.",
        ),
        (
            "The fee is payable in C$ at the exchange rate published by the Bank "
            "on the first business day.",
            "The fee is payable in A$ at the exchange rate published by the Bank "
            "on the first business day.",
        ),
        (
            "Deliveries are made under Incoterms FOB Shanghai, with risk passing "
            "at the ship's rail to Buyer.",
            "Deliveries are made under Incoterms FCB Shanghai, with risk passing "
            "at the ship's rail to Buyer.",
        ),
        # The code may be the source's side: a lowercase quote is no excuse.
        (
            "Deliveries are made under Incoterms FCB Shanghai, with risk passing "
            "at the ship's rail to Buyer.",
            "deliveries are made under incoterms fob shanghai, with risk passing "
            "at the ship's rail to buyer.",
        ),
    ],
)
def test_in_a_clean_source_a_code_is_spelled_as_written(source, quote):
    # "C" and "G", "O" and "C" are look-alike glyphs, but nothing misread a
    # clean text: a code with another letter is another code.
    verdict = verify_quote(source, quote)
    assert not verdict.verified
    assert verdict.rule == "wording.code_respelled", verdict.reason


_CODE = "wording.code_respelled"
_CLEAN = "wording.clean_source"
_OTHER = "wording.implausible_damage"
_SWAP = "wording.real_word_swap"


@pytest.mark.parametrize(
    ("written", "quoted", "rules"),
    [
        # The rules: quoting `quoted` over `written`, then the other way.
        # A unit's letter is a code's. Where the quote's glyph is no
        # misprint of the source's (plausible_ocr reads one way round), the
        # word is another word; else the clean source's catch-all decides.
        ("40 MWh", "40 GWh", (_CODE, _CODE)),  # units
        ("40 MWh", "40 kWh", (_CODE, _CODE)),
        ("50 µg", "50 mg", (_CLEAN, _OTHER)),
        ("25 °C", "25 °F", (_CLEAN, _OTHER)),
        ("25°C", "25°F", (_CLEAN, _OTHER)),
        ("legal@acme.com", "legal@acrne.com", (_CLEAN, _CLEAN)),  # addresses
        ("https://portal.acme.com", "http://portal.acme.com", (_CLEAN, _CLEAN)),
        ("Atlanta, Ga.", "Atlanta, Ca.", (_CLEAN, _CLEAN)),  # abbreviations
        ("laws of N.J.", "laws of N.Y.", (_CLEAN, _OTHER)),
        ("to the U.S.A.", "to the U.A.E.", (_CLEAN, _CLEAN)),
        ("Dr. Kern", "Dr. Kem", (_CLEAN, _CLEAN)),  # names, in the dictionary or not
        ("Dr. Cole", "Dr. Cale", (_CLEAN, _CLEAN)),
        ("Dr. Brandt", "Dr. Brandl", (_SWAP, _SWAP)),
    ],
)
def test_in_a_clean_source_the_quotes_words_are_the_sources(written, quoted, rules):
    # A one-glyph slip in a clean text is another unit, address, state or
    # person; nothing misread the source.
    template = (
        "The parties agree that {} is named in the Schedule, and that every "
        "notice under this Agreement shall refer to it."
    )
    for (a, b), rule in zip(((written, quoted), (quoted, written)), rules, strict=True):
        verdict = verify_quote(template.format(a), template.format(b))
        assert not verdict.verified, (a, b)
        assert verdict.rule == rule, verdict.reason
    # The same slip in the source of a scan reads as damage.
    scanned = SCANNED_PREAMBLE + template.format("Dr. Kem")
    assert verify_quote(scanned, template.format("Dr. Kern")).verified


@pytest.mark.parametrize(
    ("written", "quoted"),
    [
        ("Anna Kem", "Anna Kern"),  # a look-alike spelling
        ("Ed Cale", "Ed Cole"),
        ("laws of Delavare", "laws of Delaware"),  # a place: no word, used once
    ],
)
def test_in_a_clean_source_a_capitalised_word_without_a_title_is_as_written(
    written, quoted
):
    # Without "Dr." before it a name looks like a damaged defined term; but
    # a defined term recurs, and the quote's spelling of this one does not.
    template = (
        "The parties agree that {} is named in the Schedule, and that every "
        "notice under this Agreement shall refer to it."
    )
    verdict = verify_quote(template.format(written), template.format(quoted))
    assert not verdict.verified
    assert verdict.rule == "wording.clean_source", verdict.reason
    # The same slip where the document uses the quote's word elsewhere, as a
    # defined term is used, reads as a misprint.
    source = template.format(written) + f" Schedule 1 names {quoted}."
    assert verify_quote(source, template.format(quoted)).verified


@pytest.mark.parametrize(
    ("damaged", "word"),
    [
        ("Licensar", "Licensor"),  # no word, used once: a misprint
        ("0f", "of"),
        ("hy", "by"),
        ("Agreernent", "Agreement"),
    ],
)
def test_in_a_clean_source_a_stray_misprint_still_reads_as_the_quotes_word(
    damaged, word
):
    template = (
        "The Licensor grants a licence {} the Software under this Agreement, and "
        "the Licensee accepts it."
    )
    sentence = template.replace("{}", "{} use of".replace("{}", "to {}"))
    source = sentence.replace("to {}", "to {}").format(damaged)
    quote = sentence.format(word)
    verdict = verify_quote(source, quote)
    assert verdict.verified, verdict.reason
    assert source[verdict.start : verdict.end] == verdict.source_text


@pytest.mark.parametrize("prefix", ["", SCANNED_PREAMBLE])
@pytest.mark.parametrize(
    ("written", "quoted"),
    [
        ("2-3 percent", "2/3 percent"),  # a range is no fraction
        ("2/3 percent", "2-3 percent"),
        ("10/15", "10-15"),  # nor a date
        ("10-15", "10 15"),  # nor two numbers
        ("5 - 10", "5 10"),
        ("3:1", "3/1"),  # nor is a ratio
    ],
)
def test_what_joins_two_numbers_is_part_of_them(prefix, written, quoted):
    template = (
        "The Licensee shall pay a royalty of {} of the net sales within thirty "
        "days after the end of each quarter."
    )
    verdict = verify_quote(prefix + template.format(written), template.format(quoted))
    assert not verdict.verified
    assert verdict.rule == "meaning.number_separator", verdict.reason
    assert f"'{quoted.split()[0]}" in verdict.reason


@pytest.mark.parametrize("prefix", ["", SCANNED_PREAMBLE])
@pytest.mark.parametrize(
    ("template", "written", "quoted"),
    [
        # A leading decimal point is part of the number.
        ("an interest rate of {} per month on any overdue amount", ".5%", "5%"),
        ("a one-time fee of {} upon execution of this Agreement", "$.50", "$50"),
        # Bounds and signs beside a number.
        ("insurance coverage of {} $5,000,000 per occurrence", "\u2265", "\u2264"),
        ("insurance coverage of {} $5,000,000 per occurrence", ">=", "<="),
        ("an adjustment of {} as shown on the Closing Statement", "~5%", "5%"),
        ("an adjustment of {} as shown on the Closing Statement", "\u00b15%", "+5%"),
        ("by giving the other party {} prior written notice", "30+ days'", "30 days'"),
        (
            "the Contractor shall supply {} units of the Equipment",
            "5 \u00d7 10",
            "5 + 10",
        ),
        # An amount in brackets is negative.
        (
            "an adjustment of {} as shown on the Closing Statement",
            "$(500,000)",
            "$500,000",
        ),
        (
            "an adjustment of {} as shown on the Closing Statement",
            "($500,000)",
            "$500,000",
        ),
    ],
)
def test_marks_that_bound_or_sign_a_number_are_part_of_it(
    prefix, template, written, quoted
):
    sentence = "The Parties agree to {}, subject to the terms of this Agreement."
    source, quote = (sentence.format(template.format(x)) for x in (written, quoted))
    assert not verify_quote(prefix + source, quote).verified
    assert not verify_quote(prefix + quote, source).verified


def test_a_bound_written_in_two_ways_or_a_number_word_in_brackets_is_no_change():
    source = (
        "The Supplier shall maintain coverage of >= $5,000,000 for thirty (30) days."
    )
    quote = "The Supplier shall maintain coverage of \u2265 $5,000,000 for thirty (30) days."
    assert verify_quote(source, quote).verified


@pytest.mark.parametrize("prefix", ["", SCANNED_PREAMBLE])
@pytest.mark.parametrize(
    ("written", "quoted"),
    [
        ("The Lender's rights", "The Lenders' rights"),  # one owner or several
        ("Each Holder's consent", "Each Holders' consent"),
        ("The Employees' salaries", "The Employee's salaries"),
    ],
)
def test_a_moved_apostrophe_is_another_owner(prefix, written, quoted):
    rest = " under this Agreement may be reviewed annually by the Committee."
    for source, quote in ((written, quoted), (quoted, written)):
        verdict = verify_quote(prefix + source + rest, quote + rest)
        assert not verdict.verified
        assert verdict.rule == "wording.possessive", verdict.reason


def test_an_apostrophe_is_compared_as_written_in_clean_text_and_may_be_lost_in_a_scan():
    source = (
        "The Sellers obligations shall survive the Closing for a period of two years."
    )
    quote = (
        "The Seller's obligations shall survive the Closing for a period of two years."
    )
    assert not verify_quote(source, quote).verified
    assert verify_quote(SCANNED_PREAMBLE + source, quote).verified
    its = "The Company shall maintain {} records at its principal office in Boston."
    assert not verify_quote(its.format("its"), its.format("it's")).verified


@pytest.mark.parametrize(
    ("written", "quoted"), [("Stern", "Stem"), ("Modern", "Modem"), ("Clear", "Dear")]
)
def test_in_a_clean_source_a_glyph_pair_between_two_words_is_another_word(
    written, quoted
):
    # "rn" and "m", "cl" and "d" look alike to OCR, but both are words.
    source = f"This Agreement is made between {written} Capital LLC and the Investors."
    for a, b in ((written, quoted), (quoted, written)):
        verdict = verify_quote(source.replace(written, a), source.replace(written, b))
        assert not verdict.verified
        assert verdict.rule == "wording.real_word_swap", verdict.reason
    scan = SCANNED_PREAMBLE + source.replace(written, quoted)
    assert verify_quote(scan, source).verified


def test_a_range_quoted_with_another_dash_or_spacing_is_the_same_range():
    source = "Delivery takes 10\u201315 business days from the date of the order."
    for quote in (
        "Delivery takes 10-15 business days from the date of the order.",
        "Delivery takes 10 - 15 business days from the date of the order.",
    ):
        assert verify_quote(source, quote).verified, quote


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("the fees set out in Section 8i within thirty days after the date", "8l"),
        ("the fees set out in Section 12b within thirty days after the date", "12h"),
    ],
)
def test_in_a_clean_source_letters_beside_digits_are_spelled_as_written(source, quote):
    word = source.split()[6]
    verdict = verify_quote(source, source.replace(word, quote))
    assert not verdict.verified
    scanned = verify_quote(SCANNED_PREAMBLE + source, source.replace(word, quote))
    # In a scan "8l" may be OCR's "8i"; "12h" is no misreading of "12b".
    assert scanned.verified == (quote == "8l"), scanned.reason


def test_in_a_scan_a_damaged_code_still_reads_as_the_quotes():
    source = SCANNED_PREAMBLE + (
        "The Company is a corporation organized under the laws of GA and has "
        "its principal office in Sacramento."
    )
    quote = (
        "The Company is a corporation organized under the laws of CA and has its "
        "principal office in Sacramento."
    )
    verdict = verify_quote(source, quote)
    assert verdict.verified, verdict.reason
    assert source[verdict.start : verdict.end].startswith("The Company")


def test_a_time_written_with_full_stops_is_the_same_time():
    source = "Notices received after 5:00 p.m. on a business day are deemed received."
    quote = "Notices received after 5:00 pm on a business day are deemed received."
    assert verify_quote(source, quote).verified


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Notices to Indemnitors shall be sent by courier to the address below.",
            "Notices to Indemnitees shall be sent by courier to the address below.",
        ),
        (
            "The Licensors' obligations survive termination of this Agreement.",
            "The Licensees' obligations survive termination of this Agreement.",
        ),
    ],
)
def test_a_party_in_the_plural_never_reads_as_its_counterpart(source, quote):
    verdict = verify_quote(source, quote)
    assert not verdict.verified
    assert verdict.rule == "wording.party_rival", verdict.reason


@pytest.mark.parametrize(
    ("damaged", "quote"),
    [
        ("The Licenso rshould appoint", "The Licensee should appoint"),
        ("The Lesso shall pay", "The Lessee shall pay"),
        ("The License shall pay", "The Licensor shall pay"),
    ],
)
def test_a_counterpart_no_dictionary_lists_still_names_the_other_party(damaged, quote):
    # "Licensor" and "Lessor" are in no word list, and this scan uses
    # neither elsewhere; "Licenso" is still a letter short of "Licensor",
    # and two changes from "Licensee".
    source = SCANNED_PREAMBLE + (
        f"The Company and the Seller agree. {damaged} a qualified officer to "
        "supervise the flow of work under this Agreement."
    )
    verdict = verify_quote(
        source, f"{quote} a qualified officer to supervise the flow of work"
    )
    assert not verdict.verified
    assert verdict.rule == "wording.party_rival", verdict.reason


@pytest.mark.parametrize("prefix", ["", SCANNED_PREAMBLE])
@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # A real word where "not" cannot stand is no damaged "not".
        (
            "The Buyer shall pay the net amount of each invoice within thirty days.",
            "The Buyer shall pay the not amount of each invoice within thirty days",
        ),
        (
            "Payment terms are net 30 days from the date of each invoice.",
            "Payment terms are not 30 days from the date of each invoice",
        ),
        # A ticker with a letter more or less is another company.
        (
            "The Fund may hold shares of GOOG and other listed securities.",
            "The Fund may hold shares of GOOGL and other listed securities",
        ),
        (
            "The Fund may hold shares of MSFT and other listed securities.",
            "The Fund may hold shares of MSF and other listed securities",
        ),
        # A spaced minus between a word and a number is the number's sign.
        (
            "The adjustment shall be - 500,000 dollars as stated in the statement.",
            "The adjustment shall be 500,000 dollars as stated in the statement",
        ),
        (
            "The adjustment shall be 500,000 dollars as stated in the statement.",
            "The adjustment shall be - 500,000 dollars as stated in the statement",
        ),
    ],
)
def test_a_scan_never_reads_a_real_word_ticker_or_sign_as_the_quotes(
    prefix, source, quote
):
    verdict = verify_quote(prefix + source, quote)
    assert not verdict.verified, verdict.reason
    assert verdict.rule in {
        "meaning.negation",
        "meaning.number",
        "wording.code_letter_added",
        "wording.code_respelled",
    }, verdict.reason


@pytest.mark.parametrize(
    ("damaged", "quote"),
    [
        # Where "not" stands, a real word in a scan may be a damaged "not".
        (
            "The Seller shall hot be liable for any delay in delivery.",
            "The Seller shall not be liable for any delay in delivery",
        ),
        # A heading's word in capitals loses a thin letter like any word.
        (
            "NOTCE OF TERMINATION shall be given in writing to the Buyer.",
            "NOTICE OF TERMINATION shall be given in writing to the Buyer",
        ),
        # A stray stroke before a capital is no code of its own.
        (
            "Notices are delivered by hand to the iLicensor's registered office.",
            "Notices are delivered by hand to the Licensor's registered office",
        ),
        # A range stays a range.
        (
            "The fee for items 10 - 15 is payable on delivery of the Goods.",
            "The fee for items 10-15 is payable on delivery of the Goods",
        ),
    ],
)
def test_in_a_scan_damage_where_the_word_fits_still_reads(damaged, quote):
    verdict = verify_quote(SCANNED_PREAMBLE + damaged, quote)
    assert verdict.verified, verdict.reason
