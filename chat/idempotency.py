"""An ask carries an idempotency key, so a retry never stores a second answer.

A client that lost the response to `POST …/ask` (a timeout, a dropped
connection, a 5xx from a proxy) sends the same request again with the same
`Idempotency-Key` header. The key is stored with the question, in the
question's payload, while the session's row is locked: a second request
with the key finds that question and gets its stored answer back, never a
new turn. A retry that arrives while the first request is still answering
is told so (409) instead of waiting on a model call; a key sent again with
another question is refused (422), as Stripe's API does.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

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
    answer: Message
    replayed: bool  # True: the answer stored by an earlier request with the key


def message_ask_once(
    *, session: ChatSession, question: str, key: str, choice: dict | None = None
) -> Asked:
    """Ask once per (session, key): the stored answer when the key was seen."""
    with transaction.atomic():
        # Serializes the asks with a key in this session: two retries at once
        # cannot both miss the other's question.
        ChatSession.objects.select_for_update().filter(pk=session.pk).exists()
        earlier = (
            Message.objects.filter(
                session=session,
                role=Message.Role.USER,
                **{f"payload__{KEY_FIELD}": key},
            )
            .order_by("created_at")
            .first()
        )
        if earlier is None:
            stored = question_store(session=session, question=question, choice=choice)
            stored.payload = {**stored.payload, KEY_FIELD: key}
            stored.save(update_fields=["payload"])
    if earlier is not None:
        if earlier.content != question.strip()[:4000]:
            raise KeyReused
        answer = Message.objects.filter(reply_to=earlier).first()
        if answer is None:
            raise KeyInUse
        return Asked(answer=answer, replayed=True)
    return Asked(answer=turn_answer(turn=turn_for(question=stored)), replayed=False)
