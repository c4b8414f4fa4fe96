"""Tenant-scoped reads of citations: the one home of list filters and stats."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import astuple, dataclass
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


def citation_list(
    *, tenant: Tenant, filters: CitationFilters | None = None
) -> QuerySet[MessageCitation]:
    """A tenant's citations, newest first, narrowed by `filters`.

    Out-of-provenance references live in UnsourcedCitation (they have no file);
    asking for that status here returns none: see `unsourced_list`.
    """
    f = filters or CitationFilters()
    qs = MessageCitation.objects.with_scope(tenant=tenant.pk).filter(tenant=tenant)
    if f.document_id:
        qs = qs.filter(document_id=f.document_id)
    if f.collection_id:
        from ingest.models import Document

        doc_ids = (
            Document.objects.with_scope(tenant=tenant.pk)
            .filter(collections__id=f.collection_id)
            .values("id")
        )
        qs = qs.filter(document_id__in=doc_ids)
    if f.execution_context_type:
        qs = qs.filter(execution_context_type=f.execution_context_type)
    if f.execution_context_id:
        qs = qs.filter(execution_context_id=f.execution_context_id)
    if f.verification_status:
        qs = qs.filter(verification_status=f.verification_status)
    if f.verification_method:
        qs = qs.filter(verification_method=f.verification_method)
    if f.document_name:
        qs = qs.filter(document_name__icontains=f.document_name)
    if f.date_from:
        qs = qs.filter(created_at__gte=f.date_from)
    if f.date_to:
        qs = qs.filter(created_at__lte=f.date_to)
    if f.message_id:
        qs = qs.filter(message_id=f.message_id)
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
    if f.execution_context_type:
        qs = qs.filter(execution_context_type=f.execution_context_type)
    if f.execution_context_id:
        qs = qs.filter(execution_context_id=f.execution_context_id)
    if f.date_from:
        qs = qs.filter(created_at__gte=f.date_from)
    if f.date_to:
        qs = qs.filter(created_at__lte=f.date_to)
    if f.message_id:
        qs = qs.filter(message_id=f.message_id)
    if (
        f.document_id
        or f.collection_id
        or f.document_name
        or f.verification_method
        or f.relevance
        or f.stale
    ):
        return qs.none()  # an unsourced reference belongs to no document
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


def citation_stats(
    *, tenant: Tenant, filters: CitationFilters | None = None
) -> dict[str, int]:
    """Counts by verification status, plus the total (seed 003)."""
    counts = {s.value: 0 for s in Status}
    # Empty values filter nothing (citation_list ignores them too).
    unfiltered = filters is None or not any(astuple(filters))
    kept = _counted_by_triggers(tenant) if unfiltered else None
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
