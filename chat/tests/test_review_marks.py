"""A reviewer's decision shows in the chat answer (issue 26 item 5): the
badge and the footer of a rejected citation read Rejected, whatever the
machine said; the session page reads the decisions with the citations."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.scoping import tenant_scope
from chat.models import Message
from chat.selectors import message_view, session_messages
from citations.models import CitationReview
from citations.tests.review_helpers import CONTRACT, make_citation, make_message
from docuiq.testing.factories import make_document

pytestmark = pytest.mark.django_db


def test_a_rejected_citation_reads_rejected_in_the_badge_and_footer(tenant_a, alice):
    doc = make_document(tenant_a, CONTRACT, title="MSA")
    message = make_message(tenant_a)
    kept = make_citation(
        tenant_a, doc, quote="Payment is due within 45 days", message=message
    )
    rejected = make_citation(
        tenant_a, doc, quote="Liability is capped", message=message
    )
    with tenant_scope(tenant_a):
        CitationReview.objects.create(
            tenant=tenant_a,
            citation=rejected,
            reviewer=alice,
            decision="reject",
            note="x",
        )
        view = message_view(Message.objects.get(pk=message.pk))
        badges = {b.item.pk: b.item.badge for b in view.footnotes + view.not_answering}
    assert badges[str(rejected.pk)].key == "rejected"
    assert badges[str(rejected.pk)].label == "Rejected by a reviewer"
    assert badges[str(kept.pk)].key == "exact"
    assert "Rejected by a reviewer" in view.copy_text


def test_the_session_page_reads_reviews_without_a_query_per_citation(tenant_a, alice):
    doc = make_document(tenant_a, CONTRACT, title="MSA")
    message = make_message(tenant_a)
    for quote in (
        "Payment is due",
        "Liability is capped",
        "Either party may terminate",
    ):
        make_citation(tenant_a, doc, quote=quote, message=message)
    with tenant_scope(tenant_a), CaptureQueriesContext(connection) as queries:
        session_messages(session=message.session)
    review_queries = [
        q
        for q in queries
        if "citation_reviews" in q["sql"] or "citationreview" in q["sql"].lower()
    ]
    assert len(review_queries) == 1
