"""The migrated SQLite test database, kept between runs.

Migrating an empty database takes 20-30 s on a 2-core machine (every
installed app's migrations, most of it Django rebuilding model state); a
copy of the migrated database is loaded into the in-memory test database in
a fraction of a second. The tests still run on the in-memory database Django
makes (same connection sharing, same pragmas): only the migrate step is
replaced by a copy.

A copy is named by a hash of everything that decides the schema: every
installed app's migration files, the project modules those import (the
tenant guards' SQL, the text folding of the full-text index), the models of
apps without migrations, and the Django, SQLite and Python versions. A
changed migration is a new name, so a stale copy is never loaded. A copy is
written whole to a temporary file and then renamed, so a run cut short
leaves none half made and two runs at once (xdist's workers) never read a
partial one. `pytest --create-db` migrates from nothing and writes the copy
anew. PostgreSQL is left to Django: `make test-pg` migrates every run.

The benchmarks' databases are made the same way (`migrate_kept`, called by
bench/_django.py): a SQLite file from the same copy, a PostgreSQL database
from a template database migrated once. Each bench process would otherwise
migrate its own database: 7-10 s of CPU, 25-50 s on a loaded 2-core machine.
"""

from __future__ import annotations

import ast
import fcntl
import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import django
from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.db.backends.sqlite3.creation import DatabaseCreation
from django.db.migrations.loader import MigrationLoader

SUFFIX = ".sqlite3"


def _module_file(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or spec.origin in ("built-in", "frozen"):
        return None
    return Path(spec.origin)


def _outside(name: str, root: Path, seen: dict[str, bool]) -> bool:
    """Is the top-level package of module `name` found on sys.path outside
    `root`? Its submodules live where it does: `_module_file` would import a
    third-party package (the `openai` SDK, ~0.7 s) to find a submodule that
    cannot be the project's. PathFinder searches sys.path alone: it imports
    nothing and does not touch sys.modules, where a lazily imported module
    (llm/lazy.py) would load on the first look at it. Not found there:
    False, and `_module_file` decides as before."""
    top = name.partition(".")[0]
    if top not in seen:
        spec = importlib.machinery.PathFinder.find_spec(top)
        places = []
        if spec is not None:
            places = list(spec.submodule_search_locations or []) or [spec.origin]
        seen[top] = bool(places) and not any(
            place and Path(place).resolve().is_relative_to(root) for place in places
        )
    return seen[top]


def _project_file(path: Path | None, root: Path) -> Path | None:
    """`path` if it is one of the project's own source files (not the venv's)."""
    if path is None or not path.is_relative_to(root):
        return None
    if any(part.startswith(".") for part in path.relative_to(root).parts):
        return None
    return path


def _imported_names(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            # `from package import module` imports a module too.
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def schema_sources(root: Path | None = None) -> list[Path]:
    """Every file whose content decides the migrated schema, sorted.

    Each installed app's migration package (or, for an app without
    migrations, its models module), and, followed through their imports,
    the project's own modules the migrations use.
    """
    root = (root or Path(settings.BASE_DIR)).resolve()
    files: set[Path] = set()
    for config in apps.get_app_configs():
        module_name, _explicit = MigrationLoader.migrations_module(config.label)
        package = _module_file(module_name) if module_name else None
        if package is not None and package.name == "__init__.py":
            files.update(package.parent.glob("*.py"))
        elif config.models_module is not None:
            models_file = getattr(config.models_module, "__file__", None)
            if models_file:
                files.add(Path(models_file))
    pending = sorted(files)
    outside: dict[str, bool] = {}
    while pending:
        source = pending.pop()
        for name in _imported_names(source.read_text(encoding="utf-8")):
            if _outside(name, root, outside):
                continue
            found = _project_file(_module_file(name), root)
            if found is not None and found not in files:
                files.add(found)
                pending.append(found)
    return sorted(path.resolve() for path in files)


def schema_key(sources: list[Path]) -> str:
    """The name of the copy migrated from `sources` (a hash of their bytes)."""
    digest = hashlib.sha256()
    versions = (django.get_version(), sqlite3.sqlite_version, platform.python_version())
    digest.update(repr(versions).encode())
    digest.update(Path(__file__).read_bytes())
    for path in sources:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def current_key() -> str:
    """The key of the schema this checkout's migrations make."""
    return schema_key(schema_sources())


def _kept_copy(directory: Path) -> Path:
    """Where the migrated copy of the current schema is kept in `directory`."""
    return directory / f"{current_key()}{SUFFIX}"


def save(connection: sqlite3.Connection, path: Path) -> None:
    """Write the database behind `connection` to `path`, whole or not at all,
    and remove the copies of earlier schemas beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    target = sqlite3.connect(temporary)
    try:
        connection.backup(target)
        # A bench's file database is in WAL mode and the backup copies that
        # flag: a copy in WAL mode leaves -wal and -shm files beside it once
        # read. The copy is only ever read whole, so a plain journal.
        target.execute("PRAGMA journal_mode=DELETE")
    finally:
        target.close()
    temporary.replace(path)
    for old in path.parent.glob(f"*{SUFFIX}"):
        if old != path:
            old.unlink(missing_ok=True)


def load(path: Path, connection: sqlite3.Connection) -> None:
    """Copy the database at `path` into `connection`'s database."""
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        source.backup(connection)
    finally:
        source.close()


@contextmanager
def _lock(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def cached_migrations(directory: Path, *, rebuild: bool = False) -> Iterator[None]:
    """While open, SQLite's in-memory test database is made from the copy in
    `directory` when there is one for the current schema; otherwise Django
    migrates it as usual and the result is saved there. `rebuild` ignores
    (and replaces) an existing copy."""
    original = DatabaseCreation.create_test_db

    def create_test_db(
        self: DatabaseCreation,
        verbosity: int = 1,
        autoclobber: bool = False,
        serialize: bool = True,
        keepdb: bool = False,
    ) -> str:
        name = self._get_test_db_name()
        migrating = self.connection.settings_dict["TEST"].get("MIGRATE", True)
        if keepdb or not migrating or not self.is_in_memory_db(name):
            return original(self, verbosity, autoclobber, serialize, keepdb)
        path = _kept_copy(directory)
        if rebuild or not path.is_file():
            # One process migrates while the others (xdist's workers) wait
            # for its copy rather than migrate beside it on the same cores.
            with _lock(directory):
                if rebuild or not path.is_file():
                    name = original(self, verbosity, autoclobber, serialize, keepdb)
                    self.connection.ensure_connection()
                    save(self.connection.connection, path)
                    return name
        # What create_test_db does, with the copy in place of `migrate`
        # (the copy was saved after migrate and createcachetable).
        if verbosity >= 1:
            self.log(f"Loading the migrated test database from {path}...")
        self.connection.close()
        settings.DATABASES[self.connection.alias]["NAME"] = name
        self.connection.settings_dict["NAME"] = name
        self.connection.ensure_connection()
        load(path, self.connection.connection)
        if serialize:
            self.connection._test_serialized_contents = self.serialize_db_to_string()
        return name

    with mock.patch.object(DatabaseCreation, "create_test_db", create_test_db):
        yield


def migrate_kept(directory: Path, alias: str = "default") -> bool:
    """Migrate the database `alias` names from a migrated copy kept for the
    current schema (True), or with `migrate`, keeping a copy for the next
    process (False). Only an empty database is made so; one with tables is
    migrated in place (False), its rows kept.

    A SQLite file is loaded from the copy in `directory`, the one the tests
    load. A PostgreSQL database is created from a template database migrated
    once (`TEMPLATE_PREFIX` and the schema's key), the template of an earlier
    schema dropped. An in-memory SQLite database is migrated as usual.
    """
    connection = connections[alias]
    in_memory = connection.vendor == "sqlite" and connection.is_in_memory_db()
    # Only an empty database is replaced: one with tables (a database the
    # caller chose, its rows kept) is migrated in place, as before.
    if (
        connection.vendor not in ("sqlite", "postgresql")
        or in_memory
        or connection.introspection.table_names()
    ):
        call_command("migrate", database=alias, verbosity=0)
        return False
    if connection.vendor == "postgresql":
        return _migrate_postgres(directory, alias)
    path = _kept_copy(directory)
    if not path.is_file():
        with _lock(directory):
            if not path.is_file():
                # As create_test_db makes the tests' database (run_syncdb, the
                # cache table): a copy saved here serves the tests too.
                call_command("migrate", database=alias, run_syncdb=True, verbosity=0)
                call_command("createcachetable", database=alias, verbosity=0)
                connection.ensure_connection()
                save(connection.connection, path)
                return False
    connection.ensure_connection()
    load(path, connection.connection)
    return True


TEMPLATE_PREFIX = "docuiq_migrated_"


def _migrate_postgres(directory: Path, alias: str) -> bool:
    import psycopg

    connection = connections[alias]
    name = connection.settings_dict["NAME"]
    template = f"{TEMPLATE_PREFIX}{current_key()}"
    params = connection.get_connection_params()
    params["dbname"] = "postgres"
    # One process makes the template while the others wait for it; the lock
    # is this checkout's, so another checkout's run can still race this one:
    # then the database is migrated as usual.
    with _lock(directory):
        connection.close()
        try:
            with psycopg.connect(**params, autocommit=True) as admin:
                found = admin.execute(
                    "SELECT 1 FROM pg_database WHERE datname = %s", [template]
                ).fetchone()
                if found:
                    admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
                    try:
                        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
                        return True
                    except psycopg.Error:
                        # Being dropped by another checkout: an empty one,
                        # migrated below.
                        admin.execute(f'CREATE DATABASE "{name}"')
        except psycopg.Error:
            pass
        call_command("migrate", database=alias, verbosity=0)
        connection.close()
        try:
            with psycopg.connect(**params, autocommit=True) as admin:
                older = admin.execute(
                    "SELECT datname FROM pg_database WHERE datname LIKE %s",
                    [TEMPLATE_PREFIX + "%"],
                ).fetchall()
                for (old,) in older:
                    admin.execute(f'ALTER DATABASE "{old}" IS_TEMPLATE false')
                    admin.execute(f'DROP DATABASE IF EXISTS "{old}"')
                admin.execute(f'CREATE DATABASE "{template}" TEMPLATE "{name}"')
                # No connections to a template (autovacuum's included): a
                # database being read cannot be copied.
                admin.execute(
                    f'ALTER DATABASE "{template}" IS_TEMPLATE true ALLOW_CONNECTIONS false'
                )
        except psycopg.Error:
            pass
        return False
