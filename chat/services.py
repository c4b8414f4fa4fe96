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
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from typing import TYPE_CHECKING

from django.db import transaction

from chat.models import ChatSession, Message
from chat.payload import build_payload
from chat.reading import (
    READ_KINDS,
    ReadSection,
    answer_tokens,
    chunks_fit,
    chunks_k,
    nothing_fits,
    prompt_budget,
    reading_line,
    scope_read,
)
from chat.retrieval import Retrieved, retrieve
from chat.scope import Scope, choice_of, name_texts, scope_for
from chat.sources import message_sources_create
from chat.structured import Rendered, StructuredAnswer, render
from chat.which_one import which_one_answer
from citations.extraction import extract_citations
from citations.relevance import Relevance, RelevanceJudge, shown
from citations.services import (
    Rating,
    citations_rate,
    citations_record,
    citations_relevance_store,
)
from ingest.search import query_terms
from ingest.search.within import term_weights, written_in
from lib.stemming import terms
from llm.configured import llm_config, provider
from llm.errors import LLMError
from llm.prompting import ANSWER_SCHEMA, NO_ANSWER, build_answer_messages
from llm.types import ChatMessage, Completion

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import Collection, Tenant
    from ingest.models import Document
    from ingest.sections import Reading

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
    """A question in flight: its stored user message, what it searches, and
    what the model is given: retrieved chunks, or sections of the scope's
    documents read whole (`reading` then says what was read).

    `structured`: a model is configured, and answers in one JSON object whose
    citations carry its own relevance (chat.structured); otherwise the
    offline responder answers and the word rater rates."""

    session: ChatSession
    question: Message
    scope: Scope
    sources: list[Retrieved | ReadSection]
    history: list[ChatMessage] = field(default_factory=list)
    reading: Reading | None = None
    structured: bool = False
    # Why the model cannot be asked (its context holds none of what was
    # found): the turn fails with it rather than say "nothing found".
    error: str = ""

    @property
    def prompt_sources(self):
        return [r.prompt_source() for r in self.sources]

    @cached_property
    def judge(self) -> RelevanceJudge:
        """Rates passages against the question less the words that named
        documents and the words of the searched documents' own names (they
        name, they do not say what to find), its words weighted by their
        rarity in the documents the passages come from."""
        documents = {r.document.pk: r.document for r in self.sources}
        searched = list(documents.values())
        return RelevanceJudge(
            self.scope.search_text,
            weights=term_weights(searched, self.scope.search_text),
            written=written_in(searched),
            names=name_texts(searched),
        )

    def rate(self, passage: str) -> Relevance:
        """The word rater's rating as offline shows it: "answers" only where
        word rules prove it (citations.relevance.shown)."""
        return shown(self.judge.rate(passage))


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
    """What a question searches and what the model is given (chat.reading):
    with a model configured, a scoped question's documents whole within the
    context budget (else their best sections, said so), other questions as
    many retrieved chunks as the budget holds; offline, the top k chunks."""
    session = question.session
    scope = scope_for(
        session=session, question=question.content, choice=choice_of(question)
    )
    history = _history(session=session, question=question)
    # What every turn carries; each way below adds what it found.
    turn = partial(
        Turn, session=session, question=question, scope=scope, history=history
    )
    if scope.ambiguous:
        # Asked "which one?" (issue 32, chat.which_one): nothing is retrieved.
        return turn(sources=[])
    config = llm_config()
    if not config.configured:
        return turn(sources=retrieve(session=session, scope=scope))
    budget = prompt_budget(config, question=question.content, history=history)
    if scope.kind in READ_KINDS and scope.documents:
        reading, sections = scope_read(session=session, scope=scope, budget=budget)
        return turn(
            sources=list(sections),
            reading=reading,
            structured=True,
            error=_too_small(config) if nothing_fits(reading) else "",
        )
    found = retrieve(session=session, scope=scope, k=chunks_k(budget))
    given = chunks_fit(found, budget)
    return turn(
        sources=list(given),
        structured=True,
        error=_too_small(config) if found and not given else "",
    )


def _too_small(config) -> str:
    return (
        f"The model's context (LLM_CONTEXT_TOKENS={config.context_tokens}) is too "
        "small to hold any passage of the documents with the question and the "
        "answer; raise it to the model's real context size."
    )


def turn_start(
    *, session: ChatSession, question: str, choice: dict | None = None
) -> Turn:
    return turn_for(
        question=question_store(session=session, question=question, choice=choice)
    )


def _history(*, session: ChatSession, question: Message) -> list[ChatMessage]:
    earlier = (
        Message.objects.filter(session=session, status=Message.Status.COMPLETE)
        .exclude(pk=question.pk)
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


def turn_finish(
    *,
    turn: Turn,
    completion: Completion,
    structured: StructuredAnswer | None = None,
) -> Message:
    """Store the answer, its sources and its citations; queue verification.

    A structured answer (a model's) is rendered into the canonical citation
    form and its citations keep the model's own relevance: the word rater
    rates only the offline responder's. A "not found" says what was searched
    (and read); a "not found" that quotes is flagged as a contradiction."""
    from citations.tasks import (
        verify_message_citations as verify_message_citations_task,
    )
    from lib.worker.enqueue import send_on_commit

    known = [r.ref for r in turn.sources]
    rendered: Rendered | None = None
    if structured is not None:
        rendered = render(structured, known_refs=known)
        extraction = rendered.extraction
        not_found = structured.silent
    else:
        extraction = extract_citations(completion.text, known_refs=known)
        not_found = is_not_found(extraction)
    searched = searched_for(turn)
    said = [reading_line(turn.reading)]
    if not_found:
        unmentioned = unmentioned_words(turn)
        if unmentioned:
            searched["unmentioned"] = unmentioned
        said.append(searched_line(searched))
    said = [line for line in said if line]
    if said:
        extraction = replace(
            extraction,
            answer=f"{extraction.answer.rstrip()}\n\n" + " ".join(said),
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
            message=message, chunks=[r.source_chunk() for r in turn.sources]
        )
        recorded = citations_record(
            message=message, candidates=extraction.candidates, sources=sources
        )
        if rendered is not None:
            citations_relevance_store(
                citations=recorded.citations,
                ratings=[_model_rating(rendered, c) for c in recorded.citations],
                asked_documents=_asked_documents(turn),
                method="model",
            )
        else:
            citations_rate(
                citations=recorded.citations,
                rate=turn.rate,
                asked_documents=_asked_documents(turn),
            )
        message.payload = build_payload(
            question=turn.question.content,
            extraction=extraction,
            sources=sources,
            chunk_texts={r.ref: r.text for r in turn.sources},
            metadata={r.ref: r.document.metadata for r in turn.sources},
            citations=recorded.citations,
            unsourced=recorded.unsourced,
            model=completion.model,
            searched=searched,
            not_found=not_found,
            contradiction=structured is not None and structured.contradiction,
        )
        message.save(update_fields=["payload"])
        message_id = str(message.pk)
        if recorded.citations:
            send_on_commit(
                verify_message_citations_task, message_id, run_here_if_down=True
            )
    return message


MODEL_RATED = {
    "answers": "The model that wrote the answer says this passage states it.",
    "related": "The model that wrote the answer says this passage is related.",
}


def _model_rating(rendered: Rendered, citation) -> Rating:
    """The model's own rating of a citation it made (none for a ref its
    answer named without rating it)."""
    label = rendered.relevance_of(citation.ref_label, citation.quoted_text)
    return Rating(label=label, reason=MODEL_RATED.get(label or "", ""))


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
    if turn.scope.ambiguous:  # issue 32: "which one?" (chat.which_one)
        return which_one_answer(turn=turn)
    if turn.error:
        return turn_fail(turn=turn, error=turn.error)
    if not turn.sources:
        return turn_finish(turn=turn, completion=_no_sources_completion())
    if turn.structured:
        return _answer_structured(turn)
    try:
        completion = provider().answer(
            turn.question.content,
            turn.prompt_sources,
            history=turn.history,
            rate=turn.rate,
        )
    except LLMError as exc:
        return turn_fail(turn=turn, error=str(exc))
    return turn_finish(turn=turn, completion=completion)


def _answer_structured(turn: Turn) -> Message:
    """One structured call (llm.prompting.ANSWER_SCHEMA): a model that times
    out or answers malformed JSON leaves a failed answer with its error."""
    read = reading_line(turn.reading)
    note = (
        f"{read} You are given only these sections: say not_found only about them."
        if read
        else None
    )
    messages = build_answer_messages(
        turn.question.content, turn.prompt_sources, turn.history, note=note
    )
    try:
        data, completion = provider().complete_json(
            messages,
            schema=ANSWER_SCHEMA,
            name="chat_answer",
            max_tokens=answer_tokens(llm_config()),
        )
    except LLMError as exc:
        return turn_fail(turn=turn, error=str(exc))
    structured = StructuredAnswer.of(data)
    if structured.empty:
        return turn_fail(
            turn=turn,
            error=f"The model {completion.model} returned an empty answer "
            '(no answer, no citation, not a "not found").',
        )
    return turn_finish(turn=turn, completion=completion, structured=structured)


def message_stream(*, turn: Turn) -> Iterator[str | Message]:
    """Yield the answer's text deltas as the model writes them, then the stored
    assistant Message (or a failed one). A structured answer is not streamed
    token by token: its rendered text comes in one piece once complete."""
    if turn.scope.ambiguous:  # issue 32: "which one?" (chat.which_one)
        yield which_one_answer(turn=turn)
        return
    if turn.error:
        yield turn_fail(turn=turn, error=turn.error)
        return
    if not turn.sources:
        completion = _no_sources_completion()
        yield completion.text
        yield turn_finish(turn=turn, completion=completion)
        return
    if turn.structured:
        message = _answer_structured(turn)
        if message.status != Message.Status.FAILED:
            yield message.content
        yield message
        return
    try:
        stream = provider().stream_answer(
            turn.question.content,
            turn.prompt_sources,
            history=turn.history,
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
    """What a turn searched: the scope and the search terms, and what the
    model read of the documents when it read them (`ingest.sections`)."""
    searched = {**turn.scope.describe(), "terms": query_terms(turn.scope.search_text)}
    if turn.reading is not None:
        searched["reading"] = turn.reading.describe()
    return searched


def searched_line(searched: dict) -> str:
    """ "Searched: <titles> for: <terms>." said with a "not found"; "Read in
    full: <titles>." for the documents a model read whole (those read in part
    are said by chat.reading.reading_line)."""
    titles = [d["title"] for d in searched.get("documents", [])]
    if searched.get("reading") is not None:
        whole = [f'"{r["title"]}"' for r in searched["reading"] if r["whole"]]
        line = f"Read in full: {', '.join(whole)}." if whole else ""
    else:
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
        line = f"{line} They never mention: {', '.join(unmentioned[:8])}.".strip()
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
