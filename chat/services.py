"""Chat: ask a question, retrieve, call the model, store the answer with its
citations, and queue their verification.

The model call happens outside any transaction (it can take many seconds);
the assistant message, its sources and its citations are stored in one
transaction, and verification is queued on commit (CEL-08, DAT-05).
A model that is down or answers garbage leaves a failed assistant message
with a clear error: the question is kept and can be asked again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

from django.db import transaction

from chat.models import ChatSession, Message
from chat.payload import build_payload
from chat.retrieval import Retrieved, retrieve
from chat.scope import Scope, choice_of, name_texts, scope_for
from chat.sources import SourceChunk, message_sources_create
from citations.extraction import extract_citations
from citations.relevance import Relevance, RelevanceJudge
from citations.services import citations_rate, citations_record
from ingest.search import query_terms
from ingest.search.within import term_weights, written_in
from llm.configured import provider
from llm.errors import LLMError
from llm.extractive import terms
from llm.prompting import NO_ANSWER
from llm.types import ChatMessage, Completion

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import Collection, Tenant
    from ingest.models import Document

HISTORY_MESSAGES = 4
NO_SOURCES_ANSWER = (
    "I could not find anything about this in your documents, so I cannot answer "
    "with a citation. Try other words, or check that the documents are uploaded and ready."
)


def session_create(
    *,
    tenant: Tenant,
    user: AbstractBaseUser | None,
    title: str = "",
    collection: Collection | None = None,
    documents: Sequence[Document] = (),
) -> ChatSession:
    session = ChatSession.objects.create(
        tenant=tenant,
        user=user if user is not None and user.is_authenticated else None,
        title=title[:200],
        collection=collection,
    )
    if documents:
        session.documents.set(documents)
    return session


def session_scope_set(
    *,
    session: ChatSession,
    documents: Sequence[Document],
    collection: Collection | None,
) -> None:
    """Change what the chat searches from its next question on."""
    session.documents.set(documents)
    if session.collection_id != (collection.pk if collection else None):
        session.collection = collection
        session.save(update_fields=["collection", "updated_at"])


@dataclass
class Turn:
    """A question in flight: its stored user message, what it searches and
    what was retrieved."""

    session: ChatSession
    question: Message
    scope: Scope
    retrieved: list[Retrieved]

    @property
    def prompt_sources(self):
        return [r.prompt_source() for r in self.retrieved]

    @cached_property
    def judge(self) -> RelevanceJudge:
        """Rates passages against the question less the words that named
        documents and the words of the searched documents' own names (they
        name, they do not say what to find), its words weighted by their
        rarity in the documents the passages come from."""
        documents = {
            r.hit.chunk.document_id: r.hit.chunk.document for r in self.retrieved
        }
        searched = list(documents.values())
        return RelevanceJudge(
            self.scope.search_text,
            weights=term_weights(searched, self.scope.search_text),
            written=written_in(searched),
            names=name_texts(searched),
        )

    def rate(self, passage: str) -> Relevance:
        return self.judge.rate(passage)


def question_store(
    *, session: ChatSession, question: str, choice: dict | None = None
) -> Message:
    """Store a question; `choice` is its own scope (document_ids,
    collection_id, or all), overriding the chat's for this question."""
    question = question.strip()[:4000]
    message = Message.objects.create(
        tenant_id=session.tenant_id,
        session=session,
        role=Message.Role.USER,
        content=question,
        payload={"scope": choice} if choice else {},
    )
    if not session.title:
        ChatSession.objects.filter(pk=session.pk).update(title=question[:80])
    return message


def turn_for(*, question: Message) -> Turn:
    session = question.session
    scope = scope_for(
        session=session, question=question.content, choice=choice_of(question)
    )
    return Turn(
        session=session,
        question=question,
        scope=scope,
        retrieved=retrieve(session=session, scope=scope),
    )


def turn_start(
    *, session: ChatSession, question: str, choice: dict | None = None
) -> Turn:
    return turn_for(
        question=question_store(session=session, question=question, choice=choice)
    )


def _history(turn: Turn) -> list[ChatMessage]:
    earlier = (
        Message.objects.filter(session=turn.session, status=Message.Status.COMPLETE)
        .exclude(pk=turn.question.pk)
        .order_by("-created_at")[:HISTORY_MESSAGES]
    )
    return [
        ChatMessage(
            role="user" if m.role == Message.Role.USER else "assistant",
            content=m.content,
        )
        for m in reversed(list(earlier))
        if m.role in {Message.Role.USER, Message.Role.ASSISTANT}
    ]


def turn_finish(*, turn: Turn, completion: Completion) -> Message:
    """Store the answer, its sources and its citations; queue verification."""
    from citations.tasks import (
        verify_message_citations as verify_message_citations_task,
    )

    known = [r.ref for r in turn.retrieved]
    extraction = extract_citations(completion.text, known_refs=known)
    searched = searched_for(turn)
    not_found = is_not_found(extraction)
    if not_found:
        unmentioned = unmentioned_words(turn)
        if unmentioned:
            searched["unmentioned"] = unmentioned
        extraction = replace(
            extraction,
            answer=f"{extraction.answer.rstrip()}\n\n{searched_line(searched)}",
        )
    with transaction.atomic():
        message = Message.objects.create(
            tenant_id=turn.session.tenant_id,
            session=turn.session,
            role=Message.Role.ASSISTANT,
            reply_to=turn.question,
            content=extraction.answer,
            model_name=completion.model[:200],
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
        )
        sources = message_sources_create(
            message=message,
            chunks=[
                SourceChunk(
                    chunk=r.hit.chunk,
                    document=r.hit.chunk.document,
                    file_id=r.hit.chunk.document.file_id,  # the current revision's file
                    score=r.hit.score,
                )
                for r in turn.retrieved
            ],
        )
        recorded = citations_record(
            message=message, candidates=extraction.candidates, sources=sources
        )
        citations_rate(
            citations=recorded.citations,
            rate=turn.rate,
            asked_documents=_asked_documents(turn),
        )
        message.payload = build_payload(
            question=turn.question.content,
            extraction=extraction,
            sources=sources,
            chunk_texts={r.ref: r.hit.chunk.content for r in turn.retrieved},
            metadata={r.ref: r.hit.chunk.document.metadata for r in turn.retrieved},
            citations=recorded.citations,
            unsourced=recorded.unsourced,
            model=completion.model,
            searched=searched,
            not_found=not_found,
        )
        message.save(update_fields=["payload"])
        message_id = str(message.pk)
        if recorded.citations:
            transaction.on_commit(
                lambda: verify_message_citations_task.delay(message_id)
            )
    return message


def turn_fail(*, turn: Turn, error: str) -> Message:
    return Message.objects.create(
        tenant_id=turn.session.tenant_id,
        session=turn.session,
        role=Message.Role.ASSISTANT,
        reply_to=turn.question,
        status=Message.Status.FAILED,
        error=error[:2000],
        payload={"question": turn.question.content, "answer": "", "citations": []},
    )


def _no_sources_completion() -> Completion:
    return Completion(
        text=NO_SOURCES_ANSWER,
        model="none",
        prompt_tokens=0,
        completion_tokens=0,
        finish_reason="stop",
        latency_s=0.0,
    )


def message_ask(
    *, session: ChatSession, question: str, choice: dict | None = None
) -> Message:
    """Ask and answer in one call (the API, the CLI, pages without JS)."""
    return turn_answer(
        turn=turn_start(session=session, question=question, choice=choice)
    )


def turn_answer(*, turn: Turn) -> Message:
    """Answer a stored question without streaming; a model failure is stored
    as a failed answer."""
    if not turn.retrieved:
        return turn_finish(turn=turn, completion=_no_sources_completion())
    try:
        completion = provider().answer(
            turn.question.content,
            turn.prompt_sources,
            history=_history(turn),
            rate=turn.rate,
        )
    except LLMError as exc:
        return turn_fail(turn=turn, error=str(exc))
    return turn_finish(turn=turn, completion=completion)


def message_stream(*, turn: Turn) -> Iterator[str | Message]:
    """Yield the answer's text deltas as the model writes them, then the stored
    assistant Message (or a failed one)."""
    if not turn.retrieved:
        completion = _no_sources_completion()
        yield completion.text
        yield turn_finish(turn=turn, completion=completion)
        return
    try:
        stream = provider().stream_answer(
            turn.question.content,
            turn.prompt_sources,
            history=_history(turn),
            rate=turn.rate,
        )
        with stream:
            yield from stream
        completion = stream.completion
    except LLMError as exc:
        yield turn_fail(turn=turn, error=str(exc))
        return
    if completion is None:
        yield turn_fail(
            turn=turn, error="The model stopped before finishing its answer."
        )
        return
    yield turn_finish(turn=turn, completion=completion)


def _asked_documents(turn: Turn) -> set | None:
    """The documents the question is about, when it names or mentions some:
    a citation from another document is marked as such."""
    if turn.scope.kind in {"named", "mentioned"}:
        return {d.pk for d in turn.scope.documents}
    return None


def searched_for(turn: Turn) -> dict:
    """What a turn searched: the scope and the search terms."""
    return {**turn.scope.describe(), "terms": query_terms(turn.scope.search_text)}


def searched_line(searched: dict) -> str:
    """ "Searched: <titles> for: <terms>." said with a "not found"."""
    titles = [d["title"] for d in searched.get("documents", [])]
    if titles:
        where = ", ".join(f'"{t}"' for t in titles[:8])
        if len(titles) > 8:
            where += f" and {len(titles) - 8} more"
    elif searched.get("collection"):
        where = f'the collection "{searched["collection"]["name"]}"'
    else:
        where = "all your documents"
    terms = ", ".join(searched.get("terms", [])[:12])
    line = f"Searched: {where}" + (f" for: {terms}." if terms else ".")
    unmentioned = searched.get("unmentioned") or []
    if unmentioned:
        line += f" They never mention: {', '.join(unmentioned[:8])}."
    return line


def unmentioned_words(turn: Turn) -> list[str]:
    """The question's words, as the user wrote them, that the searched
    documents never write in any form (what makes them silent: "Singapore"
    in contracts that never name it). Tells "exists nowhere" apart from
    "not said here"."""
    unwritten = set(turn.judge.unwritten)
    if not unwritten:
        return []
    found: list[str] = []
    for word in _WORD_RE.findall(turn.scope.search_text):
        if any(stem in unwritten for stem in terms(word)) and word not in found:
            found.append(word)
    return found


_WORD_RE = re.compile(r"\w[\w'-]*")


def is_not_found(extraction) -> bool:
    """The answer says the documents are silent (no citation made)."""
    answer = extraction.answer.strip()
    return not extraction.candidates and (
        answer.startswith(NO_ANSWER[:40]) or answer.startswith(NO_SOURCES_ANSWER[:40])
    )


def message_retry(*, failed: Message) -> Turn:
    """Forget a failed answer so its question can be answered again."""
    question = failed.reply_to
    Message.objects.filter(pk=failed.pk, status=Message.Status.FAILED).delete()
    return turn_for(question=question)
