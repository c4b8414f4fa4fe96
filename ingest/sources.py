"""Connector sources (issue 29): register a Slack or Teams export, a
database table or query, or a web page; sync it into documents.

A sync (`source_sync`, the body of the `sync_source` task) claims its source
with a conditional UPDATE (a second delivery finds nothing to claim), renews
a heartbeat while it works, reads the source's items, writes the new and
changed ones in batches (ingest.source_store), soft-deletes the documents
whose item is gone (only where the source says it still covers them: an
export of other dates deletes nothing), and ends ready (with per-part
warnings) or failed with a clear error. Documents written by batches before
a failure are whole and stay; the next sync carries on from their hashes.

A web page is fetched by the sync and then ingested like an upload (its
bytes are the document's file; extraction reads the article in the
sandbox); capturing it again makes a new revision when the page changed.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import uuid
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from django.conf import settings
from django.core.files import File as DjangoFile
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from ingest.connectors import database as db_connector
from ingest.connectors.items import Item, LazyItem, Warning_
from ingest.connectors.netpolicy import AddressPolicy, BlockedAddress, resolve_allowed
from ingest.connectors.slack import ExportError, ExportLimits, read_slack_export
from ingest.connectors.teams import read_teams_export
from ingest.connectors.web import FetchError, FetchLimits, check_url, fetch_page
from ingest.extractors import WEB_CAPTURE_TYPE
from ingest.models import Document, File, Source, SourceItem
from ingest.search import refresh_statistics
from ingest.secrets import SecretUnreadable, secret_decrypt, secret_encrypt
from ingest.source_store import (
    Known,
    StoreCounts,
    attachments_store,
    items_soft_delete,
    items_store,
)
from lib.exceptions import DocuIQError
from lib.worker.heartbeat import heartbeat

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import Collection, Tenant

logger = logging.getLogger(__name__)

BATCH = 200
_COPY_BLOCK = 1024 * 1024


class SourceError(DocuIQError):
    """A source that cannot be registered or read: `code` and a message for
    the person who set it up (the API answers 400 with both)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


def address_policy() -> AddressPolicy:
    return AddressPolicy(
        allow_loopback=settings.CONNECTORS_ALLOW_LOOPBACK,
        allow_private=settings.CONNECTORS_ALLOW_PRIVATE_NETWORKS,
    )


# -- registering -------------------------------------------------------------


def _store_file(
    *, tenant: Tenant, filename: str, content_type: str, data: bytes, user: Any
) -> File:
    """The bytes as a File of the tenant (same bytes: the same File)."""
    sha256 = hashlib.sha256(data).hexdigest()
    existing = File.objects.filter(sha256=sha256).first()
    if existing is not None:
        return existing
    file = File(
        tenant=tenant,
        filename=filename[:255],
        content_type=content_type[:200],
        size=len(data),
        sha256=sha256,
        uploaded_by=user,
    )
    file.blob.save(sha256, DjangoFile(io.BytesIO(data)), save=False)
    file.save()
    return file


def _read_upload(stream: IO[bytes]) -> bytes:
    limit = settings.INGEST_MAX_FILE_BYTES
    data = bytearray()
    while block := stream.read(_COPY_BLOCK):
        data += block
        if len(data) > limit:
            raise SourceError(
                "too_large",
                f"This export is larger than {limit / 1_048_576:.0f} MB, the upload limit.",
            )
    return bytes(data)


def _user(user: Any) -> Any:
    return (
        user
        if (user is not None and getattr(user, "is_authenticated", False))
        else None
    )


@transaction.atomic
def source_create_export(
    *,
    tenant: Tenant,
    kind: str,
    filename: str,
    stream: IO[bytes],
    name: str = "",
    user: AbstractBaseUser | None = None,
    collection: Collection | None = None,
    source: Source | None = None,
) -> Source:
    """Register a Slack or Teams export (or give an existing export source a
    later export) and queue its sync."""
    if kind not in (Source.Kind.SLACK, Source.Kind.TEAMS):
        raise SourceError("bad_kind", "An export is a Slack or a Teams export.")
    data = _read_upload(stream)
    if not data:
        raise SourceError("empty", "This file is empty.")
    with tenant_scope(tenant):
        file = _store_file(
            tenant=tenant,
            filename=filename,
            content_type="application/zip"
            if data[:4] == b"PK\x03\x04"
            else "application/json",
            data=data,
            user=_user(user),
        )
        if source is None:
            source = Source.objects.create(
                tenant=tenant,
                kind=kind,
                name=(name or Path(filename).stem or kind)[:200],
                file=file,
                collection=collection,
                created_by=_user(user),
            )
        else:
            Source.objects.filter(pk=source.pk).update(
                file=file,
                status=Source.Status.QUEUED,
                enqueued_at=None,
                attempts=0,
                updated_at=timezone.now(),
            )
            source.refresh_from_db()
        _queue(source)
    return source


@transaction.atomic
def source_create_web(
    *,
    tenant: Tenant,
    url: str,
    user: AbstractBaseUser | None = None,
    collection: Collection | None = None,
    schedule_minutes: int = 0,
) -> Source:
    """Register a page to capture; refuses at once an address that is not
    http(s), does not resolve, or resolves to a private range. A URL the
    tenant captures already is captured again (a new revision if changed)."""
    url = url.strip()
    try:
        _, host, port = check_url(url)
        resolve_allowed(host, port, address_policy())
    except FetchError as exc:
        raise SourceError(exc.code, exc.message) from exc
    except BlockedAddress as exc:
        raise SourceError(exc.code, exc.message) from exc
    with tenant_scope(tenant):
        source = Source.objects.filter(kind=Source.Kind.WEB, url=url).first()
        if source is None:
            source = Source.objects.create(
                tenant=tenant,
                kind=Source.Kind.WEB,
                name=url[:200],
                url=url,
                collection=collection,
                created_by=_user(user),
                schedule_minutes=schedule_minutes,
            )
        source_request_sync(source=source)
    return source


@transaction.atomic
def source_create_database(
    *,
    tenant: Tenant,
    name: str,
    connection_url: str,
    spec: db_connector.TableSpec,
    user: AbstractBaseUser | None = None,
    collection: Collection | None = None,
    schedule_minutes: int = 0,
) -> Source:
    """Register a read-only table or query; the connection URL (with its
    password) is stored encrypted and never shown again."""
    if not name.strip():
        raise SourceError("bad_spec", "Give the source a name.")
    try:
        connection = db_connector.parse_url(connection_url)
        db_connector.check_spec(spec)
    except db_connector.DatabaseError_ as exc:
        raise SourceError(exc.code, exc.message) from exc
    database_allowed(connection)
    spec = db_connector.TableSpec(
        **{**spec.as_dict(), "label": spec.label or spec.table or name.strip()}
    )
    display = db_connector.redact_url(connection)
    description = json.dumps(
        {
            "kind": "db",
            "name": name.strip(),
            "connection": display,
            "spec": spec.as_dict(),
        },
        sort_keys=True,
    ).encode()
    with tenant_scope(tenant):
        file = _store_file(
            tenant=tenant,
            filename=f"{name.strip()[:200]}.json",
            content_type="application/json",
            data=description,
            user=_user(user),
        )
        source = Source.objects.create(
            tenant=tenant,
            kind=Source.Kind.DATABASE,
            name=name.strip()[:200],
            file=file,
            collection=collection,
            config=spec.as_dict(),
            secret=secret_encrypt(connection_url.strip()),
            connection_display=display,
            schedule_minutes=schedule_minutes,
            created_by=_user(user),
        )
        _queue(source)
    return source


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


# -- queueing ------------------------------------------------------------------


def _queue(source: Source) -> None:
    """Queue the sync after commit; a broker outage leaves the source queued
    for the sweeper."""
    from ingest.tasks import sync_source as sync_source_task

    source_id = str(source.pk)

    def send() -> None:
        try:
            sync_source_task.delay(source_id)
        except Exception:
            if settings.CELERY_TASK_ALWAYS_EAGER:
                raise
            logger.warning(
                "broker unavailable; source %s stays queued for the sweeper", source_id
            )
            return
        with unscoped():
            Source.objects.filter(pk=source_id).update(enqueued_at=timezone.now())

    transaction.on_commit(send)


def source_request_sync(*, source: Source) -> bool:
    """Queue a sync now; False when one is already queued or running."""
    with transaction.atomic():
        updated = (
            Source.objects.filter(pk=source.pk)
            .exclude(status__in=[Source.Status.QUEUED, Source.Status.SYNCING])
            .update(
                status=Source.Status.QUEUED,
                enqueued_at=None,
                attempts=0,
                updated_at=timezone.now(),
            )
        )
        if updated or (
            source.status == Source.Status.QUEUED and source.enqueued_at is None
        ):
            _queue(source)
    source.refresh_from_db()
    return bool(updated)


def sources_sweep() -> int:
    """Queue sources due for their scheduled sync, and syncs whose worker
    vanished (heartbeat older than CONNECTORS_STALE_AFTER_S) or whose message
    was never sent. Run by beat every CELERY_SWEEP_S (lib.worker.beat)."""
    now = timezone.now()
    stale = now - timezone.timedelta(seconds=settings.CONNECTORS_STALE_AFTER_S)
    with unscoped():
        Source.objects.filter(
            status=Source.Status.SYNCING, updated_at__lt=stale
        ).update(status=Source.Status.QUEUED, enqueued_at=None)
        Source.objects.filter(
            status__in=[Source.Status.READY, Source.Status.FAILED],
            schedule_minutes__gt=0,
            next_sync_at__lte=now,
        ).update(status=Source.Status.QUEUED, enqueued_at=None, attempts=0)
        stranded = list(
            Source.objects.filter(status=Source.Status.QUEUED, enqueued_at__isnull=True)
        )
    for source in stranded:
        with transaction.atomic():
            _queue(source)
    return len(stranded)


# -- syncing -------------------------------------------------------------------


@dataclass
class Plan:
    """What a connector read: its items (an iterator), and which keys a
    missing item may be deleted for."""

    items: Iterator[Item | LazyItem]
    covers: Any  # (key) -> bool
    warnings: list[Warning_]
    total: int = 0


def source_sync(*, source_id: uuid.UUID) -> None:
    """Sync one source (the sync_source task body); safe to run any number
    of times."""
    with unscoped():
        source = (
            Source.objects.select_related("tenant", "file").filter(pk=source_id).first()
        )
    if source is None:
        return
    now = timezone.now()
    stale = now - timezone.timedelta(seconds=settings.CONNECTORS_STALE_AFTER_S)
    with unscoped():
        claimed = (
            Source.objects.filter(pk=source.pk)
            .filter(
                Q(status=Source.Status.QUEUED)
                | Q(status=Source.Status.SYNCING, updated_at__lt=stale)
            )
            .update(
                status=Source.Status.SYNCING,
                attempts=F("attempts") + 1,
                progress_done=0,
                progress_total=0,
                error="",
                error_code="",
                updated_at=now,
            )
        )
    if not claimed:
        return
    source.refresh_from_db()
    if source.attempts > settings.INGEST_MAX_ATTEMPTS:
        _finish(
            source,
            error=SourceError(
                "worker_lost", "The sync stopped several times without finishing."
            ),
        )
        return
    with tenant_scope(source.tenant), _heartbeat(source):
        try:
            stats, warnings = _run(source)
        except SourceError as exc:
            _finish(source, error=exc)
            return
        except Exception as exc:
            logger.exception("source %s: sync failed", source.pk)
            _finish(
                source,
                error=SourceError(
                    "sync_failed",
                    f"The sync failed unexpectedly ({type(exc).__name__}).",
                ),
            )
            return
    _finish(source, stats=stats, warnings=warnings)


PROGRESS_EVERY = 100


def _run(source: Source) -> tuple[dict[str, int], list[Warning_]]:
    if source.kind == Source.Kind.WEB:
        return _capture(source)
    plan = _plan(source)
    # Tuples, not model instances: a 100,000-row source's sync reads every
    # key, and building instances cost more than the rest of an unchanged sync.
    known = {
        key: Known(item_id, document_id, sha256, is_deleted)
        for key, item_id, document_id, sha256, is_deleted in SourceItem.objects.filter(
            source=source
        ).values_list(
            "key", "id", "document_id", "content_sha256", "document__is_deleted"
        )
    }
    total = plan.total or len(known)
    # About a hundred progress writes a sync, not one per hundred items.
    every = max(PROGRESS_EVERY, total // 100)
    _progress(source, 0, total)
    seen: set[str] = set()
    counts = StoreCounts()
    unchanged = 0
    batch: list[Item] = []

    def flush() -> None:
        counts.add(items_store(source=source, items=batch, known=known))
        attachments_store(source=source, items=batch, known=known)
        batch.clear()

    for done, item in enumerate(plan.items, start=1):
        if item.key in seen:
            continue
        seen.add(item.key)
        before = known.get(item.key)
        if (
            before is not None
            and before.content_sha256 == item.content_sha256
            and not before.is_deleted
        ):
            unchanged += 1
        elif before is not None and before.content_sha256 == item.content_sha256:
            Document.objects.filter(pk=before.document_id).update(
                is_deleted=False, deleted_at=None
            )
            known[item.key] = Known(
                before.item_id, before.document_id, before.content_sha256, False
            )
            counts.updated += 1
        else:
            batch.append(item.item())
            if len(batch) >= BATCH:
                flush()
        if done % every == 0:
            _progress(source, done, max(total, done))
    flush()
    gone = [
        entry.document_id
        for key, entry in known.items()
        if key not in seen and not entry.is_deleted and plan.covers(key)
    ]
    deleted = items_soft_delete(source=source, document_ids=gone)
    refresh_statistics()
    return (
        {
            "created": counts.created,
            "updated": counts.updated,
            "unchanged": unchanged,
            "deleted": deleted,
            "items": len(seen),
        },
        plan.warnings,
    )


def _plan(source: Source) -> Plan:
    limits = ExportLimits(max_channel_messages=settings.CONNECTORS_MAX_CHANNEL_MESSAGES)
    if source.kind in (Source.Kind.SLACK, Source.Kind.TEAMS):
        if source.file is None:
            raise SourceError("no_export", "This source has no export file.")
        data = source.file.blob.open("rb").read()
        try:
            if source.kind == Source.Kind.SLACK:
                export, items = read_slack_export(
                    data, workspace=source.name, limits=limits
                )
            else:
                export, items = read_teams_export(
                    data,
                    filename=source.file.filename,
                    workspace=source.name,
                    limits=limits,
                )
        except ExportError as exc:
            raise SourceError(exc.code, exc.message) from exc
        return Plan(
            items=_export_items(items),
            covers=export.covers,
            warnings=export.warnings,
            total=0,
        )
    if source.kind == Source.Kind.DATABASE:
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
    raise SourceError("bad_kind", f"Unknown source kind {source.kind!r}.")


def _export_items(items: Iterable[Item]) -> Iterator[Item]:
    try:
        yield from items
    except ExportError as exc:
        raise SourceError(exc.code, exc.message) from exc


def _capture(source: Source) -> tuple[dict[str, int], list[Warning_]]:
    limits = FetchLimits(
        max_bytes=settings.CONNECTORS_FETCH_MAX_BYTES,
        timeout_s=settings.CONNECTORS_FETCH_TIMEOUT_S,
    )
    try:
        fetched = fetch_page(source.url, policy=address_policy(), limits=limits)
    except FetchError as exc:
        raise SourceError(exc.code, exc.message) from exc
    host = fetched.url.split("//", 1)[-1].split("/", 1)[0]
    with transaction.atomic():
        file = _store_file(
            tenant=source.tenant,
            filename=f"{host}.html",
            content_type=WEB_CAPTURE_TYPE,
            data=fetched.content,
            user=source.created_by,
        )
        Source.objects.filter(pk=source.pk).update(file=file)
        item = (
            SourceItem.objects.filter(source=source, key=source.url)
            .select_related("document")
            .first()
        )
        if item is None:
            document = Document.objects.create(
                tenant=source.tenant,
                file=file,
                title=source.url[:500],
                source_type=Document.SourceType.WEB,
                origin_url=fetched.url[:2000],
                metadata={"url": fetched.url, "requested_url": source.url},
                uploaded_by=source.created_by,
            )
            if source.collection_id:
                document.collections.add(source.collection_id)
            SourceItem.objects.create(
                tenant=source.tenant,
                source=source,
                key=source.url,
                document=document,
                content_sha256=file.sha256,
            )
            outcome = "created"
        elif item.content_sha256 == file.sha256 and not item.document.is_deleted:
            return {
                "created": 0,
                "updated": 0,
                "unchanged": 1,
                "deleted": 0,
                "items": 1,
            }, []
        else:
            # The page changed: a new revision of the same document.
            Document.objects.filter(pk=item.document_id).update(
                file=file,
                status=Document.Status.QUEUED,
                error="",
                error_code="",
                attempts=0,
                progress_done=0,
                progress_total=0,
                is_deleted=False,
                deleted_at=None,
                origin_url=fetched.url[:2000],
                updated_at=timezone.now(),
            )
            SourceItem.objects.filter(pk=item.pk).update(content_sha256=file.sha256)
            document = Document.objects.get(pk=item.document_id)
            outcome = "updated"
        from ingest.services import _enqueue

        _enqueue(document)
    return {
        "created": int(outcome == "created"),
        "updated": int(outcome == "updated"),
        "unchanged": 0,
        "deleted": 0,
        "items": 1,
    }, []


def _progress(source: Source, done: int, total: int) -> None:
    Source.objects.filter(pk=source.pk).update(
        progress_done=min(done, total), progress_total=total, updated_at=timezone.now()
    )


def _finish(
    source: Source,
    *,
    stats: dict[str, int] | None = None,
    warnings: list[Warning_] | None = None,
    error: SourceError | None = None,
) -> None:
    now = timezone.now()
    fields: dict[str, Any] = {
        "updated_at": now,
        "last_synced_at": now,
        "next_sync_at": now + timezone.timedelta(minutes=source.schedule_minutes)
        if source.schedule_minutes
        else None,
    }
    if error is not None:
        fields.update(
            status=Source.Status.FAILED,
            error=error.message[:2000],
            error_code=error.code[:32],
        )
    else:
        done = (stats or {}).get("items", 0)
        fields.update(
            status=Source.Status.READY,
            error="",
            error_code="",
            stats=stats or {},
            warnings=[w.as_dict() for w in (warnings or [])][:200],
            progress_done=done,
            progress_total=done,
        )
    with unscoped():
        Source.objects.filter(pk=source.pk).update(**fields)


def _heartbeat(source: Source) -> AbstractContextManager:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return nullcontext()

    def beat() -> None:
        with unscoped():
            Source.objects.filter(pk=source.pk, status=Source.Status.SYNCING).update(
                updated_at=timezone.now()
            )

    return heartbeat(beat, every=settings.INGEST_HEARTBEAT_S)


def source_delete(*, source: Source) -> int:
    """Remove a source and soft-delete its documents (their citations stay)."""
    with transaction.atomic():
        ids = list(
            SourceItem.objects.filter(source=source).values_list(
                "document_id", flat=True
            )
        )
        deleted = items_soft_delete(source=source, document_ids=ids)
        source.delete()
    return deleted
