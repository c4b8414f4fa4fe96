"""The cascade's refusal rules: every way a quote can fail, by name.

A rule is a row of RULES: an id, the name a reviewer reads, the stage and
the place it runs in, what it refuses, and examples it must refuse and pass.

A stage runs its rules as one loop over a table of checks, in order, and
the first that refuses decides and names itself (refusal.first_refusal;
the entity and wording tables have loops of their own shape that do the
same). A row's `place` names the tables it is a row of, and a test holds
the two together. The few rules no table runs have an `inline` reason: a
search that ended with no passage to read, a judge's reply, a quote
verified in another source; they name themselves where their stage's flow
ends. Either way a failed verdict names the rule that decided
(`Verdict.rule`, the stage records' "rule", the citation's `rule`).

Tests run every rule's examples (citations/tests/rule_examples.py: each
refused example fails with that rule's id, each passed example verifies),
check that every id the code uses is a row here and every row is used, and
that docs/verification.md is this table
(`python -m citations.cascade.rules > docs/verification.md`).

The table is data: it imports no stage of the cascade (the stages' loops
name its rows by id; the examples meet the engine in the tests). Pure: no
Django.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

# Two sentences of OCR damage: prefixed to a short source they make the
# document read as a scan (lexicon.looks_scanned), where look-alike glyphs
# may be damage.
SCAN = "Tlie Sel1er and tbe Buyer agrec as fo1lows. Thc parties herehy agree tbereto. "


@dataclass(frozen=True)
class Example:
    """A quote against a text. `others`: the texts of other sources of the
    same answer (S2, S3, ...; the text is S1). `judges`: each judge's answer
    (supported, the span it names); two or more vote as an ensemble on a
    high-stakes call. `pages`: the text's page starts."""

    text: object
    quote: object
    others: tuple[str, ...] = ()
    judges: tuple[tuple[bool, str], ...] = ()
    pages: tuple[int, ...] = ()


@dataclass(frozen=True)
class Rule:
    """A row of the table: `name` is what a reviewer reads (the citation
    panel, the review tab's filter, the admin), `refuses` its description."""

    id: str
    name: str
    stage: str
    place: str
    refuses: str
    refused: tuple[Example, ...]
    passed: tuple[Example, ...] = field(default=())
    # Why the rule is decided where its stage's flow ends rather than by a
    # row of a stage's table ("" for a rule a table runs): a search's or a
    # judge's outcome, which no check of a passage could decide.
    inline: str = ""


def _paginated() -> tuple[str, tuple[int, ...]]:
    """Four pages under a running header; page 2's body ends mid-sentence."""
    pages = []
    for n in range(1, 5):
        end = "The Company shall pay the fees of the\n" if n == 2 else ""
        pages.append(
            f"Independent Auditor's Report   Page {n}\n"
            f"Page {n} sets out the scope of the engagement in detail.\n"
            "It also sets out what management is responsible for.\n" + end
        )
    starts = [0]
    for page in pages[:-1]:
        starts.append(starts[-1] + len(page))
    return "".join(pages), tuple(starts)


_PAGES, _PAGE_STARTS = _paginated()
_LONG_CLAUSE = "The Buyer shall pay every invoice of the Seller in full. " * 400
_FILLER = " ".join(
    f"Clause {n} describes the delivery schedule for lot {n}." for n in range(300)
)
_BUYER = "The Buyer shall pay within 30 days of the invoice date."
_PROMPTLY = "The Buyer shall pay the Seller promptly on receipt of the invoice."

# Why a search's failure is named inline (Rule.inline).
_SEARCH_OUTCOME = (
    "The search's outcome: it ended with no passage for a rule to read, and "
    "the rule names how."
)

RULES: tuple[Rule, ...] = (
    # --- input -------------------------------------------------------------
    Rule(
        "input.not_text",
        "Not text",
        "input",
        "verify.INPUT_CHECKS",
        "A quote or text that is not a string.",
        (Example(_BUYER, None),),
        (Example(_BUYER, "The Buyer shall pay within 30 days"),),
    ),
    Rule(
        "input.empty",
        "Empty quote",
        "input",
        "verify.INPUT_CHECKS",
        "A quote of whitespace only.",
        (Example(_BUYER, "   "),),
        (Example(_BUYER, " The Buyer shall pay "),),
    ),
    Rule(
        "input.too_long",
        "Longer than the source",
        "input",
        "verify.INPUT_CHECKS, tolerant.FOLDED_CHECKS",
        "A quote longer than the source text could hold (OCR may drop a few "
        "characters, so a source 15% shorter still may).",
        (Example("Pay on time.", "The Buyer shall pay every invoice on time."),),
        (Example(_BUYER, "The Buyer shall pay"),),
    ),
    # --- stages 1-2: finding the passage ----------------------------------
    Rule(
        "tolerant.empty_folded",
        "Nothing left once folded",
        "tolerant",
        "tolerant.FOLDED_CHECKS",
        "A quote with nothing left once folded (only invisible characters).",
        (Example(_BUYER, "\u200b\u200d"),),
        (Example("The Buyer\u200b shall pay.", "The Buyer shall pay"),),
    ),
    Rule(
        "tolerant.too_short",
        "Too short to match approximately",
        "tolerant",
        "tolerant.FUZZY_CHECKS",
        "A quote of fewer than three words or 15 characters that is not in "
        "the text verbatim or after folding: matched approximately, it would "
        "match almost anything.",
        (Example(_BUYER, "The Seller"),),
        (Example(_BUYER, "the  Buyer"),),
    ),
    Rule(
        "tolerant.too_long",
        "Too long to match approximately",
        "tolerant",
        "tolerant.FUZZY_CHECKS",
        "A quote over 20,000 characters that is not in the text verbatim or "
        "after folding: such a quote is pages, not a quotation.",
        (Example(_LONG_CLAUSE, _LONG_CLAUSE.replace("Seller", "Lender", 1)),),
        (Example(_LONG_CLAUSE, _LONG_CLAUSE.strip()),),
    ),
    Rule(
        "tolerant.not_similar",
        "No similar passage",
        "tolerant",
        "tolerant.SNAPPED_CHECKS",
        "The closest passage is less than 85% similar to the quote once OCR "
        "confusions are folded (or less than 75% as written): no passage "
        "says it.",
        (
            Example(
                "The Buyer shall pay the Seller within thirty days of delivery.",
                "The Licensor may terminate the licence for a material breach",
            ),
        ),
        (
            Example(
                "The Buyer shall pay the Seller within thirty days of delivery.",
                "The Buyer shall pay the Seller within thirty days of delivery",
            ),
        ),
    ),
    Rule(
        "tolerant.no_passage",
        "No passage shares its words",
        "tolerant",
        "tolerant.find_fuzzy",
        "No passage of the text shares enough of the quote's words to be "
        "placed at all.",
        (Example(_FILLER, "The Licensor may terminate the licence at will"),),
        (Example(_FILLER, "Clause 17 describes the delivery schedule for lot 17"),),
        inline=_SEARCH_OUTCOME,
    ),
    # --- the guard: meaning -------------------------------------------------
    Rule(
        "meaning.number",
        "Number differs",
        "guard: meaning",
        "guards.MEANING_CHECKS (guards.NUMBERS_MISSING_CHECKS, guards.PARAPHRASE_CHECKS)",
        "A number the passage writes otherwise, lacks or adds (number words "
        "compare as written: 'thirty' is not '30').",
        (Example(_BUYER, "The Buyer shall pay within 60 days of the invoice date."),),
        (Example(_BUYER, "The Buyer shall pay within 30 days of the invoice  date"),),
    ),
    Rule(
        "meaning.percentage",
        "Percentage differs",
        "guard: meaning",
        "guards.MEANING_CHECKS (guards.NUMBERS_MISSING_CHECKS, guards.PARAPHRASE_CHECKS)",
        "A percentage sign or word the passage lacks or adds ('5' is not '5%').",
        (
            Example(
                "Interest accrues at 5% per annum on every late payment.",
                "Interest accrues at 5 per annum on every late payment.",
            ),
        ),
        (
            Example(
                "Interest accrues at 5 per cent per annum on every late payment.",
                "Interest accrues at 5 per  cent per annum on every late payment",
            ),
        ),
    ),
    Rule(
        "meaning.currency",
        "Currency differs",
        "guard: meaning",
        "guards.MEANING_CHECKS (guards.NUMBERS_MISSING_CHECKS, guards.PARAPHRASE_CHECKS)",
        "Another currency sign or word ('$500' is not '€500').",
        (
            Example(
                "The monthly fee is $500 for the hosted Services.",
                "The monthly fee is €500 for the hosted Services.",
            ),
        ),
        (
            Example(
                "The monthly fee is $500 for the hosted Services.",
                "The monthly fee is  $500 for the hosted Services",
            ),
        ),
    ),
    Rule(
        "meaning.date",
        "Date differs",
        "guard: meaning",
        "guards.MEANING_CHECKS (guards.NUMBERS_MISSING_CHECKS, guards.PARAPHRASE_CHECKS)",
        "Another month name.",
        (
            Example(
                "This Agreement takes effect on 1 June 2024 and runs for a year.",
                "This Agreement takes effect on 1 July 2024 and runs for a year.",
            ),
        ),
        (
            Example(
                "This Agreement takes effect on 1 June 2024 and runs for a year.",
                "This Agreement takes effect on 1 June 2024 and runs for a year",
            ),
        ),
    ),
    Rule(
        "meaning.negation",
        "Negation differs",
        "guard: meaning",
        "guards.MEANING_CHECKS (guards.NUMBERS_MISSING_CHECKS, guards.PARAPHRASE_CHECKS)",
        "A negation the passage lacks or adds (not, no, never, neither, nor, "
        "none, without, unless, except, n't, cannot, non-).",
        (
            Example(
                "The Supplier shall not deliver the Goods on a Sunday.",
                "The Supplier shall deliver the Goods on a Sunday.",
            ),
        ),
        (
            Example(
                "The Supplier shall not deliver the Goods on a Sunday.",
                "The Supplier shall  not deliver the Goods on a Sunday",
            ),
        ),
    ),
    Rule(
        "meaning.modal",
        "Modal verb differs",
        "guard: meaning",
        "guards.MEANING_CHECKS (guards.NUMBERS_MISSING_CHECKS, guards.PARAPHRASE_CHECKS)",
        "Another modal verb ('shall' is not 'may').",
        (
            Example(
                "The Supplier shall deliver the Goods within a week.",
                "The Supplier may deliver the Goods within a week.",
            ),
        ),
        (
            Example(
                "The Supplier shall deliver the Goods within a week.",
                "The Supplier shall deliver the Goods within a  week",
            ),
        ),
    ),
    Rule(
        "meaning.label",
        "Label differs",
        "guard: meaning",
        "guards.MEANING_CHECKS (guards.NUMBERS_MISSING_CHECKS, guards.PARAPHRASE_CHECKS)",
        "Another label of a part ('Section 8(b)' is not 'Section 8(c)'), "
        "compared as written, OCR or not.",
        (
            Example(
                "The fees are set out in Section 8(b) of this Agreement.",
                "The fees are set out in Section 8(c) of this Agreement.",
            ),
        ),
        (
            Example(
                "The fees are set out in Section 8(b) of this Agreement.",
                "The fees are set out in Section  8(b) of this Agreement",
            ),
        ),
    ),
    Rule(
        "meaning.number_separator",
        "Number separator differs",
        "guard: meaning",
        "guards.MEANING_CHECKS (guards.NUMBERS_MISSING_CHECKS, guards.PARAPHRASE_CHECKS)",
        "Another mark between two numbers ('2-3' is not '2/3').",
        (
            Example(
                "The mixing ratio shall be 2-3 for every batch delivered.",
                "The mixing ratio shall be 2/3 for every batch delivered.",
            ),
        ),
        (
            Example(
                "The mixing ratio shall be 2-3 for every batch delivered.",
                "The mixing ratio shall be 2–3 for every batch delivered.",
            ),
        ),
    ),
    Rule(
        "meaning.section_sign",
        "Section sign differs",
        "guard: meaning",
        "guards.MEANING_CHECKS (guards.NUMBERS_MISSING_CHECKS)",
        "Another number of section signs ('§§' is not '§').",
        (
            Example(
                "Fees are governed by §§ 4 and 5 of the Terms of Service.",
                "Fees are governed by § 4 and 5 of the Terms of Service.",
            ),
        ),
        (
            Example(
                "Fees are governed by §§ 4 and 5 of the Terms of Service.",
                "Fees are governed by §§ 4 and 5 of the Terms of  Service",
            ),
        ),
    ),
    # --- the guard: wording (guards.WORDING_RULES, in this order) ----------
    Rule(
        "wording.document_phrase",
        "Another of the document's phrases",
        "guard: wording",
        "guards.WORDING_RULES (_document_wording)",
        "In a scan, a real word where the quote has another that the document "
        "writes beside the quote's neighbours twice or more, and the quote's "
        "word there never ('own data', never 'own date').",
        (
            Example(
                SCAN + "The Buyer keeps its own data. The Agent keeps its own data. "
                "The Seller keeps its own data and its records.",
                "The Seller keeps its own date and its records.",
            ),
        ),
        (
            Example(
                SCAN + "The Buyer keeps its own data. The Agent keeps its own data. "
                "The Seller keeps its own data and its records.",
                "The Seller keeps its own data and its records",
            ),
        ),
    ),
    Rule(
        "wording.code_respelled",
        "Code respelled",
        "guard: wording",
        "guards.WORDING_RULES",
        "In a clean source, a code, unit or name written otherwise ('MWh' is "
        "not 'GWh', 'acme.com' not 'acrne.com').",
        (
            Example(
                "The plant delivers 40 MWh every day to the regional grid.",
                "The plant delivers 40 GWh every day to the regional grid.",
            ),
        ),
        (
            Example(
                "The plant delivers 40 MWh every day to the regional grid.",
                "The plant delivers 40  MWh every day to the regional grid",
            ),
        ),
    ),
    Rule(
        "wording.code_letter_added",
        "Code letter added or dropped",
        "guard: wording",
        "guards.WORDING_RULES",
        "In a scan, a code with a letter more or less, which no misread glyph "
        "explains ('GOOG' is not 'GOOGL').",
        (
            Example(
                SCAN + "Shares of GOOG traded higher on the exchange today.",
                "Shares of GOOGL traded higher on the exchange today.",
            ),
        ),
        (
            Example(
                SCAN + "Shares of GOOG traded higher on the exchange today.",
                "Shares of GOOG traded higher on the exchange today",
            ),
        ),
    ),
    Rule(
        "wording.real_word_swap",
        "Another real word",
        "guard: wording",
        "guards.WORDING_RULES",
        "A real word where the quote has another that no OCR damage explains "
        "('goods' is not 'gods'; in a clean source even a look-alike real "
        "word: 'fails' is not 'falls').",
        (
            Example(
                "The Supplier warrants that the goods are free from defects.",
                "The Supplier warrants that the gods are free from defects.",
            ),
        ),
        (
            Example(
                "The Supplier warrants that the goods are free from defects.",
                "The Supplier warrants that the goods are free from defects",
            ),
        ),
    ),
    Rule(
        "wording.clean_source",
        "Other words than a clean source's",
        "guard: wording",
        "guards.WORDING_RULES",
        "In a clean source (no OCR damage), any other word than the source's, "
        "but for a stray misprint of the source ('0f', 'Licensar').",
        (
            Example(
                "Kronos Inc. supplies the parts. Kronos shall deliver them by June.",
                "Krones shall deliver them by June.",
            ),
        ),
        (
            Example(
                "The goods were delivered hy the Supplier on time.",
                "The goods were delivered by the Supplier on time.",
            ),
        ),
    ),
    Rule(
        "wording.word_missing",
        "Word missing in the source",
        "guard: wording",
        "guards.WORDING_RULES",
        "A word of the quote the passage does not have.",
        (
            Example(
                "The Buyer shall pay all invoices on receipt and keep the receipts "
                "for its records.",
                "The Buyer shall promptly pay all invoices on receipt and keep the "
                "receipts for its records.",
            ),
        ),
        (
            Example(
                "The Buyer shall pay all invoices on receipt and keep the receipts "
                "for its records.",
                "The Buyer shall pay all invoices on receipt and keep the receipts "
                "for its  records",
            ),
        ),
    ),
    Rule(
        "wording.word_added",
        "Word added in the source",
        "guard: wording",
        "guards.WORDING_RULES",
        "A word of the passage the quote leaves out (without an ellipsis).",
        (
            Example(
                "The Buyer shall promptly pay all invoices on receipt and keep the "
                "receipts for its records.",
                "The Buyer shall pay all invoices on receipt and keep the receipts "
                "for its records.",
            ),
        ),
        (
            Example(
                "The Buyer shall promptly pay all invoices on receipt and keep the "
                "receipts for its records.",
                "The Buyer shall ... pay all invoices on receipt and keep the "
                "receipts for its records.",
            ),
        ),
    ),
    Rule(
        "wording.possessive",
        "Possessive differs",
        "guard: wording",
        "guards.WORDING_RULES",
        "A moved apostrophe, or in a clean source a lost one: one owner or "
        "several ('Lender's' is not 'Lenders'').",
        (
            Example(
                "The Lender's rights survive the termination of this Agreement.",
                "The Lenders' rights survive the termination of this Agreement.",
            ),
        ),
        (
            Example(
                "The Lender's rights survive the termination of this Agreement.",
                "The Lender’s rights survive the termination of this Agreement.",
            ),
        ),
    ),
    Rule(
        "wording.negating_prefix",
        "Negating prefix differs",
        "guard: wording",
        "guards.WORDING_RULES",
        "A word and its negated form ('revocable' is not 'irrevocable'), OCR "
        "damage to the prefix included ('itrevocable').",
        (
            Example(
                "The licence granted here is irrevocable in every territory.",
                "The licence granted here is revocable in every territory.",
            ),
        ),
        (
            Example(
                "The licence granted here is irrevocable in every territory.",
                "The licence granted here is irrevocable in every  territory",
            ),
        ),
    ),
    Rule(
        "wording.guard_word_run_in",
        "Guard word run into another",
        "guard: wording",
        "guards.WORDING_RULES",
        "A token whose letters hold the quote's word and a negation, modal "
        "verb or number the quote leaves out, run into it by OCR "
        "('partywill' is no 'party').",
        (
            Example(
                "Neither partywill be liable for delays caused by force majeure.",
                "Neither party be liable for delays caused by force majeure.",
            ),
        ),
        (
            Example(
                "Neither partywill be liable for delays caused by force majeure.",
                "Neither party will be liable for delays caused by force majeure.",
            ),
        ),
    ),
    Rule(
        "wording.party_rival",
        "The other party",
        "guard: wording",
        "guards.WORDING_RULES",
        "A party named as its counterpart ('Licensor' for 'Licensee'), or a "
        "damaged token OCR could have made from the other party.",
        (
            Example(
                "The Licensor shall indemnify the Licensee against all claims.",
                "The Licensee shall indemnify the Licensee against all claims.",
            ),
        ),
        (
            Example(
                "The Licensor shall indemnify the Licensee against all claims.",
                "The Licensor shall indemnify the Licensee against all  claims",
            ),
        ),
    ),
    Rule(
        "wording.implausible_damage",
        "Another word",
        "guard: wording",
        "guards.WORDING_RULES",
        "A token no OCR damage of the quote's word explains, nor a spelling "
        "corrector reads as it: another word, in a scan or in a clean text "
        "('isriot' is not 'is', 'mg' is not 'µg').",
        (
            Example(
                SCAN + "The Buyer shall inspect the goods on arrival at the port.",
                "The Buyer shall inspect the goods on arrival at the fort.",
            ),
            # A clean source is refused here too, before the catch-all
            # clean-source rule: the letters explain no misprint.
            Example(
                "The Provider acknowledges that the Recipient isriot "
                "responsible for the loss.",
                "The Provider acknowledges that the Recipient is responsible "
                "for the loss.",
            ),
        ),
        (
            Example(
                SCAN + "The Buyer shall inspect the goods on arrival at tbe port.",
                "The Buyer shall inspect the goods on arrival at the port.",
            ),
        ),
    ),
    Rule(
        "wording.word_by_word",
        "Words differ one by one",
        "guard: wording",
        "guards.WORDING_RULES",
        "Quote words OCR ran together or split otherwise must each read as "
        "their own part of the span: the whole may pass as damage while 'or' "
        "stands for 'and'.",
        (
            Example(
                SCAN + "The Supplier is not liable for indirector consequential "
                "damages of any kind.",
                "The Supplier is not liable for indirect and consequential "
                "damages of any kind.",
            ),
        ),
        (
            Example(
                SCAN + "The Supplier is not liable for indirector consequential "
                "damages of any kind.",
                "The Supplier is not liable for indirect or consequential "
                "damages of any kind.",
            ),
        ),
    ),
    # --- after a passage is found (verify.match_quote) -------------------
    Rule(
        "post.page_furniture",
        "Reads a page header or footer",
        "post-check",
        "verify.POST_CHECKS (furniture.furniture_difference)",
        "A quote that reads a page's running header or footer, or a bare page "
        "number, as text (the lines that recur at the edges of many pages).",
        (
            Example(
                _PAGES,
                "shall pay the fees of the Independent Auditor",
                pages=_PAGE_STARTS,
            ),
        ),
        (Example(_PAGES, "The Company shall pay the fees of the", pages=_PAGE_STARTS),),
    ),
    Rule(
        "post.cut_token",
        "Cuts a word or number",
        "post-check",
        "verify.POST_CHECKS (boundaries.disallowed_cut)",
        "A span that starts or ends inside a word or number ('$1' of "
        "'$12,000'), or at a hyphen, slash or sign inside a token.",
        (Example("The annual fee is $12,000 per site.", "The annual fee is $1"),),
        (Example("The annual fee is $12,000 per site.", "The annual fee is $12,000"),),
    ),
    Rule(
        "post.letter_case",
        "Letter case of a code differs",
        "post-check",
        "verify.POST_CHECKS (lettercase.case_difference), judging.JUDGED_SPAN_CHECKS",
        "Letter case that means something: codes, units and labels ('40 mWh' "
        "is not '40 MWh', '2(A)' not '2(a)'), and words that name something "
        "else in capitals ('US' is not 'us').",
        (
            Example(
                "The monthly limit is 40 MWh for the whole site.",
                "The monthly limit is 40 mWh for the whole site.",
            ),
        ),
        (
            Example(
                "THE MONTHLY LIMIT IS 40 MWh FOR THE WHOLE SITE.",
                "The monthly limit is 40 MWh for the whole site.",
            ),
        ),
    ),
    # --- negations a quote leaves out (context.py, scope.py) ---------------
    Rule(
        "negation.before",
        "Negation left out before",
        "post-check",
        "verify.POST_CHECKS (context.BEFORE_CHECKS)",
        "A span that starts within a negation's reach in its clause (up to "
        "three words after it, counted from the verb it governs; throughout a "
        "list it heads; inside an aside after it).",
        (
            Example(
                "The Buyer may not assign this Agreement to a third party.",
                "assign this Agreement to a third party",
            ),
        ),
        (
            Example(
                "The Buyer may not assign this Agreement. It may pay a third party.",
                "It may pay a third party",
            ),
        ),
    ),
    Rule(
        "negation.reversing_verb",
        "Reversing verb left out",
        "post-check",
        "verify.POST_CHECKS (context.BEFORE_CHECKS)",
        "A span that starts just after a verb that reverses it ('fails to', "
        "'refrains from', 'is prohibited from') or after 'absent'.",
        (
            Example(
                "If the Buyer fails to pay the invoice on time, interest accrues.",
                "pay the invoice on time",
            ),
        ),
        (
            Example(
                "If the Buyer agrees to pay the invoice on time, the discount applies.",
                "pay the invoice on time",
            ),
        ),
    ),
    Rule(
        "negation.split_off",
        "Split negation left out",
        "post-check",
        "verify.POST_CHECKS (context.BEFORE_CHECKS)",
        "A span that starts inside a negation OCR split ('N either party': "
        "the span starts at 'either').",
        (
            Example(
                SCAN + "N either party shall assign this Agreement.",
                "either party shall assign this Agreement",
            ),
        ),
        (
            Example(
                SCAN + "Either party shall assign this Agreement.",
                "Either party shall assign this Agreement",
            ),
        ),
    ),
    Rule(
        "negation.opening_elision",
        "Negation elided at the start",
        "post-check",
        "verify.POST_CHECKS (context.OPENING_ELISION_CHECKS)",
        "A quote opening with an ellipsis or insertion whose clause starts "
        "with a negation it leaves out.",
        (
            Example(
                "The Supplier shall not deliver the Goods after the due date.",
                "... deliver the Goods after the due date",
            ),
        ),
        (
            Example(
                "The Supplier shall promptly deliver the Goods after the due date.",
                "... deliver the Goods after the due date",
            ),
        ),
    ),
    Rule(
        "negation.after",
        "Negation left out after",
        "post-check",
        "verify.POST_CHECKS (context.AFTER_CHECKS)",
        "A quote that stops just before a negation of its own clause ('the "
        "Licensee may | not sublicense') or inside 'n't'.",
        (Example("The Licensee may not sublicense the Software.", "The Licensee may"),),
        (
            Example(
                "The Licensee may not sublicense the Software.",
                "The Licensee may not sublicense",
            ),
        ),
    ),
    # --- bracketed insertions (elision.py) ----------------------------------
    Rule(
        "insertion.outer_meaning",
        "Bracketed insertion changes the meaning",
        "elision",
        "elision.OUTER_MEANING_CHECKS",
        "An insertion before the first part or after the last that carries a "
        "number, negation or modal verb no source text stands behind.",
        (
            Example(
                "The Supplier shall deliver the Goods to the Buyer.",
                "[No] Supplier shall deliver the Goods to the Buyer",
            ),
        ),
        (
            Example(
                "The Supplier shall deliver the Goods to the Buyer.",
                "[The] Supplier shall deliver the Goods to the Buyer",
            ),
        ),
    ),
    Rule(
        "insertion.other_party",
        "Bracketed insertion names the other party",
        "post-check",
        "verify.POST_CHECKS (elision.OUTER_INSERTION_CHECKS)",
        "An insertion that names another party than the words it replaces "
        "('[Licensor] shall bear' over 'Licensee shall bear').",
        (
            Example(
                "The Licensee shall bear the costs of delivery and insurance.",
                "[The Licensor] shall bear the costs of delivery and insurance",
            ),
        ),
        (
            Example(
                "The Licensee shall bear the costs of delivery and insurance.",
                "[The Licensee] shall bear the costs of delivery and insurance",
            ),
        ),
    ),
    Rule(
        "insertion.antecedent",
        "Bracketed insertion names the wrong antecedent",
        "post-check",
        "verify.POST_CHECKS (elision.OUTER_INSERTION_CHECKS)",
        "A leading insertion for a pronoun that names another party than the "
        "one the pronoun refers to ('[the Seller] shall' over 'It shall', "
        "where 'It' is the Buyer).",
        (
            Example(
                "The Buyer shall pay the Seller's invoices. It shall also "
                "reimburse the freight costs.",
                "[The Seller] shall also reimburse the freight costs",
            ),
        ),
        (
            Example(
                "The Buyer shall pay the invoices. It shall also reimburse the "
                "freight costs.",
                "[The Buyer] shall also reimburse the freight costs",
            ),
        ),
    ),
    Rule(
        "insertion.stands_for_nothing",
        "Bracketed insertion stands for nothing",
        "post-check",
        "verify.POST_CHECKS (elision.OUTER_INSERTION_CHECKS)",
        "A short insertion at the quote's edge that stands for no words of "
        "the source beside the span ('[knowingly]' over nothing).",
        (
            Example(
                "The Buyer shall pay the invoice within a month of delivery of the "
                "Goods to the port.",
                "The Buyer shall pay the invoice within a month of delivery of the "
                "Goods to the port [knowingly]",
            ),
        ),
        (
            Example(
                "The Buyer shall pay the invoice within a month. It shall do so.",
                "[The Buyer] shall do so",
            ),
        ),
    ),
    Rule(
        "insertion.says_otherwise",
        "Bracketed insertion says otherwise",
        "elision",
        "elision.INSERTED_GAP_CHECKS",
        "An insertion between two parts that says another number, negation "
        "or modal verb than the source text it replaces, names another party, "
        "or shares no stem with it ('within [30] days' over '60').",
        (
            Example(
                "The Supplier shall deliver the Goods within 60 days of the order.",
                "The Supplier shall deliver the Goods within [30] days of the order",
            ),
        ),
        (
            Example(
                "The Supplier shall deliver the Goods within 60 days of the order.",
                "The Supplier shall deliver the Goods within [60] days of the order",
            ),
        ),
    ),
    # --- elided quotes (elision.py) -----------------------------------------
    Rule(
        "elision.no_words",
        "Elided quote without words",
        "elision",
        "elision.PARTS_CHECKS",
        "A quote of nothing but ellipses.",
        (Example(_BUYER, "... […] …"),),
        (Example(_PROMPTLY, "The Buyer shall pay ... on receipt of the invoice."),),
    ),
    Rule(
        "elision.fragments",
        "Elided into fragments",
        "elision",
        "elision.PARTS_CHECKS",
        "An elided quote without a part of three words or more, or with more "
        "than half its words in fragments of one or two.",
        (Example(_BUYER, "The ... Buyer ... invoice"),),
        (Example(_PROMPTLY, "The Buyer shall pay the Seller ... the invoice."),),
    ),
    Rule(
        "elision.guarded_fragment",
        "Elided fragment changes the meaning",
        "elision",
        "elision.PARTS_CHECKS",
        "A fragment of one or two words that carries a number, negation or "
        "modal verb: a floating 'not' could attach to any verb in reach.",
        (
            Example(
                "The Buyer shall not pay the Seller any fees for the Services.",
                "The Buyer shall ... not pay ... the Seller any fees for the Services",
            ),
        ),
        (
            Example(
                "The Buyer shall not pay the Seller any fees for the Services.",
                "The Buyer shall not pay ... any fees for the Services",
            ),
        ),
    ),
    Rule(
        "elision.part_not_found",
        "Elided part not found",
        "elision",
        "elision.find_elided",
        "An elided quote whose longest part is not in the text.",
        (Example(_BUYER, "The Buyer shall ... refund every deposit received"),),
        (Example(_BUYER, "The Buyer shall ... within 30 days of the invoice date"),),
        inline=_SEARCH_OUTCOME,
    ),
    Rule(
        "elision.out_of_reach",
        "Elided parts too far apart",
        "elision",
        "elision.find_elided",
        "Parts not found in order, each within 300 characters of the one before.",
        (
            Example(
                "The Supplier shall deliver the Goods. "
                + "The parties meet every week. " * 12
                + "The Buyer may reject defective Goods.",
                "The Supplier shall deliver ... The Buyer may reject defective Goods",
            ),
        ),
        (
            Example(
                "The Supplier shall deliver the Goods on time and the Buyer may "
                "reject defective Goods.",
                "The Supplier shall deliver ... the Buyer may reject defective Goods",
            ),
        ),
        inline=_SEARCH_OUTCOME,
    ),
    Rule(
        "elision.paragraphs",
        "Elision joins paragraphs",
        "elision",
        "elision.CHAIN_CHECKS",
        "An ellipsis that bridges paragraphs (a blank line).",
        (
            Example(
                "The Supplier shall deliver the Goods on time\n\nand the Buyer "
                "shall pay for them promptly.",
                "The Supplier shall deliver the Goods ... the Buyer shall pay for "
                "them promptly",
            ),
        ),
        (
            Example(
                "The Supplier shall deliver the Goods on time\nand the Buyer "
                "shall pay for them promptly.",
                "The Supplier shall deliver the Goods ... the Buyer shall pay for "
                "them promptly",
            ),
        ),
    ),
    Rule(
        "elision.negation",
        "Elision drops a negation",
        "elision",
        "context.ELIDED_CHECKS",
        "An ellipsis over a negation ('The Supplier shall ... deliver' over "
        "'not'); a hyphenated 'non-' negates only its own word.",
        (
            Example(
                "The Supplier shall not deliver the Goods to the Buyer.",
                "The Supplier shall ... deliver the Goods to the Buyer",
            ),
        ),
        (
            Example(
                "The Licensor grants the Licensee a non-exclusive, royalty-free "
                "licence to use the Software.",
                "The Licensor grants the Licensee a ... royalty-free licence to "
                "use the Software",
            ),
        ),
    ),
    Rule(
        "elision.joins_sentences",
        "Elision joins sentences",
        "elision",
        "elision.GAP_CHECKS",
        "An ellipsis that joins two sentences.",
        (
            Example(
                "The Supplier shall deliver the Goods. The Buyer shall pay the "
                "price in full.",
                "The Supplier shall deliver ... the price in full.",
            ),
        ),
        (
            Example(
                "The Supplier shall deliver the Goods and the Buyer shall pay the "
                "price in full.",
                "The Supplier shall deliver the Goods ... the Buyer shall pay the "
                "price in full.",
            ),
        ),
    ),
    Rule(
        "elision.amount",
        "Elision drops an amount",
        "elision",
        "elision.GAP_CHECKS (elision.elided_amount)",
        "An ellipsis over a number, amount, percentage or date that belongs "
        "to a phrase the quote keeps ('shall pay ... the costs' over 'fifty "
        "percent of'; 'December 31 ... unless' over ', 2020,'); one inside an "
        "aside left out whole belongs to the aside.",
        (
            Example(
                "The Buyer shall pay fifty percent of the costs of the audit.",
                "The Buyer shall pay ... the costs of the audit.",
            ),
        ),
        (
            Example(
                "Upon termination the Company may, pursuant to Section 4.1 or 4.2 "
                "hereof, repurchase any Products held by the Distributor.",
                "Upon termination the Company may ... repurchase any Products held "
                "by the Distributor.",
            ),
        ),
    ),
    Rule(
        "elision.joins_subject",
        "Elision joins another subject",
        "elision",
        "elision.GAP_CHECKS",
        "An ellipsis that joins the quote's subject to another clause's verb "
        "('The Buyer shall ... deliver' over ', and the Seller shall').",
        (
            Example(
                "The Buyer shall pay the price, and the Seller shall deliver the "
                "Goods.",
                "The Buyer shall ... deliver the Goods.",
            ),
        ),
        (
            Example(
                "The Buyer shall pay the price and then take the Goods.",
                "The Buyer shall pay the price ... take the Goods.",
            ),
        ),
    ),
    Rule(
        "elision.joins_clauses",
        "Elision joins clauses",
        "elision",
        "elision.GAP_CHECKS",
        "An ellipsis over the modal verb of a second clause when the quote's "
        "first part has its own.",
        (
            Example(
                "The Buyer shall inspect the goods and may reject any defective "
                "goods in writing.",
                "The Buyer shall inspect ... any defective goods in writing.",
            ),
        ),
        (
            Example(
                "The Buyer shall inspect the goods on arrival and reject any "
                "defective goods in writing.",
                "The Buyer shall inspect the goods ... and reject any defective "
                "goods in writing.",
            ),
        ),
    ),
    Rule(
        "elision.reversing_word",
        "Elision drops a reversing word",
        "elision",
        "elision.GAP_CHECKS",
        "An ellipsis over a word that reverses, bounds or narrows the words "
        "right after it ('excluding', 'at least', 'subject to', an un-/non- "
        "word: 'shall not be ... withheld' over 'unreasonably'), with up to "
        "five words of its own; an un-/non- word whose phrase ends inside the "
        "gap governs nothing after it.",
        (
            Example(
                "The Supplier is liable for all damages, excluding indirect damages.",
                "The Supplier is liable for ... indirect damages.",
            ),
        ),
        (
            Example(
                "The Licensor grants an irrevocable, non-transferable, "
                "indivisible licence to use the Software.",
                "The Licensor grants an irrevocable ... indivisible licence to "
                "use the Software.",
            ),
        ),
    ),
    Rule(
        "elision.condition",
        "Elision drops a condition",
        "elision",
        "elision.GAP_CHECKS (elision.elided_condition)",
        "An ellipsis over a word that conditions, restricts or denies the "
        "clause the quote resumes in ('only', 'if', 'unless', 'upon', "
        "'provided', 'to the extent'), or the lead-in of its list.",
        (
            Example(
                "The Landlord may enter the premises, if the Tenant agrees, to "
                "make repairs.",
                "The Landlord may enter the premises ... to make repairs.",
            ),
        ),
        (
            Example(
                "The Landlord may enter the premises with a key to make repairs.",
                "The Landlord may enter the premises ... to make repairs.",
            ),
        ),
    ),
    # --- the other sources of the answer (attribution.py) -------------------
    Rule(
        "attribution.elsewhere",
        "Found in another source",
        "attribution",
        "attribution.verify_cited_quote",
        "A quote that is not in the source it cites but is in another source "
        "of the same answer (mis-attributed).",
        (
            Example(
                _BUYER,
                "The Seller shall deliver the Goods on time",
                others=("The Seller shall deliver the Goods on time.",),
            ),
        ),
        (
            Example(
                _BUYER,
                "The Buyer shall pay within 30 days",
                others=("The Seller shall deliver the Goods on time.",),
            ),
        ),
        inline=(
            "The outcome of verifying the quote in the answer's other sources "
            "(the whole cascade, run again), not a check of one passage."
        ),
    ),
    # --- stages 3-4: judges (only with LLM_JUDGE_MODEL) ----------------------
    Rule(
        "judge.judge",
        "The judge did not support it",
        "judge",
        "verify.verify_quote, judging.vote",
        "A paraphrase the judge does not support, supports with a span that "
        "is not in the passage or with too little confidence (a span that "
        "lacks the quote's numbers, negations, modal verbs or entities is "
        "refused by that guard's rule).",
        (
            Example(
                _BUYER,
                "The Buyer owes the invoiced sum within 30 days",
                judges=((False, ""),),
            ),
        ),
        (
            Example(
                _BUYER,
                "Payment is due 30 days after invoicing",
                judges=((True, "The Buyer shall pay within 30 days"),),
            ),
        ),
        inline=(
            "The judge model's reply: its decision, not a rule the engine evaluates."
        ),
    ),
    Rule(
        "judge.ensemble",
        "The ensemble did not support it",
        "judge",
        "verify.verify_quote, judging.ensemble_vote",
        "On a high-stakes call, a paraphrase fewer judges support than the quorum.",
        (
            Example(
                _BUYER,
                "Payment is due 30 days after invoicing",
                judges=((True, "The Buyer shall pay within 30 days"), (False, "")),
            ),
        ),
        (
            Example(
                _BUYER,
                "Payment is due 30 days after invoicing",
                judges=(
                    (True, "The Buyer shall pay within 30 days"),
                    (True, "The Buyer shall pay within 30 days"),
                ),
            ),
        ),
        inline=(
            "The judge models' quorum: their decision, not a rule the engine evaluates."
        ),
    ),
    Rule(
        "judge.no_passage",
        "No passage to show a judge",
        "judge",
        "verify.verify_quote",
        "A paraphrase with no passage to show a judge: no cited chunk, no near "
        "match, and a document too long to show whole.",
        (
            Example(
                _FILLER,
                "Every lot ships by sea from the northern port",
                judges=((True, "Clause 1 describes the delivery schedule"),),
            ),
        ),
        (
            Example(
                _BUYER,
                "Payment is due 30 days after invoicing",
                judges=((True, "The Buyer shall pay within 30 days"),),
            ),
        ),
        inline=(
            "The judge flow's outcome: no passage was located to show a judge, "
            "so no model was asked."
        ),
    ),
)


_GRANT = "The Licensor grants the Licensee a licence to use the Brand in the Territory."
_LAW = "This Agreement shall be governed by the laws of England."
_SEAT = (
    "Any dispute shall be finally resolved by arbitration under the LCIA Rules, "
    "seated in London."
)
_NOTICE = "The Supplier shall give notice 30 days before the renewal date."
_PAYS = "Acme Tools shall pay Borealis the fees within a month."


def _judged(text: str, quote: str, span: str | None = None) -> Example:
    """A paraphrase an obedient judge supports, naming `span` (else the
    whole text)."""
    return Example(text, quote, judges=((True, span or text),))


ENTITY_RULE_ROWS: tuple[Rule, ...] = (
    # --- stages 3-4: entity guards, before and after any judge (entities.py)
    Rule(
        "entity.role",
        "Roles differ",
        "judge: entities",
        "entities.ENTITY_RULES, entities.WHOLE_SPAN_RULES (verify.verify_quote, judging.vote)",
        "A paraphrase whose parties' roles the judge's span does not state in "
        "that order, or whose modal verb another party governs there "
        "('Licensee grants Licensor' over 'Licensor grants Licensee'); or a "
        "role the passage never names (then no judge is asked).",
        (
            _judged(
                _GRANT, "The Licensee grants the Licensor a licence to use the Brand"
            ),
            _judged(_GRANT, "The Franchisee grants a licence to use the Brand"),
        ),
        (_judged(_GRANT, "The Licensor licenses the Brand to the Licensee"),),
    ),
    Rule(
        "entity.law",
        "Governing law differs",
        "judge: entities",
        "entities.ENTITY_RULES (verify.verify_quote, judging.vote)",
        "A paraphrase naming another governing law than the judge's span "
        "('the laws of New York' over 'the laws of England').",
        (_judged(_LAW, "New York law governs this Agreement"),),
        (_judged(_LAW, "English law governs this Agreement"),),
    ),
    Rule(
        "entity.forum",
        "Forum differs",
        "judge: entities",
        "entities.ENTITY_RULES (verify.verify_quote, judging.vote)",
        "A paraphrase naming another forum (courts for arbitration), arbitral "
        "institution (ICC for LCIA) or seat than the judge's span, or naming "
        "one more often.",
        (
            _judged(_SEAT, "Disputes go to the courts of London"),
            _judged(_SEAT, "Disputes are settled by arbitration under the ICC Rules"),
        ),
        (_judged(_SEAT, "Disputes are settled by LCIA arbitration in London"),),
    ),
    Rule(
        "entity.place",
        "Place differs",
        "judge: entities",
        "entities.ENTITY_RULES (verify.verify_quote, judging.vote)",
        "A paraphrase naming a place (a state, country, city or region: a "
        "territory) the judge's span does not.",
        (
            _judged(
                "The licence extends to the United States and its territories.",
                "The licence covers Canada",
            ),
        ),
        (
            _judged(
                "The licence extends to the United States and its territories.",
                "The licence covers the United States",
            ),
        ),
    ),
    Rule(
        "entity.date",
        "Period or date differs",
        "judge: entities",
        "entities.ENTITY_RULES (verify.verify_quote, judging.vote)",
        "A paraphrase whose period, weekday or 'before'/'after' the judge's "
        "span does not state ('30 months' over '30 days', 'after' over "
        "'before').",
        (
            _judged(
                _NOTICE, "Notice is due 30 months before renewal from the Supplier"
            ),
            _judged(_NOTICE, "The Supplier shall give notice 30 days after renewal"),
        ),
        (_judged(_NOTICE, "The Supplier shall give notice 30 days prior to renewal"),),
    ),
    Rule(
        "entity.party",
        "Party differs",
        "judge: entities",
        "entities.ENTITY_RULES, entities.WHOLE_SPAN_RULES (verify.verify_quote, judging.vote)",
        "A paraphrase naming a party or defined term (a capitalised name) the "
        "judge's span does not write ('Zenith shall pay' over 'Acme Tools "
        "shall pay').",
        (_judged(_PAYS, "Zenith Tools shall pay Borealis the fees in a month"),),
        (_judged(_PAYS, "Acme Tools shall pay the fees to Borealis in a month"),),
    ),
)
RULES = RULES + ENTITY_RULE_ROWS

BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def _shown(value: object, limit: int = 110) -> str:
    if not isinstance(value, str):
        return repr(value)
    one_line = " ".join(value.split()) if value.strip() else repr(value)
    if len(one_line) > limit:
        one_line = one_line[: limit - 1] + f"… ({len(value):,} characters)"
    return one_line.replace("|", "\\|")


def markdown(rules: Sequence[Rule] = RULES) -> str:
    """docs/verification.md: the table of rules, one example each."""
    lines = [
        "# How a quote is verified: the rules",
        "",
        "<!-- Generated from citations/cascade/rules.py by "
        "`python -m citations.cascade.rules > docs/verification.md`; "
        "citations/tests/test_rules.py checks it. Do not edit by hand. -->",
        "",
        "`citations.cascade.verify_quote` finds a quote in its source in stages: "
        "exactly (stage 1); after folding whitespace, hyphenation, ligatures, "
        "quotation marks, dashes, case and OCR confusions, or approximately, "
        "or part by part for an elided quote (stage 2, always guarded); by an "
        "LLM judge and an ensemble (stages 3-4, when configured). A quote "
        "verifies only where no rule below refuses it. A failed verdict names "
        "the rule that decided (`Verdict.rule`, the `rule` of each stage "
        "record in `CitationVerification.stages`, `verify_quotes --explain`), "
        "and is `differs` when the passage was located and a rule refused "
        "what it says, `not_found` when none was.",
        "",
        "Each stage runs its rules as one loop over a table, in order (the "
        "table is named under *runs in*); the first rule that refuses decides "
        "and names itself.",
        "",
    ]
    body = []
    for rule in rules:
        refused = _example(rule.refused[0])
        passed = _example(rule.passed[0]) if rule.passed else ""
        refuses = rule.refuses.replace("|", "\\|")
        body.append(
            f"| `{rule.id}` | {rule.name} | {rule.stage} | `{rule.place}` | {refuses} | "
            f"{refused} | {passed} |"
        )
    inline = [rule for rule in rules if rule.inline]
    lines += [
        f"{len(rules) - len(inline)} of the {len(rules)} rules run from a "
        "stage's table. These are decided where their stage's flow ends, and "
        "name themselves there:",
        "",
        *(f"- `{rule.id}`: {rule.inline}" for rule in inline),
        "",
    ]
    lines += [
        "Each rule has examples it must refuse and pass; "
        "`citations/tests/test_rules.py` runs them all. One of each is shown.",
        "",
        "| rule | name | stage | runs in | refuses | refused | passes |",
        "|---|---|---|---|---|---|---|",
        *body,
    ]
    return "\n".join(lines) + "\n"


def _example(example: Example) -> str:
    shown = f"“{_shown(example.quote)}” in “{_shown(example.text)}”"
    if example.others:
        shown += f"; other source: “{_shown(example.others[0])}”"
    if example.judges:
        votes = ", ".join(
            "yes" if supported else "no" for supported, _ in example.judges
        )
        shown += f"; judges: {votes}"
    return shown


if __name__ == "__main__":
    sys.stdout.write(markdown())
