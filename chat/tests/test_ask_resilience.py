"""A sync ask survives a broker that is down, and a retry never stores a
second answer (issue 34 item 2): 201 with the stored answer's id and its
`pending` citations, verified by this process; an `Idempotency-Key` sent
again returns the same answer; a citation whose verification message was
lost is verified by the sweep."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from accounts.scoping import unscoped
from chat.models import Message
from citations.models import MessageCitation, Status
from docuiq.testing.processes import free_port
from docuiq.testing.waiting import wait_for
from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures
from docuiq.tests.api_fixtures import CONTRACT

QUESTION = "When shall the Supplier deliver the goods?"


@pytest.fixture
def session_id(a_key_api, tenant_a):
    from docuiq.testing.factories import make_document

    make_document(tenant_a, CONTRACT, title="Master Services Agreement")
    return a_key_api.post("/api/chat/sessions/create", {}, format="json").json()["id"]


def _reset_producer_state(app) -> None:
    app._pool = None
    for attr in ("queues", "router", "_producer_pool", "producer_pool"):
        app.amqp.__dict__.pop(attr, None)


@pytest.fixture
def broker_down(broker_publishes, settings):
    """A real Redis broker URL with nothing listening: every publish fails
    the way kombu fails when Redis is down."""
    from docuiq.celery import app

    old = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.broker_url = f"redis://127.0.0.1:{free_port()}/0"
    app.conf.task_always_eager = False
    _reset_producer_state(app)
    try:
        yield
    finally:
        app.conf.broker_url, app.conf.task_always_eager = old
        _reset_producer_state(app)


def _citations(message_id) -> list[MessageCitation]:
    # The test database is SQLite's shared-cache in-memory one, whose table
    # locks fail at once (no busy timeout) while the verifying thread writes:
    # a poll that meets one reads again.
    for _ in range(50):
        try:
            with unscoped():
                return list(MessageCitation.objects.filter(message_id=message_id))
        except OperationalError:
            time.sleep(0.1)
    with unscoped():
        return list(MessageCitation.objects.filter(message_id=message_id))


@pytest.mark.django_db(transaction=True)
def test_a_sync_ask_with_the_broker_down_returns_201_and_verifies_in_process(
    a_key_api, session_id, broker_down
):
    started = time.monotonic()
    response = a_key_api.post(
        f"/api/chat/sessions/{session_id}/ask", {"question": QUESTION}, format="json"
    )
    took = time.monotonic() - started
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["role"] == "assistant" and body["status"] == "complete"
    cited = body["payload"]["citations"]
    assert cited, body["payload"]
    with unscoped():
        assert Message.objects.filter(pk=body["id"]).exists()
    # No broker: this process verifies them (in a thread, after the response).
    assert wait_for(
        lambda: all(
            c.verification_status != Status.PENDING for c in _citations(body["id"])
        ),
        timeout=30,
    ), [c.verification_status for c in _citations(body["id"])]
    assert {c.verification_status for c in _citations(body["id"])} == {Status.VERIFIED}
    assert took < 10, f"the broker outage held the request {took:.1f} s"


@pytest.mark.django_db
def test_the_same_idempotency_key_twice_stores_one_answer(a_key_api, session_id):
    url = f"/api/chat/sessions/{session_id}/ask"
    headers = {"HTTP_IDEMPOTENCY_KEY": "retry-7f3a"}
    first = a_key_api.post(url, {"question": QUESTION}, format="json", **headers)
    second = a_key_api.post(url, {"question": QUESTION}, format="json", **headers)
    assert first.status_code == second.status_code == 201
    assert first.json()["id"] == second.json()["id"]
    assert second.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    with unscoped():
        assert Message.objects.filter(session_id=session_id).count() == 2
    # Another key is another question; no key at all, too.
    other = a_key_api.post(
        url, {"question": QUESTION}, format="json", HTTP_IDEMPOTENCY_KEY="retry-8b1c"
    )
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]
    with unscoped():
        assert Message.objects.filter(session_id=session_id).count() == 4


@pytest.mark.django_db
def test_a_key_sent_with_another_question_or_still_answering_is_refused(
    a_key_api, session_id
):
    url = f"/api/chat/sessions/{session_id}/ask"
    a_key_api.post(
        url, {"question": QUESTION}, format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )
    reused = a_key_api.post(
        url, {"question": "Who pays?"}, format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )
    assert reused.status_code == 422
    # A question stored with its key whose answer is not stored yet.
    with unscoped():
        Message.objects.filter(reply_to__isnull=False).delete()
    busy = a_key_api.post(
        url, {"question": QUESTION}, format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )
    assert busy.status_code == 409 and busy.headers["Retry-After"] == "2"
    # The first request died long ago without its answer: the retry answers.
    with unscoped():
        Message.objects.filter(session_id=session_id).update(
            created_at=timezone.now() - timedelta(hours=1)
        )
    revived = a_key_api.post(
        url, {"question": QUESTION}, format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )
    assert revived.status_code == 201 and "Idempotent-Replayed" not in revived.headers
    with unscoped():
        assert Message.objects.filter(session_id=session_id).count() == 2
        Message.objects.filter(reply_to__isnull=False).delete()
    too_long = a_key_api.post(
        url, {"question": QUESTION}, format="json", HTTP_IDEMPOTENCY_KEY="k" * 256
    )
    assert too_long.status_code == 400
    with unscoped():
        assert Message.objects.filter(session_id=session_id).count() == 1


@pytest.mark.django_db
def test_citations_whose_verification_message_was_lost_are_verified_by_the_sweep(
    a_key_api,
    session_id,
    settings,
    monkeypatch,
    request,
    django_capture_on_commit_callbacks,
):
    """The broker takes the verification message and loses it (a Redis
    restart): the citations stay pending until the sweep queues them again,
    once per CITATIONS_PENDING_AFTER_S."""
    from citations import tasks
    from citations.sweeps import citations_sweep
    from docuiq.celery import app

    dropped: list[tuple] = []
    app.conf.task_always_eager = False
    request.addfinalizer(lambda: setattr(app.conf, "task_always_eager", True))
    monkeypatch.setattr(
        tasks.verify_message_citations, "delay", lambda *a: dropped.append(a)
    )
    monkeypatch.setattr(tasks.verify_citation, "delay", lambda *a: dropped.append(a))
    with django_capture_on_commit_callbacks(execute=True):
        body = a_key_api.post(
            f"/api/chat/sessions/{session_id}/ask",
            {"question": QUESTION},
            format="json",
        ).json()
    assert dropped == [(body["id"],)]
    pending = _citations(body["id"])
    assert pending and {c.verification_status for c in pending} == {Status.PENDING}
    assert citations_sweep() == 0  # too young: its message may still come
    with unscoped():
        MessageCitation.objects.filter(message_id=body["id"]).update(
            created_at=timezone.now()
            - timedelta(seconds=settings.CITATIONS_PENDING_AFTER_S + 1)
        )
    assert citations_sweep() == len(pending)  # sent (and dropped again)
    assert citations_sweep() == 0  # never twice within the interval
    from django.core.cache import cache

    cache.clear()
    app.conf.task_always_eager = True
    assert citations_sweep() == len(pending)  # delivered this time
    assert {c.verification_status for c in _citations(body["id"])} == {Status.VERIFIED}
    assert citations_sweep() == 0


@pytest.mark.django_db
def test_ask_async_with_the_same_key_twice_queues_one_question(
    broker_publishes,
    a_key_api,
    session_id,
    settings,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    from chat import tasks

    queued: list[str] = []
    monkeypatch.setattr(tasks.answer_question, "delay", queued.append)
    url = f"/api/chat/sessions/{session_id}/ask/async"
    with django_capture_on_commit_callbacks(execute=True):
        first = a_key_api.post(
            url, {"question": QUESTION}, format="json", HTTP_IDEMPOTENCY_KEY="a-1"
        )
        second = a_key_api.post(
            url, {"question": QUESTION}, format="json", HTTP_IDEMPOTENCY_KEY="a-1"
        )
    assert first.status_code == second.status_code == 202
    assert first.json()["question_id"] == second.json()["question_id"]
    assert second.headers["Idempotent-Replayed"] == "true"
    assert queued == [first.json()["question_id"]]
    with unscoped():
        question = Message.objects.get(pk=first.json()["question_id"])
    assert question.payload["idempotency_key"] == "a-1"
    assert question.payload["async"]["sent_at"]  # the key survives the send
