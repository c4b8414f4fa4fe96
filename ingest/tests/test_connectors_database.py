"""Database rows as documents (issue 29 item 2): a SQLite file and a
PostgreSQL table, read only; each row a document whose columns are located;
changed rows revised, deleted rows soft-deleted; credentials encrypted;
every way a source can fail is a clear error on the source."""

from __future__ import annotations

import os
import sqlite3
import uuid

import pytest

from accounts.scoping import tenant_scope
from docuiq.testing.exports import sqlite_contracts
from ingest.connectors.database import DatabaseError_, TableSpec, check_select
from ingest.models import Document, DocumentChunk, Source
from ingest.secrets import secret_decrypt
from ingest.selectors import Span, span_locations
from ingest.source_kinds.base import SourceError
from ingest.sources import source_create_database, source_request_sync

pytestmark = pytest.mark.django_db

ROWS = [
    (
        1182,
        "Acme supply agreement",
        "Acme Ltd",
        "Either party may end it on 90 days' written notice.",
    ),
    (1183, "Beta licence", "Beta GmbH", "Termination requires 30 days' notice."),
]
SPEC = TableSpec(
    table="contracts",
    key_column="id",
    text_columns=["counterparty", "notice_period"],
    title_column="title",
)


@pytest.fixture(autouse=True)
def _connectors(settings, tmp_path, django_capture_on_commit_callbacks):
    settings.CONNECTORS_SQLITE_DIRS = [str(tmp_path)]
    settings.CONNECTORS_ALLOW_LOOPBACK = True
    global _capture
    _capture = django_capture_on_commit_callbacks


_capture = None


def register(tenant, url: str, spec: TableSpec = SPEC, name: str = "CRM") -> Source:
    with _capture(execute=True), tenant_scope(tenant):
        source = source_create_database(
            tenant=tenant, name=name, connection_url=url, spec=spec
        )
    with tenant_scope(tenant):
        return Source.objects.get(pk=source.pk)


def resync(tenant, source: Source) -> Source:
    with _capture(execute=True), tenant_scope(tenant):
        source_request_sync(source=source)
    with tenant_scope(tenant):
        return Source.objects.get(pk=source.pk)


def test_each_row_is_a_document_and_each_column_is_located(tenant_a, tmp_path):
    path = sqlite_contracts(tmp_path / "crm.db", ROWS)
    source = register(tenant_a, f"sqlite:///{path}")
    assert source.status == "ready", source.error
    assert source.stats["created"] == 2
    with tenant_scope(tenant_a):
        acme = Document.objects.get(title="Acme supply agreement")
        assert acme.source_type == "db"
        text = acme.current_revision.normalized_content
        assert text == (
            "counterparty:\nAcme Ltd\n\nnotice_period:\nEither party may end it on 90 days' written notice."
        )
        chunk = DocumentChunk.objects.get(document=acme)
        at = text.index("90 days")
        span = Span(chunk.uid, at, at + 7)
        location = span_locations(tenant_id=tenant_a.pk, spans=[span])[span]
    assert location.label == "contracts · row 1182 · notice_period"
    assert location.fields == {
        "table": "contracts",
        "row_id": "1182",
        "column": "notice_period",
    }


def test_changed_rows_are_revised_and_deleted_rows_soft_deleted(tenant_a, tmp_path):
    path = sqlite_contracts(tmp_path / "crm.db", ROWS)
    source = register(tenant_a, f"sqlite:///{path}")
    db = sqlite3.connect(path)
    db.execute(
        "UPDATE contracts SET notice_period = 'Sixty (60) days.' WHERE id = 1182"
    )
    db.execute("DELETE FROM contracts WHERE id = 1183")
    db.execute(
        "INSERT INTO contracts VALUES (1190, 'Gamma NDA', 'Gamma SA', 'No termination right.')"
    )
    db.commit()
    db.close()
    source = resync(tenant_a, source)
    assert source.stats == {
        "created": 1,
        "updated": 1,
        "unchanged": 0,
        "deleted": 1,
        "items": 2,
    }
    with tenant_scope(tenant_a):
        acme = Document.objects.get(title="Acme supply agreement")
        assert acme.current_revision.number == 2
        assert "Sixty (60) days." in acme.current_revision.normalized_content
        assert Document.objects.get(title="Beta licence").is_deleted
    source = resync(tenant_a, source)
    assert source.stats["unchanged"] == 2 and source.stats["updated"] == 0


def test_a_row_is_rebuilt_only_when_what_it_shows_changed(tenant_a, tmp_path):
    """A row's fingerprint is its title and text values: a change to a
    column the source does not read leaves its document alone, a change to
    one it reads makes a new revision, and the spec is part of it."""
    from ingest.connectors.database import Row, row_fingerprint, row_item

    row = Row(
        key="1",
        values={"title": "T", "counterparty": "A", "notice_period": "x", "other": 1},
    )
    moved = Row(key="1", values={**row.values, "other": 2})
    changed = Row(key="1", values={**row.values, "notice_period": "y"})
    fp = row_fingerprint(SPEC, row, source_name="CRM")
    assert fp == row_fingerprint(SPEC, moved, source_name="CRM")
    assert fp != row_fingerprint(SPEC, changed, source_name="CRM")
    narrower = TableSpec(
        table="contracts", key_column="id", text_columns=["counterparty"]
    )
    assert fp != row_fingerprint(narrower, row, source_name="CRM")
    assert row_item(SPEC, row, source_name="CRM").text  # built only on demand

    path = sqlite_contracts(tmp_path / "crm.db", ROWS)
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE contracts ADD COLUMN updated_by TEXT")
    db.commit()
    source = register(tenant_a, f"sqlite:///{path}")
    db.execute("UPDATE contracts SET updated_by = 'sync job'")
    db.commit()
    source = resync(tenant_a, source)
    assert (source.stats["unchanged"], source.stats["updated"]) == (2, 0)
    db.execute("UPDATE contracts SET counterparty = 'Acme Holdings' WHERE id = 1182")
    db.commit()
    db.close()
    source = resync(tenant_a, source)
    assert (source.stats["unchanged"], source.stats["updated"]) == (1, 1)
    with tenant_scope(tenant_a):
        acme = Document.objects.get(title="Acme supply agreement")
        assert "Acme Holdings" in acme.current_revision.normalized_content


def test_credentials_are_stored_encrypted_and_never_shown(tenant_a, tmp_path):
    path = sqlite_contracts(tmp_path / "crm.db", ROWS)
    source = register(tenant_a, f"sqlite:///{path}")
    assert str(path) not in source.secret
    assert secret_decrypt(source.secret) == f"sqlite:///{path}"
    assert source.connection_display == f"sqlite:///{path}"


@pytest.mark.parametrize(
    "query",
    [
        "DELETE FROM contracts",
        "SELECT 1; DROP TABLE contracts",
        "UPDATE contracts SET title = 'x'",
        "WITH gone AS (DELETE FROM contracts RETURNING *) SELECT * FROM gone",
        "PRAGMA writable_schema = ON",
        "",
    ],
)
def test_a_statement_that_is_not_one_select_is_refused(query):
    with pytest.raises(DatabaseError_) as refused:
        check_select(query)
    assert refused.value.code == "not_select"


def test_a_select_with_a_cte_is_accepted():
    assert (
        check_select("WITH x AS (SELECT 1 AS id) SELECT * FROM x;")
        == "WITH x AS (SELECT 1 AS id) SELECT * FROM x"
    )


def test_a_query_source_reads_its_own_columns(tenant_a, tmp_path):
    path = sqlite_contracts(tmp_path / "crm.db", ROWS)
    spec = TableSpec(
        query="SELECT id AS contract_id, notice_period FROM contracts WHERE id > 1182",
        key_column="contract_id",
        text_columns=["notice_period"],
        label="contracts",
    )
    source = register(tenant_a, f"sqlite:///{path}", spec)
    assert source.status == "ready", source.error
    with tenant_scope(tenant_a):
        assert Document.objects.get().title == "contracts · row 1183"


@pytest.mark.parametrize(
    ("make_url", "spec", "code"),
    [
        (lambda p: f"sqlite:///{p.parent}/missing.db", SPEC, "unreachable"),
        (
            lambda p: f"sqlite:///{p}",
            TableSpec(table="nope", key_column="id", text_columns=["x"]),
            "bad_spec",
        ),
        (
            lambda p: f"sqlite:///{p}",
            TableSpec(table="contracts", key_column="id", text_columns=["nope"]),
            "bad_spec",
        ),
        (
            lambda p: f"sqlite:///{p}",
            TableSpec(
                table="contracts", key_column="counterparty", text_columns=["title"]
            ),
            None,
        ),
    ],
)
def test_a_source_that_cannot_be_read_fails_with_a_clear_error(
    tenant_a, tmp_path, make_url, spec, code
):
    path = sqlite_contracts(tmp_path / "crm.db", ROWS)
    source = register(tenant_a, make_url(path), spec)
    if code is None:
        assert source.status == "ready"
        return
    assert source.status == "failed"
    assert source.error_code == code
    assert source.error


def test_duplicate_keys_fail_the_sync(tenant_a, tmp_path):
    path = sqlite_contracts(
        tmp_path / "crm.db", [*ROWS, (1184, "Acme supply agreement", "Acme Ltd", "x")]
    )
    spec = TableSpec(
        table="contracts", key_column="counterparty", text_columns=["notice_period"]
    )
    source = register(tenant_a, f"sqlite:///{path}", spec)
    assert (source.status, source.error_code) == ("failed", "duplicate_key")


def test_a_query_that_runs_too_long_is_stopped(tenant_a, tmp_path, settings):
    settings.CONNECTORS_QUERY_TIMEOUT_S = 0.2
    path = sqlite_contracts(tmp_path / "crm.db", ROWS)
    slow = TableSpec(
        query=(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000) "
            "SELECT max(i) AS id, 'x' AS body FROM n"
        ),
        key_column="id",
        text_columns=["body"],
    )
    source = register(tenant_a, f"sqlite:///{path}", slow)
    assert (source.status, source.error_code) == ("failed", "timeout")


def test_sqlite_outside_the_allowed_folders_or_docuiqs_own_is_refused(
    tenant_a, tmp_path, settings
):
    path = sqlite_contracts(tmp_path / "crm.db", ROWS)
    settings.CONNECTORS_SQLITE_DIRS = []
    with pytest.raises(SourceError) as refused, tenant_scope(tenant_a):
        source_create_database(
            tenant=tenant_a, name="CRM", connection_url=f"sqlite:///{path}", spec=SPEC
        )
    assert refused.value.code == "blocked_path"


def test_a_private_database_host_is_refused_unless_allowed(tenant_a, settings):
    settings.CONNECTORS_ALLOW_LOOPBACK = False
    with pytest.raises(SourceError) as refused, tenant_scope(tenant_a):
        source_create_database(
            tenant=tenant_a,
            name="CRM",
            connection_url="postgres://u:p@127.0.0.1:5432/crm",
            spec=SPEC,
        )
    assert refused.value.code == "blocked_address"
    assert "loopback" in refused.value.message


# -- PostgreSQL: a scratch database on the local server ----------------------------


def _pg_admin():
    psycopg = pytest.importorskip("psycopg")
    try:
        return psycopg.connect(
            "postgresql://postgres@127.0.0.1:5432/postgres",
            autocommit=True,
            connect_timeout=2,
        )
    except psycopg.OperationalError:
        pytest.skip("no PostgreSQL server on 127.0.0.1:5432")


@pytest.fixture
def pg_crm():
    """A database of its own with a contracts table, and a read-only user."""
    admin = _pg_admin()
    name = f"docuiq_src_{uuid.uuid4().hex[:10]}"
    user = f"reader_{uuid.uuid4().hex[:8]}"
    admin.execute(f'CREATE DATABASE "{name}"')
    admin.execute(f"CREATE ROLE {user} LOGIN PASSWORD 's3cret-pw'")
    import psycopg

    with psycopg.connect(
        f"postgresql://postgres@127.0.0.1:5432/{name}", autocommit=True
    ) as db:
        db.execute(
            "CREATE TABLE contracts (id int PRIMARY KEY, title text, counterparty text, notice_period text)"
        )
        for row in ROWS:
            db.execute("INSERT INTO contracts VALUES (%s, %s, %s, %s)", row)
        db.execute(f"GRANT SELECT ON contracts TO {user}")
        db.execute("CREATE SEQUENCE s")
    yield {
        "name": name,
        "user": user,
        "url": f"postgres://{user}:s3cret-pw@127.0.0.1:5432/{name}",
    }
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.execute(f"DROP ROLE IF EXISTS {user}")
    admin.close()


def test_a_postgresql_table_is_read_into_documents(tenant_a, pg_crm):
    source = register(tenant_a, pg_crm["url"])
    assert source.status == "ready", source.error
    assert (
        source.connection_display
        == f"postgres://{pg_crm['user']}@127.0.0.1:5432/{pg_crm['name']}"
    )
    assert (
        "s3cret-pw" not in source.secret
        and "s3cret-pw" not in source.connection_display
    )
    with tenant_scope(tenant_a):
        assert Document.objects.filter(source_type="db").count() == 2


def test_a_refused_login_is_a_clear_error(tenant_a, pg_crm):
    # An unknown user is refused whatever the server's authentication method.
    source = register(
        tenant_a, pg_crm["url"].replace(pg_crm["user"], "nobody_" + pg_crm["user"])
    )
    assert (source.status, source.error_code) == ("failed", "login_refused")
    assert "refused the login" in source.error


def test_a_write_through_a_query_is_refused_by_the_read_only_session(pg_crm):
    """Past the SELECT check (a SELECT can still write, through a function):
    the session itself is read only."""
    from ingest.connectors.database import _postgres_rows, parse_url

    connection = parse_url(
        pg_crm["url"].replace(pg_crm["user"] + ":s3cret-pw", "postgres")
    )
    spec = TableSpec(
        query="SELECT 1 AS id, 'x' AS body", key_column="id", text_columns=["body"]
    )
    rows = _postgres_rows(
        connection, spec, "SELECT nextval('s') AS id, 'x' AS body", 5, 5
    )
    with pytest.raises(DatabaseError_) as refused:
        list(rows)
    assert refused.value.code == "read_only"


def test_docuiqs_own_postgresql_database_is_refused(tenant_a, settings):
    own = settings.DATABASES["default"]
    if not own["ENGINE"].endswith("postgresql"):
        pytest.skip("DocuIQ runs on SQLite here")
    url = f"postgres://{own['USER']}@{own.get('HOST') or '127.0.0.1'}:{own.get('PORT') or 5432}/{own['NAME']}"
    with pytest.raises(SourceError, match="own database"), tenant_scope(tenant_a):
        source_create_database(
            tenant=tenant_a, name="me", connection_url=url, spec=SPEC
        )
    assert os.environ.get("DATABASE_URL")
