"""PostgreSQL only: per-tenant citation counts by status, kept exact by
statement-level triggers (the stats cards and GET /api/citations/stats read
them instead of counting a million rows), and a trigram index for the
case-insensitive partial match on document_name (seed 003's ILIKE)."""

from __future__ import annotations

from django.db import migrations, transaction

COUNTS = """
CREATE TABLE citation_status_counts (
    tenant_id bigint NOT NULL,
    status varchar(20) NOT NULL,
    n bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, status)
);
INSERT INTO citation_status_counts (tenant_id, status, n)
    SELECT tenant_id, verification_status, count(*) FROM message_citations GROUP BY 1, 2;

CREATE FUNCTION citation_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO citation_status_counts (tenant_id, status, n)
        SELECT tenant_id, verification_status, count(*) FROM new_rows GROUP BY 1, 2
    ON CONFLICT (tenant_id, status) DO UPDATE SET n = citation_status_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION citation_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE citation_status_counts c SET n = c.n - o.cnt
    FROM (SELECT tenant_id, verification_status, count(*) AS cnt FROM old_rows GROUP BY 1, 2) o
    WHERE c.tenant_id = o.tenant_id AND c.status = o.verification_status;
    RETURN NULL;
END $$;

CREATE FUNCTION citation_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE citation_status_counts c SET n = c.n - o.cnt
    FROM (SELECT tenant_id, verification_status, count(*) AS cnt FROM old_rows GROUP BY 1, 2) o
    WHERE c.tenant_id = o.tenant_id AND c.status = o.verification_status;
    INSERT INTO citation_status_counts (tenant_id, status, n)
        SELECT tenant_id, verification_status, count(*) FROM new_rows GROUP BY 1, 2
    ON CONFLICT (tenant_id, status) DO UPDATE SET n = citation_status_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE TRIGGER citation_counts_insert AFTER INSERT ON message_citations
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION citation_counts_add();
CREATE TRIGGER citation_counts_delete AFTER DELETE ON message_citations
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION citation_counts_remove();
CREATE TRIGGER citation_counts_update AFTER UPDATE ON message_citations
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION citation_counts_move();
"""

COUNTS_DROP = """
DROP TRIGGER IF EXISTS citation_counts_update ON message_citations;
DROP TRIGGER IF EXISTS citation_counts_delete ON message_citations;
DROP TRIGGER IF EXISTS citation_counts_insert ON message_citations;
DROP FUNCTION IF EXISTS citation_counts_move();
DROP FUNCTION IF EXISTS citation_counts_remove();
DROP FUNCTION IF EXISTS citation_counts_add();
DROP TABLE IF EXISTS citation_status_counts;
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(COUNTS)
    try:
        # Needs the pg_trgm extension (contrib); without the privilege to
        # create it, document_name search still works, only slower.
        with transaction.atomic():
            schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm;")
            schema_editor.execute(
                # On the expression Django's icontains compiles to on PostgreSQL.
                "CREATE INDEX idx_citations_document_name_trgm ON message_citations "
                "USING gin ((UPPER(document_name::text)) gin_trgm_ops);"
            )
    except Exception:  # noqa: BLE001 - privilege or missing contrib: optional index
        pass


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP INDEX IF EXISTS idx_citations_document_name_trgm;")
    schema_editor.execute(COUNTS_DROP)


class Migration(migrations.Migration):
    dependencies = [("citations", "0004_chunk_created_index")]
    operations = [migrations.RunPython(forwards, backwards)]
