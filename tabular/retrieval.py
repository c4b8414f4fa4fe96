"""Which chunks of one document a cell's model call sees.

A cell asks one document one column's question: ``build_query`` turns the
column's name, question and description into a weighted query expanded by
the legal thesaurus, and ``retrieve`` searches inside the document and
re-ranks (``ingest.search.within``; chat questions about a few documents use
the same search). See ``ingest.search.rerank`` for the scoring.
"""

from __future__ import annotations

from ingest.search.rerank import (
    EXPANSIONS,
    HEAD_CONCEPTS,
    POOL,
    TOP_K,
    CellQuery,
    DocumentStats,
    build_query,
    document_stats,
    score_chunk,
)
from ingest.search.within import (
    Retrieved,
    clear_cache,
    document_index,
    first_chunks,
    retrieve,
)

__all__ = [
    "EXPANSIONS",
    "HEAD_CONCEPTS",
    "POOL",
    "TOP_K",
    "CellQuery",
    "DocumentStats",
    "Retrieved",
    "build_query",
    "clear_cache",
    "document_index",
    "document_stats",
    "first_chunks",
    "retrieve",
    "score_chunk",
]
