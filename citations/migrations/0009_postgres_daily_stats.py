"""PostgreSQL only: per-tenant, per-day citation counts by status, method,
context type, relevance and staleness, kept exact by statement-level
triggers, so stats filtered by date, method, status, context type,
relevance or staleness sum a few hundred summary rows instead of grouping a
tenant's million citations (issue 27 item 5; citations/selectors.py reads
them, the edges of a date range that cut a day are counted from the rows).

Days are UTC. A NULL method or relevance is stored as ''. Each statement's
changes are summed per key first and written in key order in one INSERT ...
ON CONFLICT: an UPDATE that changes none of these columns writes nothing,
and two transactions never take the summary rows' locks in opposite orders.
"""

from __future__ import annotations

from django.db import migrations

KEY = (
    "tenant_id, (created_at AT TIME ZONE 'UTC')::date, verification_status, "
    "COALESCE(verification_method, ''), execution_context_type, "
    "COALESCE(relevance, ''), is_stale"
)

DAILY = f"""
CREATE TABLE citation_stats_daily (
    tenant_id bigint NOT NULL,
    day date NOT NULL,
    status varchar(20) NOT NULL,
    method text NOT NULL,
    context_type varchar(32) NOT NULL,
    relevance varchar(16) NOT NULL,
    is_stale boolean NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (tenant_id, day, status, method, context_type, relevance, is_stale)
);
INSERT INTO citation_stats_daily
    SELECT {KEY}, count(*) FROM message_citations GROUP BY 1, 2, 3, 4, 5, 6, 7;

CREATE FUNCTION citation_stats_daily_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO citation_stats_daily AS d
        SELECT {KEY}, count(*) FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (tenant_id, day, status, method, context_type, relevance, is_stale)
        DO UPDATE SET n = d.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION citation_stats_daily_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO citation_stats_daily AS d
        SELECT {KEY}, -count(*) FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (tenant_id, day, status, method, context_type, relevance, is_stale)
        DO UPDATE SET n = d.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION citation_stats_daily_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO citation_stats_daily AS d
        SELECT k1, k2, k3, k4, k5, k6, k7, sum(delta) FROM (
            SELECT {KEY}, -1 AS delta FROM old_rows
            UNION ALL
            SELECT {KEY}, 1 FROM new_rows
        ) AS changes (k1, k2, k3, k4, k5, k6, k7, delta)
        GROUP BY 1, 2, 3, 4, 5, 6, 7
        HAVING sum(delta) <> 0
        ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (tenant_id, day, status, method, context_type, relevance, is_stale)
        DO UPDATE SET n = d.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE TRIGGER citation_stats_daily_insert AFTER INSERT ON message_citations
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION citation_stats_daily_insert();
CREATE TRIGGER citation_stats_daily_delete AFTER DELETE ON message_citations
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
    EXECUTE FUNCTION citation_stats_daily_delete();
CREATE TRIGGER citation_stats_daily_update AFTER UPDATE ON message_citations
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION citation_stats_daily_update();
"""

DAILY_DROP = """
DROP TRIGGER IF EXISTS citation_stats_daily_update ON message_citations;
DROP TRIGGER IF EXISTS citation_stats_daily_delete ON message_citations;
DROP TRIGGER IF EXISTS citation_stats_daily_insert ON message_citations;
DROP FUNCTION IF EXISTS citation_stats_daily_update();
DROP FUNCTION IF EXISTS citation_stats_daily_delete();
DROP FUNCTION IF EXISTS citation_stats_daily_insert();
DROP TABLE IF EXISTS citation_stats_daily;
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DAILY)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DAILY_DROP)


class Migration(migrations.Migration):
    dependencies = [("citations", "0008_sqlite_schema_after_rebuild")]
    operations = [migrations.RunPython(forwards, backwards)]
