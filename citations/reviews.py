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
  spreadsheet formulas (CSV injection, OWASP; `lib.spreadsheets`).
"""

from __future__ import annotations

import datetime as dt
import heapq
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery

from citations.marks import Mark, citation_mark
from citations.models import CitationReview, MessageCitation, Status, UnsourcedCitation
from citations.presentation import BadgeState, badge_state, citation_badge
from citations.selectors import (
    CitationFilters,
    citation_list,
    citation_stats,
    unsourced_list,
)
from lib.spreadsheets import csv_row

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
    note: str = ""  # e.g. "1 rejected by a reviewer" on the Verified card


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
    *,
    tenant: Tenant,
    filters: CitationFilters | None = None,
    review: str | None = None,
) -> list[StatCard]:
    """Total, then each status with its share of the total (seed 003). A
    status card names how many of its citations a reviewer rejected (or
    accepted, for failures): "Verified 100%" must not hide a rejection.
    `review` narrows to one review state (REVIEW_STATES)."""
    if review:
        counts = _status_counts_reviewed(tenant, filters, review)
    else:
        counts = citation_stats(tenant=tenant, filters=filters)
    total = counts["total"]
    by_status = review_counts(
        tenant=tenant, filters=filters, stats=None if review else counts
    ).by_status
    cards = [StatCard("total", "Total", total, None)]
    for s in STAT_ORDER:
        decided = by_status.get(s.value, {})
        note = _overruled_note(s.value, decided, review)
        cards.append(
            StatCard(
                s.value,
                s.label,
                counts[s.value],
                percent_of(counts[s.value], total),
                note,
            )
        )
    return cards


def _overruled_note(status: str, decided: dict[str, int], review: str | None) -> str:
    """Where a reviewer disagreed with the machine: rejections of verified or
    pending citations, acceptances of failed ones."""
    key = (
        CitationReview.Decision.ACCEPT
        if status == Status.FAILED
        else CitationReview.Decision.REJECT
    )
    n = decided.get(key, 0)
    if not n or (review and review != key):
        return ""
    verb = "accepted" if key == CitationReview.Decision.ACCEPT else "rejected"
    return f"{n} {verb} by a reviewer"


def _status_counts_reviewed(
    tenant: Tenant, filters: CitationFilters | None, review: str
) -> dict[str, int]:
    counts = {s.value: 0 for s in Status}
    rows = (
        with_review_state(
            citation_list(tenant=tenant, filters=filters), tenant=tenant, state=review
        )
        .order_by()
        .values("verification_status")
        .annotate(n=Count("id"))
    )
    for row in rows:
        counts[row["verification_status"]] = row["n"]
    counts["total"] = sum(counts[s.value] for s in Status)
    return counts


# ---------------------------------------------------------------- review states

# A citation's review state is its latest review's decision, or none yet.
# Out-of-provenance references cannot be reviewed (no CitationReview can
# point at them) and belong to no review state.
REVIEW_STATES = (
    ("unreviewed", "Not reviewed"),
    (CitationReview.Decision.ACCEPT.value, "Accepted"),
    (CitationReview.Decision.REJECT.value, "Rejected"),
)


@dataclass(frozen=True)
class ReviewCounts:
    accepted: int
    rejected: int
    reviewable: int  # citations a reviewer can decide on (not out of provenance)
    by_status: dict[str, dict[str, int]]  # status -> decision -> count

    @property
    def unreviewed(self) -> int:
        return self.reviewable - self.accepted - self.rejected

    def cards(self) -> list[StatCard]:
        counts = {
            "unreviewed": self.unreviewed,
            CitationReview.Decision.ACCEPT: self.accepted,
            CitationReview.Decision.REJECT: self.rejected,
        }
        return [
            StatCard(key, label, counts[key], percent_of(counts[key], self.reviewable))
            for key, label in REVIEW_STATES
        ]


def review_counts(
    *,
    tenant: Tenant,
    filters: CitationFilters | None = None,
    stats: dict[str, int] | None = None,
) -> ReviewCounts:
    """How many of the filtered citations a reviewer accepted or rejected
    last. Read from the reviews (few: people write them), each citation's
    latest decision winning, so no query walks every citation."""
    reviews = CitationReview.objects.with_scope(tenant=tenant.pk).filter(tenant=tenant)
    if filters is not None and any(
        v is not None and v != "" for v in vars(filters).values()
    ):
        reviews = reviews.filter(
            citation_id__in=citation_list(tenant=tenant, filters=filters)
            .order_by()
            .values("id")
        )
    latest: dict[object, tuple[str, str]] = {}
    for citation_id, decision, status in reviews.order_by(
        "created_at", "id"
    ).values_list("citation_id", "decision", "citation__verification_status"):
        latest[citation_id] = (decision, status)
    by_status: dict[str, dict[str, int]] = {}
    for decision, status in latest.values():
        per = by_status.setdefault(status, {})
        per[decision] = per.get(decision, 0) + 1
    decisions = [d for d, _ in latest.values()]
    stats = stats or citation_stats(tenant=tenant, filters=filters)
    return ReviewCounts(
        accepted=decisions.count(CitationReview.Decision.ACCEPT),
        rejected=decisions.count(CitationReview.Decision.REJECT),
        reviewable=stats["total"] - stats[Status.OUT_OF_PROVENANCE],
        by_status=by_status,
    )


def with_review_state(
    qs: QuerySet[MessageCitation], *, tenant: Tenant, state: str | None
) -> QuerySet[MessageCitation]:
    """`qs` annotated with its latest review, narrowed to one review state."""
    qs = with_latest_review(qs, tenant=tenant)
    if state == "unreviewed":
        return qs.filter(latest_decision__isnull=True)
    if state in CitationReview.Decision.values:
        return qs.filter(latest_decision=state)
    return qs


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
    from lib.worker.enqueue import send_on_commit

    ids = [str(c.pk) for c in citations if c.quoted_text]
    for citation_id in ids:
        send_on_commit(verify_citation, citation_id, "reverify", run_here_if_down=True)
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


def _sources(
    tenant: Tenant, filters: CitationFilters, review: str | None = None
) -> list[QuerySet]:
    cited = with_review_state(
        citation_list(tenant=tenant, filters=filters), tenant=tenant, state=review
    )
    if review:
        return [cited]  # a reference to no source has no review state
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
    review: str | None = None,
) -> ReviewPage:
    """One page of the review table, newest first.

    `after` is the cursor of the last row seen (show older rows); `before`
    the cursor of the first row seen (show newer rows). Keyset paging keeps
    every page one indexed query per table, however deep the reviewer pages
    (idx_citations_tenant_created), and merges the two tables exactly.
    """
    older_than, newer_than = cursor_decode(after), cursor_decode(before)
    fetched: list[ReviewRow] = []
    for qs in _sources(tenant, filters, review):
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
    return csv_row(values)


def citations_csv_rows(
    *,
    tenant: Tenant,
    filters: CitationFilters,
    citations: QuerySet | None = None,
    review: str | None = None,
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
            qs.order_by("-created_at", "-id")
            for qs in _sources(tenant, filters, review)
        ]
    streams = [(_row(o) for o in qs.iterator(chunk_size=1000)) for qs in sources]
    for row in heapq.merge(*streams, key=lambda r: r.key, reverse=True):
        yield _csv_row(row)
