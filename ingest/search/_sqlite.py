from __future__ import annotations

from django.db import connection

from ingest.search._selectivity import MIN_CHUNKS_TO_PRUNE, selective


def _quote(term: str) -> str:
    # Quoted, so nothing the user typed is FTS5 syntax.
    return '"' + term.replace('"', '""') + '"'


def _uuid_hex(value: object) -> str:
    return value.hex if hasattr(value, "hex") else str(value).replace("-", "")


def _stems(cursor, terms: list[str]) -> dict[str, str]:
    """Each term's porter stem, from FTS5's own tokenizer (exactly what the
    index stored), via a scratch table in the connection's temp schema."""
    cursor.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.docuiq_query USING "
        "fts5(t, tokenize='porter unicode61 remove_diacritics 2')"
    )
    cursor.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.docuiq_query_terms USING "
        "fts5vocab(temp, docuiq_query, instance)"
    )
    cursor.execute("DELETE FROM temp.docuiq_query")
    cursor.executemany(
        "INSERT INTO temp.docuiq_query(rowid, t) VALUES (%s, %s)",
        list(enumerate(terms, start=1)),
    )
    cursor.execute("SELECT doc, term FROM temp.docuiq_query_terms")
    stems: dict[str, str] = {}
    for rowid, stem in cursor.fetchall():
        stems.setdefault(terms[rowid - 1], stem)
    return stems


STALE_FRACTION = 0.2


def _stats_total(cursor) -> int:
    """How many chunks the term statistics were computed over (0: never)."""
    cursor.execute("SELECT total FROM ingest_fts_stats_meta WHERE id = 1")
    row = cursor.fetchone()
    return row[0] if row else 0


def refresh_statistics(*, force: bool = False) -> bool:
    """Recompute the common terms' document frequencies when the index has
    grown or shrunk by STALE_FRACTION since the last time. Returns whether it ran."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM ingest_documentchunk")
        current = cursor.fetchone()[0]
        known = _stats_total(cursor)
        if not force and abs(current - known) <= STALE_FRACTION * max(known, 1):
            return False
        if not force and current < MIN_CHUNKS_TO_PRUNE and known < MIN_CHUNKS_TO_PRUNE:
            return False
        floor = max(2, int(current * 0.01))  # only terms common enough to prune
        cursor.execute("DELETE FROM ingest_fts_term_stats")
        cursor.execute(
            "INSERT INTO ingest_fts_term_stats (term, doc) "
            "SELECT term, doc FROM ingest_chunk_fts_vocab WHERE doc >= %s",
            [floor],
        )
        cursor.execute(
            "INSERT INTO ingest_fts_stats_meta (id, total) VALUES (1, %s) "
            "ON CONFLICT (id) DO UPDATE SET total = excluded.total",
            [current],
        )
    return True


def _selective_terms(cursor, terms: list[str]) -> list[str]:
    stems = _stems(cursor, terms)
    if not stems:
        return []
    unique = sorted(set(stems.values()))
    total = _stats_total(cursor)
    if total < MIN_CHUNKS_TO_PRUNE:
        return [t for t in terms if t in stems]
    placeholders = ",".join(["%s"] * len(unique))
    cursor.execute(
        f"SELECT term, doc FROM ingest_fts_term_stats WHERE term IN ({placeholders})",
        unique,
    )
    doc_freq = dict(cursor.fetchall())
    # Terms absent from the statistics are rarer than 1% of chunks (or new):
    # keep them, as present but rare.
    by_stem = selective(
        {s: doc_freq.get(s, 1) / total for s in unique}, total_chunks=total
    )
    # Query with the user's words (FTS5 stems them the same way again).
    return [next(t for t in terms if stems.get(t) == s) for s in by_stem]


def search(
    *,
    tenant_id: int,
    terms: list[str],
    document_ids: list | None,
    collection_id: int | None,
    k: int,
) -> list[tuple[int, float]]:
    with connection.cursor() as cursor:
        wanted = _selective_terms(cursor, terms)
        if not wanted:
            return []
        match = " OR ".join(_quote(t) for t in wanted)
        if document_ids is not None:
            return _search_documents(cursor, match, tenant_id, document_ids, k)
        return _search_all(cursor, match, tenant_id, collection_id, k)


MAX_RANGED_DOCUMENTS = 20


def _search_documents(cursor, match: str, tenant_id: int, document_ids: list, k: int):
    placeholders = ",".join(["%s"] * len(document_ids))
    cursor.execute(
        f"""
        SELECT c.document_id, MIN(c.id), MAX(c.id)
        FROM ingest_documentchunk c
        JOIN ingest_document d ON d.id = c.document_id AND d.current_revision_id = c.revision_id
        WHERE c.document_id IN ({placeholders}) AND d.tenant_id = %s
          AND d.status = 'ready' AND d.is_deleted = 0
        GROUP BY c.document_id
        """,
        [*(_uuid_hex(d) for d in document_ids), tenant_id],
    )
    ranges = cursor.fetchall()
    if len(ranges) > MAX_RANGED_DOCUMENTS:
        return _search_all(cursor, match, tenant_id, None, k, document_ids=document_ids)
    rows: list[tuple[int, float]] = []
    for document_id, low, high in ranges:
        # A revision's chunks are inserted together, so their ids form a
        # narrow range: FTS5 seeks to it instead of ranking the whole index.
        cursor.execute(
            """
            SELECT f.rowid, -f.rank
            FROM ingest_chunk_fts f
            JOIN ingest_documentchunk c ON c.id = f.rowid
            JOIN ingest_document d ON d.id = c.document_id AND d.current_revision_id = c.revision_id
            WHERE ingest_chunk_fts MATCH %s AND f.rowid BETWEEN %s AND %s AND c.document_id = %s
            ORDER BY f.rank, f.rowid
            LIMIT %s
            """,
            [match, low, high, document_id, k],
        )
        rows.extend(cursor.fetchall())
    # Equal scores in chunk order (a document's chunks are inserted in
    # reading order), as PostgreSQL orders them: SQL leaves ties unordered,
    # and a tie at the cut decided which chunk was searched at all.
    rows.sort(key=lambda row: (-row[1], row[0]))
    return [(row[0], row[1]) for row in rows[:k]]


def _search_all(
    cursor,
    match: str,
    tenant_id: int,
    collection_id: int | None,
    k: int,
    *,
    document_ids=None,
):
    # Rank inside the index first (no joins per match), then keep the best
    # that pass the tenant/status/revision filters; widen when too few pass.
    extra, params = "", []
    if document_ids is not None:
        extra += f" AND c.document_id IN ({','.join(['%s'] * len(document_ids))})"
        params.extend(_uuid_hex(d) for d in document_ids)
    if collection_id is not None:
        extra += " AND d.id IN (SELECT document_id FROM ingest_document_collections WHERE collection_id = %s)"
        params.append(collection_id)
    window = max(64, 16 * k)
    while True:
        cursor.execute(
            f"""
            WITH top AS (
                SELECT rowid AS id, rank FROM ingest_chunk_fts
                WHERE ingest_chunk_fts MATCH %s ORDER BY rank, rowid LIMIT %s
            )
            SELECT c.id, -top.rank, (SELECT COUNT(*) FROM top)
            FROM top
            JOIN ingest_documentchunk c ON c.id = top.id
            JOIN ingest_document d ON d.id = c.document_id AND d.current_revision_id = c.revision_id
            WHERE c.tenant_id = %s AND d.status = 'ready' AND d.is_deleted = 0 {extra}
            ORDER BY top.rank, top.id
            LIMIT %s
            """,
            [match, window, tenant_id, *params, k],
        )
        rows = cursor.fetchall()
        if len(rows) >= k:
            return [(row[0], row[1]) for row in rows]
        if rows:
            top_size = rows[0][2]
        else:
            cursor.execute(
                "SELECT COUNT(*) FROM (SELECT rowid FROM ingest_chunk_fts "
                "WHERE ingest_chunk_fts MATCH %s LIMIT %s)",
                [match, window],
            )
            top_size = cursor.fetchone()[0]
        if top_size < window:  # every match was considered
            return [(row[0], row[1]) for row in rows]
        window *= 8
