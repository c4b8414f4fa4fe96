"""Citation services: record what the model cited, verify it, re-verify it.

Contracts:
- `citations_record` runs in the same transaction as the assistant message, so
  every citation the model emitted becomes a row (DAT-05): pending when it has
  a quote, unverified when it has none, out of provenance when its ref names
  no source retrieved for that message.
- `citation_verify` is idempotent: an initial verification writes only while
  the row is still pending (compare-and-set), so a redelivered task is a
  no-op. Every attempt leaves a CitationVerification row.
- A failed verification is stored as `failed`, never dropped.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from citations.cascade import SourceText, Verdict, verify_cited_quote
from citations.extraction import CitationCandidate
from citations.models import (
    CitationVerification,
    MatchType,
    MessageCitation,
    Method,
    Status,
    UnsourcedCitation,
)
from ingest.models import Document, DocumentChunk, DocumentRevision

if TYPE_CHECKING:
    from chat.models import Message, MessageSource


@dataclass(frozen=True)
class RecordedCitations:
    citations: list[MessageCitation]
    unsourced: list[UnsourcedCitation]


def stored_confidence(value: float | None) -> Decimal | None:
    """A verdict's confidence as the NUMERIC(3,2) column stores it."""
    if value is None:
        return None
    # Rounded down: a stored confidence never overstates the verdict.
    return Decimal(str(max(0.0, min(1.0, value)))).quantize(
        Decimal("0.01"), rounding=ROUND_DOWN
    )


def citations_record(
    *,
    message: Message,
    candidates: Sequence[CitationCandidate],
    sources: Sequence[MessageSource],
    context_type: str = "chat",
    context_id: str | None = None,
) -> RecordedCitations:
    """Store one row per emitted citation (see module docstring)."""
    by_ref = {s.ref_label: s for s in sources}
    quoted_refs = {c.ref for c in candidates if c.quote}
    context_id = context_id or str(message.session_id or message.pk)
    citations: list[MessageCitation] = []
    unsourced: list[UnsourcedCitation] = []
    revisions = {
        r.pk: r
        for r in DocumentRevision.objects.filter(
            pk__in={s.revision_id for s in sources}
        ).only("id", "normalized_content", "page_starts")
    }
    for candidate in candidates:
        source = by_ref.get(candidate.ref)
        if source is None:
            unsourced.append(
                UnsourcedCitation(
                    tenant_id=message.tenant_id,
                    message=message,
                    ref_label=candidate.ref[:32],
                    quoted_text=candidate.quote or "",
                    reason=f"{candidate.ref} names no source given to the model for this answer.",
                    answer_start=candidate.answer_start,
                    answer_end=candidate.answer_end,
                    execution_context_type=context_type,
                    execution_context_id=context_id,
                )
            )
            continue
        if not candidate.quote and candidate.ref in quoted_refs:
            continue  # the same source is already cited with a quote
        revision = revisions.get(source.revision_id)
        text = revision.normalized_content if revision else ""
        citations.append(
            MessageCitation(
                tenant_id=message.tenant_id,
                message=message,
                source_file_id=source.file_id,
                # Until verified, the citation points at the whole cited chunk.
                source_offset_start=source.start_offset,
                source_offset_end=source.end_offset,
                source_page=source.page_start,
                source_text=text[source.start_offset : source.end_offset],
                revision_length=len(text) if revision else None,
                quoted_text=candidate.quote or "",
                verification_status=Status.PENDING
                if candidate.quote
                else Status.UNVERIFIED,
                reason=""
                if candidate.quote
                else "The model cited this source without quoting it.",
                chunk_id=source.chunk_uid,
                revision_id=source.revision_id,
                document_id=source.document_id,
                document_name=source.document_title,
                execution_context_type=context_type,
                execution_context_id=context_id,
                ref_label=source.ref_label,
                answer_start=candidate.answer_start,
                answer_end=candidate.answer_end,
            )
        )
    MessageCitation.objects.bulk_create(citations)
    UnsourcedCitation.objects.bulk_create(unsourced)
    return RecordedCitations(citations=citations, unsourced=unsourced)


def configured_judges() -> tuple[object | None, list]:
    """The stage 3 judge and stage 4 ensemble, or (None, []) when not configured."""
    # Stages 3-4 cost a model call per citation: they run only when a judge
    # model is named explicitly (LLM_JUDGE_MODEL, may equal LLM_MODEL).
    if not (settings.LLM_BASE_URL and settings.LLM_JUDGE_MODEL):
        return None, []
    from chat.providers import llm_config
    from citations.judge import judges_from_config

    return judges_from_config(llm_config())


def _source_text(source: MessageSource, revision: DocumentRevision) -> SourceText:
    within = None
    if source.revision_id == revision.pk:
        within = (source.start_offset, source.end_offset)
    return SourceText(
        label=source.ref_label,
        text=revision.normalized_content,
        within=within,
        page_starts=revision.page_starts,
    )


def _verdict_fields(
    citation: MessageCitation,
    verdict: Verdict,
    revision: DocumentRevision,
    within: tuple | None,
) -> dict:
    text = revision.normalized_content
    if verdict.verified and verdict.start is not None:
        start, end = verdict.start, verdict.end
    elif (
        getattr(verdict, "candidate_start", None) is not None and verdict.candidate_end
    ):
        start, end = verdict.candidate_start, verdict.candidate_end
    elif within is not None:
        start, end = within
    else:
        start, end = citation.source_offset_start, citation.source_offset_end
    start = max(0, min(start, len(text) - 1))
    end = max(start + 1, min(end, len(text)))
    return {
        "verified": verdict.verified,
        "verification_method": verdict.method,
        "verification_confidence": stored_confidence(verdict.confidence)
        if verdict.verified
        else None,
        "match_type": verdict.match_type,
        "match_score": verdict.score
        if verdict.score is not None
        else verdict.confidence,
        "verification_status": Status.VERIFIED if verdict.verified else Status.FAILED,
        "reason": verdict.reason[:2000],
        "mis_attributed_to": (getattr(verdict, "found_in", None) or "")[:8],
        "source_offset_start": start,
        "source_offset_end": end,
        "source_page": revision.page_for_offset(start),
        "source_text": text[start:end],
        "revision_id": revision.pk,
        "revision_length": len(text),
        "source_file_id": revision.file_id,
        "verified_at": timezone.now() if verdict.verified else None,
        "candidate_text": (getattr(verdict, "candidate_text", None) or "")[:5000],
    }


def citation_verify(
    *, citation_id: uuid.UUID, trigger: str = "initial"
) -> MessageCitation | None:
    """Verify one citation against its document's current revision."""
    with unscoped():
        citation = (
            MessageCitation.objects.select_related("tenant")
            .filter(pk=citation_id)
            .first()
        )
    if citation is None:
        return None  # deleted with its message
    with tenant_scope(citation.tenant):
        if trigger == "initial" and citation.verification_status != Status.PENDING:
            return citation  # an earlier delivery already wrote the verdict
        if not citation.quoted_text:
            return citation  # nothing to verify: stays unverified
        revision = _current_revision(citation)
        if revision is None:
            return _record_unverifiable(citation, trigger)
        from chat.models import MessageSource

        sources = list(MessageSource.objects.filter(message_id=citation.message_id))
        cited = next((s for s in sources if s.ref_label == citation.ref_label), None)
        cited_text = (
            _source_text(cited, revision)
            if cited is not None
            else SourceText(
                label=citation.ref_label,
                text=revision.normalized_content,
                within=None,
                page_starts=revision.page_starts,
            )
        )
        others = []
        other_revisions = {
            r.document_id: r
            for r in _current_revisions_for(
                {s.document_id for s in sources if s is not cited}
            )
        }
        for s in sources:
            if s is cited or s.document_id not in other_revisions:
                continue
            others.append(_source_text(s, other_revisions[s.document_id]))
        judge, ensemble = configured_judges()
        started = time.perf_counter()
        verdict = verify_cited_quote(
            citation.quoted_text,
            cited=cited_text,
            others=others,
            judge=judge,
            ensemble=ensemble,
            quorum=settings.LLM_ENSEMBLE_QUORUM,
        )
        duration_ms = (time.perf_counter() - started) * 1000
        fields = _verdict_fields(citation, verdict, revision, cited_text.within)
        with transaction.atomic():
            qs = MessageCitation.objects.filter(pk=citation.pk)
            if trigger == "initial":
                qs = qs.filter(verification_status=Status.PENDING)
            written = qs.update(**fields)
            if written:
                CitationVerification.objects.create(
                    tenant_id=citation.tenant_id,
                    citation=citation,
                    revision_id=revision.pk,
                    trigger=trigger,
                    verification_status=fields["verification_status"],
                    verification_method=verdict.method,
                    match_type=verdict.match_type,
                    confidence=verdict.confidence,
                    match_score=fields["match_score"],
                    source_offset_start=fields["source_offset_start"],
                    source_offset_end=fields["source_offset_end"],
                    reason=verdict.reason[:2000],
                    stages=list(getattr(verdict, "stages", ()) or []),
                    models_used=[getattr(judge, "name", "")] if judge else [],
                    duration_ms=duration_ms,
                )
        citation.refresh_from_db()
        return citation


def _current_revisions_for(document_ids: set) -> list[DocumentRevision]:
    ids = [d for d in document_ids if d]
    docs = Document.objects.filter(pk__in=ids).select_related("current_revision")
    return [d.current_revision for d in docs if d.current_revision is not None]


def _current_revision(citation: MessageCitation) -> DocumentRevision | None:
    document = (
        Document.objects.filter(pk=citation.document_id)
        .select_related("current_revision")
        .first()
    )
    if document is not None and document.current_revision is not None:
        return document.current_revision
    if citation.revision_id:
        return DocumentRevision.objects.filter(pk=citation.revision_id).first()
    return None


def _record_unverifiable(citation: MessageCitation, trigger: str) -> MessageCitation:
    reason = "The cited document no longer exists, so the quote cannot be checked."
    MessageCitation.objects.filter(pk=citation.pk).update(
        verified=False,
        verification_method=Method.FAILED,
        verification_confidence=None,
        match_type=MatchType.NOT_FOUND,
        verification_status=Status.FAILED,
        reason=reason,
        verified_at=None,
    )
    CitationVerification.objects.create(
        tenant_id=citation.tenant_id,
        citation=citation,
        trigger=trigger,
        verification_status=Status.FAILED,
        verification_method=Method.FAILED,
        match_type=MatchType.NOT_FOUND,
        reason=reason,
    )
    citation.refresh_from_db()
    return citation


def message_citations_verify(*, message_id: uuid.UUID) -> int:
    """Verify every pending citation of a message; returns how many were pending."""
    with unscoped():
        ids = list(
            MessageCitation.objects.filter(
                message_id=message_id, verification_status=Status.PENDING
            ).values_list("pk", flat=True)
        )
    for citation_id in ids:
        citation_verify(citation_id=citation_id)
    return len(ids)


def document_citations_reverify(*, document_id: uuid.UUID) -> int:
    """Re-verify every quoted citation of a document against its current
    revision (DAT-07). Each ends verified with offsets into the new text, or
    failed with a reason; none keeps old offsets silently."""
    with unscoped():
        ids = list(
            MessageCitation.objects.filter(document_id=document_id)
            .exclude(quoted_text="")
            .values_list("pk", flat=True)
        )
    for citation_id in ids:
        citation_verify(citation_id=citation_id, trigger="revision")
    return len(ids)


if TYPE_CHECKING:
    from accounts.models import Tenant


@dataclass(frozen=True)
class ResolvedCitation:
    citation: MessageCitation
    created: bool


RESOLVE_REF = "S1"


def citation_resolve(
    *,
    tenant: Tenant,
    chunk_uid: uuid.UUID,
    quoted_text: str = "",
    context_type: str = "api",
    context_id: str = "",
) -> ResolvedCitation | None:
    """seed 003's `resolve_citation`: record that an execution context cites a
    chunk, and verify the quote against it. None when the tenant has no such
    chunk (or its document was deleted): nothing is written then.

    Every `message_citations` row needs a message (NOT NULL), so the citation
    hangs on a holder message (assistant, no chat session, payload
    `{"resolve": true, ...}`), one per (context, chunk), with the chunk as its
    only source `S1`. One source per holder makes verification look in the
    cited chunk first and never pits the chunk against unrelated chunks
    resolved in the same context (no O(n²) mis-attribution scans).

    Idempotent: the same context, chunk and quote return the existing
    citation (`created=False`), so an agent retrying a call adds no row.
    With a quote the citation is verified now (`citation_verify`, trigger
    "initial": exact / normalized / fuzzy, or failed as not_found); a
    verifier that is down leaves it pending and queues the task. Without a
    quote it is stored as unverified (seed 003: "Verification is optional").
    """
    from chat.llm.errors import LLMError
    from chat.models import Message, MessageSource
    from citations.tasks import verify_citation as verify_citation_task

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
                MessageSource.objects.create(
                    message=holder,
                    tenant=tenant,
                    ref_label=RESOLVE_REF,
                    rank=1,
                    chunk=chunk,
                    chunk_uid=chunk.uid,
                    chunk_index=chunk.chunk_index,
                    document=document,
                    revision_id=revision.pk,
                    file_id=revision.file_id,
                    document_title=document.title,
                    source_type=document.source_type,
                    page_start=chunk.page_start,
                    page_end=chunk.page_end,
                    start_offset=chunk.start_offset,
                    end_offset=chunk.end_offset,
                )
            citation = MessageCitation.objects.filter(
                message=holder, chunk_id=chunk.uid, quoted_text=quoted_text
            ).first()
            created = citation is None
            if created:
                citation = MessageCitation.objects.create(
                    tenant=tenant,
                    message=holder,
                    source_file_id=revision.file_id,
                    # Until verified, the citation points at the whole chunk.
                    source_offset_start=chunk.start_offset,
                    source_offset_end=chunk.end_offset,
                    source_page=chunk.page_start,
                    source_text=chunk.content,
                    revision_length=len(revision.normalized_content),
                    quoted_text=quoted_text,
                    verification_status=Status.PENDING
                    if quoted_text
                    else Status.UNVERIFIED,
                    reason=""
                    if quoted_text
                    else "No quoted text was given: the citation references the whole chunk.",
                    chunk_id=chunk.uid,
                    revision_id=revision.pk,
                    document_id=document.pk,
                    document_name=document.title,
                    execution_context_type=context_type,
                    execution_context_id=context_id,
                    ref_label=RESOLVE_REF,
                )
    if citation.verification_status == Status.PENDING:
        try:
            citation = (
                citation_verify(citation_id=citation.pk, trigger="initial") or citation
            )
        except LLMError:
            # A judge that is down must not lose the citation: it stays
            # pending and the task retries with backoff.
            citation_id = str(citation.pk)
            transaction.on_commit(
                lambda: verify_citation_task.delay(citation_id, "initial")
            )
    return ResolvedCitation(citation=citation, created=created)
