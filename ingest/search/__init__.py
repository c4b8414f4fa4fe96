"""Search over a tenant's ready documents: full text, dense, or both fused.

One public function with the same behaviour on PostgreSQL and SQLite.
Full text: tsvector + GIN and ts_rank on PostgreSQL, FTS5 and bm25 on SQLite;
natural-language questions become OR queries over their content words,
stemmed by both engines. Dense: the question's embedding against the chunks'
stored vectors, searched exactly in process with faiss (_vectors.py). Hybrid
fuses the two rankings (_fusion.py); when the embedder is off or failing the
results are full-text ones.
"""

from __future__ import annotations

from ingest.search._api import MODES, SearchHit, refresh_statistics, search_chunks
from ingest.search._query import query_terms
from ingest.search._vectors import clear_cache as clear_vector_cache

__all__ = [
    "MODES",
    "SearchHit",
    "clear_vector_cache",
    "query_terms",
    "refresh_statistics",
    "search_chunks",
]
