"""Ingestion: uploads become files and documents; a task turns them into
revisions and searchable chunks.

Contract of `document_process` (the task body): safe to run any number of
times for one document. A second run after success is a no-op; a run after a
killed worker redoes the extraction and writes one revision; past
INGEST_MAX_ATTEMPTS deliveries the document is failed instead of looping.
"""

from __future__ import annotations

import hashlib
import io
import logging
import tempfile
import uuid
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from django.conf import settings
from django.core.files import File as DjangoFile
from django.db import transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from ingest.chunking import chunk_text
from ingest.embedding import embed_revision, vectors_missing
from ingest.errors import ExtractionError
from ingest.extractors import Extracted
from ingest.limits import Limits
from ingest.models import Document, DocumentChunk, DocumentRevision, File
from ingest.normalize import normalize_pages
from ingest.sandbox import extract_in_child
from ingest.search import refresh_statistics
from ingest.signals import revision_created
from ingest.titling import revision_title
from lib.worker.broker import broker_lost_since_last_look
from lib.worker.enqueue import send, send_on_commit
from lib.worker.heartbeat import heartbeat

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import Collection, Tenant

logger = logging.getLogger(__name__)

# A ready document's error_code while its vectors are still coming.
VECTORS_PENDING = "vectors_pending"
VECTORS_PER_SWEEP = 20
_COPY_BLOCK = 1024 * 1024


@dataclass(frozen=True)
class Upload:
    """What the caller uploads: a name, a type and a readable stream."""

    filename: str
    stream: IO[bytes]
    content_type: str = ""
    origin_url: str = ""


def ingest_limits() -> Limits:
    return Limits(
        max_file_bytes=settings.INGEST_MAX_FILE_BYTES,
        max_pages=settings.INGEST_MAX_PAGES,
        timeout_s=settings.INGEST_TIME_LIMIT_S,
        memory_bytes=settings.INGEST_MEMORY_LIMIT_BYTES,
    )


def _safe_filename(name: str) -> str:
    base = Path(name.replace("\\", "/")).name.replace("\x00", "").strip()
    return base[:255] or "untitled"


def _spool(
    stream: IO[bytes], limit: int
) -> tuple[tempfile.SpooledTemporaryFile, str, int, bool]:
    """Copy the upload once, hashing it; stop storing past `limit` bytes."""
    spool = tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024)  # noqa: SIM115
    digest = hashlib.sha256()
    size = 0
    too_large = False
    while block := stream.read(_COPY_BLOCK):
        size += len(block)
        digest.update(block)
        if size > limit:
            too_large = True
            continue  # keep hashing to report the size, store nothing more
        spool.write(block)
    spool.seek(0)
    return spool, digest.hexdigest(), size, too_large


def _new_revision_queued(document_id: object, file: File, **also: object) -> None:
    """A document's changed content: its file is the new one and it is queued
    to be read again from the start (ingestion makes the new revision);
    `also` are further fields to set (a restored page, its new URL)."""
    Document.objects.filter(pk=document_id).update(
        file=file,
        status=Document.Status.QUEUED,
        error="",
        error_code="",
        attempts=0,
        progress_done=0,
        progress_total=0,
        updated_at=timezone.now(),
        **also,
    )


def _enqueue(document: Document) -> None:
    """Queue ingestion after commit; a broker outage leaves the row queued for
    the sweeper instead of failing the upload (CEL-07)."""
    from ingest.tasks import ingest_document as ingest_document_task

    doc_id = str(document.pk)

    def sent() -> None:
        with unscoped():
            Document.objects.filter(pk=doc_id).update(enqueued_at=timezone.now())

    send_on_commit(ingest_document_task, doc_id, on_sent=sent)


@dataclass(frozen=True)
class UploadResult:
    """What one uploaded file became.

    `outcome` is one of:
    - "created": a new document;
    - "revision": new bytes under the name of a live document, which gets a
      new revision;
    - "duplicate": the tenant has these bytes already; `document` is the one
      that holds them and its file now lists `uploaded_as` among its names;
    - "failed": refused before ingestion (too large), with the reason.
    """

    document: Document
    outcome: str
    uploaded_as: str


def document_upload(
    *,
    tenant: Tenant,
    upload: Upload,
    user: AbstractBaseUser | None = None,
    collection: Collection | None = None,
    parent: Document | None = None,
) -> Document:
    """Store an upload and queue its ingestion; returns its document (see
    `document_upload_result` for what became of it)."""
    return document_upload_result(
        tenant=tenant, upload=upload, user=user, collection=collection, parent=parent
    ).document


@transaction.atomic
def document_upload_result(
    *,
    tenant: Tenant,
    upload: Upload,
    user: AbstractBaseUser | None = None,
    collection: Collection | None = None,
    parent: Document | None = None,
) -> UploadResult:
    """Store an upload and queue its ingestion.

    Bytes are stored once per tenant. Same bytes as an existing document
    return that document (restored if it was deleted), and the upload's name
    joins its file's names. An email attachment is always a child of its
    email: bytes the tenant has already make a new child pointing at the
    stored file. A file whose name matches a live top-level document becomes
    that document's new revision. An oversized file becomes a failed
    document without its bytes being kept.
    """
    limits = ingest_limits()
    filename = _safe_filename(upload.filename)
    spool, sha256, size, too_large = _spool(upload.stream, limits.max_file_bytes)
    user = user if (user is not None and user.is_authenticated) else None
    with tenant_scope(tenant):
        if too_large:
            failed = _failed_document(
                tenant=tenant,
                filename=filename,
                content_type=upload.content_type,
                sha256=sha256,
                size=size,
                user=user,
                parent=parent,
                code="too_large",
                message=(
                    f"{filename} is {size / 1_048_576:.1f} MB; the limit is "
                    f"{limits.max_file_bytes / 1_048_576:.0f} MB."
                ),
            )
            return UploadResult(failed, "failed", filename)
        existing_file = File.objects.filter(sha256=sha256).first()
        if existing_file is not None and parent is not None:
            return _attachment_of_stored_bytes(
                parent=parent, file=existing_file, filename=filename, user=user
            )
        if existing_file is not None:
            document = existing_file.documents.order_by("created_at").first()
            if document is not None:
                if document.is_deleted:
                    Document.objects.filter(pk=document.pk).update(
                        is_deleted=False, deleted_at=None
                    )
                    document.refresh_from_db()
                if collection is not None:
                    document.collections.add(collection)
                _name_also(existing_file, filename)
                document.file.refresh_from_db()
                return UploadResult(document, "duplicate", filename)
        file = existing_file or File(
            tenant=tenant,
            filename=filename,
            content_type=upload.content_type[:200],
            size=size,
            sha256=sha256,
            uploaded_by=user,
        )
        if existing_file is None:
            file.blob.save(sha256, DjangoFile(spool), save=False)
            file.save()
        previous = None
        if parent is None:
            previous = (
                Document.objects.filter(
                    file__filename=filename, parent__isnull=True, is_deleted=False
                )
                .order_by("-created_at")
                .first()
            )
        if previous is not None:
            # Changed content under the same name: a new revision of that document.
            _new_revision_queued(previous.pk, file)
            previous.refresh_from_db()
            document = previous
        else:
            document = Document.objects.create(
                tenant=tenant,
                file=file,
                parent=parent,
                title=filename,
                origin_url=upload.origin_url[:2000],
                uploaded_by=user,
            )
        if collection is not None:
            document.collections.add(collection)
        _enqueue(document)
        return UploadResult(
            document, "revision" if previous is not None else "created", filename
        )


def _name_also(file: File, filename: str) -> None:
    """Add `filename` to the names of `file` (row-locked: two uploads of the
    same bytes at once both keep their name)."""
    locked = File.objects.select_for_update().get(pk=file.pk)
    if filename in locked.filenames:
        return
    File.objects.filter(pk=file.pk).update(
        also_named=[*(locked.also_named or []), filename]
    )


def _attachment_of_stored_bytes(
    *, parent: Document, file: File, filename: str, user: AbstractBaseUser | None
) -> UploadResult:
    """An attachment whose bytes the tenant has already: a child of this
    email pointing at the stored file (bytes kept once), never dropped. A
    redelivered email finds its child again."""
    child = parent.attachments.filter(file=file).order_by("created_at").first()
    if child is not None:
        _name_also(file, filename)
        return UploadResult(child, "duplicate", filename)
    _name_also(file, filename)
    child = Document.objects.create(
        tenant=parent.tenant,
        file=file,
        parent=parent,
        title=filename,
        uploaded_by=user,
    )
    _enqueue(child)
    return UploadResult(child, "created", filename)


def _failed_document(
    *,
    tenant: Tenant,
    filename: str,
    content_type: str,
    sha256: str,
    size: int,
    user: AbstractBaseUser | None,
    parent: Document | None,
    code: str,
    message: str,
) -> Document:
    file = File.objects.filter(sha256=sha256).first() or File.objects.create(
        tenant=tenant,
        filename=filename,
        content_type=content_type[:200],
        size=size,
        sha256=sha256,
        uploaded_by=user,
    )
    return Document.objects.create(
        tenant=tenant,
        file=file,
        parent=parent,
        title=filename,
        status=Document.Status.FAILED,
        error=message,
        error_code=code,
        uploaded_by=user,
    )


def _fail(document: Document, *, code: str, message: str) -> None:
    Document.objects.filter(pk=document.pk).update(
        status=Document.Status.FAILED,
        error=message,
        error_code=code,
        updated_at=timezone.now(),
    )


def document_process(*, document_id: uuid.UUID) -> None:
    """Extract, normalize, chunk and index one document (the ingest task body)."""
    with unscoped():
        document = (
            Document.objects.select_related("tenant", "file", "current_revision")
            .filter(pk=document_id)
            .first()
        )
    if document is None or document.is_deleted:
        return  # deleted since it was queued: nothing to do
    with tenant_scope(document.tenant):
        current = document.current_revision
        if (
            document.status == Document.Status.READY
            and current
            and current.file_id == document.file_id
        ):
            # An earlier delivery finished the work, perhaps all but the
            # vectors (the embedding server was down).
            embed_revision(current)
            Document.objects.filter(pk=document.pk).update(
                error_code=_vectors_code(current), updated_at=timezone.now()
            )
            return
        if document.status == Document.Status.FAILED:
            return
        # Claim this delivery with a conditional UPDATE: a queued document, or
        # one whose worker died (its heartbeat stopped). A second message for
        # a document another delivery is working on (the sweeper's and the
        # broker's redelivery both come back) finds nothing to claim. The
        # count is written before any work, in its own transaction: a worker
        # killed below still leaves it behind (CEL-05).
        now = timezone.now()
        stale = now - timezone.timedelta(seconds=settings.INGEST_STALE_AFTER_S)
        claimed = (
            Document.objects.filter(pk=document.pk, is_deleted=False)
            .filter(
                Q(status=Document.Status.QUEUED)
                | Q(status=Document.Status.PROCESSING, updated_at__lt=stale)
            )
            .update(
                attempts=F("attempts") + 1,
                status=Document.Status.PROCESSING,
                updated_at=now,
            )
        )
        if not claimed:
            return
        document.refresh_from_db()
        if document.attempts > settings.INGEST_MAX_ATTEMPTS:
            _fail(
                document,
                code="worker_lost",
                message=(
                    f"Processing stopped {document.attempts - 1} times without finishing "
                    "(the file may be too large or too complex)."
                ),
            )
            return
        with _heartbeat(document):
            try:
                extracted = _extract(document)
            except ExtractionError as exc:
                _fail(document, code=exc.code, message=exc.message)
                return
            _store_revision(document, extracted)


def _heartbeat(document: Document) -> AbstractContextManager:
    """While a worker processes `document`, its `updated_at` is renewed every
    INGEST_HEARTBEAT_S: a document processing with an older one lost its
    worker, and `documents_sweep` queues it again (CEL-04). Eager Celery runs
    in the caller's process: nothing to lose, no thread."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return nullcontext()

    def beat() -> None:
        with unscoped():
            Document.objects.filter(
                pk=document.pk, status=Document.Status.PROCESSING
            ).update(updated_at=timezone.now())

    return heartbeat(beat, every=settings.INGEST_HEARTBEAT_S)


def _extract(document: Document) -> Extracted:
    last_write = [0.0]

    def on_progress(done: int, total: int) -> None:
        now = timezone.now().timestamp()
        # Throttled: a 2,000-page PDF must not mean 2,000 UPDATEs.
        if done < total and now - last_write[0] < 0.5:
            return
        last_write[0] = now
        Document.objects.filter(pk=document.pk).update(
            progress_done=min(done, total), progress_total=total
        )

    return extract_in_child(
        Path(document.file.blob.path),
        filename=document.file.filename,
        content_type=document.file.content_type or None,
        limits=ingest_limits(),
        on_progress=on_progress,
    )


def _store_revision(document: Document, extracted: Extracted) -> None:
    text = normalize_pages(extracted.pages)
    if not text.content.strip():
        _fail(
            document,
            code="no_text",
            message="No text could be extracted from this file.",
        )
        return
    content_sha = hashlib.sha256(text.content.encode()).hexdigest()
    previous = document.current_revision
    title, metadata = revision_title(
        document,
        (extracted.title or document.title).strip()[:500] or document.title,
        extracted.metadata,
    )
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(pk=document.pk)
        if previous is not None and previous.content_sha256 == content_sha:
            revision = previous  # same text, different bytes: no new revision
            DocumentRevision.objects.filter(pk=previous.pk).update(file=document.file)
        else:
            number = (locked.revisions.aggregate(n=Max("number"))["n"] or 0) + 1
            revision = DocumentRevision.objects.create(
                tenant=document.tenant,
                document=document,
                number=number,
                file=document.file,
                normalized_content=text.content,
                page_starts=text.page_starts,
                content_sha256=content_sha,
            )
            spans = chunk_text(
                text.content,
                text.page_starts,
                target_chars=settings.CHUNK_TARGET_CHARS,
                overlap_chars=settings.CHUNK_OVERLAP_CHARS,
            )
            DocumentChunk.objects.bulk_create(
                [
                    DocumentChunk(
                        tenant=document.tenant,
                        document=document,
                        revision=revision,
                        chunk_index=span.index,
                        content=text.content[span.start : span.end],
                        start_offset=span.start,
                        end_offset=span.end,
                        page_start=span.page_start,
                        page_end=span.page_end,
                    )
                    for span in spans
                ],
                batch_size=500,
            )
        pages = len(text.page_starts)
        # Still processing: ready once its vectors and attachments are stored
        # too (below). A worker lost in between leaves a stale heartbeat, and
        # the sweep's redelivery finishes the document (same text: the same
        # revision, only missing vectors, attachments stored once).
        Document.objects.filter(pk=document.pk).update(
            current_revision=revision,
            error="",
            error_code="",
            title=title,
            source_type=extracted.source_type,
            origin_url=(extracted.origin_url or document.origin_url or "")[:2000],
            metadata=metadata,
            progress_done=pages,
            progress_total=pages,
            updated_at=timezone.now(),
        )
        if revision is not previous:
            transaction.on_commit(
                lambda: revision_created.send(
                    sender=Document,
                    document=document,
                    revision=revision,
                    previous_revision=previous,
                )
            )
    refresh_statistics()
    # After the commit. A slow or broken embedding server stores no vectors
    # (logged; `manage.py reembed` computes them later): the document is then
    # searched by full text.
    embed_revision(revision)
    _store_attachments(document, extracted)
    Document.objects.filter(pk=document.pk, status=Document.Status.PROCESSING).update(
        status=Document.Status.READY,
        error_code=_vectors_code(revision),
        updated_at=timezone.now(),
    )


def _vectors_code(revision: DocumentRevision) -> str:
    """A ready document says when its vectors are still coming
    (VECTORS_PENDING: searched by full text meanwhile); documents_sweep
    gives it another delivery, which stores them."""
    return VECTORS_PENDING if vectors_missing(revision) else ""


def _store_attachments(document: Document, extracted: Extracted) -> None:
    for attachment in extracted.attachments:
        document_upload(
            tenant=document.tenant,
            upload=Upload(
                filename=attachment.filename,
                stream=io.BytesIO(attachment.data),
                content_type=attachment.content_type,
            ),
            user=document.uploaded_by,
            parent=document,
        )
    for filename, message in extracted.attachment_errors:
        if document.attachments.filter(
            title=_safe_filename(filename), status=Document.Status.FAILED
        ).exists():
            continue  # idempotent on redelivery
        Document.objects.create(
            tenant=document.tenant,
            file=document.file,
            parent=document,
            title=_safe_filename(filename),
            status=Document.Status.FAILED,
            error=message,
            error_code="attachment_refused",
            uploaded_by=document.uploaded_by,
        )


def document_soft_delete(*, document: Document) -> None:
    Document.objects.filter(pk=document.pk).update(
        is_deleted=True, deleted_at=timezone.now()
    )
    document.refresh_from_db()


def documents_sweep() -> int:
    """Queue again every document whose message is gone; returns how many.

    Run by beat every CELERY_SWEEP_S (lib.worker.beat). A document is stranded
    when
    - it was never sent: the broker was down at upload (CEL-07);
    - its worker died: processing, heartbeat older than INGEST_STALE_AFTER_S
      (CEL-04; the broker would give the message back only after its
      visibility timeout);
    - the broker lost its queues: restarted without persistence (CEL-06,
      lib.worker.broker);
    - it has waited longer than the broker keeps any message (a fallback
      for brokers that cannot say whether they lost anything).
    Each step is one conditional UPDATE, so concurrent sweepers agree; a
    message sent twice is harmless (document_process claims its document).
    """
    now = timezone.now()
    seconds = timezone.timedelta
    with unscoped():
        live = Document.objects.filter(is_deleted=False)
        live.filter(
            status=Document.Status.PROCESSING,
            updated_at__lt=now - seconds(seconds=settings.INGEST_STALE_AFTER_S),
        ).update(status=Document.Status.QUEUED, enqueued_at=None)
        if broker_lost_since_last_look("documents"):
            live.filter(status=Document.Status.QUEUED, enqueued_at__lt=now).update(
                enqueued_at=None
            )
        live.filter(
            status=Document.Status.QUEUED,
            enqueued_at__lt=now - seconds(seconds=settings.INGEST_REQUEUE_AFTER_S),
        ).update(enqueued_at=None)
        # An upload of this very moment may be sent twice: harmless.
        stranded = list(
            live.filter(status=Document.Status.QUEUED, enqueued_at__isnull=True)
        )
        # Ready, searched by full text, vectors still coming: one delivery
        # each INGEST_VECTORS_RETRY_S (the touch below spaces them out).
        no_vectors = list(
            live.filter(
                status=Document.Status.READY,
                error_code=VECTORS_PENDING,
                updated_at__lt=now - seconds(seconds=settings.INGEST_VECTORS_RETRY_S),
            ).values_list("pk", flat=True)[:VECTORS_PER_SWEEP]
        )
        Document.objects.filter(pk__in=no_vectors).update(updated_at=now)
    for document in stranded:
        with transaction.atomic():
            _enqueue(document)
    from ingest.tasks import ingest_document as ingest_document_task

    for pk in no_vectors:
        if not send(ingest_document_task, str(pk)):
            break
    return len(stranded) + len(no_vectors)
