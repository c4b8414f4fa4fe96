"""Database rows as documents: a read-only connection to PostgreSQL or
SQLite, a table or one SELECT, a key column, the text columns and a title
column. Each row is one document whose text holds the chosen columns, each
under its name; each column's block is a segment naming `column`, so a
citation says "contracts · row 1182 · notice_period".

Reading only, three ways over: the statement must be a single SELECT (parsed
with sqlparse, Django's own SQL parser); the session itself is read-only
(PostgreSQL `default_transaction_read_only`, SQLite `mode=ro` and
`PRAGMA query_only`); and a statement timeout ends a slow query.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import sqlparse

from ingest.connectors.items import Item, LazyItem, TextBuilder
from lib.exceptions import CodedError

__all__ = [
    "DatabaseError_",
    "TableSpec",
    "check_select",
    "parse_url",
    "read_rows",
    "redact_url",
    "row_item",
]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$")
MAX_CELL_CHARS = 200_000
FETCH = 1000


class DatabaseError_(CodedError):
    """A source that cannot be read: `code` and a message for the admin."""


@dataclass(frozen=True)
class Connection:
    engine: str  # "postgresql" | "sqlite"
    host: str = ""
    port: int = 5432
    database: str = ""
    user: str = ""
    password: str = field(default="", repr=False)
    path: str = ""  # SQLite


@dataclass(frozen=True)
class TableSpec:
    key_column: str
    text_columns: list[str]
    table: str = ""
    query: str = ""
    title_column: str = ""
    label: str = ""  # what a location names: the table, or the source's name

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableSpec:
        return cls(
            key_column=str(data.get("key_column", "")),
            text_columns=[str(c) for c in data.get("text_columns") or []],
            table=str(data.get("table", "")),
            query=str(data.get("query", "")),
            title_column=str(data.get("title_column", "")),
            label=str(data.get("label", "")),
        )


def parse_url(url: str) -> Connection:
    """`postgres://user:password@host:5432/db` or `sqlite:////abs/path.db`."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme in {"postgres", "postgresql"}:
        if not parts.hostname or not parts.path.strip("/"):
            raise DatabaseError_(
                "bad_connection",
                "A PostgreSQL address needs a host and a database: postgres://user:password@host:5432/name.",
            )
        try:
            port = parts.port or 5432
        except ValueError as exc:
            raise DatabaseError_("bad_connection", "The port is not a number.") from exc
        return Connection(
            engine="postgresql",
            host=parts.hostname,
            port=port,
            database=unquote(parts.path.lstrip("/")),
            user=unquote(parts.username or ""),
            password=unquote(parts.password or ""),
        )
    if scheme == "sqlite":
        # sqlite:////abs/path.db (SQLAlchemy's form) and sqlite:///abs/path.db
        path = unquote(parts.netloc + parts.path)
        path = "/" + path.lstrip("/") if path.startswith("/") else path
        if not path.startswith("/"):
            raise DatabaseError_(
                "bad_connection",
                "A SQLite address needs an absolute path: sqlite:////data/crm.db.",
            )
        return Connection(engine="sqlite", path=path)
    raise DatabaseError_(
        "bad_connection",
        "Only PostgreSQL (postgres://…) and SQLite (sqlite:////path) sources are supported.",
    )


def redact_url(connection: Connection) -> str:
    """The address without its password, as the page shows it again."""
    if connection.engine == "sqlite":
        return f"sqlite:///{connection.path}"
    user = f"{connection.user}@" if connection.user else ""
    return f"postgres://{user}{connection.host}:{connection.port}/{connection.database}"


def check_identifier(name: str, what: str) -> str:
    if not _IDENTIFIER.match(name or ""):
        raise DatabaseError_(
            "bad_spec",
            f"The {what} {name!r} is not a plain column or table name (letters, digits, _).",
        )
    return name


def check_select(query: str) -> str:
    """The query, if it is exactly one SELECT (a WITH … SELECT too)."""
    statements = [
        s
        for s in sqlparse.parse(query or "")
        if s.token_first(skip_cm=True) is not None
    ]
    if len(statements) != 1:
        raise DatabaseError_(
            "not_select",
            "The query must be exactly one SELECT statement"
            + (" (it holds several)." if len(statements) > 1 else "."),
        )
    statement = statements[0]
    if statement.get_type() != "SELECT":
        raise DatabaseError_(
            "not_select",
            f"Only SELECT statements are run; this is a {statement.get_type().lower() or 'statement of unknown kind'}.",
        )
    upper = {
        t.normalized
        for t in statement.flatten()
        if t.ttype in sqlparse.tokens.Keyword.DML
    }
    if upper - {"SELECT"}:
        raise DatabaseError_(
            "not_select",
            f"The query may not contain {', '.join(sorted(upper - {'SELECT'}))}.",
        )
    return str(statement).strip().rstrip(";").strip()


def check_spec(spec: TableSpec) -> None:
    if bool(spec.table) == bool(spec.query):
        raise DatabaseError_("bad_spec", "Give either a table or a query, not both.")
    if spec.table:
        for part in spec.table.split(".", 1):
            check_identifier(part, "table")
    else:
        check_select(spec.query)
    check_identifier(spec.key_column, "key column")
    if not spec.text_columns:
        raise DatabaseError_("bad_spec", "Choose at least one text column.")
    for column in spec.text_columns:
        check_identifier(column, "text column")
    if spec.title_column:
        check_identifier(spec.title_column, "title column")


def _statement(spec: TableSpec, engine: str) -> str:
    columns = list(
        dict.fromkeys(
            [
                spec.key_column,
                *spec.text_columns,
                *([spec.title_column] if spec.title_column else []),
            ]
        )
    )
    if spec.table:
        table = ".".join(f'"{p}"' for p in spec.table.split(".", 1))
        return f"SELECT {', '.join(_quote(c) for c in columns)} FROM {table}"
    return check_select(spec.query)


def _quote(name: str) -> str:
    return f'"{name}"'


@dataclass(frozen=True)
class Row:
    key: str
    values: dict[str, Any]


def read_rows(
    connection: Connection,
    spec: TableSpec,
    *,
    timeout_s: float,
    connect_timeout_s: float = 10.0,
) -> Iterator[Row]:
    """Every row of the table or query, streamed. Raises DatabaseError_ with
    a clear code: login_refused, unreachable, timeout, bad_spec (a column or
    table that is not there), duplicate_key, read_only (a write refused)."""
    check_spec(spec)
    statement = _statement(spec, connection.engine)
    if connection.engine == "sqlite":
        yield from _sqlite_rows(connection, spec, statement, timeout_s)
    else:
        yield from _postgres_rows(
            connection, spec, statement, timeout_s, connect_timeout_s
        )


def _rows_from(
    cursor: Any, spec: TableSpec, names: list[str], before_fetch: Any = None
) -> Iterator[Row]:
    missing = [
        c
        for c in {spec.key_column, *spec.text_columns, spec.title_column} - {""}
        if c not in names
    ]
    if missing:
        raise DatabaseError_(
            "bad_spec",
            f"The result has no column {', '.join(sorted(missing))}; it has {', '.join(names[:30])}.",
        )
    index = {name: i for i, name in enumerate(names)}
    seen: set[str] = set()
    while True:
        if before_fetch is not None:
            before_fetch()
        batch = cursor.fetchmany(FETCH)
        if not batch:
            break
        for raw in batch:
            key = _text(raw[index[spec.key_column]])
            if not key:
                continue  # a row without a key cannot be followed across syncs
            if key in seen:
                raise DatabaseError_(
                    "duplicate_key",
                    f"The key column {spec.key_column} holds {key!r} twice; it must be unique.",
                )
            seen.add(key)
            yield Row(key=key, values={name: raw[i] for name, i in index.items()})


def _sqlite_rows(
    connection: Connection, spec: TableSpec, statement: str, timeout_s: float
) -> Iterator[Row]:
    try:
        db = sqlite3.connect(
            f"file:{quote(connection.path)}?mode=ro", uri=True, timeout=5.0
        )
    except sqlite3.Error as exc:
        raise DatabaseError_(
            "unreachable", f"The SQLite file could not be opened: {exc}."
        ) from exc
    # The limit is on the database's work for each fetch (as PostgreSQL's
    # statement_timeout is on each FETCH of the cursor), not on the time we
    # spend with the rows in between.
    deadline = [time.monotonic() + timeout_s]

    def restart() -> None:
        deadline[0] = time.monotonic() + timeout_s

    try:
        db.execute("PRAGMA query_only = ON")
        db.set_progress_handler(lambda: int(time.monotonic() > deadline[0]), 10_000)
        cursor = db.execute(statement)
        names = [d[0] for d in cursor.description or []]
        yield from _rows_from(cursor, spec, names, restart)
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "interrupted" in text:
            raise DatabaseError_(
                "timeout",
                f"The query took longer than {timeout_s:g} s and was stopped.",
            ) from exc
        if "unable to open" in text or "not a database" in text:
            raise DatabaseError_(
                "unreachable", f"The SQLite file could not be read: {text}."
            ) from exc
        if "readonly" in text or "read-only" in text:
            raise DatabaseError_(
                "read_only", "The statement tried to write; sources are read only."
            ) from exc
        raise DatabaseError_(
            "bad_spec", f"The database refused the query: {text}."
        ) from exc
    except sqlite3.DatabaseError as exc:
        raise DatabaseError_(
            "unreachable", f"The SQLite file could not be read: {exc}."
        ) from exc
    finally:
        db.close()


def _postgres_rows(
    connection: Connection,
    spec: TableSpec,
    statement: str,
    timeout_s: float,
    connect_timeout_s: float,
) -> Iterator[Row]:
    import psycopg

    try:
        db = psycopg.connect(
            host=connection.host,
            port=connection.port,
            dbname=connection.database,
            user=connection.user or None,
            password=connection.password or None,
            connect_timeout=max(1, round(connect_timeout_s)),
            options=f"-c default_transaction_read_only=on -c statement_timeout={int(timeout_s * 1000)}",
            application_name="docuiq-source-sync",
            autocommit=False,
        )
    except psycopg.OperationalError as exc:
        text = str(exc)
        if (
            "password" in text
            or "authentication" in text
            or "role" in text
            or "permission" in text
        ):
            raise DatabaseError_(
                "login_refused", "The database refused the login (user or password)."
            ) from exc
        if "does not exist" in text:
            raise DatabaseError_(
                "login_refused",
                "The database refused the login: the database does not exist.",
            ) from exc
        raise DatabaseError_(
            "unreachable", "The database could not be reached (host, port or network)."
        ) from exc
    try:
        with db.transaction():
            db.execute("SET TRANSACTION READ ONLY")
            with db.cursor(name="docuiq_source_rows") as cursor:
                cursor.itersize = FETCH
                cursor.execute(statement)
                names = [d.name for d in cursor.description or []]
                yield from _rows_from(cursor, spec, names)
    except psycopg.errors.QueryCanceled as exc:
        raise DatabaseError_(
            "timeout", f"The query took longer than {timeout_s:g} s and was stopped."
        ) from exc
    except psycopg.errors.ReadOnlySqlTransaction as exc:
        raise DatabaseError_(
            "read_only", "The statement tried to write; sources are read only."
        ) from exc
    except psycopg.errors.InsufficientPrivilege as exc:
        raise DatabaseError_(
            "login_refused", "The database user may not read this table."
        ) from exc
    except psycopg.Error as exc:
        raise DatabaseError_(
            "bad_spec", f"The database refused the query: {str(exc).splitlines()[0]}."
        ) from exc
    finally:
        db.close()


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "replace")[:MAX_CELL_CHARS]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)[:MAX_CELL_CHARS]


# Part of every row's fingerprint: a change to how a row becomes a document
# (row_item) must change it, so every row is built again once.
ROW_FORMAT = 1


def row_fingerprint(spec: TableSpec, row: Row, *, source_name: str) -> str:
    """What decides whether a row's document changed: the row's title and
    text values and how they are read (the spec, the source's name)."""
    columns = [spec.title_column, *spec.text_columns]
    payload = json.dumps(
        [
            ROW_FORMAT,
            source_name,
            spec.label,
            spec.table,
            spec.key_column,
            columns,
            row.key,
            [_text(row.values.get(c)) if c else "" for c in columns],
        ],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def row_lazy_item(spec: TableSpec, row: Row, *, source_name: str) -> LazyItem:
    """A row by its key and fingerprint; its document is built on demand."""
    fingerprint = row_fingerprint(spec, row, source_name=source_name)
    key = row.key[:500]

    def build() -> Item:
        item = row_item(spec, row, source_name=source_name)
        item.fingerprint = fingerprint
        return item

    return LazyItem(key=key, content_sha256=fingerprint, build=build)


def row_item(spec: TableSpec, row: Row, *, source_name: str) -> Item:
    """A row as a document: its title, then each text column under its name."""
    label = spec.label or spec.table or source_name
    title_value = _text(row.values.get(spec.title_column)) if spec.title_column else ""
    title = " ".join(title_value.split())[:300] or f"{label} · row {row.key}"
    builder = TextBuilder()
    for column in spec.text_columns:
        value = _text(row.values.get(column))
        if not value.strip():
            continue
        builder.add(f"{column}:\n{value}", {"column": column})
    if not builder.segments:
        builder.add(
            f"(row {row.key} has no text in {', '.join(spec.text_columns)})",
            {"column": spec.key_column},
        )
    return Item(
        key=row.key[:500],
        title=title,
        source_type="db",
        text=builder.text(),
        segments=builder.segments,
        metadata={"table": label, "row_id": row.key, "source": source_name},
    )
