"""Chat: ask a question, retrieve, call the model, store the answer with its
citations, and queue their verification.

The model call happens outside any transaction (it can take many seconds);
the assistant message, its sources and its citations are stored in one
transaction, and verification is queued on commit (CEL-08, DAT-05).
A model that is down or answers garbage leaves a failed assistant message
with a clear error: the question is kept and can be asked again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction

from chat.models import ChatSession, Message
from chat.payload import build_payload
from chat.retrieval import Retrieved, retrieve
from chat.sources import SourceChunk, message_sources_create
from citations.extraction import extract_citations
from citations.services import citations_record
from llm.configured import provider
from llm.errors import LLMError
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


@dataclass
class Turn:
    """A question in flight: its stored user message and what was retrieved."""

    session: ChatSession
    question: Message
    retrieved: list[Retrieved]

    @property
    def prompt_sources(self):
        return [r.prompt_source() for r in self.retrieved]


def question_store(*, session: ChatSession, question: str) -> Message:
    question = question.strip()[:4000]
    message = Message.objects.create(
        tenant_id=session.tenant_id,
        session=session,
        role=Message.Role.USER,
        content=question,
    )
    if not session.title:
        ChatSession.objects.filter(pk=session.pk).update(title=question[:80])
    return message


def turn_for(*, question: Message) -> Turn:
    session = question.session
    return Turn(
        session=session,
        question=question,
        retrieved=retrieve(session=session, question=question.content),
    )


def turn_start(*, session: ChatSession, question: str) -> Turn:
    return turn_for(question=question_store(session=session, question=question))


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
        message.payload = build_payload(
            question=turn.question.content,
            extraction=extraction,
            sources=sources,
            chunk_texts={r.ref: r.hit.chunk.content for r in turn.retrieved},
            metadata={r.ref: r.hit.chunk.document.metadata for r in turn.retrieved},
            citations=recorded.citations,
            unsourced=recorded.unsourced,
            model=completion.model,
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


def message_ask(*, session: ChatSession, question: str) -> Message:
    """Ask and answer in one call (the API, the CLI, pages without JS)."""
    return turn_answer(turn=turn_start(session=session, question=question))


def turn_answer(*, turn: Turn) -> Message:
    """Answer a stored question without streaming; a model failure is stored
    as a failed answer."""
    if not turn.retrieved:
        return turn_finish(turn=turn, completion=_no_sources_completion())
    try:
        completion = provider().answer(
            turn.question.content, turn.prompt_sources, history=_history(turn)
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
            turn.question.content, turn.prompt_sources, history=_history(turn)
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


def message_retry(*, failed: Message) -> Turn:
    """Forget a failed answer so its question can be answered again."""
    question = failed.reply_to
    Message.objects.filter(pk=failed.pk, status=Message.Status.FAILED).delete()
    return turn_for(question=question)
