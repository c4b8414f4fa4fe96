"""SQLite: an fts5vocab view of the chunk index, so search can read each
term's document frequency (see ingest/search/_sqlite.py)."""

from __future__ import annotations

from django.db import migrations


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(
            "CREATE VIRTUAL TABLE ingest_chunk_fts_vocab USING fts5vocab(ingest_chunk_fts, row);"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP TABLE IF EXISTS ingest_chunk_fts_vocab;")


class Migration(migrations.Migration):
    dependencies = [("ingest", "0003_fulltext")]
    operations = [migrations.RunPython(forwards, backwards)]
