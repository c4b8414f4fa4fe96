"""A document is `ready` only when its text, its attachments and its vectors
are stored (issue 34 item 2). Before: a large email (>= 200,000 characters)
came out ready with no attachments and no vectors when the broker was down,
because the prepared-form message raised after the commit; a worker lost
after the commit left it ready with the rest never coming."""

from __future__ import annotations

import io
from email.message import EmailMessage

import pytest
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from ingest import services
from ingest.models import ChunkEmbedding, Document
from ingest.services import Upload, document_process, document_upload

pytestmark = pytest.mark.django_db


def _large_email() -> bytes:
    msg = EmailMessage()
    msg["From"] = "ann@example.com"
    msg["To"] = "bob@example.com"
    msg["Subject"] = "Data room index"
    msg["Message-ID"] = "<34@example.com>"
    # Over citations.prepared_store.STORE_MIN_CHARS: its form is queued.
    msg.set_content("The Supplier shall deliver the goods on time. " * 5000)
    for name in ("lease.txt", "nda.txt"):
        msg.add_attachment(
            f"{name}: the Tenant shall pay the rent.".encode(),
            maintype="text",
            subtype="plain",
            filename=name,
        )
    return bytes(msg)


def _upload(tenant, capture) -> Document:
    with capture(execute=True), tenant_scope(tenant):
        return document_upload(
            tenant=tenant,
            upload=Upload(filename="index.eml", stream=io.BytesIO(_large_email())),
        )


def _state(document) -> tuple[str, int, int]:
    with unscoped():
        document.refresh_from_db()
        return (
            document.status,
            Document.objects.filter(parent=document).count(),
            ChunkEmbedding.objects.filter(document_id=document.pk).count(),
        )


def test_a_broker_down_at_commit_leaves_a_large_email_complete(
    tenant_a, settings, monkeypatch, django_capture_on_commit_callbacks
):
    from citations import tasks
    from docuiq.celery import app

    sent: list = []

    def broker_down(*args):
        sent.append(args)
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(tasks.prepare_revision, "delay", broker_down)
    app.conf.task_always_eager = False
    try:
        # The upload's own message is delivered by hand below, as a worker would.
        monkeypatch.setattr(services, "_enqueue", lambda d: None)
        document = _upload(tenant_a, django_capture_on_commit_callbacks)
        with django_capture_on_commit_callbacks(execute=True):
            document_process(document_id=document.pk)
    finally:
        app.conf.task_always_eager = True
    assert sent, "the prepared form was asked for (and the broker refused it)"
    status, attachments, vectors = _state(document)
    assert (status, attachments) == ("ready", 2) and vectors > 0


def test_a_worker_lost_before_the_attachments_leaves_the_document_processing(
    tenant_a, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """Not ready with a part missing: still processing, so the sweep (stale
    heartbeat) queues it again and the redelivery finishes it."""
    real = services._store_attachments

    def lost(document, extracted):
        raise SystemExit("worker lost")

    monkeypatch.setattr(services, "_store_attachments", lost)
    with pytest.raises(SystemExit):
        _upload(tenant_a, django_capture_on_commit_callbacks)
    with unscoped():
        document = Document.objects.get(parent__isnull=True)
    status, attachments, _ = _state(document)
    assert (status, attachments) == ("processing", 0)
    monkeypatch.setattr(services, "_store_attachments", real)
    with unscoped():
        Document.objects.filter(pk=document.pk).update(
            updated_at=timezone.now()
            - timezone.timedelta(seconds=settings.INGEST_STALE_AFTER_S + 1)
        )
    with django_capture_on_commit_callbacks(execute=True):
        assert services.documents_sweep() == 1
    status, attachments, vectors = _state(document)
    assert (status, attachments) == ("ready", 2) and vectors > 0
    with unscoped():
        assert document.revisions.count() == 1


def test_vectors_that_did_not_come_are_said_pending_and_the_sweep_stores_them(
    tenant_a, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """The embedding server is down during ingestion: the document is ready
    (searched by full text) and says `vectors_pending`; once the server is
    back, the sweep's delivery stores the vectors and clears it."""
    from ingest import embedding
    from llm.errors import LLMUnavailable

    real = embedding.embed_chunks

    def down(*args, **kwargs):
        raise LLMUnavailable("embedding server down")

    monkeypatch.setattr(embedding, "embed_chunks", down)
    document = _upload(tenant_a, django_capture_on_commit_callbacks)
    status, attachments, vectors = _state(document)
    assert (status, vectors, document.error_code) == ("ready", 0, "vectors_pending")
    monkeypatch.setattr(embedding, "embed_chunks", real)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.documents_sweep() == 0  # not yet: once per retry interval
    with unscoped():
        Document.objects.filter(pk=document.pk).update(
            updated_at=timezone.now()
            - timezone.timedelta(seconds=settings.INGEST_VECTORS_RETRY_S + 1)
        )
    with django_capture_on_commit_callbacks(execute=True):
        assert services.documents_sweep() == 1
    status, attachments, vectors = _state(document)
    assert (status, attachments) == ("ready", 2) and vectors > 0
    assert document.error_code == ""
