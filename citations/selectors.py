"""Tenant-scoped reads of citations: the one home of list filters and stats."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import Count, QuerySet

from citations.models import MessageCitation, Status, UnsourcedCitation

if TYPE_CHECKING:
    from accounts.models import Tenant


@dataclass(frozen=True)
class CitationFilters:
    document_id: uuid.UUID | None = None
    collection_id: int | None = None
    execution_context_type: str | None = None
    execution_context_id: str | None = None
    verification_status: str | None = None
    verification_method: str | None = None
    document_name: str | None = None
    date_from: dt.datetime | None = None
    date_to: dt.datetime | None = None
    message_id: uuid.UUID | None = None
    relevance: str | None = None  # answers | related | off_topic | unrated
    stale: bool | None = None
    rule: str | None = None  # the id of the rule that refused (rules.RULES)


# Filters that narrow by one lookup each, run by `_narrowed`: the filter's
# field, the lookup it becomes. Citations and unsourced references share the
# second table; the first adds what only a sourced citation has.
_SHARED_LOOKUPS = (
    ("execution_context_type", "execution_context_type"),
    ("execution_context_id", "execution_context_id"),
    ("date_from", "created_at__gte"),
    ("date_to", "created_at__lte"),
    ("message_id", "message_id"),
)
_CITATION_LOOKUPS = (
    ("document_id", "document_id"),
    ("verification_status", "verification_status"),
    ("verification_method", "verification_method"),
    ("document_name", "document_name__icontains"),
    ("rule", "rule"),
    *_SHARED_LOOKUPS,
)


def _narrowed(qs: QuerySet, f: CitationFilters, lookups: tuple) -> QuerySet:
    """`qs` narrowed by each filter that is set (None and "" narrow nothing)."""
    for name, lookup in lookups:
        value = getattr(f, name)
        if value:
            qs = qs.filter(**{lookup: value})
    return qs


def citation_list(
    *, tenant: Tenant, filters: CitationFilters | None = None
) -> QuerySet[MessageCitation]:
    """A tenant's citations, newest first, narrowed by `filters`.

    Out-of-provenance references live in UnsourcedCitation (they have no file);
    asking for that status here returns none: see `unsourced_list`.
    """
    f = filters or CitationFilters()
    qs = MessageCitation.objects.with_scope(tenant=tenant.pk).filter(tenant=tenant)
    qs = _narrowed(qs, f, _CITATION_LOOKUPS)
    if f.collection_id:
        from ingest.models import Document

        doc_ids = (
            Document.objects.with_scope(tenant=tenant.pk)
            .filter(collections__id=f.collection_id)
            .values("id")
        )
        qs = qs.filter(document_id__in=doc_ids)
    if f.relevance == "unrated":
        qs = qs.filter(relevance__isnull=True)
    elif f.relevance:
        qs = qs.filter(relevance=f.relevance)
    if f.stale is not None:
        qs = qs.filter(is_stale=f.stale)
    return qs.order_by("-created_at", "-id")


def unsourced_list(
    *, tenant: Tenant, filters: CitationFilters | None = None
) -> QuerySet[UnsourcedCitation]:
    f = filters or CitationFilters()
    qs = UnsourcedCitation.objects.with_scope(tenant=tenant.pk).filter(tenant=tenant)
    qs = _narrowed(qs, f, _SHARED_LOOKUPS)
    if (
        f.document_id
        or f.collection_id
        or f.document_name
        or f.verification_method
        or f.relevance
        or f.stale
        or f.rule
    ):
        # An unsourced reference belongs to no document, and no rule of the
        # cascade refused it (it never reached the cascade).
        return qs.none()
    if f.verification_status and f.verification_status != Status.OUT_OF_PROVENANCE:
        return qs.none()
    return qs.order_by("-created_at")


def citation_get(*, tenant: Tenant, pk: object) -> MessageCitation | None:
    try:
        return citation_list(tenant=tenant).filter(pk=pk).first()
    except (
        ValueError,
        TypeError,
        ValidationError,
    ):  # malformed ids are simply not found
        return None


def _counted_by_triggers(tenant: Tenant) -> dict[str, int] | None:
    """PostgreSQL keeps per-tenant counts by status in citation_status_counts
    (statement triggers, migration citations 0005); None elsewhere."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT status, n FROM citation_status_counts WHERE tenant_id = %s",
            [tenant.pk],
        )
        return dict(cursor.fetchall())


def _active(filters: CitationFilters | None) -> dict[str, object]:
    """The filters that narrow something (None and "" filter nothing, as in
    citation_list; stale=False does)."""
    if filters is None:
        return {}
    return {
        f.name: getattr(filters, f.name)
        for f in fields(filters)
        if getattr(filters, f.name) not in (None, "")
    }


# What citation_stats_daily (migration 0009) can answer: a stats request
# filtered by anything else (a document, a message, a name, a collection, a
# context id) narrows to rows their own indexes find.
_DAILY_COLUMNS = {
    "verification_status": "status",
    "verification_method": "method",
    "execution_context_type": "context_type",
    "relevance": "relevance",
    "stale": "is_stale",
}
_DAILY_FILTERS = {*_DAILY_COLUMNS, "date_from", "date_to"}
_DAY = dt.timedelta(days=1)


def _utc_midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)


def _counted_by_day(
    tenant: Tenant, filters: CitationFilters, active: dict[str, object]
) -> dict[str, int] | None:
    """PostgreSQL: counts by status from the daily summary for the whole days
    in the range, plus the rows of the days the range cuts (found through
    the (tenant, created_at) index); None when the summary cannot answer."""
    if connection.vendor != "postgresql" or set(active) - _DAILY_FILTERS:
        return None
    where, params = ["tenant_id = %s"], [tenant.pk]
    for name, column in _DAILY_COLUMNS.items():
        if name in active:
            value = active[name]
            if name == "relevance" and value == "unrated":
                value = ""
            where.append(f"{column} = %s")
            params.append(value)
    edges: list[tuple[dt.datetime | None, dt.datetime | None]] = []
    date_from, date_to = filters.date_from, filters.date_to
    if date_from is not None:
        start = date_from.astimezone(dt.UTC)
        first = (
            start.date()
            if start == _utc_midnight(start.date())
            else start.date() + _DAY
        )
        where.append("day >= %s")
        params.append(first)
        edges.append((date_from, _utc_midnight(first)))  # [from, first day)
    if date_to is not None:
        end = date_to.astimezone(dt.UTC).date()  # the day date_to cuts
        where.append("day < %s")
        params.append(end)
        edges.append((_utc_midnight(end), None))  # [its midnight, to]
    if date_from is not None and date_to is not None and first >= end:
        return None  # under two days: the rows themselves are few
    counts: dict[str, int] = {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT status, sum(n) FROM citation_stats_daily WHERE "
            + " AND ".join(where)
            + " GROUP BY status",
            params,
        )
        for status, n in cursor.fetchall():
            counts[status] = int(n)
    for low, high in edges:
        if high is not None and low is not None and low >= high:
            continue  # the range starts at midnight: no partial first day
        edge = citation_list(
            tenant=tenant,
            filters=replace(filters, date_from=low or date_from, date_to=None),
        )
        if high is not None:
            edge = edge.filter(created_at__lt=high)
        elif date_to is not None:
            edge = edge.filter(created_at__lte=date_to)
        for row in (
            edge.order_by().values("verification_status").annotate(n=Count("id"))
        ):
            counts[row["verification_status"]] = (
                counts.get(row["verification_status"], 0) + row["n"]
            )
    return counts


def citation_stats(
    *, tenant: Tenant, filters: CitationFilters | None = None
) -> dict[str, int]:
    """Counts by verification status, plus the total (seed 003).

    On PostgreSQL no request groups a tenant's rows: unfiltered counts come
    from citation_status_counts (0005), counts filtered by date, status,
    method, context type, relevance or staleness from citation_stats_daily
    (0009); other filters narrow to rows their indexes find.
    """
    counts = {s.value: 0 for s in Status}
    active = _active(filters)
    if not active:
        kept = _counted_by_triggers(tenant)
    else:
        kept = _counted_by_day(tenant, filters, active)
    if kept is not None:
        counts.update({status: n for status, n in kept.items() if status in counts})
    else:
        rows = (
            citation_list(tenant=tenant, filters=filters)
            .order_by()
            .values("verification_status")
            .annotate(n=Count("id"))
        )
        for row in rows:
            counts[row["verification_status"]] = row["n"]
    counts[Status.OUT_OF_PROVENANCE] += unsourced_list(
        tenant=tenant, filters=filters
    ).count()
    counts["total"] = sum(counts[s.value] for s in Status)
    return counts


def citation_rule_counts(
    *, tenant: Tenant, filters: CitationFilters | None = None
) -> dict[str, int]:
    """How many of the filtered citations each rule refused, most first
    (rule id -> count; citations no rule refused are not counted)."""
    rows = (
        citation_list(tenant=tenant, filters=filters)
        .exclude(rule="")
        .order_by()
        .values("rule")
        .annotate(n=Count("id"))
    )
    counted = sorted(((r["rule"], r["n"]) for r in rows), key=lambda p: (-p[1], p[0]))
    return dict(counted)
