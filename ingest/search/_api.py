from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import connection

from ingest.models import DocumentChunk
from ingest.search import _postgres, _sqlite
from ingest.search._query import query_terms

if TYPE_CHECKING:
    from accounts.models import Collection, Tenant
    from ingest.models import Document


@dataclass(frozen=True)
class SearchHit:
    chunk: DocumentChunk
    score: float  # higher is better on both engines
    rank: int  # 1-based


def refresh_statistics(*, force: bool = False) -> bool:
    """Refresh the term statistics search uses to skip near-ubiquitous words,
    if the index changed enough since the last refresh. Cheap when it has not."""
    backend = _postgres if connection.vendor == "postgresql" else _sqlite
    return backend.refresh_statistics(force=force)


def search_chunks(
    tenant: Tenant,
    query: str,
    *,
    document: Document | None = None,
    documents: list[Document] | None = None,
    collection: Collection | None = None,
    k: int = 4,
) -> list[SearchHit]:
    """Top-k chunks of the tenant's ready, current, non-deleted documents.

    `document` / `documents` / `collection` narrow the search. Only the current
    revision of each document is searched. An empty or all-stopword query
    returns nothing (callers decide on a fallback).
    """
    terms = query_terms(query)
    if not terms or k <= 0:
        return []
    document_ids = None
    if document is not None:
        document_ids = [document.pk]
    elif documents is not None:
        document_ids = [d.pk for d in documents]
        if not document_ids:
            return []
    backend = _postgres if connection.vendor == "postgresql" else _sqlite
    rows = backend.search(
        tenant_id=tenant.pk,
        terms=terms,
        document_ids=document_ids,
        collection_id=collection.pk if collection is not None else None,
        k=k,
    )
    if not rows:
        return []
    # No ordering (the ranking is ours) and no revision join: both cost more
    # to compile than the search itself.
    chunks = (
        DocumentChunk.objects.with_scope(tenant=tenant.pk)
        .select_related("document")
        .order_by()
        .in_bulk([chunk_id for chunk_id, _ in rows])
    )
    return [
        SearchHit(chunk=chunks[chunk_id], score=float(score), rank=i)
        for i, (chunk_id, score) in enumerate(rows, start=1)
        if chunk_id in chunks
    ]
