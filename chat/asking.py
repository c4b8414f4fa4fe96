"""Asking without holding a server thread (REST `ask/async`).

The question is stored at once, marked `generating` (waiting for its answer),
and a Celery task answers it with the same turn functions as the synchronous
ask (chat.services.turn_for / turn_answer); the caller polls the question.
With eager Celery (no broker) the answer is ready when the 202 is sent.

One answer per question: `Message.reply_to` is one-to-one, so a second
delivery (the broker's redelivery after a lost worker, or the sweep) finds
the answer and stops, and two deliveries at once store one answer between
them. A question whose message never reached the broker, was lost with its
queues, or has waited past CHAT_ASK_REQUEUE_AFTER_S is sent again by
`questions_sweep` (run by beat with the other sweeps).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from chat.models import ChatSession, Message
from chat.services import question_store, turn_answer, turn_for
from lib.worker.broker import broker_lost_since_last_look
from lib.worker.enqueue import send_on_commit

if TYPE_CHECKING:
    import uuid

logger = logging.getLogger(__name__)

PENDING, COMPLETE, FAILED = "pending", "complete", "failed"
QUESTION_STATES = [PENDING, COMPLETE, FAILED]


def question_ask_later(
    *,
    session: ChatSession,
    question: str,
    choice: dict | None = None,
    extra: dict | None = None,
) -> Message:
    """Store a question (with `extra` in its payload, e.g. its idempotency
    key) and queue its answer; returns the question."""
    with transaction.atomic():
        stored = question_store(session=session, question=question, choice=choice)
        stored.status = Message.Status.GENERATING
        stored.payload = {**stored.payload, **(extra or {}), "async": {"sent_at": None}}
        stored.save(update_fields=["status", "payload"])
        _send(stored)
    return stored


def _send(question: Message) -> None:
    from chat.tasks import answer_question

    question_id = str(question.pk)
    payload = question.payload

    def sent() -> None:
        stamped = {**payload, "async": {"sent_at": timezone.now().isoformat()}}
        with unscoped():
            Message.objects.filter(pk=question_id).update(payload=stamped)

    send_on_commit(answer_question, question_id, on_sent=sent)


def question_answer(*, question_id: uuid.UUID | str) -> Message | None:
    """Answer a stored question once (the task body); returns the answer."""
    with unscoped():
        question = (
            Message.objects.select_related("session", "tenant")
            .filter(pk=question_id, role=Message.Role.USER)
            .first()
        )
    if question is None or question.session is None:
        return None  # deleted since it was asked
    with tenant_scope(question.tenant):
        answer = Message.objects.filter(reply_to=question).first()
        if answer is None:
            try:
                answer = turn_answer(turn=turn_for(question=question))
            except IntegrityError:  # another delivery stored the answer first
                answer = Message.objects.filter(reply_to=question).first()
        Message.objects.filter(pk=question.pk).update(status=Message.Status.COMPLETE)
    return answer


def question_state(*, question: Message) -> tuple[str, Message | None]:
    """(pending | complete | failed, the answer if there is one)."""
    answer = Message.objects.filter(reply_to=question).first()
    if answer is None:
        return PENDING, None
    return (FAILED if answer.status == Message.Status.FAILED else COMPLETE), answer


def questions_sweep() -> int:
    """Send again the questions still waiting whose message is gone; returns
    how many."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.CHAT_ASK_REQUEUE_AFTER_S)
    lost = broker_lost_since_last_look("questions")
    with unscoped():
        waiting = list(
            Message.objects.filter(
                role=Message.Role.USER,
                status=Message.Status.GENERATING,
                reply__isnull=True,
            )
        )
    count = 0
    for question in waiting:
        sent_at = (question.payload.get("async") or {}).get("sent_at")
        if sent_at and not lost and datetime.fromisoformat(sent_at) >= stale:
            continue
        with unscoped(), transaction.atomic():
            _send(question)
        count += 1
    return count
