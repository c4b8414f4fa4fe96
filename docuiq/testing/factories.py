"""Build rows for tests without running extraction: a document from plain text
(optionally split into pages), chunked the way ingestion chunks it."""

from __future__ import annotations

import hashlib
import uuid

from django.core.files.base import ContentFile

from accounts.scoping import tenant_scope
from ingest.chunking import chunk_text
from ingest.models import Document, DocumentChunk, DocumentRevision, File
from ingest.normalize import normalize_pages


def make_document(
    tenant,
    pages: str | list[str],
    *,
    title: str = "Test document",
    source_type: str = "text",
    metadata: dict | None = None,
    target_chars: int = 1200,
) -> Document:
    pages = [pages] if isinstance(pages, str) else pages
    text = normalize_pages(pages)
    raw = text.content.encode()
    sha = hashlib.sha256(raw + uuid.uuid4().bytes).hexdigest()
    with tenant_scope(tenant):
        file = File(
            tenant=tenant,
            filename=f"{title}.txt",
            content_type="text/plain",
            size=len(raw),
            sha256=sha,
        )
        file.blob.save(sha, ContentFile(raw), save=False)
        file.save()
        document = Document.objects.create(
            tenant=tenant,
            file=file,
            title=title,
            source_type=source_type,
            metadata=metadata or {},
            status=Document.Status.READY,
            progress_done=len(pages),
            progress_total=len(pages),
        )
        revision = DocumentRevision.objects.create(
            tenant=tenant,
            document=document,
            number=1,
            file=file,
            normalized_content=text.content,
            page_starts=text.page_starts,
            content_sha256=hashlib.sha256(raw).hexdigest(),
        )
        DocumentChunk.objects.bulk_create(
            [
                DocumentChunk(
                    tenant=tenant,
                    document=document,
                    revision=revision,
                    chunk_index=s.index,
                    content=text.content[s.start : s.end],
                    start_offset=s.start,
                    end_offset=s.end,
                    page_start=s.page_start,
                    page_end=s.page_end,
                )
                for s in chunk_text(
                    text.content,
                    text.page_starts,
                    target_chars=target_chars,
                    overlap_chars=0,
                )
            ]
        )
        Document.objects.filter(pk=document.pk).update(current_revision=revision)
        document.refresh_from_db()
    return document
