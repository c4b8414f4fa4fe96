"""Files -> documents -> revisions -> chunks.

Offsets everywhere are code-point offsets into a revision's
`normalized_content` (Python slicing; SQL `substr(text, start+1, end-start)`).
"""

from __future__ import annotations

import bisect
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from accounts.models import TenantOwned, optional_link, tenant_id_unique
from ingest import file_types, source_kinds


def _upload_path(instance: File, filename: str) -> str:
    # Server-generated name: the user's filename is data, never a path (SEC-05).
    return f"uploads/{instance.tenant_id}/{instance.sha256[:2]}/{instance.sha256}"


class File(TenantOwned):
    """Uploaded bytes. One row per distinct content per tenant."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    blob = models.FileField(upload_to=_upload_path, max_length=300)
    filename = models.CharField(max_length=255)
    # Other names the same bytes were uploaded under, in order: a second
    # upload of them returns this file's document and its name is kept here
    # (never dropped, never answered silently with the first name). NULL,
    # not a default, so SQLite adds the column without rebuilding `files`.
    also_named = models.JSONField(null=True, blank=True)
    content_type = models.CharField(max_length=200, blank=True)
    size = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    uploaded_by = optional_link(settings.AUTH_USER_MODEL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "files"  # seed 000's message_citations references files(id)
        constraints = [
            # Same bytes in the same tenant are one file (ingestion idempotency).
            models.UniqueConstraint(
                fields=["tenant", "sha256"], name="uniq_file_tenant_sha256"
            ),
            tenant_id_unique(),
        ]

    def __str__(self) -> str:
        return self.filename

    @property
    def filenames(self) -> list[str]:
        """Every name these bytes were uploaded under, the first one first."""
        return [self.filename, *(self.also_named or [])]


class Document(TenantOwned):
    """A file's logical document. Status transitions:

    queued -> processing -> ready | failed; ready -> processing (new revision).
    A document is soft-deleted in normal use so citations keep their history.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        PROCESSING = "processing", "Processing"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    # What the document is: a row of ingest.file_types (how it is recognised,
    # read and located), as TextChoices for the admin, the API and filters.
    SourceType = models.TextChoices(
        "SourceType",
        [(key.upper(), (key, label)) for key, label in file_types.choices()],
    )

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    file = models.ForeignKey(File, on_delete=models.CASCADE, related_name="documents")
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="attachments",
    )
    collections = models.ManyToManyField(
        "accounts.Collection", blank=True, related_name="documents"
    )
    title = models.CharField(max_length=500)
    source_type = models.CharField(
        max_length=16, choices=file_types.choices(), default=file_types.UNKNOWN
    )
    origin_url = models.URLField(max_length=2000, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED
    )
    error = models.TextField(blank=True)
    error_code = models.CharField(max_length=32, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    # Deliveries of the ingest task that started; counted in its own transaction
    # so a worker killed mid-way still counts (CEL-05).
    attempts = models.PositiveSmallIntegerField(default=0)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    current_revision = optional_link("DocumentRevision")
    is_deleted = models.BooleanField(default=False)
    deleted_at = models.DateTimeField(null=True, blank=True)
    uploaded_by = optional_link(settings.AUTH_USER_MODEL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            tenant_id_unique(),
            models.CheckConstraint(
                condition=Q(progress_done__lte=models.F("progress_total"))
                | Q(progress_total=0),
                name="chk_document_progress_le_total",
            ),
        ]
        indexes = [
            # The documents page and the sweeper: a tenant's documents by status.
            models.Index(
                fields=["tenant", "status"], name="idx_document_tenant_status"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_terminal(self) -> bool:
        return self.status in {self.Status.READY, self.Status.FAILED}

    @property
    def progress_percent(self) -> int:
        if self.status == self.Status.READY:
            return 100
        if not self.progress_total:
            return 0
        return min(100, round(100 * self.progress_done / self.progress_total))


class TitleChange(TenantOwned):
    """An audit event: a document's title changed by a person (the documents
    page, the REST API) or by `manage.py retitle` (issue 32)."""

    class Via(models.TextChoices):
        PAGE = "page", "Documents page"
        API = "api", "REST API"
        RETITLE = "retitle", "manage.py retitle"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="title_changes"
    )
    old_title = models.CharField(max_length=500)
    new_title = models.CharField(max_length=500)
    changed_by = optional_link(settings.AUTH_USER_MODEL)
    # Who, as a name that outlives the account: "alice", "API key ci-bot".
    actor = models.CharField(max_length=200, blank=True)
    via = models.CharField(max_length=16, choices=Via.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.old_title} -> {self.new_title}"


class DocumentRevision(TenantOwned):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="revisions"
    )
    number = models.PositiveIntegerField()
    file = models.ForeignKey(File, on_delete=models.CASCADE, related_name="revisions")
    normalized_content = models.TextField()
    # page_starts[p] is the offset where page p+1 begins; page_starts[0] == 0.
    page_starts = models.JSONField(default=list)
    content_sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "number"], name="uniq_revision_document_number"
            ),
            tenant_id_unique("uniq_revision_tenant_id"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id} r{self.number}"

    @property
    def page_count(self) -> int:
        return max(1, len(self.page_starts))

    def page_for_offset(self, offset: int) -> int:
        """1-based page holding `offset`."""
        if not self.page_starts:
            return 1
        return max(1, bisect.bisect_right(self.page_starts, offset))


class DocumentChunk(TenantOwned):
    """A searchable slice; invariant: revision.normalized_content[start:end] == content.

    The integer primary key is the full-text index's rowid (SQLite FTS5 needs a
    stable integer); `uid` is the identifier the API and citations use.
    """

    id = models.BigAutoField(primary_key=True)
    uid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="chunks"
    )
    revision = models.ForeignKey(
        DocumentRevision, on_delete=models.CASCADE, related_name="chunks"
    )
    chunk_index = models.PositiveIntegerField()
    content = models.TextField()
    start_offset = models.PositiveIntegerField()
    end_offset = models.PositiveIntegerField()
    page_start = models.PositiveIntegerField(default=1)
    page_end = models.PositiveIntegerField(default=1)
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["revision", "chunk_index"]
        constraints = [
            models.UniqueConstraint(
                fields=["revision", "chunk_index"], name="uniq_chunk_revision_index"
            ),
            models.CheckConstraint(
                condition=Q(end_offset__gt=models.F("start_offset")),
                name="chk_chunk_offsets",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.chunk_index}"


class ChunkEmbedding(TenantOwned):
    """A chunk's vector from one embedding model (``model``: the embedder's
    name, model and dimension), for dense search (ingest.search).

    ``vector`` is ``dim`` little-endian float32 values of unit length, the same
    bytes on SQLite (BLOB) and PostgreSQL (bytea). A chunk has at most one
    vector per model; search only ever compares vectors of the configured
    model, and ``manage.py reembed`` replaces them after a model change.
    """

    id = models.BigAutoField(primary_key=True)
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    chunk = models.ForeignKey(
        DocumentChunk, on_delete=models.CASCADE, related_name="embeddings"
    )
    model = models.CharField(max_length=200)
    dim = models.PositiveSmallIntegerField()
    vector = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["chunk", "model"], name="uniq_chunk_embedding_model"
            ),
            models.CheckConstraint(
                condition=Q(dim__gt=0), name="chk_chunk_embedding_dim"
            ),
        ]
        indexes = [
            # The search cache: a tenant's vectors of one model, newest last
            # (its version is the highest id).
            models.Index(
                fields=["tenant", "model", "id"], name="idx_embedding_tenant_model"
            ),
            # Scoped search reads one document's vectors.
            models.Index(
                fields=["document", "model"], name="idx_embedding_document_model"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.chunk_id} {self.model}"


class Source(TenantOwned):
    """A connector that produces documents (issue 29): a Slack or Teams export,
    a database table or query, or a web page captured by URL.

    Documents it made are listed in `SourceItem` by the source's own key for
    them (a thread, a row's key, the URL), so a later sync knows which changed
    (a new revision) and which are gone (soft-deleted). Status transitions:
    idle|ready|failed -> queued -> syncing -> ready | failed.
    """

    # The connectors: rows of ingest.source_kinds (the table the sync runs),
    # as TextChoices for the admin, the API schema and filters.
    Kind = models.TextChoices(
        "Kind", [(key.upper(), (key, label)) for key, label in source_kinds.choices()]
    )

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        SYNCING = "syncing", "Syncing"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=8, choices=source_kinds.choices())
    name = models.CharField(max_length=200)
    # The bytes the documents point at: the export uploaded (Slack, Teams), a
    # description of the source (database: never the credentials), the page
    # fetched last (web).
    file = optional_link(File)
    collection = optional_link("accounts.Collection")
    # Web: the address asked for. Database: engine, table or query, columns
    # (ingest.connectors.database.TableSpec as a dict).
    url = models.URLField(max_length=2000, blank=True)
    config = models.JSONField(default=dict, blank=True)
    # Database: the connection URL with its password, Fernet-encrypted
    # (ingest.secrets); shown again only as `connection_display`.
    secret = models.TextField(blank=True)
    connection_display = models.CharField(max_length=500, blank=True)
    # Minutes between scheduled syncs (0: on demand only).
    schedule_minutes = models.PositiveIntegerField(default=0)
    next_sync_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED
    )
    error = models.TextField(blank=True)
    error_code = models.CharField(max_length=32, blank=True)
    # Per-item problems of the last sync that did not stop it (a channel over
    # the limit, a message whose user is unknown): [{"item", "message"}].
    warnings = models.JSONField(default=list, blank=True)
    stats = models.JSONField(default=dict, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    last_synced_at = models.DateTimeField(null=True, blank=True)
    created_by = optional_link(settings.AUTH_USER_MODEL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            tenant_id_unique(),
        ]
        indexes = [
            models.Index(fields=["status", "updated_at"], name="idx_source_status"),
            models.Index(fields=["next_sync_at"], name="idx_source_next_sync"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def progress_percent(self) -> int:
        if self.status == self.Status.READY:
            return 100
        if not self.progress_total:
            return 0
        return min(100, round(100 * self.progress_done / self.progress_total))


class SourceItem(TenantOwned):
    """One document a source made, under the source's key for it: a thread
    (`C024BE91L/1709474520.000100`), a row's key, the URL. `content_sha256`
    is the hash of what the document was made from, so a sync rewrites only
    what changed."""

    id = models.BigAutoField(primary_key=True)
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="items")
    key = models.CharField(max_length=500)
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="source_items"
    )
    content_sha256 = models.CharField(max_length=64)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "key"], name="uniq_source_item_key"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source_id}:{self.key}"
