"""Dense search: exact inner product over a tenant's chunk vectors, with faiss.

Vectors are stored in the database (``ChunkEmbedding``, float32 bytes), the
same on SQLite and PostgreSQL, and searched in process with faiss (exact flat
inner product; the vectors have unit length, so it is the cosine). At 100,000
chunks of 256 dimensions an exact scan takes ~4 ms, so no approximate index
is needed, and an approximate one returns almost nothing under a filter
(FINDINGS: HNSW recall 0.02 for one document of 500).

Each process keeps one :class:`TenantVectors` per (tenant, model) in an LRU
cache bounded by ``SEARCH_VECTOR_CACHE_MB``. Its version is the highest
``ChunkEmbedding.id`` it has read: every search asks the database for the
current highest id (one index probe) and reads only the newer rows, so new
chunks are searched at once. Rows deleted since (documents deleted, old
revisions dropped) stay in the cache until it is rebuilt, which happens when
more than a fifth of it may be stale; meanwhile every candidate is checked
against the database (tenant, current revision, ready, not deleted), so a
stale row is never returned.

A scope (one document, a set, a collection) is searched exactly over that
scope's own rows: read straight from the database for up to
DIRECT_READ_DOCUMENTS documents (one query, already checked; a tenant only
ever searched a document at a time is never loaded whole; gathering them from
a loaded cache measured no faster), else gathered from the tenant's cache.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import connection

# faiss logs which CPU build it loads at INFO, once per process: not news.
logging.getLogger("faiss.loader").setLevel(logging.WARNING)
import faiss  # noqa: E402

# One thread per search: web and Celery workers run searches side by side,
# and a single-query flat scan gains nothing from OpenMP's pool.
faiss.omp_set_num_threads(1)

# Scopes of up to this many documents read their vectors straight from the
# database (one query; ~0.3 ms on SQLite, ~1 ms on PostgreSQL for 50 rows,
# more when their pages are not in memory), larger ones use the cache.
DIRECT_READ_DOCUMENTS = 20
# Rebuild a cache when this share of its rows may no longer be searchable.
STALE_FRACTION = 0.2
# How often a loaded cache counts the database's rows to notice deletions.
RECOUNT_EVERY_S = 60.0


def _hex(value: object) -> str:
    """A document id as 32 hex digits, whether a UUID or raw SQLite text."""
    return value.hex if isinstance(value, uuid.UUID) else str(value).replace("-", "")


def _uuid_param(value: object) -> object:
    # SQLite stores UUIDs as 32 hex digits; PostgreSQL takes UUID objects.
    if connection.vendor == "sqlite":
        return _hex(value)
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


@dataclass
class TenantVectors:
    """One tenant's vectors of one model, in a faiss flat inner-product index."""

    tenant_id: int
    model: str
    dim: int
    index: faiss.IndexFlatIP
    chunk_ids: np.ndarray  # int64, one per row of the index
    document_rows: dict[str, list[int]] = field(default_factory=dict)
    row_of: dict[int, int] = field(default_factory=dict)
    max_id: int = 0
    counted_at: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def nbytes(self) -> int:
        return self.index.ntotal * self.dim * 4 + self.chunk_ids.nbytes

    def add(self, rows: list[tuple[int, int, object, bytes]]) -> None:
        """Append (embedding id, chunk id, document id, vector bytes) rows."""
        if not rows:
            return
        matrix = np.frombuffer(b"".join(r[3] for r in rows), dtype="<f4").reshape(
            len(rows), self.dim
        )
        start = self.index.ntotal
        self.index.add(np.ascontiguousarray(matrix, dtype=np.float32))
        new_ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        self.chunk_ids = np.concatenate([self.chunk_ids, new_ids])
        for offset, row in enumerate(rows):
            position = start + offset
            self.document_rows.setdefault(_hex(row[2]), []).append(position)
            self.row_of[row[1]] = position
        self.max_id = max(self.max_id, max(r[0] for r in rows))

    def vectors(self, positions: Sequence[int]) -> np.ndarray:
        if not positions:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self.index.reconstruct_batch(np.asarray(positions, dtype=np.int64))


class _Cache:
    """Per-process LRU of TenantVectors, bounded in bytes."""

    def __init__(self) -> None:
        self._items: OrderedDict[tuple[str, int, str], TenantVectors] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, key: tuple[str, int, str]) -> TenantVectors | None:
        with self._lock:
            entry = self._items.get(key)
            if entry is not None:
                self._items.move_to_end(key)
            return entry

    def put(self, key: tuple[str, int, str], entry: TenantVectors) -> None:
        limit = settings.SEARCH_VECTOR_CACHE_MB * 1024 * 1024
        with self._lock:
            self._items[key] = entry
            self._items.move_to_end(key)
            while len(self._items) > 1 and (
                sum(e.nbytes for e in self._items.values()) > limit
            ):
                self._items.popitem(last=False)

    def drop(self, key: tuple[str, int, str]) -> None:
        with self._lock:
            self._items.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_cache = _Cache()


def clear_cache() -> None:
    """Forget every loaded tenant (tests; after a bulk change)."""
    _cache.clear()


# ------------------------------------------------------------------ reading


def _rows(sql: str, params: list) -> list[tuple]:
    """Run a query; on PostgreSQL through a binary, server-binding cursor: the
    text protocol hex-encodes bytea (2.5-3x slower), and psycopg prepares a
    query it has run five times (these small queries cost more to plan than
    to run)."""
    if connection.vendor == "postgresql":
        import psycopg
        from psycopg.pq import Format

        connection.ensure_connection()
        # Django's cursors bind parameters client-side, which cannot return
        # binary results: a plain server-binding cursor on the same connection.
        with psycopg.Cursor(connection.connection) as cursor:
            cursor.format = Format.BINARY
            cursor.execute(sql, params)
            return cursor.fetchall()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _max_id(tenant_id: int, model: str) -> int:
    rows = _rows(
        "SELECT MAX(id) FROM ingest_chunkembedding WHERE tenant_id = %s AND model = %s",
        [tenant_id, model],
    )
    return int(rows[0][0] or 0)


def _count(tenant_id: int, model: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*) FROM ingest_chunkembedding WHERE tenant_id = %s AND model = %s",
            [tenant_id, model],
        )
        return int(cursor.fetchone()[0])


def _load(tenant_id: int, model: str, dim: int, after_id: int = 0) -> list[tuple]:
    # Every row, searchable now or not: a document restored later must be in
    # the cache, which reads only rows newer than those it holds.
    return _rows(
        "SELECT id, chunk_id, document_id, vector FROM ingest_chunkembedding"
        " WHERE tenant_id = %s AND model = %s AND dim = %s AND id > %s ORDER BY id",
        [tenant_id, model, dim, after_id],
    )


def tenant_vectors(tenant_id: int, model: str, dim: int) -> TenantVectors:
    """The tenant's cache, brought up to date with the database."""
    key = (connection.alias, tenant_id, model)
    entry = _cache.peek(key)
    if entry is not None and entry.dim != dim:
        entry = None
    now = time.monotonic()
    if entry is not None and now - entry.counted_at > RECOUNT_EVERY_S:
        # Deletions leave no trace in the highest id: count now and then, and
        # rebuild once too many rows are gone (they cost scan time, not results).
        entry.counted_at = now
        if _count(tenant_id, model) < (1 - STALE_FRACTION) * entry.index.ntotal:
            entry = None
    latest = _max_id(tenant_id, model)
    if entry is not None and latest < entry.max_id:
        entry = None  # rows it read are gone (deleted, or a rolled-back insert)
    if entry is not None:
        with entry.lock:
            if latest > entry.max_id:
                entry.add(_load(tenant_id, model, dim, entry.max_id))
                entry.max_id = max(entry.max_id, latest)
        return entry
    entry = TenantVectors(
        tenant_id=tenant_id,
        model=model,
        dim=dim,
        index=faiss.IndexFlatIP(dim),
        chunk_ids=np.zeros(0, dtype=np.int64),
        counted_at=now,
    )
    entry.add(_load(tenant_id, model, dim))
    entry.max_id = max(entry.max_id, latest)
    _cache.put(key, entry)
    return entry


def _direct_rows(
    tenant_id: int, model: str, dim: int, document_ids: list
) -> tuple[np.ndarray, np.ndarray]:
    placeholders = ",".join(["%s"] * len(document_ids))
    # The tenant is checked on the document: a condition on e.tenant_id would
    # lead SQLite to scan the tenant's whole (tenant, model) index instead.
    rows = _rows(
        f"""
        SELECT e.chunk_id, e.vector
        FROM ingest_chunkembedding e
        JOIN ingest_documentchunk c ON c.id = e.chunk_id
        JOIN ingest_document d
          ON d.id = e.document_id AND d.current_revision_id = c.revision_id
        WHERE e.document_id IN ({placeholders}) AND e.model = %s AND e.dim = %s
          AND d.tenant_id = %s AND d.status = 'ready' AND d.is_deleted = %s
        """,
        [*(_uuid_param(d) for d in document_ids), model, dim, tenant_id, False],
    )
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dim), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype="<f4")
    return ids, matrix.reshape(len(rows), dim).astype(np.float32, copy=False)


# ------------------------------------------------------------------ checking


def searchable(tenant_id: int, chunk_ids: Sequence[int]) -> set[int]:
    """Those of `chunk_ids` a search may return: the tenant's, current revision,
    document ready and not deleted."""
    if not chunk_ids:
        return set()
    placeholders = ",".join(["%s"] * len(chunk_ids))
    rows = _rows(
        # CROSS JOIN: SQLite joins in the order written, so it starts from
        # the candidates, not from every ready document of the tenant.
        f"""
        SELECT c.id FROM ingest_documentchunk c
        CROSS JOIN ingest_document d
        WHERE c.id IN ({placeholders}) AND d.id = c.document_id
          AND d.current_revision_id = c.revision_id AND d.tenant_id = %s
          AND d.status = 'ready' AND d.is_deleted = %s
        """,
        [*chunk_ids, tenant_id, False],
    )
    return {row[0] for row in rows}


def _collection_documents(tenant_id: int, collection_id: int) -> list:
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT dc.document_id FROM ingest_document_collections dc
            JOIN ingest_document d ON d.id = dc.document_id
            WHERE dc.collection_id = %s AND d.tenant_id = %s
            """,
            [collection_id, tenant_id],
        )
        return [row[0] for row in cursor.fetchall()]


# ------------------------------------------------------------------ searching


def _best_first(hits: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """(chunk id, cosine) best first, equal cosines (the same words in two
    documents) in chunk order: faiss's heap leaves their order to the order
    its rows were read in, which is not the order they were stored in."""
    return sorted(hits, key=lambda hit: (-hit[1], hit[0]))


def _top(
    query: np.ndarray, matrix: np.ndarray, ids: np.ndarray, n: int
) -> list[tuple[int, float]]:
    """Exact top-n (chunk id, cosine) of `matrix`'s rows, best first."""
    if not len(ids) or n <= 0:
        return []
    n = min(n, len(ids))
    scores, rows = faiss.knn(
        query.reshape(1, -1), matrix, n, metric=faiss.METRIC_INNER_PRODUCT
    )
    return _best_first(
        [
            (int(ids[r]), float(s))
            for s, r in zip(scores[0], rows[0], strict=True)
            if r >= 0
        ]
    )


def search(
    *,
    tenant_id: int,
    model: str,
    query: np.ndarray,
    document_ids: list | None,
    collection_id: int | None,
    k: int,
) -> list[tuple[int, float]]:
    """The k searchable chunks nearest to `query` (unit vector), best first,
    as (chunk id, cosine)."""
    dim = int(query.shape[-1])
    query = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
    if document_ids is None and collection_id is not None:
        document_ids = _collection_documents(tenant_id, collection_id)
    if document_ids is not None:
        if not document_ids:
            return []
        if len(document_ids) <= DIRECT_READ_DOCUMENTS:
            ids, matrix = _direct_rows(tenant_id, model, dim, document_ids)
            # Read through the searchable join: every row may be returned.
            return _top(query, matrix, ids, k)
        entry = tenant_vectors(tenant_id, model, dim)
        with entry.lock:
            positions = [
                p for d in document_ids for p in entry.document_rows.get(_hex(d), ())
            ]
            matrix = entry.vectors(positions)
            ids = entry.chunk_ids[positions] if positions else entry.chunk_ids[:0]
        return _checked(tenant_id, lambda n: _top(query, matrix, ids, n), k, len(ids))
    entry = tenant_vectors(tenant_id, model, dim)

    def nearest(n: int) -> list[tuple[int, float]]:
        with entry.lock:
            if not entry.index.ntotal:
                return []
            n = min(n, entry.index.ntotal)
            scores, rows = entry.index.search(query.reshape(1, -1), n)
            ids = entry.chunk_ids
            return _best_first(
                [
                    (int(ids[r]), float(s))
                    for s, r in zip(scores[0], rows[0], strict=True)
                    if r >= 0
                ]
            )

    return _checked(tenant_id, nearest, k, entry.index.ntotal)


def _checked(
    tenant_id: int,
    nearest: Callable[[int], list[tuple[int, float]]],
    k: int,
    total: int,
) -> list[tuple[int, float]]:
    """The first k of `nearest(n)` that are searchable, widening n until k
    pass or every row has been considered (exact). Stale rows are few (old
    revisions' vectors are deleted), so a small margin is usually enough."""
    n = k + max(8, k // 2)
    while True:
        candidates = nearest(n)
        allowed = searchable(tenant_id, [c for c, _ in candidates])
        passed = [(c, s) for c, s in candidates if c in allowed]
        if len(passed) >= k or n >= total:
            return passed[:k]
        n *= 8


def vectors_of(
    tenant_id: int, model: str, dim: int, chunk_ids: Sequence[int]
) -> dict[int, np.ndarray]:
    """The stored vectors of `chunk_ids` (those that have one)."""
    if not chunk_ids:
        return {}
    entry = _cache.peek((connection.alias, tenant_id, model))
    if entry is not None and entry.dim == dim:
        with entry.lock:
            found = {c: entry.row_of[c] for c in chunk_ids if c in entry.row_of}
            if len(found) == len(chunk_ids):
                matrix = entry.vectors(list(found.values()))
                return dict(zip(found, matrix, strict=True))
    placeholders = ",".join(["%s"] * len(chunk_ids))
    # Looked up by chunk (its unique index); the tenant is checked here rather
    # than in SQL, where SQLite would pick the (tenant, model) index and scan.
    rows = _rows(
        "SELECT chunk_id, tenant_id, vector FROM ingest_chunkembedding "
        f"WHERE chunk_id IN ({placeholders}) AND model = %s AND dim = %s",
        [*chunk_ids, model, dim],
    )
    return {
        row[0]: np.frombuffer(bytes(row[2]), dtype="<f4").astype(np.float32)
        for row in rows
        if row[1] == tenant_id
    }
