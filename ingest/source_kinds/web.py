"""A web page captured by URL (ingest.connectors.web fetches it, refusing
private addresses): the sync fetches the page and ingests it like an upload;
a page that changed becomes a new revision of the same document."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction

from ingest.connectors.web import FetchError, FetchLimits, fetch_page
from ingest.source_kinds.base import (
    Plan,
    SourceError,
    SourceKind,
    Synced,
    address_policy,
)

if TYPE_CHECKING:
    from ingest.models import Source


class Web(SourceKind):
    def sync(self, source: Source, store: Callable[[Source, Plan], Synced]) -> Synced:
        return _capture(source)


KIND = Web("web", "Web page")


def _capture(source: Source) -> Synced:
    # Models are imported here: ingest.models derives its choices from the
    # table this module is a row of.
    from ingest.extractors import WEB_CAPTURE_TYPE
    from ingest.models import Document, Source, SourceItem
    from ingest.services import _enqueue, _new_revision_queued
    from ingest.source_store import store_file

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
        file = store_file(
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
            _new_revision_queued(
                item.document_id,
                file,
                is_deleted=False,
                deleted_at=None,
                origin_url=fetched.url[:2000],
            )
            SourceItem.objects.filter(pk=item.pk).update(content_sha256=file.sha256)
            document = Document.objects.get(pk=item.document_id)
            outcome = "updated"
        _enqueue(document)
    return {
        "created": int(outcome == "created"),
        "updated": int(outcome == "updated"),
        "unchanged": 0,
        "deleted": 0,
        "items": 1,
    }, []
