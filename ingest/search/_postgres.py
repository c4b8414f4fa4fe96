from __future__ import annotations

import time

from django.db import connection

from ingest.search._selectivity import selective

_STATS_TTL_S = 60.0
_stats_cache: dict[str, tuple[float, dict[str, float], float, int]] = {}


# term -> its lexeme ("" when the configuration drops it): stemming never
# changes, so each word is asked of the database once per process.
_lexeme_cache: dict[str, str] = {}
_LEXEME_CACHE_SIZE = 50_000


def _lexemes(cursor, terms: list[str]) -> dict[str, str]:
    """Each term's lexeme under the 'english' configuration (the index's)."""
    unknown = [t for t in terms if t not in _lexeme_cache]
    if unknown:
        cursor.execute(
            """
            SELECT t, (SELECT lexeme FROM unnest(to_tsvector('english', t)) LIMIT 1)
            FROM unnest(%s::text[]) AS t
            """,
            [unknown],
        )
        if len(_lexeme_cache) > _LEXEME_CACHE_SIZE:
            _lexeme_cache.clear()
        for term, lexeme in cursor.fetchall():
            _lexeme_cache[term] = lexeme or ""
    return {t: _lexeme_cache[t] for t in terms if _lexeme_cache.get(t)}


def _frequencies(cursor) -> tuple[dict[str, float], float, int]:
    """Lexeme frequencies from ANALYZE's statistics on the tsvector column
    (most common elements and the fraction of rows holding each). A lexeme
    not listed is rarer than the rarest listed one."""
    cached = _stats_cache.get(connection.alias)
    if cached and time.monotonic() - cached[0] < _STATS_TTL_S:
        return cached[1], cached[2], cached[3]
    cursor.execute(
        """
        SELECT most_common_elems::text::text[], most_common_elem_freqs,
               (SELECT reltuples::bigint FROM pg_class WHERE relname = 'ingest_documentchunk')
        FROM pg_stats WHERE tablename = 'ingest_documentchunk' AND attname = 'search_vector'
        """
    )
    row = cursor.fetchone()
    total = int(row[2]) if row and row[2] and row[2] > 0 else 0
    freqs: dict[str, float] = {}
    floor = 0.0
    if row and row[0]:
        elems, values = row[0], row[1]
        freqs = dict(zip(elems, values[: len(elems)], strict=False))
        floor = min(freqs.values(), default=0.0)
    _stats_cache[connection.alias] = (time.monotonic(), freqs, floor, total)
    return freqs, floor, total


def refresh_statistics(*, force: bool = False) -> bool:
    """ANALYZE the chunk table when a fifth of it changed since the last
    ANALYZE (autovacuum does the same, later), so term frequencies are fresh."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT n_mod_since_analyze, GREATEST(n_live_tup, 1)
            FROM pg_stat_user_tables WHERE relname = 'ingest_documentchunk'
            """
        )
        row = cursor.fetchone()
        if not force and (row is None or row[0] <= 0.2 * row[1]):
            return False
        # Both tables: the search joins chunks to their documents.
        cursor.execute("ANALYZE ingest_documentchunk")
        cursor.execute("ANALYZE ingest_document")
    _stats_cache.pop(connection.alias, None)
    return True


def _tsquery(lexemes: list[str]) -> str:
    # Already-normalized lexemes, quoted: the text is parsed as tsquery syntax
    # with no further stemming, and nothing the user typed is an operator.
    return " | ".join(
        "'" + lex.replace("\\", "\\\\").replace("'", "''") + "'" for lex in lexemes
    )


def _prepared_cursor():
    """A cursor on Django's connection that binds parameters on the server,
    so psycopg prepares a query it has run five times: planning these
    queries cost about as much as running them (~1 ms). Django's own cursors
    bind on the client and are planned every time."""
    import psycopg

    connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


def search(
    *,
    tenant_id: int,
    terms: list[str],
    document_ids: list | None,
    collection_id: int | None,
    k: int,
) -> list[tuple[int, float]]:
    with _prepared_cursor() as cursor:
        lexemes = _lexemes(cursor, terms)
        if not lexemes:
            return []
        freqs, floor, total = _frequencies(cursor)
        unique = sorted(set(lexemes.values()))
        # Unlisted lexemes are rarer than every listed one; a tiny epsilon
        # keeps them "present" for selective().
        wanted = selective(
            {lex: freqs.get(lex, floor / 2 or 1e-9) for lex in unique},
            total_chunks=total,
        )
        if document_ids is not None:
            # A document's chunks come from its index first; the same
            # selective terms as across all keep the plan and ranking consistent.
            cursor.execute(
                """
                WITH q AS (SELECT %s::tsquery AS query)
                SELECT c.id, ts_rank(c.search_vector, q.query) AS score
                FROM q, ingest_documentchunk c
                JOIN ingest_document d
                  ON d.id = c.document_id AND d.current_revision_id = c.revision_id
                WHERE c.document_id = ANY(%s) AND c.search_vector @@ q.query
                  AND d.tenant_id = %s AND d.status = 'ready' AND NOT d.is_deleted
                ORDER BY score DESC, c.id
                LIMIT %s
                """,
                [_tsquery(wanted), list(document_ids), tenant_id, k],
            )
            return [(row[0], row[1]) for row in cursor.fetchall()]
        extra, params = "", [_tsquery(wanted), tenant_id, tenant_id]
        if collection_id is not None:
            extra = (
                " AND d.id IN (SELECT document_id FROM ingest_document_collections"
                " WHERE collection_id = %s)"
            )
            params.append(collection_id)
        params.append(k)
        cursor.execute(
            f"""
            WITH q AS (SELECT %s::tsquery AS query),
            -- The full-text match first, always: ranking the few chunks holding
            -- selective terms is cheap, and the plan no longer depends on how
            -- many documents the planner believes a tenant has.
            hits AS MATERIALIZED (
                SELECT c.id, c.document_id, c.revision_id,
                       ts_rank(c.search_vector, q.query) AS score
                FROM q, ingest_documentchunk c
                -- Another tenant's matches are never ranked (a row filter on
                -- the bitmap scan's heap rows, not another plan).
                WHERE c.search_vector @@ q.query AND c.tenant_id = %s
            )
            SELECT hits.id, hits.score
            FROM hits
            JOIN ingest_document d
              ON d.id = hits.document_id AND d.current_revision_id = hits.revision_id
            WHERE d.tenant_id = %s {extra} AND d.status = 'ready' AND NOT d.is_deleted
            ORDER BY hits.score DESC, hits.id
            LIMIT %s
            """,
            params,
        )
        return [(row[0], row[1]) for row in cursor.fetchall()]
