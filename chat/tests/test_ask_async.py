"""REST ask without holding a server thread (issue 27 item 4): ask/async
answers 202 with a poll URL; a task answers the question once, with the same
turn functions as the synchronous ask; a question whose message is lost is
sent again by the sweep."""

from __future__ import annotations

import pytest

from accounts.scoping import unscoped
from chat.asking import question_answer, questions_sweep
from chat.models import Message
from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures
from docuiq.tests.api_fixtures import CONTRACT

pytestmark = pytest.mark.django_db

QUESTION = "When shall the Supplier deliver the goods?"


@pytest.fixture
def session_id(a_key_api, tenant_a):
    from docuiq.testing.factories import make_document

    make_document(tenant_a, CONTRACT, title="Master Services Agreement")
    return a_key_api.post("/api/chat/sessions/create", {}, format="json").json()["id"]


@pytest.fixture
def sent(broker_publishes, monkeypatch):
    """A real broker's behaviour: the task is queued, not run; returns the
    queued question ids."""
    from chat import tasks

    queued: list[str] = []
    monkeypatch.setattr(tasks.answer_question, "delay", queued.append)
    return queued


def _ask(api, session_id, captured):
    with captured(execute=True):
        return api.post(
            f"/api/chat/sessions/{session_id}/ask/async",
            {"question": QUESTION},
            format="json",
        )


def test_eager_celery_answers_at_once_and_the_poll_has_the_answer(
    a_key_api, session_id, django_capture_on_commit_callbacks
):
    response = _ask(a_key_api, session_id, django_capture_on_commit_callbacks)
    assert response.status_code == 202
    body = response.json()
    polled = a_key_api.get(body["poll_url"]).json()
    assert polled["status"] == "complete"
    answer = polled["answer"]
    assert answer["reply_to_id"] == body["question_id"]
    assert answer["role"] == "assistant" and answer["payload"]["citations"]


def test_a_queued_question_is_pending_until_a_worker_answers_it_once(
    a_key_api, session_id, sent, django_capture_on_commit_callbacks
):
    body = _ask(a_key_api, session_id, django_capture_on_commit_callbacks).json()
    assert body["status"] == "pending" and sent == [body["question_id"]]
    assert a_key_api.get(body["poll_url"]).json() == {
        "question_id": body["question_id"],
        "status": "pending",
        "answer": None,
    }
    with django_capture_on_commit_callbacks(execute=False):
        first = question_answer(question_id=body["question_id"])
        again = question_answer(question_id=body["question_id"])  # a redelivery
    assert first.pk == again.pk
    polled = a_key_api.get(body["poll_url"]).json()
    assert polled["status"] == "complete" and polled["answer"]["id"] == str(first.pk)
    with unscoped():
        assert Message.objects.filter(reply_to_id=body["question_id"]).count() == 1
        question = Message.objects.get(pk=body["question_id"])
    assert question.status == Message.Status.COMPLETE


def test_a_model_failure_is_a_failed_answer(
    a_key_api, session_id, llm, django_capture_on_commit_callbacks
):
    from docuiq.testing.llm_server import Reply

    llm.respond_with(lambda request: Reply.error(503, "overloaded"))
    body = _ask(a_key_api, session_id, django_capture_on_commit_callbacks).json()
    polled = a_key_api.get(body["poll_url"]).json()
    assert polled["status"] == "failed" and polled["answer"]["error"]


def test_a_question_asked_while_the_broker_was_down_is_sent_by_the_sweep(
    broker_publishes,
    a_key_api,
    session_id,
    settings,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    from chat import tasks

    def broker_down(*args, **kwargs):
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(tasks.answer_question, "delay", broker_down)
    body = _ask(a_key_api, session_id, django_capture_on_commit_callbacks).json()
    assert body["status"] == "pending"
    monkeypatch.undo()
    settings.CELERY_TASK_ALWAYS_EAGER = True
    with django_capture_on_commit_callbacks(execute=True):
        assert questions_sweep() == 1
    assert a_key_api.get(body["poll_url"]).json()["status"] == "complete"
    with django_capture_on_commit_callbacks(execute=True):
        assert questions_sweep() == 0  # answered: nothing left to send


def test_another_tenants_question_is_a_404(
    a_key_api, b_key_api, session_id, django_capture_on_commit_callbacks
):
    body = _ask(a_key_api, session_id, django_capture_on_commit_callbacks).json()
    assert b_key_api.get(body["poll_url"]).status_code == 404
    # A session's own answer is no question.
    with unscoped():
        answer = Message.objects.get(reply_to_id=body["question_id"])
    url = body["poll_url"].replace(body["question_id"], str(answer.pk))
    assert a_key_api.get(url).status_code == 404
