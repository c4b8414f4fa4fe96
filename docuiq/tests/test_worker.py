"""A real Celery worker on Redis against PostgreSQL: tasks are delivered,
acked late, redelivered after the worker is killed, and never duplicate work
(CEL-01, CEL-02, CEL-03/04, DAT-05)."""

from __future__ import annotations

import io

import pytest

from accounts.scoping import tenant_scope, unscoped
from docuiq.testing import pdfgen
from docuiq.testing.waiting import wait_for
from ingest.models import Document, DocumentRevision
from ingest.services import Upload, document_upload

pytestmark = [
    pytest.mark.worker,
    pytest.mark.pg,
    pytest.mark.django_db(transaction=True),
]


def _status(document_id) -> Document:
    with unscoped():
        return Document.objects.get(pk=document_id)


def test_the_ingest_task_is_acked_late_and_rejected_when_the_worker_is_lost():
    from citations.tasks import verify_citation, verify_message_citations
    from ingest.tasks import ingest_document

    for task in (ingest_document, verify_message_citations, verify_citation):
        assert task.acks_late is True
        assert task.reject_on_worker_lost is True


def test_an_upload_is_ingested_by_the_worker(celery_worker_proc, tenant_a):
    with tenant_scope(tenant_a):
        document = document_upload(
            tenant=tenant_a,
            upload=Upload(filename="memo.txt", stream=io.BytesIO(b"Worker-made text.")),
        )
    assert wait_for(lambda: _status(document.pk).status == "ready", timeout=60), (
        celery_worker_proc.log_path.read_text()[-3000:]
    )


def test_a_worker_killed_mid_ingestion_leaves_the_document_to_be_finished_once(
    celery_worker_proc, tenant_a, tmp_path
):
    path = pdfgen.prose_pdf(tmp_path / "long.pdf", pages=400)
    with tenant_scope(tenant_a), path.open("rb") as stream:
        document = document_upload(
            tenant=tenant_a, upload=Upload(filename="long.pdf", stream=stream)
        )
    assert wait_for(lambda: _status(document.pk).status == "processing", timeout=60), (
        _status(document.pk).status,
        _status(document.pk).error,
        celery_worker_proc.log_path.read_text()[-6000:],
    )
    celery_worker_proc.kill()
    assert _status(document.pk).status == "processing", _status(document.pk).error
    celery_worker_proc.restart()
    # Redelivered after the visibility timeout (8 s in the test worker).
    assert wait_for(lambda: _status(document.pk).status == "ready", timeout=120), (
        celery_worker_proc.log_path.read_text()[-3000:]
    )
    finished = _status(document.pk)
    assert finished.attempts == 2
    with unscoped():
        assert DocumentRevision.objects.filter(document=finished).count() == 1
        assert finished.chunks.count() == finished.current_revision.chunks.count()


def test_chat_citations_are_verified_by_the_worker(celery_worker_proc, tenant_a, alice):
    from chat.models import Message
    from chat.services import message_ask, session_create
    from citations.models import MessageCitation
    from docuiq.testing.factories import make_document

    make_document(
        tenant_a, "The notice period for termination is ninety (90) days.", title="MSA"
    )
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
        message = message_ask(
            session=session, question="What is the notice period for termination?"
        )
        assert message.status == Message.Status.COMPLETE

    def all_verified() -> bool:
        with unscoped():
            rows = list(MessageCitation.objects.filter(message=message))
        return bool(rows) and all(r.verification_status == "verified" for r in rows)

    assert wait_for(all_verified, timeout=60), celery_worker_proc.log_path.read_text()[
        -3000:
    ]
