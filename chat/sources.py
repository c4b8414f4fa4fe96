"""A message's sources: the chunks retrieved for it, under ref labels S1, S2, …

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


@dataclass(frozen=True)
class SourceChunk:
    """A retrieved chunk, the document it belongs to, and the file the
    revision's text came from."""

    chunk: DocumentChunk
    document: Document
    file_id: uuid.UUID
    score: float = 0.0


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
                page_start=source.chunk.page_start,
                page_end=source.chunk.page_end,
                start_offset=source.chunk.start_offset,
                end_offset=source.chunk.end_offset,
            )
            for rank, source in enumerate(chunks, start=1)
        ]
    )
