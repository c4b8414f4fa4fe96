"""SQLite rebuilt message_citations to add `rule` (0011, NOT NULL): put back
the tenant guards and seed 000's ON DELETE CASCADE, as 0008 does (see its
docstring). A no-op on PostgreSQL."""

from __future__ import annotations

import importlib

from django.db import migrations

_REPAIR = importlib.import_module("citations.migrations.0008_sqlite_schema_after_rebuild")


class Migration(migrations.Migration):
    atomic = False  # 0003's writable_schema step runs outside a transaction
    dependencies = [("citations", "0011_message_citation_rule")]
    operations = [migrations.RunPython(_REPAIR.forwards, migrations.RunPython.noop)]
