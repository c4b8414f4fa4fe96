"""Retrieval for a chat turn: the session's scope, top-K chunks, ref labels."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from typing import TYPE_CHECKING

from django.conf import settings

from chat.sources import SourceChunk
from citations.values import value_kind
from ingest import file_types
from ingest.search import SearchHit, search_chunks
from ingest.search.rerank import build_query
from ingest.search.within import retrieve as within
from llm.prompting import PromptSource

if TYPE_CHECKING:
    from chat.models import ChatSession
    from chat.scope import Scope


@dataclass(frozen=True)
class Retrieved:
    ref: str
    hit: SearchHit

    @property
    def document(self):
        return self.hit.chunk.document

    @property
    def text(self) -> str:
        return self.hit.chunk.content

    def source_chunk(self) -> SourceChunk:
        chunk = self.hit.chunk
        return SourceChunk(
            chunk=chunk,
            document=chunk.document,
            file_id=chunk.document.file_id,  # the current revision's file
            score=self.hit.score,
        )

    def prompt_source(self) -> PromptSource:
        chunk = self.hit.chunk
        document = chunk.document
        page = (
            chunk.page_start
            if document.source_type in file_types.paged_types()
            else None
        )
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
            source_label=file_types.prompt_label(document.source_type),
            title=document.title,
            page=page,
            text=chunk.content,
            location=location,
            chunk_id=str(chunk.uid),
        )


# Up to this many chosen or named documents are searched one by one, inside
# each document with the re-ranker (ingest.search.within); more, or none, go
# through the tenant-wide search.
WITHIN_DOCUMENTS = 8


def retrieve(
    *, session: ChatSession, scope: Scope, k: int | None = None
) -> list[Retrieved]:
    """The top-k chunks for a question in its scope, labelled S1, S2, ...

    A question about one or a few documents is searched inside each of them
    (full-text candidates re-ranked with the legal thesaurus, a date question
    preferring passages with dates); several documents (a comparison) each
    get a fair share of the k places, so one long contract cannot crowd out
    the other. Other questions use the tenant-wide hybrid search."""
    k = k or settings.RETRIEVAL_TOP_K
    documents = scope.documents
    chosen = scope.kind in {"chosen", "mentioned", "session"}
    if chosen and not documents and scope.collection is None:
        return []  # the chosen documents are gone: search nothing else
    if documents and len(documents) <= WITHIN_DOCUMENTS:
        query = build_query(
            question=scope.search_text,
            kind=QUERY_KINDS.get(value_kind(scope.search_text), "text"),
        )
        share = max(1, k // len(documents))
        per_document = []
        for document in documents:
            found = within(
                session.tenant, document, query, k=share if len(documents) > 1 else k
            )
            for chunk in found.chunks:
                chunk.document = document  # loaded already: no query per chunk
            per_document.append(
                [
                    SearchHit(chunk=c, score=s, rank=i)
                    for i, (c, s) in enumerate(
                        zip(
                            found.chunks,
                            found.scores or [0.0] * len(found.chunks),
                            strict=False,
                        ),
                        start=1,
                    )
                ]
            )
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


# What a question asks for -> the re-ranker's type bonus.
QUERY_KINDS = {"date": "date", "money": "money"}
