from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings
from django.db import connection

from ingest.models import DocumentChunk
from ingest.search import _postgres, _sqlite, _vectors
from ingest.search._fusion import Fused, fuse
from ingest.search._fusion import lexical_depth as fusion_depth
from ingest.search._query import query_terms
from llm.errors import LLMError

if TYPE_CHECKING:
    from accounts.models import Collection, Tenant
    from ingest.models import Document
    from llm.embeddings import Embedder

logger = logging.getLogger(__name__)

MODES = ("fts", "dense", "hybrid")
# How many chunks the dense leg ranks for fusion.
DENSE_DEPTH = 40


@dataclass(frozen=True)
class SearchHit:
    """One retrieved chunk and the signals that ranked it.

    * ``score``: what the ranking sorted by, higher is better. ``fts`` mode:
      the engine's own score (FTS5 bm25 negated on SQLite, ts_rank on
      PostgreSQL; not comparable across engines). ``dense``: the cosine.
      ``hybrid``: the fused score (ingest/search/_fusion.py), about 0.01-0.09.
    * ``rank``: 1-based position in the results.
    * ``lexical_rank`` / ``lexical_score``: the chunk's place and score in the
      full-text ranking; None when no query term matched it (or in ``dense``).
    * ``dense_score``: cosine of the question's and the chunk's vectors, in
      [-1, 1] (about 0.3-0.8 for related text with WordLlama); set for every
      hit that has a vector of the configured model, whatever the mode, so a
      caller can judge relevance; None when the chunk has no vector yet or
      the embedder is off or failing.
    * ``dense_rank``: the chunk's place in the dense ranking, when it made it.
    * ``mode``: the mode that produced the hit: the one asked for, or ``fts``
      when the dense leg was unavailable.
    """

    chunk: DocumentChunk
    score: float
    rank: int
    lexical_rank: int | None = None
    lexical_score: float | None = None
    dense_rank: int | None = None
    dense_score: float | None = None
    mode: str = "fts"


def refresh_statistics(*, force: bool = False) -> bool:
    """Refresh the term statistics search uses to skip near-ubiquitous words,
    if the index changed enough since the last refresh. Cheap when it has not."""
    backend = _postgres if connection.vendor == "postgresql" else _sqlite
    return backend.refresh_statistics(force=force)


def _configured_embedder() -> Embedder | None:
    from llm.configured import embedder

    return embedder()


# A failure of one kind from one server is logged once a minute, not at every
# search of an outage.
_WARN_EVERY_S = 60.0
_warned: dict[str, float] = {}


def _warn(message: str, exc: LLMError) -> None:
    key = f"{type(exc).__name__} {exc.base_url} {exc.status}"
    now = time.monotonic()
    if now - _warned.get(key, -_WARN_EVERY_S) >= _WARN_EVERY_S:
        if len(_warned) > 1000:
            _warned.clear()
        _warned[key] = now
        logger.warning(message, exc)


@dataclass(frozen=True)
class _Question:
    model: str  # the embedder's name, as stored with each vector
    dim: int
    vector: np.ndarray


def _question(query: str) -> _Question | None:
    """The question's vector, or None (logged) when embeddings are off or the
    embedder fails."""
    embedder = _configured_embedder()
    if embedder is None:
        return None
    try:
        vector = embedder.embed([query])[0]
        question = _Question(model=embedder.name, dim=embedder.dim, vector=vector)
    except LLMError as exc:
        _warn("Dense search unavailable, full-text results only: %s", exc)
        return None
    if not np.any(vector):
        return None  # nothing the model knows in the question
    return question


def search_chunks(
    tenant: Tenant,
    query: str,
    *,
    document: Document | None = None,
    documents: list[Document] | None = None,
    collection: Collection | None = None,
    k: int = 4,
    mode: str | None = None,
) -> list[SearchHit]:
    """Top-k chunks of the tenant's ready, current, non-deleted documents.

    `document` / `documents` / `collection` narrow the search. Only the current
    revision of each document is searched. `mode` is "fts" (full text),
    "dense" (embeddings) or "hybrid" (both, fused); None means
    ``settings.SEARCH_MODE``. When the dense leg is unavailable (embeddings
    off, the server down or answering garbage) the results are full-text
    ones, never an error. An empty or all-stopword query returns nothing in
    "fts" mode (callers decide on a fallback).
    """
    mode = mode or settings.SEARCH_MODE
    if mode not in MODES:
        raise ValueError(f"search mode {mode!r} is not one of {', '.join(MODES)}")
    if k <= 0:
        return []
    document_ids = None
    if document is not None:
        document_ids = [document.pk]
    elif documents is not None:
        document_ids = [d.pk for d in documents]
        if not document_ids:
            return []
    collection_id = collection.pk if collection is not None else None
    # Asked in every mode: the hits' cosines are a relevance signal even when
    # full text alone ranks them.
    question = _question(query)
    dense = question if mode != "fts" else None
    # Deeper than k when fusing, so a chunk ranked a little lower by one leg
    # can still win on the other: the dense leg to DENSE_DEPTH, the full-text
    # one only as deep as a dense rank could lift a chunk into the top k.
    dense_depth = max(4 * k, DENSE_DEPTH)
    lexical_depth = k
    if dense is not None and mode == "hybrid":
        lexical_depth = fusion_depth(
            k,
            dense_weight=settings.SEARCH_DENSE_WEIGHT,
            rrf_k=settings.SEARCH_RRF_K,
            cap=dense_depth,
        )
    lexical: list[tuple[int, float]] = []
    if mode != "dense" or dense is None:
        terms = query_terms(query)
        if terms:
            backend = _postgres if connection.vendor == "postgresql" else _sqlite
            lexical = backend.search(
                tenant_id=tenant.pk,
                terms=terms,
                document_ids=document_ids,
                collection_id=collection_id,
                k=lexical_depth,
            )
    nearest: list[tuple[int, float]] = []
    if dense is not None:
        nearest = _vectors.search(
            tenant_id=tenant.pk,
            model=dense.model,
            query=dense.vector,
            document_ids=document_ids,
            collection_id=collection_id,
            k=k if mode == "dense" else dense_depth,
        )
    if dense is None:
        used = "fts"
        ranked = fuse(lexical, [], dense_weight=0.0, k=0)
    elif mode == "dense":
        used = "dense"
        ranked = fuse([], nearest, dense_weight=1.0, k=0)
    else:
        used = "hybrid"
        ranked = fuse(
            lexical,
            nearest,
            dense_weight=settings.SEARCH_DENSE_WEIGHT,
            k=settings.SEARCH_RRF_K,
        )
    top = ranked[:k]
    if not top:
        return []
    cosines = _missing_cosines(tenant, question, top)
    # No ordering (the ranking is ours) and no revision join: both cost more
    # to compile than the search itself.
    chunks = (
        DocumentChunk.objects.with_scope(tenant=tenant.pk)
        .select_related("document")
        .order_by()
        .in_bulk([f.chunk_id for f in top])
    )
    hits = []
    for f in top:
        if f.chunk_id not in chunks:
            continue
        hits.append(
            SearchHit(
                chunk=chunks[f.chunk_id],
                score=_score(used, f),
                rank=len(hits) + 1,
                lexical_rank=f.lexical_rank,
                lexical_score=f.lexical_score,
                dense_rank=f.dense_rank,
                dense_score=(
                    f.dense_score
                    if f.dense_score is not None
                    else cosines.get(f.chunk_id)
                ),
                mode=used,
            )
        )
    return hits


def _score(mode: str, fused: Fused) -> float:
    if mode == "fts":
        return float(fused.lexical_score or 0.0)
    if mode == "dense":
        return float(fused.dense_score or 0.0)
    return fused.score


def _missing_cosines(
    tenant: Tenant, question: _Question | None, top: list[Fused]
) -> dict[int, float]:
    """The cosine of hits the dense leg did not rank (read from their vectors)."""
    if question is None:
        return {}
    missing = [f.chunk_id for f in top if f.dense_score is None]
    if not missing:
        return {}
    stored = _vectors.vectors_of(tenant.pk, question.model, question.dim, missing)
    return {
        chunk_id: float(np.clip(np.dot(v, question.vector), -1.0, 1.0))
        for chunk_id, v in stored.items()
    }
