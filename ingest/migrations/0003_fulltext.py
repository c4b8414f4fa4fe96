"""Full-text index on chunks: PostgreSQL tsvector + GIN, SQLite FTS5 (bm25).

Vendor-specific SQL lives here and nowhere else; ingest/search reads it.
"""

from __future__ import annotations

from django.db import migrations

SQLITE_FORWARD = [
    # External-content FTS5 over the chunk table; its integer primary key is
    # the rowid, so the index never stores the text twice.
    "CREATE VIRTUAL TABLE ingest_chunk_fts USING fts5(content, content='ingest_documentchunk', "
    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');",
    "CREATE TRIGGER ingest_chunk_fts_ai AFTER INSERT ON ingest_documentchunk BEGIN "
    "INSERT INTO ingest_chunk_fts(rowid, content) VALUES (new.id, new.content); END;",
    "CREATE TRIGGER ingest_chunk_fts_ad AFTER DELETE ON ingest_documentchunk BEGIN "
    "INSERT INTO ingest_chunk_fts(ingest_chunk_fts, rowid, content) VALUES ('delete', old.id, old.content); END;",
    "CREATE TRIGGER ingest_chunk_fts_au AFTER UPDATE OF content ON ingest_documentchunk BEGIN "
    "INSERT INTO ingest_chunk_fts(ingest_chunk_fts, rowid, content) VALUES ('delete', old.id, old.content); "
    "INSERT INTO ingest_chunk_fts(rowid, content) VALUES (new.id, new.content); END;",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS ingest_chunk_fts_au;",
    "DROP TRIGGER IF EXISTS ingest_chunk_fts_ad;",
    "DROP TRIGGER IF EXISTS ingest_chunk_fts_ai;",
    "DROP TABLE IF EXISTS ingest_chunk_fts;",
]
POSTGRES_FORWARD = [
    "ALTER TABLE ingest_documentchunk ADD COLUMN search_vector tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english', content)) STORED;",
    "CREATE INDEX idx_chunk_search_vector ON ingest_documentchunk USING GIN (search_vector);",
    # search_chunks filters by tenant and joins on the current revision.
    "CREATE INDEX idx_chunk_tenant_revision ON ingest_documentchunk (tenant_id, revision_id);",
]
POSTGRES_BACKWARD = [
    "DROP INDEX IF EXISTS idx_chunk_tenant_revision;",
    "DROP INDEX IF EXISTS idx_chunk_search_vector;",
    "ALTER TABLE ingest_documentchunk DROP COLUMN IF EXISTS search_vector;",
]


def forwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for sql in {"sqlite": SQLITE_FORWARD, "postgresql": POSTGRES_FORWARD}.get(
        vendor, []
    ):
        schema_editor.execute(sql)


def backwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for sql in {"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRES_BACKWARD}.get(
        vendor, []
    ):
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("ingest", "0002_tenant_guards")]
    operations = [migrations.RunPython(forwards, backwards)]
