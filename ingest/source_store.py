"""Connector items -> documents, many at a time (ingest.sources' writer).

A source's items are our own text (a thread, a row), built and normalized
by ingest.connectors, so they skip extraction: each batch is one
transaction that creates or revises its documents with their revision and
chunks, ready at once. A batch either lands whole or not at all, so a sync
cut short leaves no half-made document, and the next sync finds what is
missing by the items' hashes. Vectors are computed after the commit, in the
embedder's batches (a document without them is still searched by full text,
as for uploads). A changed item is a new revision of the same document, and
its citations are re-verified (`revision_created`, as for a re-upload).

Every document of a source points at the source's file: the export that was
uploaded, or a description of a database source (never its credentials).
"""

from __future__ import annotations

import hashlib
import io
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.files import File as DjangoFile
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from ingest.chunking import chunk_text
from ingest.connectors.items import Item
from ingest.embedding import CHUNK_TEXT_FIELDS, configured_embedder, embed_chunks
from ingest.locations import chunk_segments
from ingest.models import (
    ChunkEmbedding,
    Document,
    DocumentChunk,
    DocumentRevision,
    File,
    Source,
    SourceItem,
)
from ingest.normalize import normalize_pages
from ingest.signals import revision_created
from llm.errors import LLMError

if TYPE_CHECKING:
    from accounts.models import Tenant

__all__ = ["Known", "items_soft_delete", "items_store", "store_file"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Known:
    """What the source made of a key before this sync."""

    item_id: int
    document_id: object
    content_sha256: str
    is_deleted: bool


@dataclass
class StoreCounts:
    created: int = 0
    updated: int = 0

    def add(self, other: StoreCounts) -> None:
        self.created += other.created
        self.updated += other.updated


def items_store(
    *, source: Source, items: list[Item], known: dict[str, Known]
) -> StoreCounts:
    """Create or revise the documents of `items` (new or changed) in one
    transaction; `known` is updated with what was written."""
    counts = StoreCounts()
    if not items:
        return counts
    now = timezone.now()
    prepared = [(item, _content(item)) for item in items]
    new = [(i, c) for i, c in prepared if i.key not in known]
    changed = [(i, c) for i, c in prepared if i.key in known]
    revisions: list[DocumentRevision] = []
    previous_of: dict[object, DocumentRevision | None] = {}
    with transaction.atomic():
        documents = Document.objects.bulk_create(
            [
                Document(
                    tenant_id=source.tenant_id,
                    file_id=source.file_id,
                    title=item.title[:500],
                    source_type=item.source_type,
                    origin_url=item.origin_url[:2000],
                    metadata=item.metadata,
                    status=Document.Status.READY,
                    progress_done=1,
                    progress_total=1,
                    uploaded_by_id=source.created_by_id,
                )
                for item, _ in new
            ],
            batch_size=500,
        )
        by_key = {item.key: doc for (item, _), doc in zip(new, documents, strict=True)}
        if source.collection_id and documents:
            through = Document.collections.through
            through.objects.bulk_create(
                [
                    through(document_id=d.pk, collection_id=source.collection_id)
                    for d in documents
                ],
                batch_size=500,
                ignore_conflicts=True,
            )
        changed_ids = [known[item.key].document_id for item, _ in changed]
        numbers = dict(
            DocumentRevision.objects.filter(document_id__in=changed_ids)
            .values("document_id")
            .annotate(n=Max("number"))
            .values_list("document_id", "n")
        )
        current = {
            d.pk: d
            for d in Document.objects.filter(pk__in=changed_ids).select_related(
                "current_revision"
            )
        }
        for item, (content, sha) in prepared:
            document = by_key.get(item.key) or current[known[item.key].document_id]
            previous_of[document.pk] = (
                None if item.key in by_key else document.current_revision
            )
            revisions.append(
                DocumentRevision(
                    tenant_id=source.tenant_id,
                    document_id=document.pk,
                    number=(numbers.get(document.pk) or 0) + 1,
                    file_id=source.file_id,
                    normalized_content=content.content,
                    page_starts=content.page_starts,
                    content_sha256=sha,
                )
            )
        DocumentRevision.objects.bulk_create(revisions, batch_size=500)
        chunks = []
        for (item, (content, _)), revision in zip(prepared, revisions, strict=True):
            segments = item.segments if content.content == item.text else []
            if item.segments and not segments:
                logger.warning(
                    "source %s item %s: text changed in normalization; no locations",
                    source.pk,
                    item.key,
                )
            for span in chunk_text(
                content.content,
                content.page_starts,
                target_chars=settings.CHUNK_TARGET_CHARS,
                overlap_chars=settings.CHUNK_OVERLAP_CHARS,
            ):
                chunks.append(
                    DocumentChunk(
                        tenant_id=source.tenant_id,
                        document_id=revision.document_id,
                        revision=revision,
                        chunk_index=span.index,
                        content=content.content[span.start : span.end],
                        start_offset=span.start,
                        end_offset=span.end,
                        page_start=span.page_start,
                        page_end=span.page_end,
                        metadata={
                            "segments": chunk_segments(segments, span.start, span.end)
                        }
                        if segments
                        else {},
                    )
                )
        DocumentChunk.objects.bulk_create(chunks, batch_size=500)
        revision_of = {r.document_id: r for r in revisions}
        for document in documents:
            document.current_revision_id = revision_of[document.pk].pk
        Document.objects.bulk_update(documents, ["current_revision_id"], batch_size=500)
        for item, _ in changed:
            entry = known[item.key]
            Document.objects.filter(pk=entry.document_id).update(
                current_revision_id=revision_of[entry.document_id].pk,
                file_id=source.file_id,
                title=item.title[:500],
                metadata=item.metadata,
                origin_url=item.origin_url[:2000],
                status=Document.Status.READY,
                error="",
                error_code="",
                is_deleted=False,
                deleted_at=None,
                updated_at=now,
            )
        SourceItem.objects.bulk_create(
            [
                SourceItem(
                    tenant_id=source.tenant_id,
                    source_id=source.pk,
                    key=item.key,
                    document_id=by_key[item.key].pk,
                    content_sha256=item.content_sha256,
                )
                for item, _ in new
            ],
            batch_size=500,
        )
        for item, _ in changed:
            SourceItem.objects.filter(pk=known[item.key].item_id).update(
                content_sha256=item.content_sha256, updated_at=now
            )
        revised = [
            (
                current[known[item.key].document_id],
                revision_of[known[item.key].document_id],
            )
            for item, _ in changed
        ]
        transaction.on_commit(lambda: _announce(revised, previous_of))
    for item, _ in new:
        known[item.key] = Known(0, by_key[item.key].pk, item.content_sha256, False)
    for item, _ in changed:
        old = known[item.key]
        known[item.key] = Known(
            old.item_id, old.document_id, item.content_sha256, False
        )
    counts.created, counts.updated = len(new), len(changed)
    _embed(revisions)
    return counts


def _content(item: Item):
    text = normalize_pages([item.text])
    return text, hashlib.sha256(text.content.encode()).hexdigest()


def _announce(revised, previous_of) -> None:
    """Citations of a revised document are re-verified against its new text."""
    for document, revision in revised:
        revision_created.send(
            sender=Document,
            document=document,
            revision=revision,
            previous_revision=previous_of.get(document.pk),
        )


def _embed(revisions: list[DocumentRevision]) -> None:
    embedder = configured_embedder()
    if embedder is None or not revisions:
        return
    ids = [r.pk for r in revisions]
    chunks = list(
        DocumentChunk.objects.filter(revision_id__in=ids)
        .order_by("id")
        .values_list(*CHUNK_TEXT_FIELDS, named=True)
    )
    try:
        embed_chunks(chunks, embedder)
    except LLMError as exc:
        logger.warning(
            "%d source documents: no vectors for dense search (%s); `manage.py reembed` computes them later.",
            len(revisions),
            exc,
        )
        return
    # Vectors of the revised documents' older revisions are never searched.
    ChunkEmbedding.objects.filter(
        document_id__in=[r.document_id for r in revisions]
    ).exclude(chunk__revision_id__in=ids).delete()


def items_soft_delete(*, source: Source, document_ids: list) -> int:
    """Documents whose item is gone from the source: soft-deleted, so their
    citations keep their history."""
    if not document_ids:
        return 0
    return Document.objects.filter(pk__in=document_ids, is_deleted=False).update(
        is_deleted=True, deleted_at=timezone.now()
    )


def attachments_store(
    *, source: Source, items: list[Item], known: dict[str, Known]
) -> None:
    """Files that came with items (Slack uploads present in the export):
    children of their document, through the ordinary upload path."""
    from ingest.services import Upload, document_upload

    for item in items:
        if not item.attachments or item.key not in known:
            continue
        parent = Document.objects.filter(pk=known[item.key].document_id).first()
        if parent is None:
            continue
        for attachment in item.attachments:
            document_upload(
                tenant=parent.tenant,
                upload=Upload(
                    filename=attachment.filename,
                    stream=io.BytesIO(attachment.data),
                    content_type=attachment.content_type,
                ),
                user=None,
                parent=parent,
            )


def store_file(
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
