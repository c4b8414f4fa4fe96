"""The migrated test database kept between runs (docuiq/testing/dbcache.py):
its name follows every file that decides the schema, and a copy holds the
whole schema (tables, triggers, the full-text index) and the seeded rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connection

from docuiq.testing import dbcache


def test_the_sources_are_every_apps_migrations_and_the_project_modules_they_import():
    sources = dbcache.schema_sources()
    base = Path(settings.BASE_DIR).resolve()
    for label in ("accounts", "ingest", "chat", "citations", "tabular", "playbook"):
        migrations = (base / label / "migrations").glob("0*.py")
        assert set(migrations) <= set(sources), label
    # Django's own apps migrate too.
    auth = Path(apps.get_app_config("auth").path) / "migrations" / "0001_initial.py"
    assert auth.resolve() in sources
    # The tenant guards' SQL and the index's text folding are imported by
    # migrations: editing them changes the schema a migration makes.
    assert base / "accounts" / "dbguards.py" in sources
    assert base / "lib" / "textfold.py" in sources
    # From the virtual environment: migrations, and models of apps without.
    outside = [p for p in sources if not p.is_relative_to(base)]
    assert all("migrations" in p.parts or p.name == "models.py" for p in outside)


def test_the_key_changes_with_any_source_and_only_then(tmp_path):
    first, second = tmp_path / "0001_a.py", tmp_path / "0002_b.py"
    first.write_text("operations = []\n")
    second.write_text("operations = []\n")
    key = dbcache.schema_key([first, second])
    assert dbcache.schema_key([first, second]) == key
    second.write_text("operations = ['RunSQL']\n")
    assert dbcache.schema_key([first, second]) != key
    assert dbcache.schema_key([first]) != key


def _schema(conn: sqlite3.Connection) -> list[tuple]:
    return conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
    ).fetchall()


def test_save_writes_a_whole_copy_load_reads_it_and_earlier_copies_go(tmp_path):
    made = sqlite3.connect(":memory:")
    made.executescript(
        "CREATE TABLE doc (id INTEGER PRIMARY KEY, body TEXT);"
        "CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc');"
        "CREATE TRIGGER doc_ai AFTER INSERT ON doc BEGIN"
        " INSERT INTO doc_fts(rowid, body) VALUES (new.id, new.body); END;"
        "INSERT INTO doc (body) VALUES ('a confidential clause');"
    )
    made.commit()
    (tmp_path / "earlier.sqlite3").write_bytes(b"an earlier schema's copy")
    path = tmp_path / "key.sqlite3"

    dbcache.save(made, path)

    assert sorted(p.name for p in tmp_path.iterdir()) == ["key.sqlite3"]
    copy = sqlite3.connect(":memory:")
    dbcache.load(path, copy)
    assert _schema(copy) == _schema(made)
    found = "SELECT rowid FROM doc_fts WHERE doc_fts MATCH 'confidential'"
    assert copy.execute(found).fetchall() == [(1,)]


def test_a_copy_of_a_wal_database_is_saved_with_a_plain_journal(tmp_path):
    """A bench's file database is in WAL mode (settings' init_command): its
    copy must not be, or reading it leaves -wal and -shm files beside it."""
    made = sqlite3.connect(tmp_path / "bench.sqlite3")
    made.execute("PRAGMA journal_mode=WAL")
    made.execute("CREATE TABLE doc (id INTEGER PRIMARY KEY)")
    made.commit()
    kept = tmp_path / "kept"
    kept.mkdir()
    path = kept / "key.sqlite3"

    dbcache.save(made, path)
    dbcache.load(path, sqlite3.connect(":memory:"))

    assert sorted(p.name for p in kept.iterdir()) == ["key.sqlite3"]
    with sqlite3.connect(path) as copy:
        assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)


@pytest.mark.django_db
def test_the_test_database_is_the_copy_of_the_current_schema():
    if connection.vendor != "sqlite":
        pytest.skip("the copy is SQLite's (PostgreSQL migrates every run)")
    key = dbcache.schema_key(dbcache.schema_sources())
    path = Path(settings.VAR_DIR) / "test-db" / f"{key}{dbcache.SUFFIX}"
    assert path.is_file()
    copy = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    connection.ensure_connection()
    live = connection.connection
    assert _schema(copy) == _schema(live)
    applied = "SELECT app, name FROM django_migrations ORDER BY id"
    assert copy.execute(applied).fetchall() == live.execute(applied).fetchall()
