"""On PostgreSQL, stats come from trigger-kept counts: they must equal a COUNT."""

from __future__ import annotations

import pytest
from django.db.models import Count
from django.utils import timezone

from accounts.scoping import unscoped
from chat.models import ChatSession, Message
from citations.models import MessageCitation
from citations.selectors import CitationFilters, citation_stats
from docuiq.testing.factories import make_document

pytestmark = [pytest.mark.pg, pytest.mark.django_db(transaction=True)]


def _kept(tenant):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT status, n FROM citation_status_counts WHERE tenant_id = %s",
            [tenant.pk],
        )
        return {status: n for status, n in cursor.fetchall() if n}


def _counted(tenant):
    with unscoped():
        rows = (
            MessageCitation.objects.filter(tenant=tenant)
            .values("verification_status")
            .annotate(n=Count("id"))
        )
        return {r["verification_status"]: r["n"] for r in rows}


def test_trigger_kept_counts_follow_inserts_updates_and_deletes(tenant_a, tenant_b):
    document = make_document(tenant_a, "Text of the contract here.")
    other = make_document(tenant_b, "Other text.")
    with unscoped():
        session = ChatSession.objects.create(tenant=tenant_a)
        message = Message.objects.create(
            tenant=tenant_a, session=session, role="assistant"
        )
        session_b = ChatSession.objects.create(tenant=tenant_b)
        message_b = Message.objects.create(
            tenant=tenant_b, session=session_b, role="assistant"
        )
        rows = MessageCitation.objects.bulk_create(
            [
                MessageCitation(
                    tenant=tenant_a,
                    message=message,
                    source_file=document.file,
                    source_offset_start=0,
                    source_offset_end=4,
                    source_text="Text",
                    verification_status="pending",
                )
                for _ in range(5)
            ]
        )
        MessageCitation.objects.create(
            tenant=tenant_b,
            message=message_b,
            source_file=other.file,
            source_offset_start=0,
            source_offset_end=5,
            source_text="Other",
            document_name="Test document",
        )
        MessageCitation.objects.filter(pk__in=[r.pk for r in rows[:3]]).update(
            verification_status="verified",
            verified=True,
            verification_method="exact_match",
            verified_at=timezone.now(),
        )
        MessageCitation.objects.filter(pk=rows[3].pk).update(
            verification_status="failed", verification_method="failed"
        )
        MessageCitation.objects.filter(pk=rows[4].pk).delete()
    stats = citation_stats(tenant=tenant_a)
    assert _kept(tenant_a) == _counted(tenant_a) == {"verified": 3, "failed": 1}
    assert {k: v for k, v in stats.items() if v and k != "total"} == _kept(tenant_a)
    assert stats["total"] == 4
    assert citation_stats(tenant=tenant_b)["total"] == 1
    # Deleting the message cascades in the database; the counts follow.
    with unscoped():
        Message.objects.filter(pk=message.pk).delete()
    assert citation_stats(tenant=tenant_a)["total"] == 0 and _kept(tenant_a) == {}
    # A filtered call counts rows, and agrees.
    assert (
        citation_stats(tenant=tenant_b, filters=CitationFilters(document_name="test"))[
            "total"
        ]
        == 1
    )
