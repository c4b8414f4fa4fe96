"""The full-text index reads chunks with their ligatures folded (issue 32):
a PDF that writes "Conﬁdential" (U+FB01) is found by "confidential".

The stored text keeps its own characters (citations point into it); only
what the index reads is folded, with the SQL form of lib.textfold's
ligature table (`sql_fold`; SQLite and PostgreSQL both have replace()).
SQLite: the FTS5 table's external content becomes a view of the chunk table
with the folded text (so 'rebuild' and the triggers index the same text);
PostgreSQL: the generated tsvector column is recomputed from the folded text
(STORAGE MAIN kept, as migration 0007 set it). Existing chunks are indexed
again once. The questions are folded the same way (ingest.search._query).
"""

from __future__ import annotations

from django.db import migrations

from lib.textfold import sql_fold

TOKENIZE = "tokenize='porter unicode61 remove_diacritics 2'"
TRIGGERS = ("ingest_chunk_fts_ai", "ingest_chunk_fts_ad", "ingest_chunk_fts_au")


def _sqlite(folded: bool) -> list[str]:
    new = sql_fold("new.content") if folded else "new.content"
    old = sql_fold("old.content") if folded else "old.content"
    content = "ingest_chunk_folded" if folded else "ingest_documentchunk"
    statements = [f"DROP TRIGGER IF EXISTS {t};" for t in TRIGGERS]
    statements += [
        "DROP TABLE IF EXISTS ingest_chunk_fts_vocab;",
        "DROP TABLE IF EXISTS ingest_chunk_fts;",
        "DROP VIEW IF EXISTS ingest_chunk_folded;",
    ]
    if folded:
        statements.append(
            "CREATE VIEW ingest_chunk_folded AS SELECT id, "
            f"{sql_fold('content')} AS content FROM ingest_documentchunk;"
        )
    statements += [
        f"CREATE VIRTUAL TABLE ingest_chunk_fts USING fts5(content, content='{content}', "
        f"content_rowid='id', {TOKENIZE});",
        "CREATE TRIGGER ingest_chunk_fts_ai AFTER INSERT ON ingest_documentchunk BEGIN "
        f"INSERT INTO ingest_chunk_fts(rowid, content) VALUES (new.id, {new}); END;",
        "CREATE TRIGGER ingest_chunk_fts_ad AFTER DELETE ON ingest_documentchunk BEGIN "
        "INSERT INTO ingest_chunk_fts(ingest_chunk_fts, rowid, content) "
        f"VALUES ('delete', old.id, {old}); END;",
        "CREATE TRIGGER ingest_chunk_fts_au AFTER UPDATE OF content ON ingest_documentchunk BEGIN "
        "INSERT INTO ingest_chunk_fts(ingest_chunk_fts, rowid, content) "
        f"VALUES ('delete', old.id, {old}); "
        f"INSERT INTO ingest_chunk_fts(rowid, content) VALUES (new.id, {new}); END;",
        "INSERT INTO ingest_chunk_fts(ingest_chunk_fts) VALUES ('rebuild');",
        "CREATE VIRTUAL TABLE ingest_chunk_fts_vocab USING fts5vocab(ingest_chunk_fts, row);",
    ]
    return statements


def _postgres(folded: bool) -> list[str]:
    source = sql_fold("content") if folded else "content"
    return [
        "DROP INDEX IF EXISTS idx_chunk_search_vector;",
        "ALTER TABLE ingest_documentchunk DROP COLUMN IF EXISTS search_vector;",
        "ALTER TABLE ingest_documentchunk ADD COLUMN search_vector tsvector "
        f"GENERATED ALWAYS AS (to_tsvector('english', {source})) STORED;",
        "ALTER TABLE ingest_documentchunk ALTER COLUMN search_vector SET STORAGE MAIN;",
        "CREATE INDEX idx_chunk_search_vector ON ingest_documentchunk USING GIN (search_vector);",
    ]


def _run(schema_editor, folded: bool) -> None:
    vendor = schema_editor.connection.vendor
    statements = {"sqlite": _sqlite, "postgresql": _postgres}.get(vendor)
    for sql in statements(folded) if statements else []:
        schema_editor.execute(sql)


def forwards(apps, schema_editor):
    _run(schema_editor, folded=True)


def backwards(apps, schema_editor):
    _run(schema_editor, folded=False)


class Migration(migrations.Migration):
    dependencies = [("ingest", "0010_title_change")]
    operations = [migrations.RunPython(forwards, backwards)]
