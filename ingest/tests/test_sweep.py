"""The document sweep and the delivery claim, in-process (the real worker,
broker and beat are in docuiq/tests/test_recovery.py)."""

from __future__ import annotations

import io

import pytest
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from ingest.models import Document
from ingest.services import Upload, document_process, document_upload, documents_sweep

pytestmark = pytest.mark.django_db


def _queued(tenant, name: str) -> Document:
    """An uploaded document whose message never reached a worker."""
    with tenant_scope(tenant):
        return document_upload(
            tenant=tenant,
            upload=Upload(filename=name, stream=io.BytesIO(name.encode() * 5)),
        )


def _set(document: Document, **fields) -> Document:
    with unscoped():
        Document.objects.filter(pk=document.pk).update(**fields)
        return Document.objects.get(pk=document.pk)


def test_a_second_delivery_leaves_a_document_another_worker_is_processing(tenant_a):
    document = _set(
        _queued(tenant_a, "busy.txt"),
        status=Document.Status.PROCESSING,
        attempts=1,
        updated_at=timezone.now(),  # a fresh heartbeat
    )
    document_process(document_id=document.pk)
    after = _set(document)
    assert (after.status, after.attempts) == ("processing", 1)


def test_a_delivery_takes_over_a_document_whose_heartbeat_stopped(tenant_a, settings):
    document = _set(
        _queued(tenant_a, "orphan.txt"),
        status=Document.Status.PROCESSING,
        attempts=1,
        updated_at=timezone.now()
        - timezone.timedelta(seconds=settings.INGEST_STALE_AFTER_S + 1),
    )
    document_process(document_id=document.pk)
    after = _set(document)
    assert (after.status, after.attempts) == ("ready", 2)


def test_the_sweep_queues_what_was_lost_and_leaves_live_work_alone(
    tenant_a, settings, django_capture_on_commit_callbacks
):
    stale = timezone.now() - timezone.timedelta(
        seconds=settings.INGEST_STALE_AFTER_S + 1
    )
    never_sent = _set(_queued(tenant_a, "never-sent.txt"), enqueued_at=None)
    dead_worker = _set(
        _queued(tenant_a, "dead-worker.txt"),
        status=Document.Status.PROCESSING,
        attempts=1,
        updated_at=stale,
    )
    too_long = _set(
        _queued(tenant_a, "waited.txt"),
        enqueued_at=timezone.now()
        - timezone.timedelta(seconds=settings.INGEST_REQUEUE_AFTER_S + 1),
    )
    waiting = _set(_queued(tenant_a, "waiting.txt"), enqueued_at=timezone.now())
    working = _set(
        _queued(tenant_a, "working.txt"),
        status=Document.Status.PROCESSING,
        attempts=1,
        updated_at=timezone.now(),
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert documents_sweep() == 3
    assert {_set(d).status for d in (never_sent, dead_worker, too_long)} == {"ready"}
    assert _set(dead_worker).attempts == 2
    assert _set(waiting).status == "queued"
    assert _set(working).status == "processing"
