"""Reading playbooks and runs: lists, a run's contracts, a contract's report.
No writes here (callers sync findings first: playbook.runs.findings_sync)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from accounts.scoping import first_by_pk
from ingest.links import document_span_url
from playbook import findings as rules
from playbook.models import (
    Finding,
    FindingEvent,
    Playbook,
    PlaybookRun,
    Position,
    RunPosition,
)
from playbook.rules import rule_display
from tabular.models import Cell, ReviewDocument
from tabular.selectors import Progress, review_progress

if TYPE_CHECKING:
    from accounts.models import Tenant

SEVERITY_ORDER = ("high", "medium", "low", "")
SEVERITY_LABELS = {"high": "High", "medium": "Medium", "low": "Low", "": "No issue"}
KIND_ORDER = (
    rules.DEVIATES,
    rules.MISSING,
    rules.NEEDS_REVIEW,
    rules.FALLBACK,
    rules.MEETS,
)


def playbook_list(*, tenant: Tenant) -> QuerySet[Playbook]:
    return Playbook.objects.with_scope(tenant=tenant.pk).order_by("name")


def playbook_get(*, tenant: Tenant, pk: object) -> Playbook | None:
    return first_by_pk(playbook_list(tenant=tenant), pk)


def positions_of(playbook: Playbook) -> list[Position]:
    return list(Position.objects.filter(playbook=playbook).order_by("order"))


def position_get(*, playbook: Playbook, pk: object) -> Position | None:
    try:
        return Position.objects.filter(playbook=playbook, pk=int(str(pk))).first()
    except (ValueError, TypeError):
        return None


def run_list(*, tenant: Tenant) -> QuerySet[PlaybookRun]:
    return (
        PlaybookRun.objects.with_scope(tenant=tenant.pk)
        .select_related("review")
        .order_by("-created_at")
    )


def run_get(*, tenant: Tenant, pk: object) -> PlaybookRun | None:
    return first_by_pk(run_list(tenant=tenant), pk)


def finding_get(*, run: PlaybookRun, pk: object) -> Finding | None:
    try:
        return Finding.objects.filter(run=run, pk=int(str(pk))).first()
    except (ValueError, TypeError):
        return None


@dataclass(frozen=True)
class Summary:
    meets: int = 0
    fallback: int = 0
    deviates: int = 0
    missing: int = 0
    needs_review: int = 0
    pending: int = 0

    @property
    def line(self) -> str:
        parts = [
            f"{self.meets} meet",
            f"{self.fallback} fallback",
            f"{self.deviates} deviate",
            f"{self.missing} missing",
            f"{self.needs_review} need{'s' if self.needs_review == 1 else ''} review",
        ]
        if self.pending:
            parts.append(f"{self.pending} pending")
        return ", ".join(parts)

    def as_dict(self) -> dict[str, int]:
        return {
            "meets": self.meets,
            "fallback": self.fallback,
            "deviates": self.deviates,
            "missing": self.missing,
            "needs_review": self.needs_review,
            "pending": self.pending,
        }


def _summary(found: list[Finding], total: int) -> Summary:
    kinds = Counter(f.shown_kind for f in found)
    return Summary(
        meets=kinds[rules.MEETS],
        fallback=kinds[rules.FALLBACK],
        deviates=kinds[rules.DEVIATES],
        missing=kinds[rules.MISSING],
        needs_review=kinds[rules.NEEDS_REVIEW],
        pending=max(0, total - len(found)),
    )


@dataclass(frozen=True)
class ContractLine:
    row: ReviewDocument
    summary: Summary
    worst: str  # the highest severity among its findings ("" for none)


@dataclass(frozen=True)
class RunView:
    run: PlaybookRun
    progress: Progress
    contracts: list[ContractLine]
    positions: list[RunPosition]


def run_view(run: PlaybookRun) -> RunView:
    rows = list(
        ReviewDocument.objects.filter(review_id=run.review_id).order_by("order")
    )
    positions = list(RunPosition.objects.filter(run=run).order_by("order"))
    by_row: dict[int, list[Finding]] = {}
    for f in Finding.objects.filter(run=run):
        by_row.setdefault(f.row_id, []).append(f)
    lines = []
    for row in rows:
        found = by_row.get(row.pk, [])
        severities = {f.shown_severity for f in found if f.shown_kind != rules.MEETS}
        worst = next((s for s in SEVERITY_ORDER if s and s in severities), "")
        lines.append(
            ContractLine(row=row, summary=_summary(found, len(positions)), worst=worst)
        )
    return RunView(
        run=run,
        progress=review_progress(run.review),
        contracts=lines,
        positions=positions,
    )


@dataclass
class FindingView:
    """One finding as the report, the exports and the API show it."""

    finding: Finding
    position: RunPosition
    cell: Cell
    value: str
    quote: str
    page: int | None
    citation_status: str
    citation_method: str
    link: str
    searched_terms: list[str]
    standard_rule: str
    fallback_rule: str
    events: list[FindingEvent] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.finding.shown_kind

    @property
    def severity(self) -> str:
        return self.finding.shown_severity

    @property
    def verified(self) -> bool:
        return self.citation_status == "verified"

    def citation_dict(self) -> dict[str, Any]:
        return {
            "quote": self.quote,
            "page": self.page,
            "status": self.citation_status,
            "method": self.citation_method,
            "citation_id": str(self.cell.citation_id)
            if self.cell.citation_id
            else None,
            "link": self.link,
        }


def finding_view(finding: Finding, *, events: bool = False) -> FindingView:
    cell = finding.cell
    citation = cell.citation
    verified = bool(citation is not None and citation.verified)
    quote = (
        citation.source_text
        if verified
        else (citation.quoted_text if citation else cell.quote)
    ) or ""
    link = ""
    if (
        citation is not None
        and citation.document_id
        and citation.source_offset_end > citation.source_offset_start
    ):
        link = document_span_url(
            citation.document_id,
            citation.source_offset_start,
            citation.source_offset_end,
        )
    position = finding.position
    value = ""
    if cell.status == Cell.Status.DONE and not cell.is_not_found:
        value = cell.shown_value
    return FindingView(
        finding=finding,
        position=position,
        cell=cell,
        value=value,
        quote=quote if cell.outcome != Cell.Outcome.NOT_FOUND else "",
        page=citation.source_page
        if citation is not None and cell.outcome != Cell.Outcome.NOT_FOUND
        else None,
        citation_status=citation.verification_status if citation is not None else "",
        citation_method=(citation.verification_method or "")
        if citation is not None
        else "",
        link=link if cell.outcome != Cell.Outcome.NOT_FOUND else "",
        searched_terms=list((cell.searched or {}).get("terms") or ()),
        standard_rule=rule_display(position.rule)
        if not position.judged_by_model
        else "",
        fallback_rule=rule_display(position.fallback_rule)
        if not position.judged_by_model
        else "",
        events=list(finding.events.all()) if events else [],
    )


def _findings_of(run: PlaybookRun, row: ReviewDocument | None = None) -> list[Finding]:
    qs = Finding.objects.filter(run=run).select_related(
        "position", "cell", "cell__citation", "row", "decided_by"
    )
    if row is not None:
        qs = qs.filter(row=row)
    return list(qs.order_by("row__order", "position__order"))


@dataclass(frozen=True)
class SeverityGroup:
    severity: str
    label: str
    items: list[FindingView]


@dataclass(frozen=True)
class ContractReport:
    run: PlaybookRun
    row: ReviewDocument
    summary: Summary
    groups: list[SeverityGroup]


def _sort_key(view: FindingView) -> tuple:
    return (KIND_ORDER.index(view.kind), view.position.order)


def contract_report(
    run: PlaybookRun, row: ReviewDocument, *, events: bool = True
) -> ContractReport:
    """One contract's findings grouped by severity (high first; findings
    without one, meets and fallbacks, last), with the summary line."""
    found = _findings_of(run, row)
    views = [finding_view(f, events=events) for f in found]
    groups = []
    for severity in SEVERITY_ORDER:
        items = sorted(
            (
                v
                for v in views
                if (v.severity if v.kind != rules.MEETS else "") == severity
            ),
            key=_sort_key,
        )
        if items:
            groups.append(SeverityGroup(severity, SEVERITY_LABELS[severity], items))
    total = RunPosition.objects.filter(run=run).count()
    return ContractReport(
        run=run, row=row, summary=_summary(found, total), groups=groups
    )


def run_reports(
    run: PlaybookRun, *, rows: list[ReviewDocument] | None = None
) -> list[ContractReport]:
    rows = (
        rows
        if rows is not None
        else list(
            ReviewDocument.objects.filter(review_id=run.review_id).order_by("order")
        )
    )
    return [contract_report(run, row) for row in rows]


def row_get(*, run: PlaybookRun, pk: object) -> ReviewDocument | None:
    try:
        return ReviewDocument.objects.filter(
            review_id=run.review_id, pk=int(str(pk))
        ).first()
    except (ValueError, TypeError):
        return None
