"""A reviewer's decision shows wherever a citation does (issue 26 item 5):
the badge (rows of BADGE_STATES), the panel, the review tab's table, its
status cards (a rejection is named on the Verified card) and its review
cards; the tab filters by review state and exports what it shows."""

from __future__ import annotations

import csv
import io

import html5lib
import pytest
from django.urls import reverse

from accounts.scoping import tenant_scope
from citations.models import CitationReview, MessageCitation
from citations.presentation import citation_badge, latest_review
from citations.reviews import citation_stat_cards, review_counts, with_latest_review
from citations.tests.review_helpers import CONTRACT, make_citation, make_unsourced
from docuiq.testing.factories import make_document

pytestmark = pytest.mark.django_db

REVIEW = reverse("citations:review")


@pytest.fixture
def decided(tenant_a, alice):
    """Four citations: one rejected (verified by the machine), one accepted
    after a rejection (the latest decision wins), one failed and accepted,
    one not reviewed; and a reference to no source."""
    doc = make_document(tenant_a, CONTRACT, title="Master Services Agreement")
    rejected = make_citation(tenant_a, doc, quote="Payment is due within 45 days")
    reconsidered = make_citation(tenant_a, doc, quote="The Supplier shall deliver")
    failed = make_citation(tenant_a, doc, quote="within 60 days", status="failed")
    make_citation(tenant_a, doc, quote="Liability is capped")
    make_unsourced(tenant_a, quote="Clause 99.")
    with tenant_scope(tenant_a):
        for citation, decision in (
            (rejected, "reject"),
            (reconsidered, "reject"),
            (reconsidered, "accept"),
            (failed, "accept"),
        ):
            CitationReview.objects.create(
                tenant=tenant_a,
                citation=citation,
                reviewer=alice,
                decision=decision,
                note="checked",
            )
    return {"rejected": rejected, "reconsidered": reconsidered, "failed": failed}


def _tree(response):
    return html5lib.parse(response.content.decode(), namespaceHTMLElements=False)


def _by_testid(tree, testid):
    return [el for el in tree.iter() if el.get("data-testid") == testid]


def _text(el) -> str:
    return " ".join("".join(el.itertext()).split())


def test_the_badge_shows_the_latest_decision_however_the_citation_was_read(
    tenant_a, decided
):
    with tenant_scope(tenant_a):
        plain = {c.pk: c for c in MessageCitation.objects.all()}
        annotated = {
            c.pk: c
            for c in with_latest_review(MessageCitation.objects.all(), tenant=tenant_a)
        }
        prefetched = {
            c.pk: c for c in MessageCitation.objects.prefetch_related("reviews")
        }
        for pk in plain:
            assert (
                latest_review(plain[pk])
                == latest_review(annotated[pk])
                == latest_review(prefetched[pk])
            )
        assert citation_badge(plain[decided["rejected"].pk]).key == "rejected"
        assert citation_badge(plain[decided["reconsidered"].pk]).key == "accepted"
        # A reviewer's acceptance does not turn a failed quote green.
        assert citation_badge(plain[decided["failed"].pk]).key == "not_found"


def test_status_cards_name_what_reviewers_overruled_and_review_cards_count(
    tenant_a, decided
):
    with tenant_scope(tenant_a):
        cards = {c.key: c for c in citation_stat_cards(tenant=tenant_a)}
        counts = review_counts(tenant=tenant_a)
    assert cards["verified"].count == 3
    assert cards["verified"].note == "1 rejected by a reviewer"
    assert cards["failed"].note == "1 accepted by a reviewer"
    assert (counts.accepted, counts.rejected, counts.unreviewed) == (2, 1, 1)
    assert [(c.key, c.count, c.percent) for c in counts.cards()] == [
        ("unreviewed", 1, 25.0),
        ("accept", 2, 50.0),
        ("reject", 1, 25.0),
    ]


@pytest.mark.parametrize(
    ("state", "quotes"),
    [
        ("reject", ["Payment is due within 45 days"]),
        ("accept", ["within 60 days", "The Supplier shall deliver"]),
        ("unreviewed", ["Liability is capped"]),
    ],
)
def test_the_review_tab_filters_by_review_state(alice_client, decided, state, quotes):
    response = alice_client.get(REVIEW, {"review": state})
    tree = _tree(response)
    rows = [_text(r) for r in _by_testid(tree, "review-row")]
    assert len(rows) == len(quotes)
    assert all(any(q in row for row in rows) for q in quotes)
    # The status cards count what the filter shows.
    total = _text(_by_testid(tree, "stat-total-count")[0])
    assert total == str(len(quotes))
    active = [
        el
        for el in _by_testid(tree, f"reviewed-{state}")
        if "is-active" in el.get("class")
    ]
    assert active


def test_a_rejected_row_reads_rejected_and_the_verified_card_says_so(
    alice_client, decided
):
    tree = _tree(alice_client.get(REVIEW))
    rows = {_text(r): r for r in _by_testid(tree, "review-row")}
    row = next(t for t in rows if "Payment is due" in t)
    assert "Rejected" in row and "machine: verified" in row
    assert "✓ Verified" not in row
    note = _by_testid(tree, "stat-verified-note")
    assert _text(note[0]) == "1 rejected by a reviewer"
    assert _text(_by_testid(tree, "reviewed-reject-count")[0]) == "1"


def test_the_panel_shows_the_latest_review(alice_client, decided):
    url = reverse("citations:detail", args=[decided["rejected"].pk])
    tree = _tree(alice_client.get(url, HTTP_HX_REQUEST="true"))
    review = _text(_by_testid(tree, "panel-review")[0])
    assert review.startswith("⊘ Rejected by alice")
    assert "checked" in review
    panel = _by_testid(tree, "citation-panel")[0]
    assert "Rejected by a reviewer" in _text(panel)


def test_the_export_follows_the_review_filter(alice_client, decided):
    response = alice_client.get(reverse("citations:export"), {"review": "accept"})
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert sorted(r["review_decision"] for r in rows) == ["accept", "accept"]


def test_an_unknown_review_state_is_reported_and_ignored(alice_client, decided):
    response = alice_client.get(REVIEW, {"review": "maybe"})
    assert response.status_code == 200
    tree = _tree(response)
    assert len(_by_testid(tree, "review-row")) == 5
    assert "Review:" in _text(tree.find(".//body"))
