"""seed 003's `resolve_citation`: an agent or workflow says it cites a chunk.

Every `message_citations` row needs a message (NOT NULL), so a resolved
citation hangs on a holder message (assistant, no chat session, payload
`{"resolve": true, ...}`), one per (context, chunk), with the chunk as its
only source `S1`. One source per holder makes verification look in the cited
chunk first and never pits the chunk against unrelated chunks resolved in the
same context (no O(n²) mis-attribution scans). Messages are chat's, so this
lives here; recording and verifying the citation is `citations`' job.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction

from accounts.scoping import tenant_scope
from chat.models import Message
from chat.sources import SourceChunk, message_sources_create
from citations.extraction import CitationCandidate
from citations.models import MessageCitation, Status
from citations.services import citation_verify, citations_record
from citations.verdicts import RevisionText
from ingest.models import DocumentChunk
from llm.errors import LLMError

if TYPE_CHECKING:
    from accounts.models import Tenant

RESOLVE_REF = "S1"


@dataclass(frozen=True)
class ResolvedCitation:
    citation: MessageCitation
    created: bool


def citation_resolve(
    *,
    tenant: Tenant,
    chunk_uid: uuid.UUID,
    quoted_text: str = "",
    context_type: str = "api",
    context_id: str = "",
) -> ResolvedCitation | None:
    """Record that an execution context cites a chunk, and verify the quote
    against it. None when the tenant has no such chunk (or its document was
    deleted): nothing is written then.

    Idempotent: the same context, chunk and quote return the existing
    citation (`created=False`), so an agent retrying a call adds no row.
    With a quote the citation is verified now (`citation_verify`, trigger
    "initial": exact / normalized / fuzzy, or failed as not_found); a
    verifier that is down leaves it pending and queues the task. Without a
    quote it is stored as unverified (seed 003: "Verification is optional").
    """
    from citations.tasks import verify_citation as verify_citation_task
    from lib.worker.enqueue import send_on_commit

    quoted_text = quoted_text.strip()
    with tenant_scope(tenant):
        chunk = (
            DocumentChunk.objects.filter(uid=chunk_uid, document__is_deleted=False)
            .select_related("document", "revision")
            .first()
        )
        if chunk is None:
            return None
        document, revision = chunk.document, chunk.revision
        marker = f"resolve_citation {context_type}:{context_id} chunk {chunk.uid}"
        with transaction.atomic():
            holder = Message.objects.filter(
                session__isnull=True, role=Message.Role.ASSISTANT, content=marker
            ).first()
            if holder is None:
                holder = Message.objects.create(
                    tenant=tenant,
                    session=None,
                    role=Message.Role.ASSISTANT,
                    content=marker,
                    payload={
                        "resolve": True,
                        "execution_context_type": context_type,
                        "execution_context_id": context_id,
                        "chunk_id": str(chunk.uid),
                    },
                )
                message_sources_create(
                    message=holder,
                    chunks=[
                        SourceChunk(
                            chunk=chunk, document=document, file_id=revision.file_id
                        )
                    ],
                )
            citation = MessageCitation.objects.filter(
                message=holder, chunk_id=chunk.uid, quoted_text=quoted_text
            ).first()
            created = citation is None
            if created:
                (citation,) = citations_record(
                    message=holder,
                    candidates=[
                        CitationCandidate(
                            ref=RESOLVE_REF,
                            quote=quoted_text or None,
                            answer_start=None,
                            answer_end=None,
                            kind="resolve",
                        )
                    ],
                    sources=list(holder.sources.all()),
                    context_type=context_type,
                    context_id=context_id,
                    texts={revision.pk: RevisionText.of(revision)},
                    unquoted_reason=(
                        "No quoted text was given: the citation references the "
                        "whole chunk."
                    ),
                ).citations
    if citation.verification_status == Status.PENDING:
        try:
            citation = (
                citation_verify(citation_id=citation.pk, trigger="initial") or citation
            )
        except LLMError:
            # A judge that is down must not lose the citation: it stays
            # pending and the task retries with backoff.
            citation_id = str(citation.pk)
            send_on_commit(verify_citation_task, citation_id, "initial")
    return ResolvedCitation(citation=citation, created=created)
