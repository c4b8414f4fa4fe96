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

import json
import logging
import uuid
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from ingest import source_kinds
from ingest.connectors import database as db_connector
from ingest.connectors.items import Item, Warning_
from ingest.connectors.netpolicy import BlockedAddress, resolve_allowed
from ingest.connectors.web import FetchError, check_url
from ingest.models import Document, Source, SourceItem
from ingest.search import refresh_statistics
from ingest.secrets import secret_encrypt
from ingest.source_kinds import database, web
from ingest.source_kinds.base import Plan, SourceError, Synced, address_policy
from ingest.source_kinds.database import database_allowed
from ingest.source_store import (
    Known,
    StoreCounts,
    attachments_store,
    items_soft_delete,
    items_store,
    store_file,
)
from lib.worker.enqueue import send_on_commit
from lib.worker.heartbeat import heartbeat

__all__ = [
    "source_create_database",
    "source_create_export",
    "source_create_web",
    "source_request_sync",
    "source_sync",
    "sources_sweep",
]

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import Collection, Tenant

logger = logging.getLogger(__name__)

BATCH = 200
_COPY_BLOCK = 1024 * 1024


# -- registering -------------------------------------------------------------


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
    if kind not in dict(source_kinds.export_choices()):
        raise SourceError(
            "bad_kind", f"An export is a {source_kinds.export_names(' or a ')} export."
        )
    data = _read_upload(stream)
    if not data:
        raise SourceError("empty", "This file is empty.")
    with tenant_scope(tenant):
        file = store_file(
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
        source = Source.objects.filter(kind=web.KIND.key, url=url).first()
        if source is None:
            source = Source.objects.create(
                tenant=tenant,
                kind=web.KIND.key,
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
        file = store_file(
            tenant=tenant,
            filename=f"{name.strip()[:200]}.json",
            content_type="application/json",
            data=description,
            user=_user(user),
        )
        source = Source.objects.create(
            tenant=tenant,
            kind=database.KIND.key,
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


# -- queueing ------------------------------------------------------------------


def _queue(source: Source) -> None:
    """Queue the sync after commit; a broker outage leaves the source queued
    for the sweeper."""
    from ingest.tasks import sync_source as sync_source_task

    source_id = str(source.pk)

    def sent() -> None:
        with unscoped():
            Source.objects.filter(pk=source_id).update(enqueued_at=timezone.now())

    send_on_commit(sync_source_task, source_id, on_sent=sent)


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


def _run(source: Source) -> Synced:
    kind = source_kinds.kind_of(source.kind)
    if kind is None:
        raise SourceError("bad_kind", f"Unknown source kind {source.kind!r}.")
    return kind.sync(source, _store_plan)


def _store_plan(source: Source, plan: Plan) -> Synced:
    """Write what a connector read: new and changed items in batches, the
    unchanged ones counted, the gone ones it covers soft-deleted."""
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
