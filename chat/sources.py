"""A message's sources: what the model was given, under ref labels S1, S2, …

A source is a span of a revision's text: a retrieved chunk, or a section a
model read whole (`ingest.sections`; the span is the section's and the chunk
the one holding its first character).

Chat answers, tabular cells and resolved citations all record what a model
(or an agent) was given the same way, so verification finds the cited chunk
and the others of the same answer whatever made the message.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from chat.models import Message, MessageSource
from ingest.models import Document, DocumentChunk
from ingest.sections import Span


@dataclass(frozen=True)
class SourceChunk:
    """A retrieved chunk, the document it belongs to, and the file the
    revision's text came from; `span` when the source is wider than the chunk
    (a section read whole), else the chunk's own."""

    chunk: DocumentChunk
    document: Document
    file_id: uuid.UUID
    score: float = 0.0
    span: Span | None = None

    @property
    def where(self) -> Span:
        if self.span is not None:
            return self.span
        c = self.chunk
        return Span(c.start_offset, c.end_offset, c.page_start, c.page_end)


def message_sources_create(
    *, message: Message, chunks: Sequence[SourceChunk]
) -> list[MessageSource]:
    """Store the chunks as the message's sources, ranked and labelled in order
    (the first is S1). Snapshots (title, offsets, pages) survive the chunk."""
    return MessageSource.objects.bulk_create(
        [
            MessageSource(
                message=message,
                tenant_id=message.tenant_id,
                ref_label=f"S{rank}",
                rank=rank,
                score=source.score,
                chunk=source.chunk,
                chunk_uid=source.chunk.uid,
                chunk_index=source.chunk.chunk_index,
                document=source.document,
                revision_id=source.chunk.revision_id,
                file_id=source.file_id,
                document_title=source.document.title[:500],
                source_type=source.document.source_type,
                page_start=source.where.page_start,
                page_end=source.where.page_end,
                start_offset=source.where.start,
                end_offset=source.where.end,
            )
            for rank, source in enumerate(chunks, start=1)
        ]
    )
