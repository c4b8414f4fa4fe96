"""SQLite: document frequencies of common index terms, refreshed after
ingestion (ingest.search.refresh_statistics). FTS5 computes a term's document
frequency by walking its whole posting list, which for a word in every chunk
costs milliseconds per query; PostgreSQL keeps the equivalent in pg_stats."""

from __future__ import annotations

from django.db import migrations


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(
            "CREATE TABLE ingest_fts_term_stats (term TEXT PRIMARY KEY, doc INTEGER NOT NULL) WITHOUT ROWID;"
        )
        schema_editor.execute(
            "CREATE TABLE ingest_fts_stats_meta (id INTEGER PRIMARY KEY CHECK (id = 1), total INTEGER NOT NULL);"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP TABLE IF EXISTS ingest_fts_term_stats;")
        schema_editor.execute("DROP TABLE IF EXISTS ingest_fts_stats_meta;")


class Migration(migrations.Migration):
    dependencies = [("ingest", "0004_fulltext_vocab")]
    operations = [migrations.RunPython(forwards, backwards)]
