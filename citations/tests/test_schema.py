"""The live `message_citations` schema mirrors seed 000's DDL (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

# Seed 000, column by column: (name, PostgreSQL type, SQLite type, nullable)
SEED_COLUMNS = [
    ("id", "uuid", "char(32)", False),
    ("message_id", "uuid", "char(32)", False),
    ("source_file_id", "uuid", "char(32)", False),
    ("source_offset_start", "integer", "integer", False),
    ("source_offset_end", "integer", "integer", False),
    ("source_page", "integer", "integer", True),
    ("source_text", "text", "text", False),
    ("verified", "boolean", "bool", False),
    ("verification_method", "text", "text", True),
    ("verification_confidence", "numeric(3,2)", "decimal", True),
    ("created_at", "timestamp with time zone", "datetime", False),
]
SEED_CHECKS = {
    "chk_message_citations_offset_start_nonneg",
    "chk_message_citations_offset_end_gt_start",
    "chk_message_citations_method_values",
    "chk_message_citations_confidence_range",
    "chk_message_citations_verified_has_method",
}
SEED_INDEXES = {
    "idx_message_citations_message": ["message_id"],
    "idx_message_citations_file": ["source_file_id"],
}


def _columns() -> dict[str, tuple[str, bool, str | None]]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                """
                SELECT column_name, format_type(a.atttypid, a.atttypmod), is_nullable = 'YES',
                       column_default
                FROM information_schema.columns c
                JOIN pg_attribute a ON a.attrelid = 'message_citations'::regclass AND a.attname = c.column_name
                WHERE table_name = 'message_citations'
                """
            )
            return {
                name: (typ, nullable, default)
                for name, typ, nullable, default in cursor.fetchall()
            }
        cursor.execute("PRAGMA table_info(message_citations)")
        return {
            row[1]: (row[2].lower(), not row[3], row[4]) for row in cursor.fetchall()
        }


def test_seed_columns_have_the_seed_names_types_and_nullability():
    columns = _columns()
    for name, pg_type, sqlite_type, nullable in SEED_COLUMNS:
        assert name in columns, f"missing column {name}"
        expected = pg_type if connection.vendor == "postgresql" else sqlite_type
        assert columns[name][0] == expected, name
        assert columns[name][1] is nullable, name


def test_seed_defaults_are_database_defaults():
    columns = _columns()
    assert "false" in str(columns["verified"][2]).lower() or columns["verified"][2] in {
        "0",
        "False",
    }
    assert columns["created_at"][2] is not None
    if connection.vendor == "postgresql":
        assert "gen_random_uuid" in str(columns["id"][2])


def test_the_five_seed_checks_and_two_indexes_exist_by_name():
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(
            cursor, "message_citations"
        )
    checks = {name for name, c in constraints.items() if c["check"]}
    assert checks >= SEED_CHECKS
    for name, columns in SEED_INDEXES.items():
        assert name in constraints and constraints[name]["index"], name
        assert constraints[name]["columns"] == columns


def test_foreign_keys_point_at_messages_and_files_with_on_delete_cascade():
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                """
                SELECT kcu.column_name, ccu.table_name, rc.delete_rule
                FROM information_schema.referential_constraints rc
                JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = rc.constraint_name
                JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = rc.constraint_name
                WHERE kcu.table_name = 'message_citations'
                """
            )
            fks = {(col, table, rule) for col, table, rule in cursor.fetchall()}
        else:
            cursor.execute("PRAGMA foreign_key_list(message_citations)")
            fks = {(row[3], row[2], row[6]) for row in cursor.fetchall()}
    assert ("message_id", "messages", "CASCADE") in fks
    assert ("source_file_id", "files", "CASCADE") in fks


def test_primary_key_is_id():
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(
            cursor, "message_citations"
        )
    primary = [c for c in constraints.values() if c["primary_key"]]
    assert primary and primary[0]["columns"] == ["id"]


def test_the_database_refuses_a_citation_of_another_tenants_message(tenant_a, tenant_b):
    """The tenant guards (composite FKs on PostgreSQL, triggers on SQLite)
    survive every later migration, including SQLite's table rebuilds."""
    import uuid

    from django.db import DatabaseError, IntegrityError, transaction

    from accounts.scoping import unscoped
    from chat.models import Message
    from docuiq.testing.factories import make_document

    document = make_document(tenant_a, "The notice period is ninety (90) days.")
    with unscoped():
        foreign = Message.objects.create(tenant=tenant_b, role="assistant", content="x")
        with (
            pytest.raises((IntegrityError, DatabaseError)),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            if connection.vendor == "postgresql":
                # The guard is DEFERRABLE INITIALLY DEFERRED: check it now.
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(
                "INSERT INTO message_citations (id, message_id, source_file_id,"
                " source_offset_start, source_offset_end, source_text, verified,"
                " tenant_id, quoted_text, verification_status, reason,"
                " mis_attributed_to, document_name, execution_context_type,"
                " execution_context_id, ref_label, candidate_text, failure_kind,"
                " relevance_method, relevance_reason, other_document, is_stale,"
                " created_at, updated_at)"
                " VALUES (%s, %s, %s, 0, 5, 'x', %s, %s, '', 'pending', '', '', '',"
                " 'chat', '', 'S1', '', '', '', '', %s, %s,"
                " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                [
                    uuid.uuid4().hex
                    if connection.vendor == "sqlite"
                    else str(uuid.uuid4()),
                    foreign.pk.hex
                    if connection.vendor == "sqlite"
                    else str(foreign.pk),
                    document.file_id.hex
                    if connection.vendor == "sqlite"
                    else str(document.file_id),
                    False,
                    tenant_a.pk,
                    False,
                    False,
                ],
            )
