"""Tenant guards (TEN-06): a playbook's positions, a run's positions,
findings and events, and the tabular rows they point at, belong to one tenant.

PostgreSQL gets every guard (composite foreign keys). SQLite gets triggers
only between playbook's own tables: a trigger that names a tabular table
would make any later tabular migration that rebuilds that table on SQLite
fail (tabular/0003 had to drop and restore its own for that reason), and a
playbook guard must not put that cost on another app.
"""

from __future__ import annotations

from django.db import migrations

from accounts.dbguards import _pg_sql, same_tenant

ON_TABULAR = [
    ("playbook_playbookrun", "review_id", "tabular_review"),
    ("playbook_runposition", "column_id", "tabular_reviewcolumn"),
    ("playbook_finding", "row_id", "tabular_reviewdocument"),
    ("playbook_finding", "cell_id", "tabular_cell"),
]


def pg_guards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for child, column, parent in ON_TABULAR:
        schema_editor.execute(_pg_sql(child, column, parent)[0])


def pg_guards_off(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for child, column, parent in ON_TABULAR:
        schema_editor.execute(_pg_sql(child, column, parent)[1])


class Migration(migrations.Migration):
    dependencies = [
        ("playbook", "0001_initial"),
        ("tabular", "0003_typed_values_and_review"),
    ]

    operations = [
        same_tenant("playbook_position", "playbook_id", "playbook_playbook"),
        same_tenant("playbook_playbookrun", "playbook_id", "playbook_playbook"),
        same_tenant("playbook_runposition", "run_id", "playbook_playbookrun"),
        same_tenant("playbook_runposition", "position_id", "playbook_position"),
        same_tenant("playbook_finding", "run_id", "playbook_playbookrun"),
        same_tenant("playbook_finding", "position_id", "playbook_runposition"),
        same_tenant("playbook_findingevent", "finding_id", "playbook_finding"),
        migrations.RunPython(pg_guards, pg_guards_off, elidable=False),
    ]
