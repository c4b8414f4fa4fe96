"""Each CHECK on message_citations rejects a bad row at the database (DAT-01, DAT-02),
and no row may point across tenants (TEN-06)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.scoping import unscoped
from chat.models import ChatSession, Message
from citations.models import MessageCitation
from docuiq.testing.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def parts(tenant_a):
    document = make_document(tenant_a, "The Supplier shall deliver within 30 days.")
    with unscoped():
        session = ChatSession.objects.create(tenant=tenant_a)
        message = Message.objects.create(
            tenant=tenant_a, session=session, role="assistant", content="x"
        )
    return tenant_a, document, message


def _row(parts, **overrides):
    tenant, document, message = parts
    fields = {
        "tenant": tenant,
        "message": message,
        "source_file": document.file,
        "source_offset_start": 0,
        "source_offset_end": 10,
        "source_text": "The Suppli",
        "quoted_text": "The Suppli",
        "verification_status": "pending",
    }
    fields.update(overrides)
    return fields


def _rejected(parts, **overrides):
    with unscoped(), pytest.raises(IntegrityError), transaction.atomic():
        MessageCitation.objects.create(**_row(parts, **overrides))


def test_a_valid_row_is_accepted(parts):
    with unscoped():
        MessageCitation.objects.create(**_row(parts))
        assert MessageCitation.objects.count() == 1


def test_negative_start_is_rejected(parts):
    _rejected(parts, source_offset_start=-1)


def test_end_not_after_start_is_rejected(parts):
    _rejected(parts, source_offset_start=5, source_offset_end=5)


def test_unknown_method_is_rejected(parts):
    _rejected(parts, verification_method="vibes")


def test_confidence_above_one_is_rejected(parts):
    _rejected(parts, verification_confidence=Decimal("1.5"))


def test_confidence_below_zero_is_rejected(parts):
    _rejected(parts, verification_confidence=Decimal("-0.1"))


def test_verified_without_method_is_rejected(parts):
    _rejected(
        parts, verified=True, verification_status="verified", verified_at=timezone.now()
    )


def test_verified_without_verified_at_is_rejected(parts):
    _rejected(
        parts,
        verified=True,
        verification_method="exact_match",
        verification_status="verified",
    )


def test_unknown_status_is_rejected(parts):
    _rejected(parts, verification_status="probably")


def test_end_beyond_the_text_is_rejected(parts):
    _rejected(parts, revision_length=8)


def test_a_citation_cannot_point_at_another_tenants_file(parts, tenant_b):
    foreign = make_document(tenant_b, "Tenant B's secret contract.")
    _rejected(parts, source_file=foreign.file)


def test_a_revision_cannot_belong_to_another_tenants_document(parts, tenant_b):
    from ingest.models import DocumentRevision

    _, document, _ = parts
    with unscoped(), pytest.raises(IntegrityError), transaction.atomic():
        DocumentRevision.objects.create(
            tenant=tenant_b,
            document=document,
            number=9,
            file=document.file,
            normalized_content="x",
            page_starts=[0],
            content_sha256="0" * 64,
        )


def test_deleting_a_message_deletes_its_citations_in_the_database(parts):
    _, _, message = parts
    with unscoped():
        MessageCitation.objects.create(**_row(parts))
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA foreign_keys = ON")
        # Raw SQL, bypassing Django's Python-side cascade: the database does it.
        cursor.execute(
            "DELETE FROM messages WHERE id = %s",
            [message.pk.hex if connection.vendor == "sqlite" else message.pk],
        )
        cursor.execute("SELECT COUNT(*) FROM message_citations")
        assert cursor.fetchone()[0] == 0
