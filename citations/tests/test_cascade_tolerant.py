"""Stage 2: presentation damage and OCR noise verify, at the right offsets."""

from __future__ import annotations

import pytest

from citations.cascade import verify_quote
from citations.tests.sources import SCANNED_PREAMBLE

CLEAN = (
    'The Supplier shall deliver the Goods within thirty (30) days of the "Order Date". '
    "Termination of this Agreement shall not affect any rights accrued before termination. "
    "The final invoice is payable in full without set-off or deduction."
)


def _assert_span(text: str, verdict, expected: str) -> None:
    assert verdict.verified, verdict.reason
    assert text[verdict.start : verdict.end] == verdict.source_text
    assert verdict.source_text == expected


@pytest.mark.parametrize(
    ("damaged_source", "quote"),
    [
        (  # line breaks, a run of spaces and a tab
            "The Supplier shall\ndeliver the  Goods\twithin thirty (30) days",
            "The Supplier shall deliver the Goods within thirty (30) days",
        ),
        (  # CRLF and NBSP
            "Termination of this\r\nAgreement shall\u00a0not affect any rights",
            "Termination of this Agreement shall not affect any rights",
        ),
        (  # line-break hyphenation
            "Termi-\nnation of this Agreement shall not affect any rights",
            "Termination of this Agreement shall not affect any rights",
        ),
        (  # soft hyphen and zero-width space
            "The final in\u00advoice is pay\u200bable in full",
            "The final invoice is payable in full",
        ),
        (  # ligatures
            "The ﬁnal invoice is payable in full without set-oﬀ",
            "The final invoice is payable in full without set-off",
        ),
        (  # smart quotes and an en dash
            "within thirty (30) days of the “Order Date” – in full",
            'within thirty (30) days of the "Order Date" - in full',
        ),
        (  # case
            "THE FINAL INVOICE IS PAYABLE IN FULL",
            "The final invoice is payable in full",
        ),
    ],
)
def test_presentation_damage_is_a_normalized_match_on_the_documents_own_text(
    damaged_source, quote
):
    text = "Preamble. " + damaged_source + " Postscript."
    verdict = verify_quote(text, quote)
    _assert_span(text, verdict, damaged_source)
    assert verdict.method == "tolerant_match"
    assert verdict.match_type == "normalized"
    assert verdict.confidence == 1.0


def test_the_quote_may_carry_the_damage_instead_of_the_source():
    quote = "Termination of this\nAgree-\nment shall not  affect any rights"
    verdict = verify_quote(CLEAN, quote)
    _assert_span(
        CLEAN, verdict, "Termination of this Agreement shall not affect any rights"
    )


@pytest.mark.parametrize(
    ("ocr_source", "quote"),
    [
        (
            "The Supp1ier sha1l de1iver the Goods witbin thirty (30) days of the 0rder Date",
            "The Supplier shall deliver the Goods within thirty (30) days of the Order Date",
        ),
        (
            "Terrnination of this Agreernent shall not affect any rights accrued",
            "Termination of this Agreement shall not affect any rights accrued",
        ),
        (
            "The final invoice is payab1e in fu1l vvithout set-off or deduction",
            "The final invoice is payable in full without set-off or deduction",
        ),
        (
            "The king was very glad hereof,and caused the combatants to be brought",
            "The king was very glad hereof, and caused the combatants to be brought",
        ),
    ],
)
def test_ocr_confusions_verify_as_fuzzy_with_exact_boundaries(ocr_source, quote):
    # The defined terms recur, as they do in a contract (a capitalised word
    # used once in a clean text is as written: guards._stray_misprint).
    text = (
        "Header line.\n"
        + ocr_source
        + ".\nNext paragraph begins here. This Agreement binds the parties."
    )
    verdict = verify_quote(text, quote)
    _assert_span(text, verdict, ocr_source)
    assert verdict.method == "tolerant_match"
    assert verdict.match_type == "fuzzy"
    assert 0.85 <= verdict.confidence < 1.0


def test_digits_misread_inside_words_verify_but_numbers_never_bend():
    # "fu11" reads "full" after OCR folding and the quote has no digit there.
    text = "The final invoice is payable in fu11 without set-off or deduction."
    verdict = verify_quote(
        text, "The final invoice is payable in full without set-off or deduction."
    )
    assert verdict.verified, verdict.reason
    # A number is a number: "3O" is not "30", "1O" is not "10".
    for source in (
        "payable within 3O days of the invoice",
        "payable within 1O days of the invoice",
    ):
        quote = source.replace("3O", "30").replace("1O", "10")
        assert not verify_quote(source + " date.", quote + " date.").verified


def test_fuzzy_span_starts_and_ends_on_the_quoted_words():
    text = "xx The Buyer shal1 pay the Se1ler promptly. yy"
    verdict = verify_quote(text, "The Buyer shall pay the Seller promptly.")
    _assert_span(text, verdict, "The Buyer shal1 pay the Se1ler promptly.")


def test_fuzzy_in_a_long_document_finds_the_right_place():
    filler = " ".join(
        f"Clause {i} covers topic number {i} in detail." for i in range(3000)
    )
    target = "The Licensee sha1l maintain insurance covering product 1iability claims"
    text = filler + " " + target + " " + filler
    verdict = verify_quote(
        text, "The Licensee shall maintain insurance covering product liability claims"
    )
    _assert_span(text, verdict, target)


def test_the_cited_chunk_is_preferred_for_fuzzy_matches_too():
    sentence = (
        "The Licensee sha1l maintain insurance covering product 1iability claims."
    )
    text = sentence + " Other text. " + sentence
    second = text.rindex(sentence)
    verdict = verify_quote(
        text,
        "The Licensee shall maintain insurance covering product liability claims.",
        within=(second, len(text)),
    )
    assert verdict.start == second


def test_short_quotes_are_never_matched_approximately():
    verdict = verify_quote("The Buyer shall pay.", "The Buyer sha11 pax")
    assert not verdict.verified
    verdict = verify_quote("Payment is due in full.", "Payment is dve")
    assert not verdict.verified


def test_a_failed_near_match_keeps_its_candidate_for_display():
    text = "Intro. The Supplier shall deliver the Goods within 30 days of the Order Date. End."
    verdict = verify_quote(
        text, "The Supplier shall deliver the Goods within 60 days of the Order Date."
    )
    assert not verdict.verified
    assert verdict.start is None and verdict.source_text is None
    assert (
        verdict.candidate_text == text[verdict.candidate_start : verdict.candidate_end]
    )
    assert "within 30 days" in verdict.candidate_text
    assert verdict.score is not None and verdict.score > 0.9


@pytest.mark.parametrize(
    ("ocr_source", "quote"),
    [
        (
            "written notlce to the Buyer witbin ten days",
            "written notice to the Buyer within ten days",
        ),
        (
            "The Supp1ier rnav appoint a qualified officer",
            "The Supplier may appoint a qualified officer",
        ),
        (
            "delivered by harid or by courier to the office",
            "delivered by hand or by courier to the office",
        ),
        (
            "under the ternns of this Agreement in fu11",
            "under the terms of this Agreement in full",
        ),
        (
            "The Company shauld pay the fees in advance",
            "The Company should pay the fees in advance",
        ),
        (
            "the Lessee s hould inspect the Goods un less delivered late",
            "the Lessee should inspect the Goods unless delivered late",
        ),
        (
            "all exelusive rights 1n the Territory remain",
            "all exclusive rights in the Territory remain",
        ),
        # Words OCR ran together, when every way to split them agrees.
        (
            "when due, the Lessor willsuspend performance on notice",
            "when due, the Lessor will suspend performance on notice",
        ),
        (
            "No waiver may be effectiveunless it is in writing",
            "No waiver may be effective unless it is in writing",
        ),
        (
            "Neither party m aybe liable for any failure caused",
            "Neither party may be liable for any failure caused",
        ),
        (
            "a fee of $175,250for each month of the Term",
            "a fee of $175,250 for each month of the Term",
        ),
        (
            # "with out the" would need a space added as well as one dropped.
            "may not assign this Agreement withoutthe prior written consent",
            "may not assign this Agreement without the prior written consent",
        ),
        (
            "effect on 22 Sep tember 2024 and continues for 89 months",
            "effect on 22 September 2024 and continues for 89 months",
        ),
        (
            "All notices msybe in writing and delivered by hand",
            "All notices may be in writing and delivered by hand",
        ),
        (
            "on 76 days' notice.Neither party must be liable for any failure",
            "on 76 days' notice. Neither party must be liable for any failure",
        ),
        (
            "Without limiting clause 29, fhe Lesse e",
            "Without limiting clause 29, the Lessee",
        ),
        # A 0 or 1 standing for a look-alike letter is no number.
        (
            "If the Licensor fails f0 pay any sum when due",
            "If the Licensor fails to pay any sum when due",
        ),
        (
            "allow an audit once 1u any 47-month period",
            "allow an audit once in any 47-month period",
        ),
    ],
)
def test_ocr_look_alikes_inside_words_and_guard_words_are_read(ocr_source, quote):
    text = "Preamble.\n" + ocr_source + ".\nEnd."
    verdict = verify_quote(text, quote)
    _assert_span(text, verdict, ocr_source)


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # An arbitrary letter change is indistinguishable from a different word.
        (
            "The Employer shall keep records of all hours worked",
            "The Employee shall keep records of all hours worked",
        ),
        (
            "The Supplier shall give prior notice of any change",
            "The Supplier shall give rior notice of any change",
        ),
        # Split or joined words never gain or lose a guard word.
        (
            "The goods are nowhere to be found in the warehouse",
            "The goods are now here to be found in the warehouse",
        ),
        (
            # "nowill" may be "now ill": words run together are read only
            # when every way to split them agrees.
            "The Seller nowill be paid for the goods delivered late",
            "The Seller no will be paid for the goods delivered late",
        ),
        (
            # "willnever" is "will never": the quote drops the modal verb
            # OCR ran into the negation, which is no damage to "never".
            "The Receiving Party willnever disclose the terms of this Agreement.",
            "The Receiving Party never disclose the terms of this Agreement.",
        ),
        (
            # Words as they stand: "with out" is not "without", nor "writ
            # ten" "written" (a writ and a number).
            "The Seller may proceed with out the consent of the Buyer",
            "The Seller may proceed without the consent of the Buyer",
        ),
        (
            "on 100 days' writ ten notice to the other party",
            "on 100 days' written notice to the other party",
        ),
        (
            # "wont" is a word: a lost apostrophe never grants "won't".
            "The Buyer wont pay the fee on the due date",
            "The Buyer won't pay the fee on the due date",
        ),
        (
            # "Employees hall" is as likely a reading as "Employee shall".
            "the Employeeshall comply with all applicable export laws",
            "the Employee shall comply with all applicable export laws",
        ),
        (
            # "shall" is far commoner than "hall", yet here it is a hall:
            # word frequencies never settle where the spaces fall.
            "Meetings take place in the Membershall every Monday",
            "Meetings take place in the Member shall every Monday",
        ),
        (
            # Nor does a split into more words gain a number ("some one").
            "So meoneshall notify the Landlord within thirty days",
            "Some one shall notify the Landlord within thirty days",
        ),
        (
            # Never after an apostrophe: "Buyer's hall" is no modal verb.
            "the Buyer's hall is where the Goods are delivered",
            "the Buyer shall is where the Goods are delivered",
        ),
        (
            # A digit OCR added is a number: "A1" is not "A".
            "delivered to the address in Schedule A1 of this Agreement",
            "delivered to the address in Schedule A of this Agreement",
        ),
        (
            "The goods are now here in the warehouse of the Buyer",
            "The goods are nowhere in the warehouse of the Buyer",
        ),
        (
            "The Contractor is notable for its work on the project",
            "The Contractor is not able for its work on the project",
        ),
        (
            "The Contractor is not able to complete the project",
            "The Contractor is notable to complete the project",
        ),
        # A guard word is never read as a different guard word.
        (
            "Neither party nor its agents shall disclose the terms",
            "Neither party not its agents shall disclose the terms",
        ),
        (
            "The Buyer must pay the invoice within the period",
            "The Buyer may pay the invoice within the period",
        ),
    ],
)
def test_ocr_tolerance_never_reads_a_different_word(source, quote):
    """Including words split or joined so that a guard word appears or goes."""
    assert not verify_quote("Preamble. " + source + ". End.", quote).verified


RED_TEAM_PREAMBLE = "This Agreement is made between the Licensor and the Licensee. "


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # "n't" with its apostrophe lost is still a negation.
        (
            "The Licensee can t assign this Agreement without consent.",
            "The Licensee can assign this Agreement without consent.",
        ),
        (
            "The Licensee mustnt assign this Agreement without consent.",
            "The Licensee must assign this Agreement without consent.",
        ),
        (
            "The Licensee couldn t assign this Agreement without consent.",
            "The Licensee could assign this Agreement without consent.",
        ),
        (
            "The Supplier doesn t warrant the fitness of the goods for any purpose.",
            "The Supplier does warrant the fitness of the goods for any purpose.",
        ),
        # A negating prefix damaged by OCR is still a negation.
        (
            "The Supplier confirms that the clause is invaIid in respect of it.",
            "The Supplier confirms that the clause is valid in respect of it.",
        ),
        (
            "The Licensor grants an itrevocable licence in respect of it.",
            "The Licensor grants an revocable licence in respect of it.",
        ),
        (
            "The Supplier shall not be liable for any incirect loss of the Buyer.",
            "The Supplier shall not be liable for any direct loss of the Buyer.",
        ),
        # Words run together are checked word by word: "or" is not "and".
        (
            "The Supplier is not liable for any indirector consequential loss.",
            "The Supplier is not liable for any indirect and consequential loss.",
        ),
        # Letters and roman numerals that name a part compare like numbers.
        (
            "The Licensee shall comply with Section 8(b) of this Agreement.",
            "The Licensee shall comply with Section 8(h) of this Agreement.",
        ),
        (
            "The Licensee shall comply with Article IV of this Agreement.",
            "The Licensee shall comply with Article V of this Agreement.",
        ),
        (
            "The Licensee shall comply with Article I of this Agreement.",
            "The Licensee shall comply with Article II of this Agreement.",
        ),
        (
            "The Licensee shall comply with Exhibit C of this Agreement.",
            "The Licensee shall comply with Exhibit E of this Agreement.",
        ),
    ],
)
def test_red_team_false_verifications_fail(source, quote):
    text = RED_TEAM_PREAMBLE + source + " The remaining terms apply."
    assert not verify_quote(text, quote).verified


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The Licensee should notify the Licensar of any infringement.",
            "The Licensee should notify the Licensee of any infringement.",
        ),
        (
            "The Employot may terminate the employment of the Employee.",
            "The Employee may terminate the employment of the Employee.",
        ),
    ],
)
def test_a_damaged_party_that_ocr_could_have_made_from_the_other_fails(source, quote):
    # The other party's name appears nowhere else, so only OCR decides.
    text = "This Agreement is made between the parties. " + source + " End."
    verdict = verify_quote(text, quote)
    assert not verdict.verified
    assert verdict.rule == "wording.party_rival"


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The Licensor grants a non-exclusive licence to use the Software.",
            "exclusive licence to use the Software.",
        ),
        (
            "All fees paid are non-refundable upon termination for any reason.",
            "refundable upon termination for any reason.",
        ),
        (
            "Late payments bear interest at 1/2 percent per month until paid.",
            "2 percent per month until paid.",
        ),
        (
            "The price shall be adjusted by -5% on each anniversary.",
            "5% on each anniversary.",
        ),
        (
            "The Sub-Licensee shall pay all royalties to the Licensor.",
            "Licensee shall pay all royalties to the Licensor.",
        ),
        ("The Licensor grants a non-exclusive licence.", "The Licensor grants a non"),
    ],
)
def test_a_quote_never_starts_or_ends_at_a_hyphen_slash_or_sign(source, quote):
    text = RED_TEAM_PREAMBLE + source + " The remaining terms apply."
    verdict = verify_quote(text, quote)
    assert not verdict.verified
    # "non-" is a negation the quote leaves out as well as a cut token.
    assert verdict.rule in ("post.cut_token", "negation.before")


_TEMPLATES = (
    "The {a} acknowledges that the {b} is not responsible for the sufficiency of "
    "the {a}'s own data.",
    "Neither party will be liable for any failure caused by an event of force "
    "majeure - including fire, flood or strike.",
    "The {a} may keep accurate books and records and allow an audit once in any "
    "{n}-month period.",
    "The {a} shall inspect the Deliverables within {n} business days and notify "
    "the {b} of any defect.",
    "The {a} must pay the {b} a fee of ${n},000 for each calendar month of the Term.",
    "Either party may terminate this Agreement on {n} days' written notice to the "
    "other party.",
    "No waiver of any breach shall be effective unless it is in writing and "
    "signed by the {a}.",
    "The {a}'s aggregate liability will not exceed {n}% of the fees paid in the "
    "12 months before the claim.",
    "All notices shall be in writing and delivered by hand, by courier or by "
    "e-mail to the {b}.",
    "Any dispute shall first be referred to the senior officers of the parties "
    "for {n} days.",
)


def test_a_damaged_passage_is_found_among_clean_copies_of_its_sentences():
    # Templated text: every copy of the quote's first sentence holds more
    # intact word pairs than the damaged true place, and only the sentence
    # after it, a number and OCR damage tell them apart.
    import random

    rng = random.Random(5)
    parties = ("Employee", "Employer", "Licensee", "Licensor", "Buyer", "Supplier")
    paragraphs = []
    for number in range(1, 1200):
        sentences = []
        for _ in range(rng.randint(2, 4)):
            a, b = rng.sample(parties, 2)
            template = rng.choice(_TEMPLATES)
            sentences.append(template.format(a=a, b=b, n=rng.randint(2, 300)))
        paragraphs.append(f"{number}. " + " ".join(sentences))
    damaged = (
        "The Emplcyee acknowleclges that the Employer is not responsible for "
        "the sufficieney of the Emplovee's owndata.\n\n1162. Noither party will "
        "be liahle for any failure caused hy an event ot force majeure - "
        "incliicling fire, flood or strike."
    )
    paragraphs.insert(700, damaged)
    source = "\n\n".join(paragraphs)
    quote = (
        "The Employee acknowledges that the Employer is not responsible for the "
        "sufficiency of the Employee's own data.\n\n1162. Neither party will be "
        "liable for any failure caused by an event of force majeure"
    )

    verdict = verify_quote(source, quote)

    assert verdict.verified, verdict.reason
    assert verdict.start == source.index(damaged)
    assert verdict.source_text == damaged[: damaged.index(" - ")]


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # A decimal point or a sign that opens a number is part of it.
        (
            "Interest shall accrue at .5% per month on overdue amounts.",
            "5% per month on overdue amounts.",
        ),
        (
            "Operating margin changed by \u20135% in 2023 compared with 2022.",
            "5% in 2023 compared with 2022",
        ),
        (
            "Operating margin changed by \u20135% in 2023 compared with 2022.",
            "Operating margin changed by 5% in 2023 compared with 2022",
        ),
        (
            "The price shall be adjusted by -5% each year thereafter.",
            "The price shall be adjusted by 5% each year thereafter.",
        ),
        # Digits grouped by a non-breaking or thin space, or an apostrophe.
        (
            "The annual fee is EUR 1\u00a0000\u00a0000 payable in advance.",
            "The annual fee is EUR 1",
        ),
        (
            "The annual fee is CHF 1'000'000 payable in advance.",
            "The annual fee is CHF 1",
        ),
    ],
)
def test_a_number_keeps_its_sign_decimal_point_and_digit_groups(source, quote):
    verdict = verify_quote(source, quote)
    assert not verdict.verified, verdict.reason


@pytest.mark.parametrize(
    ("source", "quote", "span"),
    [
        # An edge inside a token OCR damaged at the quote's first or last
        # word moves to the token's edge: one glyph OCR made into two is put
        # back ("nn" for "m", "ri" for "n") when comparing the two cuts...
        (
            "required hy law. nnust nct disclose the te rms of tnis Agreement.",
            "must not disclose the terms of this Agreement.",
            "nnust nct disclose the te rms of tnis Agreement.",
        ),
        (
            "The Lessor may retunn or destroy all copies withiri 106 days.",
            "The Lessor may return or destroy all copies within",
            "The Lessor may retunn or destroy all copies withiri",
        ),
        # ... and where the cut still reads closer, the whole tokens are
        # judged instead: a span that cuts a token is no quotation.
        (
            "Upon termination ffhe Lessee will comply with all applicable laws.",
            "the Lessee will comply with all applicable laws.",
            "ffhe Lessee will comply with all applicable laws.",
        ),
        (
            "The Lessee will comply with all applicable expotl eontrol laws.",
            "The Lessee will comply with all applicable export",
            "The Lessee will comply with all applicable expotl",
        ),
    ],
)
def test_a_span_edge_in_a_damaged_token_takes_the_whole_token(source, quote, span):
    verdict = verify_quote(
        SCANNED_PREAMBLE + source + " The remaining terms apply.", quote
    )
    assert verdict.verified, verdict.reason
    assert verdict.source_text == span


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # The whole token says something else: the guard reads it whole.
        (
            "Upon termination the Lessee is unable to assign any licence.",
            "able to assign any licence.",
        ),
        (
            "The Licensor grants an irrevocable licence to the Licensee.",
            "revocable licence to the Licensee.",
        ),
        (
            "The Buyer shall purchase 1500 units in each calendar year.",
            "500 units in each calendar year.",
        ),
        (
            "The Buyer shall pay the Seller the sum of $150 on demand.",
            "The Buyer shall pay the Seller the sum of $15",
        ),
    ],
)
def test_the_whole_token_at_a_span_edge_never_lends_its_meaning(source, quote):
    for prefix in ("", SCANNED_PREAMBLE):
        verdict = verify_quote(prefix + source, quote)
        assert not verdict.verified, (prefix, verdict.reason)


@pytest.mark.parametrize("prefix", ["", SCANNED_PREAMBLE])
@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Neither partywill be liable for any failure caused by force majeure.",
            "Neither party be liable for any failure caused by force majeure.",
        ),
        (
            # The quote's word damaged too, and the guard word after it.
            "The Contrsctorwil comply with all applicable export control laws.",
            "The Contractor comply with all applicable export control laws.",
        ),
        (
            # A letter of "must" lost as well, before the word.
            "The Provider mutinspect all goods within 3 business days of delivery.",
            "The Provider inspect all goods within 3 business days of delivery.",
        ),
        (
            "The Licensee is notesponsible for the sufficiency of its own data.",
            "The Licensee is responsible for the sufficiency of its own data.",
        ),
        (
            # Split again after running in: "wi" and a stray stroke "l".
            "The Buyerwi l pay the Supplier a fee for each calendar month.",
            "The Buyer pay the Supplier a fee for each calendar month.",
        ),
    ],
)
def test_a_guard_word_ocr_ran_into_a_word_is_not_damage_to_it(prefix, source, quote):
    # OCR lost the space beside a modal verb or negation; a quote that drops
    # that word says something else, however like damage the letters look.
    verdict = verify_quote(prefix + source, quote)
    assert not verdict.verified
    # The run-in word, or the guard word itself, missing.
    assert verdict.rule in (
        "wording.guard_word_run_in",
        "wording.word_missing",
        "meaning.negation",
        "meaning.modal",
        "meaning.number",
    )


def test_a_quote_with_the_guard_word_ocr_ran_in_still_verifies_in_a_scan():
    source = SCANNED_PREAMBLE + (
        "Neither partywill be liable for any failure caused by force majeure."
    )
    quote = "Neither party will be liable for any failure caused by force majeure."
    verdict = verify_quote(source, quote)
    assert verdict.verified, verdict.reason
