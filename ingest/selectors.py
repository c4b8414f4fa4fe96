from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import QuerySet

from accounts.scoping import first_by_pk
from ingest.locations import Location, location_for, segment_at
from ingest.models import Document, DocumentChunk

if TYPE_CHECKING:
    from accounts.models import Tenant


def document_list(
    *, tenant: Tenant, include_deleted: bool = False
) -> QuerySet[Document]:
    qs = Document.objects.with_scope(tenant=tenant.pk).select_related(
        "current_revision", "file"
    )
    if not include_deleted:
        qs = qs.filter(is_deleted=False)
    return qs.order_by("-created_at")


def document_get(*, tenant: Tenant, pk: object) -> Document | None:
    return first_by_pk(
        document_list(tenant=tenant).select_related("parent", "file"), pk
    )


def documents_pending(documents: list[Document]) -> bool:
    return any(not d.is_terminal for d in documents)


@dataclass(frozen=True)
class Span:
    """A cited passage: the chunk it was cited in and its offsets in the
    revision's text (None when not located yet)."""

    chunk_uid: object
    start: int | None
    end: int | None


def span_locations(*, tenant_id: int, spans: list[Span]) -> dict[Span, Location]:
    """Each span's location in its source's own words (ingest.locations),
    in one query; spans whose chunk is gone are left out."""
    uids = {s.chunk_uid for s in spans if s.chunk_uid}
    if not uids:
        return {}
    chunks = {
        c.uid: c
        for c in DocumentChunk.objects.with_scope(tenant=tenant_id)
        .filter(uid__in=uids)
        .select_related("document")
        .only(
            "uid",
            "metadata",
            "page_start",
            "document__title",
            "document__source_type",
            "document__metadata",
            "document__origin_url",
        )
    }
    out = {}
    for span in spans:
        chunk = chunks.get(span.chunk_uid)
        if chunk is None:
            continue
        out[span] = chunk_location(chunk, span.start, span.end)
    return out


def chunk_location(
    chunk: DocumentChunk, start: int | None, end: int | None
) -> Location:
    """The location of content[start:end] cited in `chunk` (its document
    loaded)."""
    document = chunk.document
    segment = segment_at((chunk.metadata or {}).get("segments") or [], start, end)
    return location_for(
        source_type=document.source_type,
        title=document.title,
        metadata=document.metadata or {},
        origin_url=document.origin_url,
        segment=segment,
        page=chunk.page_start,
    )
