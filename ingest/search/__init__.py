"""Full-text search over a tenant's ready documents.

One public function with the same behaviour on PostgreSQL (tsvector + GIN,
ts_rank) and SQLite (FTS5, bm25). Natural-language questions become OR queries
over their content words, stemmed by both engines.
"""

from __future__ import annotations

from ingest.search._api import SearchHit, refresh_statistics, search_chunks
from ingest.search._query import query_terms

__all__ = ["SearchHit", "query_terms", "refresh_statistics", "search_chunks"]
