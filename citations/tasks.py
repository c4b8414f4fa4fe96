"""Verification tasks: thin shells over citations.services (idempotent, see
its docstring). Acked late; a model server that is down is retried with
backoff, any other error is not."""

from __future__ import annotations

import uuid

from celery import shared_task

from llm.errors import LLMUnavailable

_RETRY = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (LLMUnavailable,),
    "retry_backoff": True,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": 5,
    "ignore_result": True,
}


@shared_task(**_RETRY)
def verify_message_citations(message_id: str) -> None:
    from citations.services import message_citations_verify

    message_citations_verify(message_id=uuid.UUID(message_id))


@shared_task(**_RETRY)
def verify_citation(citation_id: str, trigger: str = "reverify") -> None:
    from citations.services import citation_verify

    citation_verify(citation_id=uuid.UUID(citation_id), trigger=trigger)


@shared_task(**_RETRY)
def reverify_document_citations(document_id: str) -> None:
    from citations.services import document_citations_reverify

    document_citations_reverify(document_id=uuid.UUID(document_id))


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def prepare_revision(revision_id: str) -> None:
    from citations.prepared_store import revision_prepare

    revision_prepare(revision_id=uuid.UUID(revision_id))


@shared_task(ignore_result=True)
def sweep_citations() -> int:
    from citations.sweeps import citations_sweep

    return citations_sweep()
