"""Reviewing citations (SPEC §5, seed 003): the reads and writes shared by the
staff review tab and the Django admin.

Contracts:
- `citation_review_record` adds a CitationReview (who, when, accept/reject,
  note). It never touches the machine verdict on the citation row: the
  reviewer's word and the cascade's word are kept side by side.
- `citations_reverify` queues `verify_citation` after the surrounding
  transaction commits; the task writes a new CitationVerification row.
- `review_page` pages a tenant's citations newest first with a keyset cursor,
  merging MessageCitation rows with out-of-provenance UnsourcedCitation rows.
- `citations_csv_rows` yields CSV rows whose cells cannot be read as
  spreadsheet formulas (CSV injection, OWASP).
"""

from __future__ import annotations

import datetime as dt
import heapq
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import OuterRef, Q, QuerySet, Subquery

from citations.marks import Mark, citation_mark
from citations.models import CitationReview, MessageCitation, Status, UnsourcedCitation
from citations.presentation import BadgeState, badge_state, citation_badge
from citations.selectors import (
    CitationFilters,
    citation_list,
    citation_stats,
    unsourced_list,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import Tenant

NOTE_MAX_CHARS = 2000

# ---------------------------------------------------------------- stats


@dataclass(frozen=True)
class StatCard:
    key: str
    label: str
    count: int
    percent: float | None  # of the total; None on the total itself


STAT_ORDER = [
    Status.VERIFIED,
    Status.FAILED,
    Status.PENDING,
    Status.UNVERIFIED,
    Status.OUT_OF_PROVENANCE,
]


def percent_of(count: int, total: int) -> float:
    return round(100.0 * count / total, 1) if total else 0.0


def citation_stat_cards(
    *, tenant: Tenant, filters: CitationFilters | None = None
) -> list[StatCard]:
    """Total, then each status with its share of the total (seed 003)."""
    counts = citation_stats(tenant=tenant, filters=filters)
    total = counts["total"]
    cards = [StatCard("total", "Total", total, None)]
    cards += [
        StatCard(s.value, s.label, counts[s.value], percent_of(counts[s.value], total))
        for s in STAT_ORDER
    ]
    return cards


# ---------------------------------------------------------------- reviews


def citation_review_record(
    *,
    citation: MessageCitation,
    reviewer: AbstractBaseUser,
    decision: str,
    note: str = "",
) -> CitationReview:
    """Record a reviewer's decision on a citation. A rejection needs a note
    (the reason is what an auditor reads later). Raises ValidationError."""
    if decision not in CitationReview.Decision.values:
        raise ValidationError(f"Unknown decision {decision!r}.")
    note = (note or "").strip()
    if len(note) > NOTE_MAX_CHARS:
        raise ValidationError(f"The note is longer than {NOTE_MAX_CHARS} characters.")
    if decision == CitationReview.Decision.REJECT and not note:
        raise ValidationError("Say why the citation is rejected.")
    return CitationReview.objects.create(
        tenant_id=citation.tenant_id,
        citation=citation,
        reviewer=reviewer,
        decision=decision,
        note=note,
    )


def citation_reviews(*, citation: MessageCitation) -> list[CitationReview]:
    return list(
        citation.reviews.select_related("reviewer").order_by("-created_at", "-id")
    )


def citations_reverify(*, citations: Iterable[MessageCitation]) -> int:
    """Queue a fresh verification of each citation, after commit. Returns how
    many were queued (citations without a quote have nothing to verify)."""
    from citations.tasks import verify_citation

    ids = [str(c.pk) for c in citations if c.quoted_text]
    for citation_id in ids:
        transaction.on_commit(
            lambda cid=citation_id: verify_citation.delay(cid, "reverify")
        )
    return len(ids)


def with_latest_review(qs: QuerySet[MessageCitation], *, tenant: Tenant) -> QuerySet:
    latest = (
        CitationReview.objects.with_scope(tenant=tenant.pk)
        .filter(citation=OuterRef("pk"))
        .order_by("-created_at", "-id")
    )
    return qs.annotate(
        latest_decision=Subquery(latest.values("decision")[:1]),
        latest_note=Subquery(latest.values("note")[:1]),
        latest_reviewer=Subquery(latest.values("reviewer__username")[:1]),
    )


# ---------------------------------------------------------------- table rows


@dataclass(frozen=True)
class ReviewRow:
    obj: Any  # MessageCitation or UnsourcedCitation
    unsourced: bool
    badge: BadgeState

    @property
    def key(self) -> tuple[dt.datetime, uuid.UUID]:
        return (self.obj.created_at, self.obj.pk)

    @property
    def decision(self) -> str | None:
        return getattr(self.obj, "latest_decision", None)

    @property
    def decision_label(self) -> str:
        decision = self.decision
        return CitationReview.Decision(decision).label if decision else ""

    @property
    def status_label(self) -> str:
        return Status(self.obj.verification_status).label

    @property
    def method_label(self) -> str:
        return (
            "" if self.unsourced else self.obj.get_verification_method_display() or ""
        )

    @property
    def match_score(self) -> float | None:
        return None if self.unsourced else self.obj.match_score

    @property
    def document_name(self) -> str:
        return "" if self.unsourced else self.obj.document_name

    @property
    def page(self) -> int | None:
        return None if self.unsourced else self.obj.source_page

    @property
    def mark(self) -> Mark | None:
        """The relevance mark (None for a reference to no source)."""
        return None if self.unsourced else citation_mark(self.obj)


def _row(obj: Any) -> ReviewRow:
    if isinstance(obj, UnsourcedCitation):
        return ReviewRow(obj, True, badge_state(Status.OUT_OF_PROVENANCE, None))
    return ReviewRow(obj, False, citation_badge(obj))


def _cursor_encode(row: ReviewRow) -> str:
    created, pk = row.key
    micros = (created - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(
        microseconds=1
    )
    return f"{micros}.{pk.hex}"


def cursor_decode(raw: str | None) -> tuple[dt.datetime, uuid.UUID] | None:
    """The (created_at, id) a cursor names, or None when it is malformed."""
    if not raw:
        return None
    try:
        micros, hex_id = raw.split(".", 1)
        created = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(
            microseconds=int(micros)
        )
        return created, uuid.UUID(hex=hex_id)
    except (ValueError, OverflowError):
        return None


@dataclass(frozen=True)
class ReviewPage:
    rows: list[ReviewRow]
    newer: str | None  # cursor for the page before (newer rows), if any
    older: str | None  # cursor for the page after (older rows), if any
    is_first: bool


def _sources(tenant: Tenant, filters: CitationFilters) -> list[QuerySet]:
    cited = with_latest_review(
        citation_list(tenant=tenant, filters=filters), tenant=tenant
    )
    if filters.verification_status == Status.OUT_OF_PROVENANCE:
        return [unsourced_list(tenant=tenant, filters=filters)]
    return [cited, unsourced_list(tenant=tenant, filters=filters)]


def review_page(
    *,
    tenant: Tenant,
    filters: CitationFilters,
    after: str | None = None,
    before: str | None = None,
    size: int = 25,
) -> ReviewPage:
    """One page of the review table, newest first.

    `after` is the cursor of the last row seen (show older rows); `before`
    the cursor of the first row seen (show newer rows). Keyset paging keeps
    every page one indexed query per table, however deep the reviewer pages
    (idx_citations_tenant_created), and merges the two tables exactly.
    """
    older_than, newer_than = cursor_decode(after), cursor_decode(before)
    fetched: list[ReviewRow] = []
    for qs in _sources(tenant, filters):
        if newer_than is not None:
            ts, pk = newer_than
            qs = qs.filter(Q(created_at__gt=ts) | Q(created_at=ts, id__gt=pk))
            qs = qs.order_by("created_at", "id")
        else:
            if older_than is not None:
                ts, pk = older_than
                qs = qs.filter(Q(created_at__lt=ts) | Q(created_at=ts, id__lt=pk))
            qs = qs.order_by("-created_at", "-id")
        fetched += [_row(o) for o in qs[: size + 1]]
    if newer_than is not None:
        fetched.sort(key=lambda r: r.key)
        more_newer = len(fetched) > size
        rows = list(reversed(fetched[:size]))
        return ReviewPage(
            rows=rows,
            newer=_cursor_encode(rows[0]) if rows and more_newer else None,
            older=_cursor_encode(rows[-1]) if rows else None,
            is_first=not more_newer,
        )
    fetched.sort(key=lambda r: r.key, reverse=True)
    more_older = len(fetched) > size
    rows = fetched[:size]
    return ReviewPage(
        rows=rows,
        newer=_cursor_encode(rows[0]) if rows and older_than is not None else None,
        older=_cursor_encode(rows[-1]) if rows and more_older else None,
        is_first=older_than is None,
    )


# ---------------------------------------------------------------- CSV

_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

CSV_HEADER = [
    "id",
    "created_at",
    "document_name",
    "page",
    "verification_status",
    "verification_method",
    "match_type",
    "match_score",
    "confidence",
    "ref_label",
    "quoted_text",
    "source_text",
    "source_offset_start",
    "source_offset_end",
    "reason",
    "review_decision",
    "reviewer",
    "review_note",
    "execution_context_type",
    "execution_context_id",
    "relevance",
    "other_document",
    "stale",
]


def csv_cell(value: Any) -> str:
    """A cell a spreadsheet shows as text: a leading = + - @ (or tab / CR)
    is neutralised with a quote, as OWASP recommends for CSV injection."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_PREFIXES):
        return "'" + text
    return text


def _csv_row(row: ReviewRow) -> list[str]:
    o = row.obj
    if row.unsourced:
        values = [
            o.pk, o.created_at.isoformat(), "", "", Status.OUT_OF_PROVENANCE, "", "", "", "",
            o.ref_label, o.quoted_text, "", "", "", o.reason, "", "", "",
            o.execution_context_type, o.execution_context_id, "", "", "",
        ]  # fmt: skip
    else:
        values = [
            o.pk, o.created_at.isoformat(), o.document_name, o.source_page,
            o.verification_status, o.verification_method, o.match_type,
            "" if o.match_score is None else f"{o.match_score:.4f}",
            o.verification_confidence, o.ref_label, o.quoted_text, o.source_text,
            o.source_offset_start, o.source_offset_end, o.reason,
            getattr(o, "latest_decision", "") or "", getattr(o, "latest_reviewer", "") or "",
            getattr(o, "latest_note", "") or "",
            o.execution_context_type, o.execution_context_id,
            o.relevance or "", "yes" if o.other_document else "",
            "yes" if o.is_stale else "",
        ]  # fmt: skip
    return [csv_cell(v) for v in values]


def citations_csv_rows(
    *, tenant: Tenant, filters: CitationFilters, citations: QuerySet | None = None
) -> Iterator[list[str]]:
    """The header, then every row the filters select, newest first. Pass
    `citations` to export exactly those rows (the admin's selection)."""
    yield CSV_HEADER
    if citations is not None:
        sources = [
            with_latest_review(citations, tenant=tenant).order_by("-created_at", "-id")
        ]
    else:
        sources = [
            qs.order_by("-created_at", "-id") for qs in _sources(tenant, filters)
        ]
    streams = [(_row(o) for o in qs.iterator(chunk_size=1000)) for qs in sources]
    for row in heapq.merge(*streams, key=lambda r: r.key, reverse=True):
        yield _csv_row(row)
