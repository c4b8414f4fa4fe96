"""A failed badge says why it failed: absent, different, or in another source."""

from __future__ import annotations

import pytest

from citations.models import MessageCitation, Method, Status
from citations.presentation import citation_badge, footnote_text, match_summary


def _failed(**fields) -> MessageCitation:
    return MessageCitation(
        verification_status=Status.FAILED,
        verification_method=Method.FAILED,
        quoted_text="The Buyer may assign this Agreement",
        **fields,
    )


@pytest.mark.parametrize(
    ("fields", "label"),
    [
        ({}, "Not verified: quote not found in the source"),
        # A far passage is kept for display, but the quote is not there.
        (
            {"candidate_text": "The Seller shall deliver", "match_score": 0.41},
            "Not verified: quote not found in the source",
        ),
        # As close as a match: the guard failed it on a difference it names.
        (
            {"candidate_text": "The Buyer may not assign", "match_score": 0.93},
            "Not verified: the source differs from the quote",
        ),
        (
            {"candidate_text": "The Buyer may assign", "match_score": 1.0},
            "Not verified: the source differs from the quote",
        ),
        (
            {"mis_attributed_to": "S2", "match_score": 1.0},
            "Not verified: the quote is in another source (S2)",
        ),
    ],
)
def test_a_failed_badge_names_the_kind_of_failure(fields, label):
    badge = citation_badge(_failed(**fields))
    assert badge.css == "failed"
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
        _failed(candidate_text="The Buyer may not assign", match_score=0.95)
    )
    text = footnote_text(
        number=1, title="Lease.pdf", page=3, quote="The Buyer may assign", badge=badge
    )
    assert text == (
        'Lease.pdf, p. 3: "The Buyer may assign" '
        "(Not verified: the source differs from the quote)"
    )


@pytest.mark.parametrize(
    ("citation", "summary"),
    [
        (
            _failed(candidate_text="The Buyer may not assign", match_score=1.0),
            "Differs from the source · closest passage 1.00 similar",
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
