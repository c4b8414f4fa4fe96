from __future__ import annotations

from django.db import connection


def search(
    *,
    tenant_id: int,
    terms: list[str],
    document_ids: list | None,
    collection_id: int | None,
    k: int,
) -> list[tuple[int, float]]:
    # websearch_to_tsquery never raises on user input; "or" joins the terms.
    params: list = [" or ".join(terms), tenant_id]
    where = []
    if document_ids is not None:
        where.append("c.document_id = ANY(%s)")
        params.append(list(document_ids))
    if collection_id is not None:
        where.append(
            "d.id IN (SELECT document_id FROM ingest_document_collections WHERE collection_id = %s)"
        )
        params.append(collection_id)
    params.append(k)
    extra = "".join(f" AND {clause}" for clause in where)
    sql = f"""
        WITH q AS (SELECT websearch_to_tsquery('english', %s) AS query)
        SELECT c.id, ts_rank(c.search_vector, q.query) AS score
        FROM q, ingest_documentchunk c
        JOIN ingest_document d ON d.id = c.document_id AND d.current_revision_id = c.revision_id
        WHERE c.search_vector @@ q.query AND c.tenant_id = %s {extra}
          AND d.status = 'ready' AND NOT d.is_deleted
        ORDER BY score DESC, c.id
        LIMIT %s
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(row[0], row[1]) for row in cursor.fetchall()]
