"""Running a playbook on contracts, and keeping its findings in step.

A run is a tabular review (one executor, one queue, one cell model): each
position becomes a column, each contract a row, and tabular's executor
answers every cell in Celery, in parallel, resumable, verifying each quote
with `high_stakes=True`. The playbook adds no second executor; it reads the
finished cells.

Contracts:
- `run_create(tenant, playbook, document_ids)` creates the review (columns
  from the positions, in order), the `PlaybookRun` and a `RunPosition`
  snapshot per column, in one transaction, and (by default) queues the run
  after commit (`tabular.services.review_start`). A typed position becomes a
  column of its type. A position without a typed rule becomes, when a model
  is configured, an options column whose choices are the verdicts (meets /
  fallback / deviates), its question carrying the standard, fallbacks and
  deviation; offline it is a text column and its finding is "needs review"
  with the clause quoted.
- `run_resume`, `run_cancel`: tabular's start (only unfinished cells run) and
  cancel.
- `findings_sync(run)` computes the finding of every finished cell whose
  state changed since it was last computed (`Finding.cell_version`: status,
  finish time, edit, citation status) and stores it; idempotent, safe to
  call from every poll. When the engine's finding changes (a re-run), a
  reviewer's decision on the old one is reset, recorded as an event. With a
  model configured, a new deviation queues its suggested wording
  (playbook.suggestions).
- `finding_accept`, `finding_override`, `finding_clear`: a reviewer's
  decision with a note (an override needs one), each a `FindingEvent`.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.utils import timezone

from ingest.models import Document
from lib.exceptions import DocuIQError
from lib.worker.enqueue import send_on_commit
from playbook import findings
from playbook.models import (
    Finding,
    FindingEvent,
    Playbook,
    PlaybookRun,
    Position,
    RunPosition,
)
from tabular.models import Cell, ReviewColumn, ReviewDocument
from tabular.services import ColumnSpec, review_cancel, review_create, review_start

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import Tenant

logger = logging.getLogger(__name__)

MAX_NOTE_CHARS = 4000


class RunError(DocuIQError):
    code = "invalid_run"


def model_configured() -> bool:
    from llm.configured import provider

    return getattr(provider(), "name", "") != "extractive"


def _verdict_meaning(position: Position) -> str:
    """What the model is told beside the question, for a position it judges:
    the standard, fallbacks and deviation. Kept out of the question itself,
    which the offline relevance judge rates passages against."""
    parts = [f"Our standard position: {position.standard.strip()}"]
    if position.fallbacks:
        parts.append("Acceptable fallbacks: " + "; ".join(position.fallbacks))
    if position.deviation.strip():
        parts.append(f"A deviation: {position.deviation.strip()}")
    parts.append(
        "Answer which option describes the contract's clause, and quote the "
        "clause; if the contract has no such clause, it is not found."
    )
    if position.search.strip():
        parts.append(f"The contract may say: {position.search.strip()}")
    return "\n".join(parts)


def _column_for(position: Position, judged: bool) -> ColumnSpec:
    if position.rule or position.type != "text":
        return ColumnSpec(
            name=position.title,
            question=position.question,
            type=position.type,
            description=position.search,
            options=tuple(position.options or ()),
        )
    if judged:
        return ColumnSpec(
            name=position.title,
            question=position.question,
            type="options",
            description=_verdict_meaning(position),
            options=findings.VERDICTS,
        )
    return ColumnSpec(
        name=position.title,
        question=position.question,
        type="text",
        description=position.search,
    )


@transaction.atomic
def run_create(
    *,
    tenant: Tenant,
    playbook: Playbook,
    document_ids: Sequence[object],
    user: AbstractBaseUser | None = None,
    name: str = "",
    start: bool = True,
) -> PlaybookRun:
    positions = list(Position.objects.filter(playbook=playbook).order_by("order"))
    if not positions:
        raise RunError("The playbook has no positions yet.", code="no_positions")
    judged = model_configured()
    columns = [_column_for(p, judged) for p in positions]
    review = review_create(
        tenant=tenant,
        name=(name or f"{playbook.name} review")[:200],
        document_ids=document_ids,
        columns=columns,
        user=user,
    )
    run = PlaybookRun.objects.create(
        tenant=tenant,
        playbook=playbook,
        playbook_name=playbook.name,
        review=review,
        created_by=review.created_by,
    )
    by_order = {c.order: c for c in ReviewColumn.objects.filter(review=review)}
    rows = []
    for order, (position, spec) in enumerate(zip(positions, columns, strict=True)):
        verdict = spec.type == "options" and spec.options == findings.VERDICTS
        rows.append(
            RunPosition(
                tenant=tenant,
                run=run,
                position=position,
                column=by_order[order],
                order=order,
                title=position.title,
                question=position.question,
                type=position.type,
                standard=position.standard,
                rule={"in": [findings.VERDICT_MEETS]} if verdict else position.rule,
                fallbacks=list(position.fallbacks or ()),
                fallback_rule={"in": [findings.VERDICT_FALLBACK]}
                if verdict
                else position.fallback_rule,
                deviation=position.deviation,
                severity=position.severity,
                if_absent=position.if_absent,
                guidance=position.guidance,
                judged_by_model=verdict,
            )
        )
    RunPosition.objects.bulk_create(rows)
    if start:
        review_start(review=review)
    return run


def run_resume(*, run: PlaybookRun) -> PlaybookRun:
    review_start(review=run.review)
    run.review.refresh_from_db()
    return run


def run_cancel(*, run: PlaybookRun) -> bool:
    return review_cancel(review=run.review)


# ---------------------------------------------------------------- findings


def _version(cell: Cell, row: ReviewDocument) -> str:
    citation = cell.citation
    return "|".join(
        [
            cell.status,
            cell.finished_at.isoformat() if cell.finished_at else "",
            cell.edited_at.isoformat() if cell.edited_at else "",
            citation.verification_status if citation is not None else "",
            row.state,
        ]
    )[:200]


def _words_of(stems: list[str], text: str) -> tuple[str, ...]:
    """The search's stems ("terminat", "convenienc") as the question's own
    words ("termination", "convenience"), for a reader; a stem without one
    stays as it is."""
    words = [w.lower() for w in re.findall(r"[A-Za-z][\w'-]*", text)]
    out: list[str] = []
    for stem in stems:
        word = next((w for w in words if w.startswith(stem.lower())), stem)
        if word not in out:
            out.append(word)
    return tuple(out)


def cell_facts(
    cell: Cell, row: ReviewDocument, document_error: str = "", question: str = ""
) -> findings.CellFacts:
    citation = cell.citation
    searched = cell.searched or {}
    read = searched.get("read") or {}
    verified = bool(
        citation is not None
        and citation.verified
        and citation.verification_status == "verified"
    )
    row_error = row.error
    if document_error and document_error not in row_error:
        row_error = (
            f"{row_error.rstrip('.')}: {document_error}"
            if row_error
            else document_error
        )
    return findings.CellFacts(
        status=cell.status,
        row_state=row.state,
        row_error=row_error,
        error=cell.error,
        outcome=cell.outcome,
        typed=cell.shown_typed_value,
        value=cell.shown_value,
        quote_verified=verified,
        citation_status=citation.verification_status if citation is not None else "",
        support=cell.shown_support,
        relevance=(citation.relevance or "") if citation is not None else "",
        offline=cell.model_name in ("", "extractive"),
        searched_terms=_words_of(list(searched.get("terms") or ()), question),
        searched_pages=tuple(
            p.get("page") for p in searched.get("passages") or () if p.get("page")
        ),
        read_whole=read.get("whole") if read else None,
        read_summary=str(read.get("summary") or ""),
        contradiction=str(searched.get("contradiction") or ""),
    )


def position_facts(position: RunPosition) -> findings.PositionFacts:
    """The facts are the run position's fields of the same names."""
    return findings.PositionFacts(
        **{f.name: getattr(position, f.name) for f in _FACT_FIELDS}
    )


_FACT_FIELDS = dataclasses.fields(findings.PositionFacts)


def findings_sync(run: PlaybookRun) -> int:
    """Compute and store the findings of cells that changed (see the module
    docstring). Returns how many findings were written."""
    positions = {p.column_id: p for p in RunPosition.objects.filter(run=run)}
    cells = list(
        Cell.objects.filter(
            review_id=run.review_id, status__in=Cell.FINISHED
        ).select_related("row", "citation")
    )
    if not cells:
        return 0
    known = {f.cell_id: f for f in Finding.objects.filter(run=run)}
    unreadable = {
        c.row.document_uid
        for c in cells
        if c.row.state == ReviewDocument.State.NOT_READY
    }
    errors = (
        dict(Document.objects.filter(pk__in=unreadable).values_list("pk", "error"))
        if unreadable
        else {}
    )
    suggest = None
    written = 0
    for cell in cells:
        position = positions.get(cell.column_id)
        if position is None:
            continue
        version = _version(cell, cell.row)
        existing = known.get(cell.pk)
        if existing is not None and existing.cell_version == version:
            continue
        decided = findings.decide(
            cell_facts(
                cell,
                cell.row,
                errors.get(cell.row.document_uid, "") or "",
                f"{position.title} {position.question}",
            ),
            position_facts(position),
        )
        fields = {
            "kind": decided.kind,
            "severity": decided.severity,
            "rule": decided.rule,
            "reason": decided.reason[:4000],
            "cell_version": version,
        }
        with transaction.atomic():
            if existing is None:
                try:
                    with transaction.atomic():
                        finding = Finding.objects.create(
                            tenant_id=run.tenant_id,
                            run=run,
                            position=position,
                            row_id=cell.row_id,
                            cell=cell,
                            **fields,
                        )
                except IntegrityError:
                    continue  # another poll wrote it first
            else:
                finding = Finding.objects.select_for_update().get(pk=existing.pk)
                changed = (finding.kind, finding.severity) != (
                    decided.kind,
                    decided.severity,
                )
                if changed and finding.decision != Finding.Decision.UNREVIEWED:
                    FindingEvent.objects.create(
                        tenant_id=finding.tenant_id,
                        finding=finding,
                        action=FindingEvent.Action.RESET,
                        note="The engine's finding changed (the cell was re-run or edited).",
                        kind_before=finding.shown_kind,
                        kind_after=decided.kind,
                        severity_before=finding.shown_severity,
                        severity_after=decided.severity,
                    )
                    fields.update(
                        decision=Finding.Decision.UNREVIEWED,
                        override_kind="",
                        override_severity="",
                        decision_note="",
                        decided_by=None,
                        decided_at=None,
                    )
                if changed:
                    fields.update(
                        suggestion="",
                        suggestion_model="",
                        suggestion_status="",
                        suggestion_error="",
                    )
                Finding.objects.filter(pk=finding.pk).update(
                    **fields, updated_at=timezone.now()
                )
                finding.refresh_from_db()
            written += 1
            if finding.kind == findings.DEVIATES and not finding.suggestion_status:
                if suggest is None:
                    suggest = model_configured()
                if suggest:
                    _queue_suggestion(finding)
    return written


def _queue_suggestion(finding: Finding) -> None:
    Finding.objects.filter(pk=finding.pk).update(
        suggestion_status=Finding.SuggestionStatus.PENDING
    )
    from playbook.tasks import suggest_wording

    # A broker outage must not fail the page that synced: send_on_commit logs
    # it, and the finding stays pending.
    send_on_commit(suggest_wording, finding.pk)


# ---------------------------------------------------------------- decisions


def _who(user: AbstractBaseUser | None) -> tuple[AbstractBaseUser | None, str]:
    if user is None or not getattr(user, "is_authenticated", False):
        return None, ""
    return user, user.get_username()[:150]


def _decide(
    finding: Finding,
    *,
    user: AbstractBaseUser | None,
    decision: str,
    action: str,
    note: str,
    kind: str = "",
    severity: str = "",
) -> Finding:
    note = (note or "").strip()[:MAX_NOTE_CHARS]
    who, name = _who(user)
    with transaction.atomic():
        locked = Finding.objects.select_for_update().get(pk=finding.pk)
        before_kind, before_severity = locked.shown_kind, locked.shown_severity
        Finding.objects.filter(pk=locked.pk).update(
            decision=decision,
            override_kind=kind,
            override_severity=severity,
            decision_note=note,
            decided_by=who if decision != Finding.Decision.UNREVIEWED else None,
            decided_at=timezone.now()
            if decision != Finding.Decision.UNREVIEWED
            else None,
            updated_at=timezone.now(),
        )
        locked.refresh_from_db()
        FindingEvent.objects.create(
            tenant_id=locked.tenant_id,
            finding=locked,
            action=action,
            user=who,
            user_name=name,
            note=note,
            kind_before=before_kind,
            kind_after=locked.shown_kind,
            severity_before=before_severity,
            severity_after=locked.shown_severity,
        )
    finding.refresh_from_db()
    return finding


def finding_accept(
    *, finding: Finding, user: AbstractBaseUser | None, note: str = ""
) -> Finding:
    """The reviewer agrees with the engine's finding."""
    return _decide(
        finding,
        user=user,
        decision=Finding.Decision.ACCEPTED,
        action=FindingEvent.Action.ACCEPT,
        note=note,
    )


def finding_override(
    *,
    finding: Finding,
    user: AbstractBaseUser | None,
    kind: str,
    severity: str = "",
    note: str,
) -> Finding:
    """The reviewer's finding replaces the engine's (kept beside it). A
    deviation needs a severity; meets and fallback have none; a missing
    clause's severity may be empty (acceptable). A note is required."""
    kind = (kind or "").strip()
    severity = (severity or "").strip()
    if kind not in findings.KINDS:
        raise RunError(
            f"Choose a finding: {', '.join(findings.KINDS)}.", code="invalid_finding"
        )
    if severity and severity not in ("low", "medium", "high"):
        raise RunError("Severity is low, medium or high.", code="invalid_severity")
    if kind in (findings.MEETS, findings.FALLBACK):
        severity = ""
    elif kind == findings.DEVIATES and not severity:
        raise RunError("A deviation needs a severity.", code="severity_required")
    if not (note or "").strip():
        raise RunError(
            "Say why the finding changes (the note is kept with it).",
            code="note_required",
        )
    return _decide(
        finding,
        user=user,
        decision=Finding.Decision.OVERRIDDEN,
        action=FindingEvent.Action.OVERRIDE,
        note=note,
        kind=kind,
        severity=severity,
    )


def finding_clear(
    *, finding: Finding, user: AbstractBaseUser | None, note: str = ""
) -> Finding:
    """Back to the engine's finding, unreviewed."""
    return _decide(
        finding,
        user=user,
        decision=Finding.Decision.UNREVIEWED,
        action=FindingEvent.Action.CLEAR,
        note=note,
    )
