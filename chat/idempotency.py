"""An ask carries an idempotency key, so a retry never stores a second answer.

A client that lost the response to `POST …/ask` or `…/ask/async` (a timeout,
a dropped connection, a 5xx from a proxy) sends the same request again with
the same `Idempotency-Key` header. The key is stored with the question, in
the question's payload, while the session's row is locked: a second request
with the key finds that question and gets its stored answer (or, for
ask/async, the same question to poll), never a new turn. A synchronous retry
that arrives while the first request is still answering is told so (409)
instead of waiting on a model call (and a question whose first request died
unanswered is answered by the retry); a key sent again with another
question is refused (422), as Stripe's API does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from chat.asking import question_ask_later
from chat.models import ChatSession, Message
from chat.services import question_store, turn_answer, turn_for

KEY_FIELD = "idempotency_key"
MAX_KEY_CHARS = 255


class KeyInUse(Exception):
    """The key's first request has not stored its answer yet."""


class KeyReused(Exception):
    """The key was sent before with another question."""


@dataclass(frozen=True)
class Asked:
    message: Message  # the answer (ask) or the question (ask/async)
    replayed: bool  # True: stored by an earlier request with the key


def _earlier(session: ChatSession, key: str, question: str) -> Message | None:
    """The question stored with `key` in this session, if any. Call inside a
    transaction: the session's row lock serializes the asks with a key, so
    two retries at once cannot both miss the other's question."""
    ChatSession.objects.select_for_update().filter(pk=session.pk).exists()
    earlier = (
        Message.objects.filter(
            session=session, role=Message.Role.USER, **{f"payload__{KEY_FIELD}": key}
        )
        .order_by("created_at")
        .first()
    )
    if earlier is not None and earlier.content != question.strip()[:4000]:
        raise KeyReused
    return earlier


def message_ask_once(
    *, session: ChatSession, question: str, key: str, choice: dict | None = None
) -> Asked:
    """Ask and answer once per (session, key)."""
    with transaction.atomic():
        earlier = _earlier(session, key, question)
        if earlier is None:
            stored = question_store(session=session, question=question, choice=choice)
            stored.payload = {**stored.payload, KEY_FIELD: key}
            stored.save(update_fields=["payload"])
    if earlier is not None:
        answer = Message.objects.filter(reply_to=earlier).first()
        if answer is not None:
            return Asked(message=answer, replayed=True)
        if earlier.created_at > timezone.now() - timedelta(seconds=_answering_s()):
            raise KeyInUse
        # The first request died before storing its answer: this one answers.
        stored = earlier
    return Asked(message=turn_answer(turn=turn_for(question=stored)), replayed=False)


def _answering_s() -> float:
    """How long a first request may still be answering: every model call
    with its retries, and a margin."""
    return settings.LLM_TIMEOUT_S * (settings.LLM_MAX_RETRIES + 1) + 30


def question_ask_later_once(
    *, session: ChatSession, question: str, key: str, choice: dict | None = None
) -> Asked:
    """Store and queue a question once per (session, key); returns it."""
    with transaction.atomic():
        earlier = _earlier(session, key, question)
        if earlier is not None:
            return Asked(message=earlier, replayed=True)
        stored = question_ask_later(
            session=session, question=question, choice=choice, extra={KEY_FIELD: key}
        )
    return Asked(message=stored, replayed=False)
