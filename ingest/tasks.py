"""Ingestion tasks: thin shells over ingest.services (see its docstring for
the idempotency contract). Acked late: a worker killed mid-way gets the
message back, and the attempt counter on the document ends poison files."""

from __future__ import annotations

import uuid

from celery import shared_task


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def ingest_document(document_id: str) -> None:
    from ingest.services import document_process

    document_process(document_id=uuid.UUID(document_id))


@shared_task(ignore_result=True)
def sweep_documents() -> int:
    from ingest.services import documents_sweep

    return documents_sweep()


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def sync_source(source_id: str) -> None:
    from ingest.sources import source_sync

    source_sync(source_id=uuid.UUID(source_id))


@shared_task(ignore_result=True)
def sweep_sources() -> int:
    from ingest.sources import sources_sweep

    return sources_sweep()
