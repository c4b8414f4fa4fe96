"""SQLite rebuilds a table to add a NOT NULL column (0006, 0007 did, on
message_citations), and a rebuilt table loses what migrations 0002 and 0003
wrote by hand: the tenant-guard triggers and seed 000's ON DELETE CASCADE on
the message and file foreign keys. This puts both back on SQLite (both steps
are idempotent); PostgreSQL adds columns in place and keeps them.

A later migration that adds a NOT NULL column to message_citations must be
followed by the same operation; citations/tests/test_schema.py checks.
"""

from __future__ import annotations

import importlib

from django.db import migrations

from accounts.dbguards import _sqlite_sql

GUARDS = [("message_id", "messages"), ("source_file_id", "files")]


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for column, parent in GUARDS:
        for sql in _sqlite_sql("message_citations", column, parent)[0]:
            schema_editor.execute(sql)
    cascade = importlib.import_module("citations.migrations.0003_db_on_delete_cascade")
    cascade.forwards(apps, schema_editor)


class Migration(migrations.Migration):
    atomic = False  # 0003's writable_schema step runs outside a transaction
    dependencies = [("citations", "0007_relevance_and_stale")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
