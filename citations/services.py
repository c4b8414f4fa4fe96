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

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from django.conf import settings

from accounts.scoping import tenant_scope, unscoped
from citations.extraction import CitationCandidate
from citations.models import (
    CitationVerification,
    MatchType,
    MessageCitation,
    Method,
    Status,
    UnsourcedCitation,
)
from citations.relevance import Relevance
from citations.verdicts import RevisionText, quote_check, verdict_write
from ingest.models import Document, DocumentRevision


class CitedSource(Protocol):
    """One retrieved source of a message, under its ref label (S1, S2, ...).

    `chat.models.MessageSource` is one; citations reads a message's sources
    through the `message.sources` relation and needs nothing else of chat.
    """

    ref_label: str
    chunk_uid: uuid.UUID
    document_id: uuid.UUID | None
    document_title: str
    revision_id: uuid.UUID
    file_id: uuid.UUID
    page_start: int
    start_offset: int
    end_offset: int


@dataclass(frozen=True)
class RecordedCitations:
    citations: list[MessageCitation]
    unsourced: list[UnsourcedCitation]


def citations_record(
    *,
    message: Any,
    candidates: Sequence[CitationCandidate],
    sources: Sequence[CitedSource],
    context_type: str = "chat",
    context_id: str | None = None,
    texts: Mapping[uuid.UUID, RevisionText] | None = None,
    unquoted_reason: str = "The model cited this source without quoting it.",
) -> RecordedCitations:
    """Store one row per emitted citation (see module docstring).

    `message` is the `chat.models.Message` the citations hang on (seed 000's
    `messages(id)`). `texts`: the revisions' texts when the caller has them
    already (tabular), by revision id; otherwise they are read."""
    by_ref = {s.ref_label: s for s in sources}
    quoted_refs = {c.ref for c in candidates if c.quote}
    context_id = context_id or str(message.session_id or message.pk)
    citations: list[MessageCitation] = []
    unsourced: list[UnsourcedCitation] = []
    if texts is None:
        texts = {
            r.pk: r.normalized_content
            for r in DocumentRevision.objects.filter(
                pk__in={s.revision_id for s in sources}
            ).only("id", "normalized_content")
        }
    else:
        texts = {pk: t.text for pk, t in texts.items()}
    for candidate in candidates:
        if not candidate.quote and candidate.ref in quoted_refs:
            continue  # the same source is already cited with a quote
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
        text = texts.get(source.revision_id)
        citations.append(
            MessageCitation(
                tenant_id=message.tenant_id,
                message=message,
                source_file_id=source.file_id,
                # Until verified, the citation points at the whole cited chunk.
                source_offset_start=source.start_offset,
                source_offset_end=source.end_offset,
                source_page=source.page_start,
                source_text=(text or "")[source.start_offset : source.end_offset],
                revision_length=len(text) if text is not None else None,
                quoted_text=candidate.quote or "",
                verification_status=Status.PENDING
                if candidate.quote
                else Status.UNVERIFIED,
                reason="" if candidate.quote else unquoted_reason,
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


class Rater(Protocol):
    """citations.relevance.RelevanceJudge.rate, or anything rating alike."""

    def __call__(self, passage: str) -> Relevance: ...


@dataclass(frozen=True)
class Rating:
    """How a citation's passage bears on the question, and who said so."""

    label: str | None  # answers | related | off_topic; None: not rated
    score: float | None = None
    reason: str = ""


def citations_rate(
    *,
    citations: Sequence[MessageCitation],
    rate: Rater,
    asked_documents: set | None = None,
    method: str = "offline",
) -> None:
    """Rate each citation's passage with `rate` (the offline word rater, or
    anything rating alike) and store it (`citations_relevance_store`)."""
    ratings = []
    for citation in citations:
        rated = rate(citation.quoted_text or citation.source_text)
        ratings.append(Rating(rated.label, rated.score, relevance_reason(rated)))
    citations_relevance_store(
        citations=citations,
        ratings=ratings,
        asked_documents=asked_documents,
        method=method,
    )


def citations_relevance_store(
    *,
    citations: Sequence[MessageCitation],
    ratings: Sequence[Rating],
    method: str,
    asked_documents: set | None = None,
) -> None:
    """Store each citation's relevance as rated (`method`: offline, model,
    judge) and whether it is from another document than the question is
    about (`asked_documents`, when the question named or mentioned some)."""
    for citation, rated in zip(citations, ratings, strict=True):
        citation.relevance = rated.label
        citation.relevance_score = rated.score
        citation.relevance_method = method if rated.label else ""
        citation.relevance_reason = rated.reason[:2000]
        citation.other_document = (
            asked_documents is not None and citation.document_id not in asked_documents
        )
    MessageCitation.objects.bulk_update(
        list(citations),
        [
            "relevance",
            "relevance_score",
            "relevance_method",
            "relevance_reason",
            "other_document",
        ],
    )


def relevance_reason(rated: Relevance) -> str:
    """Why a passage was rated so, in words for the panel."""
    if rated.rule == "no_concepts":
        return "The question names nothing specific to look for."
    parts = []
    if rated.matched:
        parts.append("covers: " + ", ".join(rated.matched))
    if rated.missing:
        parts.append("does not cover: " + ", ".join(rated.missing))
    if rated.rule == "value_missing":
        parts.append("holds no value of the kind the question asks for")
    if rated.rule == "documents_silent":
        parts.append(
            "the searched documents never mention: " + ", ".join(rated.unwritten)
        )
    return "; ".join(parts)[:2000]


def _within(source: CitedSource, revision: DocumentRevision) -> tuple[int, int] | None:
    """The source chunk's span, if it is a span of this revision."""
    if source.revision_id == revision.pk:
        return (source.start_offset, source.end_offset)
    return None


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
        # The message's sources, through the relation seed 000's FK gives.
        sources: list[CitedSource] = list(citation.message.sources.all())
        cited = next((s for s in sources if s.ref_label == citation.ref_label), None)
        text = RevisionText.of(revision)
        within = _within(cited, revision) if cited is not None else None
        other_revisions = {
            r.document_id: RevisionText.of(r)
            for r in _current_revisions_for(
                {s.document_id for s in sources if s is not cited}
            )
        }
        others = []
        for s in sources:
            if s is cited or s.document_id not in other_revisions:
                continue
            other = other_revisions[s.document_id]
            span = (
                (s.start_offset, s.end_offset)
                if s.revision_id == other.revision_id
                else None
            )
            others.append(other.source(s.ref_label, span))
        checked = quote_check(
            citation.quoted_text,
            cited=text.source(citation.ref_label, within),
            others=others,
        )
        # A citation that held and fails against a new revision is stale; one
        # that holds again is not.
        held = citation.verification_status == Status.VERIFIED or citation.is_stale
        if verdict_write(citation, checked, text, within=within, trigger=trigger):
            stale = trigger == "revision" and held and not checked.verdict.verified
            if stale != citation.is_stale:
                MessageCitation.objects.filter(pk=citation.pk).update(is_stale=stale)
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
    if ids:
        message_citations_rate_by_model(message_id=message_id)
    return len(ids)


def message_citations_rate_by_model(*, message_id: uuid.UUID) -> int:
    """With a judge model configured, one structured call rates how each of
    an answer's cited passages bears on its question; the model's rating
    replaces the offline one. Returns how many were rated."""
    if not (settings.LLM_BASE_URL and settings.LLM_JUDGE_MODEL):
        return 0
    from citations.judge import relevance_model_from_config
    from llm.configured import llm_config

    with unscoped():
        citations = list(
            MessageCitation.objects.select_related("message", "tenant").filter(
                message_id=message_id
            )
        )
    question = (
        str((citations[0].message.payload or {}).get("question", ""))
        if citations
        else ""
    )
    if not question:
        return 0  # not an answer to a question (a resolved citation, a cell)
    with tenant_scope(citations[0].tenant):
        passages = [
            (f"P{i}", c.source_text if c.verified else (c.quoted_text or c.source_text))
            for i, c in enumerate(citations, start=1)
        ]
        rated = relevance_model_from_config(llm_config()).rate(question, passages)
        changed = []
        for (pid, _), citation in zip(passages, citations, strict=True):
            if pid not in rated:
                continue
            citation.relevance, citation.relevance_reason = rated[pid]
            citation.relevance_method = "judge"
            citation.relevance_score = None
            changed.append(citation)
        MessageCitation.objects.bulk_update(
            changed,
            ["relevance", "relevance_reason", "relevance_method", "relevance_score"],
        )
    return len(changed)


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
