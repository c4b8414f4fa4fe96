"""A failed badge says why it failed: absent, different, or in another source."""

from __future__ import annotations

import pytest

from citations.models import MessageCitation, Method, Status
from citations.presentation import (
    citation_badge,
    footnote_text,
    match_summary,
    named_differences,
)


def _failed(**fields) -> MessageCitation:
    fields.setdefault("quoted_text", "The Buyer may assign this Agreement")
    return MessageCitation(
        verification_status=Status.FAILED, verification_method=Method.FAILED, **fields
    )


@pytest.mark.parametrize(
    ("fields", "label", "css"),
    [
        ({}, "Not verified: quote not found in the source", "failed"),
        (
            {"failure_kind": "not_found"},
            "Not verified: quote not found in the source",
            "failed",
        ),
        # The cascade located the passage and a rule refused what it says:
        # "found, differs", whatever its similarity, with the differences named.
        (
            {
                "failure_kind": "differs",
                "candidate_text": "The Buyer may not assign this Agreement",
                "match_score": 0.93,
            },
            "Found, differs: ∅ → not",
            "differs",
        ),
        (
            {
                "failure_kind": "differs",
                "candidate_text": "The Seller may assign this Agreement",
                "match_score": 0.41,
            },
            "Found, differs: Buyer → Seller",
            "differs",
        ),
        # Rows verified before failure kinds were stored claim no passage,
        # however similar the one they kept.
        (
            {
                "candidate_text": "The Buyer may not assign this Agreement",
                "match_score": 0.99,
            },
            "Not verified: quote not found in the source",
            "failed",
        ),
        (
            {"mis_attributed_to": "S2", "match_score": 1.0},
            "Not verified: the quote is in another source (S2)",
            "failed",
        ),
    ],
)
def test_a_failed_badge_names_the_kind_of_failure(fields, label, css):
    badge = citation_badge(_failed(**fields))
    assert badge.css == css
    assert badge.label == label


def test_a_verified_badge_is_unchanged_by_a_kept_candidate():
    citation = MessageCitation(
        verification_status=Status.VERIFIED,
        verification_method=Method.TOLERANT,
        candidate_text="x",
        match_score=0.99,
    )
    assert citation_badge(citation).label == "Verified: tolerant match"


def test_a_footnote_carries_the_badges_words():
    badge = citation_badge(
        _failed(
            failure_kind="differs",
            candidate_text="The Buyer may assign this Agreement within 36 days",
            quoted_text="The Buyer may assign this Agreement within 35 days",
            match_score=0.95,
        )
    )
    text = footnote_text(
        number=1, title="Lease.pdf", page=3, quote="The Buyer may assign", badge=badge
    )
    assert text == 'Lease.pdf, p. 3: "The Buyer may assign" (Found, differs: 35 → 36)'


@pytest.mark.parametrize(
    ("citation", "summary"),
    [
        (
            _failed(
                failure_kind="differs",
                candidate_text="The Buyer may not assign",
                match_score=1.0,
            ),
            "Differs from the source · passage found, 1.00 similar",
        ),
        (_failed(candidate_text="far", match_score=0.4), "Not found"),
        (
            MessageCitation(
                verification_status=Status.VERIFIED,
                verification_method=Method.TOLERANT,
                match_type="fuzzy",
                match_score=0.93,
            ),
            "Fuzzy · score 0.93",
        ),
        (MessageCitation(verification_status=Status.PENDING), "—"),
    ],
)
def test_the_match_line_never_calls_a_differing_passage_not_found(citation, summary):
    assert match_summary(citation) == summary


@pytest.mark.parametrize(
    ("quote", "passage", "named"),
    [
        ("within 35 days", "within 36 days", "35 → 36"),
        ("The Buyer may assign", "The Buyer may not assign", "∅ → not"),
        ("The Buyer shall pay", "The Buyer pay", "shall → ∅"),
        # Folding and edge punctuation are no difference.
        ("“Renewal Term”, unless", '"Renewal Term" unless', ""),
        ("The Supplier shall ... deliver", "The Supplier shall not deliver", "∅ → not"),
        # At most two differences, and a few words of each side.
        ("a b c d e f g h", "a x c y e z g h", "b → x; d → y"),
        ("pay one", "pay two three four five six", "one → two three four five …"),
    ],
)
def test_named_differences_read_quote_side_first(quote, passage, named):
    assert named_differences(quote, passage) == named
