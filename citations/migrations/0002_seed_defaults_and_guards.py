"""Seed 000 details Django cannot express portably, and tenant guards (TEN-06)."""

from __future__ import annotations

from django.db import migrations

from accounts.dbguards import same_tenant


def pg_uuid_default(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "ALTER TABLE message_citations ALTER COLUMN id SET DEFAULT gen_random_uuid();"
        )


def pg_uuid_default_drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "ALTER TABLE message_citations ALTER COLUMN id DROP DEFAULT;"
        )


class Migration(migrations.Migration):
    dependencies = [("citations", "0001_initial"), ("chat", "0002_tenant_guards")]

    operations = [
        migrations.RunPython(pg_uuid_default, pg_uuid_default_drop),
        same_tenant("message_citations", "message_id", "messages"),
        same_tenant("message_citations", "source_file_id", "files"),
        same_tenant("citations_unsourcedcitation", "message_id", "messages"),
    ]
