"""Search inside one document: full-text candidates, re-ranked.

Full-text search alone misses when a question's wording differs from the
contract's, and one common word can fill a long contract's every chunk. So a
question about one document takes the document's full-text hits for its
expanded query (``ingest.search.rerank.build_query``: the thesaurus) as a pool
of candidates and re-ranks them (``score_chunk``: BM25 with document-level
statistics, phrase, proximity, type and head bonuses). No hit at all gives
the document's first chunks. A revision's chunks, stems and statistics are
cached by revision id (a revision's text never changes).
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db import connection

from ingest.models import DocumentChunk
from ingest.search.rerank import (
    HEAD_CHUNKS,
    POOL,
    TOP_K,
    CellQuery,
    DocumentStats,
    _stems,
    score_chunk,
)
from lib.stemming import form_written

if TYPE_CHECKING:
    from accounts.models import Tenant
    from ingest.models import Document

__all__ = [
    "Retrieved",
    "clear_cache",
    "document_index",
    "first_chunks",
    "retrieve",
    "term_weights",
    "written_in",
]


# ----------------------------------------------------------------- database


@dataclass(frozen=True)
class Retrieved:
    chunks: list[DocumentChunk]
    fallback: bool
    scores: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class DocumentIndex:
    """One revision's chunks (only the fields a cell needs), their stems and
    BM25 statistics. A revision's text never changes, so this is cached."""

    chunks: list[DocumentChunk]
    by_id: dict[int, DocumentChunk]
    stems: dict[int, list[str]]
    stats: DocumentStats
    chars: int
    vocabulary: tuple[str, ...] = ()  # every stem it writes, sorted (prefix lookups)


_CHUNK_FIELDS = (
    "id",
    "uid",
    "tenant_id",
    "document_id",
    "revision_id",
    "chunk_index",
    "content",
    "start_offset",
    "end_offset",
    "page_start",
    "page_end",
)


class _IndexCache:
    """Revision id -> DocumentIndex; LRU bounded by count and characters, thread-safe.

    Cells run row by row, so a document's columns reuse one load. Keys are
    revision UUIDs, which belong to one tenant; loading goes through the
    tenant-scoped manager.
    """

    def __init__(self, size: int = 64, max_chars: int = 50_000_000) -> None:
        self.size = size
        self.max_chars = max_chars
        self._lock = threading.Lock()
        self._items: OrderedDict[object, DocumentIndex] = OrderedDict()

    def get(self, revision_id: object) -> DocumentIndex:
        with self._lock:
            found = self._items.get(revision_id)
            if found is not None:
                self._items.move_to_end(revision_id)
                return found
        chunks = list(
            DocumentChunk.objects.filter(revision_id=revision_id)
            .only(*_CHUNK_FIELDS)
            .order_by("chunk_index")
        )
        stems = {c.pk: _stems(c.content) for c in chunks}
        df: Counter[str] = Counter()
        for chunk_stems in stems.values():
            df.update(set(chunk_stems))
        total = sum(len(s) for s in stems.values())
        index = DocumentIndex(
            chunks=chunks,
            by_id={c.pk: c for c in chunks},
            stems=stems,
            stats=DocumentStats(
                n_chunks=max(len(chunks), 1),
                df=dict(df),
                avg_len=(total / len(chunks)) if chunks else 1.0,
            ),
            chars=sum(len(c.content) for c in chunks),
            vocabulary=tuple(sorted(df)),
        )
        with self._lock:
            self._items[revision_id] = index
            used = sum(i.chars for i in self._items.values())
            while len(self._items) > 1 and (
                len(self._items) > self.size or used > self.max_chars
            ):
                _, dropped = self._items.popitem(last=False)
                used -= dropped.chars
        return index

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_cache = _IndexCache()


def document_index(document: Document) -> DocumentIndex:
    return _cache.get(document.current_revision_id)


def revision_index(revision_id: object) -> DocumentIndex:
    """The index of one revision (a process warming its hot documents:
    docuiq/warmup.py); the caller is inside the revision's tenant scope or
    outside every scope."""
    return _cache.get(revision_id)


def first_chunks(document: Document, k: int = TOP_K) -> list[DocumentChunk]:
    return document_index(document).chunks[:k]


def _fts(
    tenant: Tenant, document: Document, words: list[str], k: int
) -> list[tuple[int, float]]:
    """(chunk id, score) of the document's chunks matching any word, best first,
    from the database's full-text index (FTS5 / tsvector).

    Calls the engine behind ingest.search.search_chunks for ids only:
    search_chunks also loads every hit's revision text, which a cell (that
    already holds the document's chunks) does not need.
    """
    from ingest.search import _postgres, _sqlite

    if not words:
        return []
    backend = _postgres if connection.vendor == "postgresql" else _sqlite
    return backend.search(
        tenant_id=tenant.pk,
        terms=words,
        document_ids=[document.pk],
        collection_id=None,
        k=k,
    )


def retrieve(
    tenant: Tenant,
    document: Document,
    query: CellQuery,
    *,
    k: int = TOP_K,
    pool: int = POOL,
) -> Retrieved:
    """The top ``k`` chunks of ``document`` for ``query`` (see module docstring)."""
    index = document_index(document)
    words = list(dict.fromkeys([*query.fts_core, *query.fts_expansion]))
    hits = _fts(tenant, document, words, pool) if index.chunks else []
    candidates = [index.by_id[pk] for pk, _ in hits if pk in index.by_id]
    if not candidates:
        return Retrieved(chunks=index.chunks[:k], fallback=True)
    if query.prefers_head:
        seen = {c.pk for c in candidates}
        candidates += [c for c in index.chunks[:HEAD_CHUNKS] if c.pk not in seen]
    scored = []
    for order, chunk in enumerate(candidates):
        score = score_chunk(
            index.stems[chunk.pk],
            query,
            index.stats,
            text=chunk.content,
            index=chunk.chunk_index,
        )
        scored.append((score, -order, chunk))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    top = scored[:k]
    if query.prefers_head and k > 1 and all(c.chunk_index != 0 for _, _, c in top):
        # An identity question (title, parties, date) always shows the model
        # the document's opening, in the last slot.
        head = next((item for item in scored if item[2].chunk_index == 0), None)
        if head is not None:
            top = [*top[: k - 1], head]
    return Retrieved(
        chunks=[c for _, _, c in top], fallback=False, scores=[s for s, _, _ in top]
    )


def clear_cache() -> None:
    _cache.clear()


def term_weights(documents: Sequence[Document], text: str) -> dict[str, float]:
    """How rare each stemmed word of `text` is in `documents` (the mean of its
    IDF in each document's chunks): "party" weighs little in a contract,
    "renew" much, and a word the documents never use most (a question about
    what they never mention). Empty without documents."""
    indexes = [document_index(d) for d in documents if d.current_revision_id]
    if not indexes:
        return {}
    return {
        stem: sum(i.stats.idf(stem) for i in indexes) / len(indexes)
        for stem in set(_stems(text))
    }


def written_in(documents: Sequence[Document]) -> Callable[[str], bool]:
    """Whether any of `documents` writes a stem, in any chunk and in any
    form the stemmer left apart (`lib.stemming.same_word`). What a question asks about that the documents never write,
    they are silent on. Without documents every stem counts as written
    (nothing to go on)."""
    indexes = [document_index(d) for d in documents if d.current_revision_id]
    if not indexes:
        return lambda stem: True

    def written(stem: str) -> bool:
        return any(
            form_written(stem, index.vocabulary, index.stats.df) for index in indexes
        )

    return written
