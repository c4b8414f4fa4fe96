"""Database-level tenant consistency (TEN-06).

A tenant-owned row that points at another tenant-owned row must belong to the
same tenant. PostgreSQL enforces this with a composite foreign key onto a
UNIQUE (tenant_id, id); SQLite cannot add constraints to existing tables, so it
gets BEFORE INSERT/UPDATE triggers that abort the write.
"""

from __future__ import annotations

from django.db import migrations


def _pg_sql(child: str, column: str, parent: str) -> tuple[str, str]:
    name = f"fk_{child}_{column}_same_tenant"[:63]
    forward = (
        f'ALTER TABLE "{child}" ADD CONSTRAINT "{name}" FOREIGN KEY ("tenant_id", "{column}") '
        f'REFERENCES "{parent}" ("tenant_id", "id") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED;'
    )
    return forward, f'ALTER TABLE "{child}" DROP CONSTRAINT IF EXISTS "{name}";'


def _sqlite_sql(child: str, column: str, parent: str) -> tuple[list[str], list[str]]:
    forward, backward = [], []
    for event in ("INSERT", "UPDATE"):
        name = f"trg_{child}_{column}_same_tenant_{event.lower()}"
        forward.append(
            f'CREATE TRIGGER IF NOT EXISTS "{name}" BEFORE {event} ON "{child}" '
            f'WHEN NEW."{column}" IS NOT NULL AND NOT EXISTS ('
            f'SELECT 1 FROM "{parent}" p WHERE p."id" = NEW."{column}" AND p."tenant_id" = NEW."tenant_id") '
            f"BEGIN SELECT RAISE(ABORT, 'cross-tenant reference: {child}.{column}'); END;"
        )
        backward.append(f'DROP TRIGGER IF EXISTS "{name}";')
    return forward, backward


def same_tenant(child: str, column: str, parent: str) -> migrations.RunPython:
    """A migration operation guarding child.column -> parent within one tenant."""

    def direction(which: int):
        # 0 adds the guard, 1 drops it: both vendors' builders return (add, drop).
        def run(apps, schema_editor):
            vendor = schema_editor.connection.vendor
            if vendor == "postgresql":
                schema_editor.execute(_pg_sql(child, column, parent)[which])
            elif vendor == "sqlite":
                for sql in _sqlite_sql(child, column, parent)[which]:
                    schema_editor.execute(sql)

        return run

    return migrations.RunPython(direction(0), direction(1), elidable=False)
