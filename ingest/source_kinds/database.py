"""A read-only table or query (ingest.connectors.database reads it): one
document per row. The connection URL is stored encrypted; every sync reads
every row, so a row not read is gone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings

from ingest.connectors import database as db_connector
from ingest.connectors.items import LazyItem
from ingest.connectors.netpolicy import AddressPolicy, BlockedAddress, resolve_allowed
from ingest.secrets import SecretUnreadable, secret_decrypt
from ingest.source_kinds.base import Plan, SourceError, SourceKind, address_policy

if TYPE_CHECKING:
    from ingest.models import Source


class Database(SourceKind):
    def plan(self, source: Source) -> Plan:
        try:
            url = secret_decrypt(source.secret)
        except SecretUnreadable as exc:
            raise SourceError("secret_unreadable", str(exc)) from exc
        try:
            connection = db_connector.parse_url(url)
        except db_connector.DatabaseError_ as exc:
            raise SourceError(exc.code, exc.message) from exc
        database_allowed(connection)
        spec = db_connector.TableSpec.from_dict(source.config)
        rows = db_connector.read_rows(
            connection, spec, timeout_s=settings.CONNECTORS_QUERY_TIMEOUT_S
        )

        def items() -> Iterator[LazyItem]:
            try:
                for row in rows:
                    yield db_connector.row_lazy_item(spec, row, source_name=source.name)
            except db_connector.DatabaseError_ as exc:
                raise SourceError(exc.code, exc.message) from exc

        # Every row is read each time: a row not read is gone.
        return Plan(items=items(), covers=lambda key: True, warnings=[])


KIND = Database("db", "Database")


def database_allowed(connection: db_connector.Connection) -> None:
    """Refuse a database the server must not read for a tenant: the app's
    own, a SQLite file outside CONNECTORS_SQLITE_DIRS, a host in a private
    range (SSRF)."""
    own = settings.DATABASES["default"]
    if connection.engine == "sqlite":
        path = Path(connection.path).resolve()
        roots = [Path(d).resolve() for d in settings.CONNECTORS_SQLITE_DIRS if d]
        if not any(path.is_relative_to(root) for root in roots):
            raise SourceError(
                "blocked_path",
                "SQLite files can be read only from the folders the server allows "
                "(CONNECTORS_SQLITE_DIRS)" + ("; none is set." if not roots else "."),
            )
        if (
            own["ENGINE"].endswith("sqlite3")
            and Path(str(own["NAME"])).resolve() == path
        ):
            raise SourceError("blocked_path", "This is DocuIQ's own database.")
        return
    try:
        address = resolve_allowed(connection.host, connection.port, address_policy())
    except BlockedAddress as exc:
        raise SourceError(exc.code, exc.message) from exc
    if own["ENGINE"].endswith("postgresql") and connection.database == own["NAME"]:
        own_address = resolve_allowed(
            own.get("HOST") or "127.0.0.1",
            int(own.get("PORT") or 5432),
            AddressPolicy(True, True),
        )
        if own_address == address and int(own.get("PORT") or 5432) == connection.port:
            raise SourceError("blocked_address", "This is DocuIQ's own database.")
