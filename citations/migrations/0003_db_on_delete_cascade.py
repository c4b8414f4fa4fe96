"""Seed 000 declares the message and file foreign keys ON DELETE CASCADE at the
database level; Django 5.2 only cascades in Python, so the constraints are
rewritten here. Other systems deleting rows directly get the seed's behaviour.

PostgreSQL: the FKs are dropped and re-created under PostgreSQL's default
names with ON DELETE CASCADE. SQLite cannot alter a constraint, but its
documented writable_schema procedure may change FOREIGN KEY clauses in place
(the on-disk format does not change).

Note: a later migration that makes Django rebuild this table (SQLite) or this
FK (PostgreSQL) would drop the clause again; citations/tests/test_schema.py
checks it.
"""

from __future__ import annotations

from django.db import migrations

FKS = [("message_id", "messages"), ("source_file_id", "files")]


def forwards(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for column, parent in FKS:
                cursor.execute(
                    """
                    SELECT tc.constraint_name FROM information_schema.table_constraints tc
                    JOIN information_schema.key_column_usage k
                      ON k.constraint_name = tc.constraint_name AND k.table_name = tc.table_name
                    WHERE tc.table_name = 'message_citations' AND tc.constraint_type = 'FOREIGN KEY'
                    GROUP BY tc.constraint_name
                    -- only Django's single-column FK, not the composite tenant guard
                    HAVING COUNT(*) = 1 AND MIN(k.column_name) = %s
                    """,
                    [column],
                )
                for (name,) in cursor.fetchall():
                    cursor.execute(
                        f'ALTER TABLE message_citations DROP CONSTRAINT "{name}"'
                    )
                cursor.execute(
                    f'ALTER TABLE message_citations ADD CONSTRAINT "message_citations_{column}_fkey" '
                    f'FOREIGN KEY ("{column}") REFERENCES "{parent}" ("id") ON DELETE CASCADE'
                )
        elif connection.vendor == "sqlite":
            cursor.execute(
                "SELECT sql FROM sqlite_master WHERE type='table' AND name='message_citations'"
            )
            sql = cursor.fetchone()[0]
            for column, parent in FKS:
                sql = sql.replace(
                    f'"{column}" char(32) NOT NULL REFERENCES "{parent}" ("id") DEFERRABLE INITIALLY DEFERRED',
                    f'"{column}" char(32) NOT NULL REFERENCES "{parent}" ("id") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED',
                )
            cursor.execute("PRAGMA schema_version")
            version = cursor.fetchone()[0]
            cursor.execute("PRAGMA writable_schema = ON")
            cursor.execute(
                "UPDATE sqlite_master SET sql = %s WHERE type='table' AND name='message_citations'",
                [sql],
            )
            cursor.execute(f"PRAGMA schema_version = {version + 1}")
            cursor.execute("PRAGMA writable_schema = OFF")


class Migration(migrations.Migration):
    atomic = False
    dependencies = [("citations", "0002_seed_defaults_and_guards")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
