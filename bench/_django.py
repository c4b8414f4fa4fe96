"""Set Django up for a benchmark on a database of its own (never the app's)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from _common import RESULTS, percentile  # noqa: F401 - shared by every benchmark

ROOT = Path(__file__).resolve().parent.parent
# Where the tests keep their migrated database (conftest.py): VAR_DIR as the
# environment had it when the bench started, before a bench points
# DOCUIQ_VAR_DIR at a temporary directory of its own.
KEPT_DATABASES = Path(os.environ.get("DOCUIQ_VAR_DIR") or ROOT / "var") / "test-db"


def setup(database_url: str | None = None) -> str:
    """Point Django at `database_url` (default: a fresh SQLite file), migrate it."""
    sys.path.insert(0, str(ROOT))
    if database_url is None:
        database_url = (
            f"sqlite:///{tempfile.mkdtemp(prefix='docuiq-bench-')}/bench.sqlite3"
        )
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="docuiq-bench-media-"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "docuiq.settings")
    os.environ.pop("CELERY_BROKER_URL", None)
    import django

    django.setup()
    migrate()
    return database_url


def migrate() -> None:
    """Migrate Django's database (set up already) from the migrated copy the
    test kit keeps (docuiq/testing/dbcache.py: a SQLite file, or a PostgreSQL
    template), or migrate it and keep the copy for the next process:
    migrating takes 7-10 s of CPU, up to a minute on a loaded 2-core machine,
    in every bench process. The schema and rows are those `migrate` makes."""
    from docuiq.testing.dbcache import migrate_kept

    migrate_kept(KEPT_DATABASES)


def reset_postgres(url: str) -> bool:
    """Drop and create the benchmark database; False if PostgreSQL is not reachable."""
    import psycopg

    base, _, name = url.rpartition("/")
    try:
        with psycopg.connect(
            base + "/postgres", autocommit=True, connect_timeout=3
        ) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError:
        return False
    return True
