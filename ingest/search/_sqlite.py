from __future__ import annotations

from django.db import connection


def _match_expression(terms: list[str]) -> str:
    # Each term is quoted, so nothing the user typed is FTS5 syntax.
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def _uuid_hex(value: object) -> str:
    return value.hex if hasattr(value, "hex") else str(value).replace("-", "")


def search(
    *,
    tenant_id: int,
    terms: list[str],
    document_ids: list | None,
    collection_id: int | None,
    k: int,
) -> list[tuple[int, float]]:
    params: list = [_match_expression(terms)]
    where = []
    if document_ids is not None:
        # Restricting the FTS scan by rowid first keeps a one-document search
        # proportional to that document's size, not the whole index.
        placeholders = ",".join(["%s"] * len(document_ids))
        where.append(
            f"f.rowid IN (SELECT c2.id FROM ingest_documentchunk c2 JOIN ingest_document d2 "
            f"ON d2.current_revision_id = c2.revision_id WHERE c2.document_id IN ({placeholders}))"
        )
        params.extend(_uuid_hex(d) for d in document_ids)
    if collection_id is not None:
        where.append(
            "d.id IN (SELECT document_id FROM ingest_document_collections WHERE collection_id = %s)"
        )
        params.append(collection_id)
    params.extend([tenant_id, k])
    extra = "".join(f" AND {clause}" for clause in where)
    sql = f"""
        SELECT c.id, -bm25(ingest_chunk_fts) AS score
        FROM ingest_chunk_fts f
        JOIN ingest_documentchunk c ON c.id = f.rowid
        JOIN ingest_document d ON d.id = c.document_id AND d.current_revision_id = c.revision_id
        WHERE ingest_chunk_fts MATCH %s {extra}
          AND c.tenant_id = %s AND d.status = 'ready' AND d.is_deleted = 0
        ORDER BY bm25(ingest_chunk_fts)
        LIMIT %s
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(row[0], row[1]) for row in cursor.fetchall()]
