"""The one way a verdict is stored: compare-and-set, and never against a
revision the document has moved past (DAT-06)."""

from __future__ import annotations

import pytest

from accounts.scoping import tenant_scope
from chat.models import Message
from chat.sources import SourceChunk, message_sources_create
from citations.extraction import CitationCandidate
from citations.models import MessageCitation
from citations.services import citations_record
from citations.verdicts import RevisionText, quote_check, verdict_write
from docuiq.testing.factories import make_document
from ingest.models import Document, DocumentRevision

pytestmark = pytest.mark.django_db

TEXT = "Either party may terminate this Agreement upon ninety (90) days notice."


def _pending(tenant):
    document = make_document(tenant, TEXT, title="MSA")
    with tenant_scope(tenant):
        message = Message.objects.create(tenant=tenant, role="assistant", content="x")
        chunk = document.current_revision.chunks.first()
        sources = message_sources_create(
            message=message,
            chunks=[
                SourceChunk(chunk=chunk, document=document, file_id=document.file_id)
            ],
        )
        (citation,) = citations_record(
            message=message,
            candidates=[
                CitationCandidate(
                    "S1", "terminate this Agreement", None, None, "resolve"
                )
            ],
            sources=sources,
        ).citations
    return document, citation


def test_a_verdict_is_written_once_while_pending(tenant_a):
    document, citation = _pending(tenant_a)
    text = RevisionText.of(document.current_revision)
    with tenant_scope(tenant_a):
        checked = quote_check("terminate this Agreement", cited=text.source("S1", None))
        assert verdict_write(citation, checked, text, within=None, trigger="initial")
        assert not verdict_write(
            citation, checked, text, within=None, trigger="initial"
        )
        assert (
            MessageCitation.objects.get(pk=citation.pk).verification_status
            == "verified"
        )


def test_a_verdict_on_a_superseded_revision_is_not_written(tenant_a):
    document, citation = _pending(tenant_a)
    old = RevisionText.of(document.current_revision)
    with tenant_scope(tenant_a):
        newer = DocumentRevision.objects.create(
            tenant=tenant_a,
            document=document,
            number=2,
            file=document.file,
            normalized_content=TEXT.replace("ninety (90)", "sixty (60)"),
            page_starts=[0],
            content_sha256="b" * 64,
        )
        Document.objects.filter(pk=document.pk).update(current_revision=newer)
        checked = quote_check("terminate this Agreement", cited=old.source("S1", None))
        assert not verdict_write(citation, checked, old, within=None, trigger="initial")
        row = MessageCitation.objects.get(pk=citation.pk)
        assert row.verification_status == "pending" and not row.verifications.exists()
