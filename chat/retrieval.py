"""Retrieval for a chat turn: the session's scope, top-K chunks, ref labels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings

from ingest.search import SearchHit, search_chunks
from llm.prompting import PromptSource

if TYPE_CHECKING:
    from chat.models import ChatSession


@dataclass(frozen=True)
class Retrieved:
    ref: str
    hit: SearchHit

    def prompt_source(self) -> PromptSource:
        chunk = self.hit.chunk
        document = chunk.document
        page = chunk.page_start if document.source_type in {"pdf", "docx"} else None
        location = None
        if page is not None:
            location = (
                f"Page {chunk.page_start}"
                if chunk.page_start == chunk.page_end
                else f"Pages {chunk.page_start}-{chunk.page_end}"
            )
        elif document.source_type == "email":
            meta = document.metadata
            location = (
                f"Email from {meta.get('sender', '?')}, {meta.get('date', '')}".strip(
                    ", "
                )
            )
        return PromptSource(
            ref=self.ref,
            source_type=document.source_type,
            title=document.title,
            page=page,
            text=chunk.content,
            location=location,
            chunk_id=str(chunk.uid),
        )


def retrieve(
    *, session: ChatSession, question: str, k: int | None = None
) -> list[Retrieved]:
    documents = list(session.documents.all())
    hits = search_chunks(
        session.tenant,
        question,
        documents=documents or None,
        collection=session.collection,
        k=k or settings.RETRIEVAL_TOP_K,
    )
    return [Retrieved(ref=f"S{i}", hit=hit) for i, hit in enumerate(hits, start=1)]
