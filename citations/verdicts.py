"""The one way a quote is checked and its verdict stored.

Chat citations, resolved citations, re-verification and tabular cells all go
through these two steps:

1. `quote_check` runs the cascade (with the configured judges) on a quote
   against the cited source and the other sources of the same answer. It
   writes nothing, so callers run it outside any transaction: a judge call
   can take seconds.
2. `verdict_write` turns the verdict into the citation row's fields (offsets
   into the revision, page, the document's own text, method, status) and
   adds the `CitationVerification` audit row, in one transaction.

Offsets: a verified verdict's span; else the passage a failure located
("found, differs"); else the cited chunk; else what the row already had.
A failure also stores its kind (`failure_kind`: differs, not_found,
misattributed), the id of the rule that refused it (`rule`), and, when it located the passage, the candidate's offsets
and page (`candidate_start`, `candidate_end`, `candidate_page`).
"""

from __future__ import annotations

import time
import uuid
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from citations.cascade import SourceText, Verdict, verify_cited_quote
from citations.models import (
    CitationVerification,
    FailureKind,
    MessageCitation,
    Status,
)
from citations.prepared_store import prepared_warm
from ingest.models import Document, DocumentRevision


@dataclass(frozen=True)
class RevisionText:
    """The revision a verdict's offsets point into."""

    revision_id: uuid.UUID
    file_id: uuid.UUID
    text: str
    page_starts: Sequence[int]

    @classmethod
    def of(cls, revision: DocumentRevision) -> RevisionText:
        """The revision's text; a large one's stored prepared form goes into
        this process's cache first, so the first quote on it does not fold
        and index it (citations.prepared_store)."""
        prepared_warm(revision)
        return cls(
            revision_id=revision.pk,
            file_id=revision.file_id,
            text=revision.normalized_content,
            page_starts=list(revision.page_starts or []),
        )

    def page(self, offset: int) -> int:
        """1-based page holding `offset` (the same rule as DocumentRevision's)."""
        if not self.page_starts:
            return 1
        return max(1, bisect_right(self.page_starts, offset))

    def source(self, label: str, within: tuple[int, int] | None) -> SourceText:
        """This text as the cascade reads it, cited as `label`."""
        return SourceText(
            label=label, text=self.text, within=within, page_starts=self.page_starts
        )


@dataclass(frozen=True)
class Checked:
    """A verdict and how it was reached (for the audit row)."""

    verdict: Verdict
    duration_ms: float
    models: tuple[str, ...] = ()


def stored_confidence(value: float | None) -> Decimal | None:
    """A verdict's confidence as the NUMERIC(3,2) column stores it."""
    if value is None:
        return None
    # Rounded down: a stored confidence never overstates the verdict.
    return Decimal(str(max(0.0, min(1.0, value)))).quantize(
        Decimal("0.01"), rounding=ROUND_DOWN
    )


def configured_judges() -> tuple[Any, list]:
    """The stage 3 judge and stage 4 ensemble, or (None, []) when not configured."""
    # Stages 3-4 cost a model call per citation: they run only when a judge
    # model is named explicitly (LLM_JUDGE_MODEL, may equal LLM_MODEL).
    if not (settings.LLM_BASE_URL and settings.LLM_JUDGE_MODEL):
        return None, []
    from citations.judge import judges_from_config
    from llm.configured import llm_config

    return judges_from_config(llm_config())


def quote_check(
    quote: str,
    *,
    cited: SourceText,
    others: Sequence[SourceText] = (),
    high_stakes: bool = False,
) -> Checked:
    """Run the cascade on a quote; writes nothing. A judge that cannot be
    reached raises `llm.errors.LLMUnavailable`: the caller keeps the citation
    pending and retries."""
    judge, ensemble = configured_judges()
    started = time.perf_counter()
    verdict = verify_cited_quote(
        quote,
        cited=cited,
        others=others,
        judge=judge,
        ensemble=ensemble,
        quorum=settings.LLM_ENSEMBLE_QUORUM,
        high_stakes=high_stakes,
    )
    # The models that could have voted: the ensemble's for a high-stakes
    # check, else the single judge (each vote is in the verdict's stages).
    voters = list(ensemble) if high_stakes and ensemble else ([judge] if judge else [])
    return Checked(
        verdict=verdict,
        duration_ms=(time.perf_counter() - started) * 1000,
        models=tuple(getattr(j, "name", "") for j in voters),
    )


def verdict_fields(
    verdict: Verdict,
    text: RevisionText,
    *,
    within: tuple[int, int] | None,
    current: tuple[int, int],
) -> dict[str, Any]:
    """The citation row's fields for a verdict on `text`. `within` is the cited
    chunk's span in this revision (None when it is not in this revision);
    `current` the row's offsets so far."""
    content = text.text
    candidate = _located(verdict, len(content))
    if verdict.verified and verdict.start is not None:
        start, end = verdict.start, verdict.end
    elif candidate is not None:
        start, end = candidate
    elif within is not None:
        start, end = within
    else:
        start, end = current
    start = max(0, min(start, len(content) - 1))
    end = max(start + 1, min(end, len(content)))
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
        "mis_attributed_to": (verdict.found_in or "")[:8],
        "source_offset_start": start,
        "source_offset_end": end,
        "source_page": text.page(start),
        "source_text": content[start:end],
        "revision_id": text.revision_id,
        "revision_length": len(content),
        "source_file_id": text.file_id,
        "verified_at": timezone.now() if verdict.verified else None,
        "candidate_text": content[candidate[0] : candidate[1]][:5000]
        if candidate
        else "",
        "candidate_start": candidate[0] if candidate else None,
        "candidate_end": candidate[1] if candidate else None,
        "candidate_page": text.page(candidate[0]) if candidate else None,
        "failure_kind": "" if verdict.verified else _failure_kind(verdict),
        # The rule that refused it (rules.RULES), a column the review tab,
        # the admin, the stats and the API filter and count by.
        "rule": "" if verdict.verified else (verdict.rule or "")[:64],
    }


def _failure_kind(verdict: Verdict) -> str:
    if verdict.found_in:
        return FailureKind.MISATTRIBUTED
    if verdict.failure_kind in FailureKind.values:
        return verdict.failure_kind
    return FailureKind.NOT_FOUND


def _located(verdict: Verdict, length: int) -> tuple[int, int] | None:
    """The failed verdict's candidate when it is the quote's passage, located
    ("found, differs"; for a mis-attributed quote, the cited source's own
    located passage); None otherwise: the closest stretch of a text that
    does not hold the quote is no passage to point at."""
    if verdict.verified or verdict.candidate_start is None:
        return None
    start, end = verdict.candidate_start, verdict.candidate_end or 0
    if not 0 <= start < end <= length:
        return None
    if verdict.failure_kind in (FailureKind.DIFFERS, FailureKind.MISATTRIBUTED):
        return start, end
    return None


def verdict_write(
    citation: MessageCitation,
    checked: Checked,
    text: RevisionText,
    *,
    within: tuple[int, int] | None,
    trigger: str,
) -> bool:
    """Store a verdict on a citation row and its audit row, in one transaction.

    An initial verification writes only while the row is still pending
    (compare-and-set), so a redelivered task is a no-op; and no verdict is
    written against a revision that is no longer its document's current one
    (DAT-06). Returns whether the verdict was written; `citation` is
    updated when it was.
    """
    verdict = checked.verdict
    fields = verdict_fields(
        verdict,
        text,
        within=within,
        current=(citation.source_offset_start, citation.source_offset_end),
    )
    with transaction.atomic():
        rows = MessageCitation.objects.filter(pk=citation.pk)
        if trigger == "initial":
            rows = rows.filter(verification_status=Status.PENDING)
        # DAT-06: a verdict on a revision the document has moved past is not
        # written; the new revision's re-verification writes instead.
        rows = rows.filter(
            Q(document_id__isnull=True)
            | Exists(
                Document.objects.with_scope(tenant=citation.tenant_id).filter(
                    pk=OuterRef("document_id"), current_revision_id=text.revision_id
                )
            )
        )
        if not rows.update(**fields):
            return False
        CitationVerification.objects.create(
            tenant_id=citation.tenant_id,
            citation=citation,
            revision_id=text.revision_id,
            trigger=trigger,
            verification_status=fields["verification_status"],
            verification_method=verdict.method,
            match_type=verdict.match_type,
            confidence=verdict.confidence,
            match_score=fields["match_score"],
            source_offset_start=fields["source_offset_start"],
            source_offset_end=fields["source_offset_end"],
            reason=verdict.reason[:2000],
            stages=list(verdict.stages or ()),
            models_used=list(checked.models),
            duration_ms=checked.duration_ms,
        )
    for name, value in fields.items():
        setattr(citation, name, value)
    return True
