"""Chunk vectors: computed after chunking in the ingestion task, refilled by
``manage.py reembed``, read by dense search (ingest.search).

Embedding is an enrichment, never a condition: a document whose vectors
cannot be computed (the embedding server is down, slow, or answers with the
wrong dimension or garbage) is still ready and searched by full text; the
failure is logged once per document, and ``reembed`` fills the gap later.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
from django.db import connection, transaction
from django.db.models import F

from accounts.scoping import tenant_scope
from ingest.models import ChunkEmbedding, Document, DocumentChunk
from llm.errors import LLMError

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from accounts.models import Tenant
    from ingest.models import DocumentRevision
    from llm.embeddings import Embedder

logger = logging.getLogger(__name__)

# Chunks per embedding call and per INSERT; an OpenAI-compatible server gets
# them in EMBEDDINGS_BATCH_SIZE slices.
BATCH = 256


def vector_bytes(vector: np.ndarray) -> bytes:
    """How a vector is stored: little-endian float32."""
    return np.asarray(vector, dtype="<f4").tobytes()


def vector_from(data: bytes | memoryview) -> np.ndarray:
    return np.frombuffer(bytes(data), dtype="<f4").astype(np.float32)


def configured_embedder() -> Embedder | None:
    from llm.configured import embedder

    return embedder()


class ChunkText(Protocol):
    """What embedding needs of a chunk: a DocumentChunk, or a row of
    ``values_list(*CHUNK_TEXT_FIELDS, named=True)`` (no model instances)."""

    id: int
    tenant_id: int
    document_id: uuid.UUID
    content: str


CHUNK_TEXT_FIELDS = ("id", "tenant_id", "document_id", "content")


def embed_chunks(
    chunks: Sequence[ChunkText],
    embedder: Embedder,
    *,
    replace: bool = False,
    on_batch: Callable[[int], None] | None = None,
) -> int:
    """Compute and store the vectors of `chunks`; returns how many were stored.

    Existing vectors of the same model are kept, or overwritten with
    ``replace``. Raises LLMError when the embedder fails: the batches stored
    before it stay.
    """
    stored = 0
    name, dim = embedder.name, embedder.dim
    for start in range(0, len(chunks), BATCH):
        batch = chunks[start : start + BATCH]
        vectors = embedder.embed([c.content for c in batch])
        _insert(
            [
                (chunk.tenant_id, chunk.document_id, chunk.id, vector_bytes(vector))
                for chunk, vector in zip(batch, vectors, strict=True)
            ],
            model=name,
            dim=dim,
            replace=replace,
        )
        stored += len(batch)
        if on_batch is not None:
            on_batch(len(batch))
    return stored


def _insert(
    rows: list[tuple[int, object, int, bytes]], *, model: str, dim: int, replace: bool
) -> None:
    """One INSERT run over the rows (tenant, document, chunk, vector bytes).

    Not bulk_create: compiling a 256-row INSERT with its blobs took Django
    longer than embedding the chunks (0.29 s of 1.16 s for a 200-page PDF).
    Both databases read ON CONFLICT the same way.
    """
    on_conflict = (
        "DO UPDATE SET vector = excluded.vector, dim = excluded.dim"
        if replace
        else "DO NOTHING"
    )
    sqlite = connection.vendor == "sqlite"
    # One transaction: in autocommit SQLite would commit (and sync) each row.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO ingest_chunkembedding"
            " (tenant_id, document_id, chunk_id, model, dim, vector)"
            f" VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (chunk_id, model) {on_conflict}",
            [
                (
                    tenant_id,
                    document_id.hex if sqlite else document_id,
                    chunk_id,
                    model,
                    dim,
                    vector,
                )
                for tenant_id, document_id, chunk_id, vector in rows
            ],
        )


def missing_vectors(chunks: QuerySet[DocumentChunk], model: str) -> QuerySet:
    """Those of `chunks` with no vector of `model`."""
    return chunks.exclude(embeddings__model=model)


def vectors_missing(revision: DocumentRevision) -> bool:
    """True when embeddings are on and a chunk of `revision` has no vector of
    the configured model (the server was down, or slow past its timeout)."""
    embedder = configured_embedder()
    if embedder is None:
        return False
    with tenant_scope(revision.tenant):
        return missing_vectors(revision.chunks.all(), embedder.name).exists()


def embed_revision(
    revision: DocumentRevision, *, embedder: Embedder | None = None
) -> int:
    """Vectors for the revision's chunks that lack one, and none for the
    document's older revisions (never searched). Returns how many were stored;
    logs and returns 0 when embeddings are off or the embedder fails."""
    embedder = embedder if embedder is not None else configured_embedder()
    if embedder is None:
        return 0
    with tenant_scope(revision.tenant):
        return _embed_revision(revision, embedder)


def _embed_revision(revision: DocumentRevision, embedder: Embedder) -> int:
    try:
        name = embedder.name
        missing = list(
            missing_vectors(revision.chunks.all(), name)
            .order_by("chunk_index")
            .values_list(*CHUNK_TEXT_FIELDS, named=True)
        )
        stored = embed_chunks(missing, embedder) if missing else 0
    except LLMError as exc:
        logger.warning(
            "Document %s: no vectors for dense search (%s). It is searched by "
            "full text; `manage.py reembed` computes them later.",
            revision.document_id,
            exc,
        )
        return 0
    ChunkEmbedding.objects.filter(document_id=revision.document_id).exclude(
        chunk__revision_id=revision.pk
    ).delete()
    return stored


@dataclass(frozen=True)
class Reembedded:
    stored: int  # vectors computed now
    removed: int  # vectors of another model or of an old revision, deleted


def searchable_chunks() -> QuerySet[DocumentChunk]:
    """The chunks search reads (in the active tenant scope): current revisions
    of documents that are ready and not deleted."""
    return DocumentChunk.objects.filter(
        revision_id=F("document__current_revision_id"),
        document__status=Document.Status.READY,
        document__is_deleted=False,
    )


def reembed_tenant(
    tenant: Tenant,
    *,
    embedder: Embedder,
    everything: bool = False,
    on_total: Callable[[int], None] | None = None,
    on_batch: Callable[[int], None] | None = None,
) -> Reembedded:
    """Vectors of `embedder`'s model for the tenant's searchable chunks that
    lack one (``everything``: for all of them, replacing those there are);
    then, once all are stored, deletes the tenant's vectors of other models
    and of old revisions, which search never reads. Raises LLMError if the
    embedder fails (what was stored stays; run again to go on)."""
    name = embedder.name
    with tenant_scope(tenant):
        chunks = searchable_chunks()
        if not everything:
            chunks = missing_vectors(chunks, name)
        chunks = chunks.order_by("id")
        if on_total is not None:
            on_total(chunks.count())
        rows = chunks.values_list(*CHUNK_TEXT_FIELDS, named=True)
        stored, last = 0, 0
        while batch := list(rows.filter(id__gt=last)[:BATCH]):
            stored += embed_chunks(
                batch, embedder, replace=everything, on_batch=on_batch
            )
            last = batch[-1].id
        other_models, _ = ChunkEmbedding.objects.exclude(model=name).delete()
        old_revisions, _ = (
            ChunkEmbedding.objects.filter(model=name)
            .exclude(chunk__revision_id=F("document__current_revision_id"))
            .delete()
        )
    return Reembedded(stored=stored, removed=other_models + old_revisions)
