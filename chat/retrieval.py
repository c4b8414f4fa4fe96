"""Retrieval for a chat turn: the session's scope, top-K chunks, ref labels."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from typing import TYPE_CHECKING

from django.conf import settings

from ingest.search import SearchHit, search_chunks
from llm.prompting import PromptSource

if TYPE_CHECKING:
    from chat.models import ChatSession
    from chat.scope import Scope


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
    *, session: ChatSession, scope: Scope, k: int | None = None
) -> list[Retrieved]:
    """The top-k chunks for a question in its scope, labelled S1, S2, ...

    When the question names or picks several documents (a comparison), each
    gets a fair share of the k places, so one long contract cannot crowd out
    the other."""
    k = k or settings.RETRIEVAL_TOP_K
    documents = scope.documents
    if 2 <= len(documents) <= k:
        share = max(1, k // len(documents))
        per_document = [
            search_chunks(session.tenant, scope.search_text, document=d, k=share)
            for d in documents
        ]
        hits = [hit for rank in zip_longest(*per_document) for hit in rank if hit]
    else:
        hits = search_chunks(
            session.tenant,
            scope.search_text,
            documents=documents or None,
            collection=scope.collection,
            k=k,
        )
    return [Retrieved(ref=f"S{i}", hit=hit) for i, hit in enumerate(hits[:k], start=1)]
