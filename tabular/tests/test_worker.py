"""CEL-03/04 for tabular review: a real Celery worker on Redis is killed
(SIGKILL, whole worker) in the middle of a run; after a restart the run is
queued again (the sweeper; the broker also gives the unacknowledged message
back after its visibility timeout) and resumes: every cell finishes, none is
done twice. Needs PostgreSQL and CELERY_TEST_BROKER_URL
(`make test-pg`)."""

from __future__ import annotations

import time

import pytest

from accounts.scoping import tenant_scope
from chat.models import Message
from citations.models import MessageCitation
from docuiq.testing import llm_server as llm_server_module
from docuiq.testing.factories import make_document
from docuiq.testing.llm_server import ScriptedLLMServer
from tabular.models import Cell, Review
from tabular.services import ColumnSpec, review_create, review_start, reviews_sweep
from tabular.tests.conftest import LICENCE, SUPPLY, reset_celery_client

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

STALE_S = 2

COLUMNS = [
    ColumnSpec(name="Parties", question="Who are the parties?"),
    ColumnSpec(name="Payment", question="When must invoices be paid?"),
    ColumnSpec(name="Term", question="When does the agreement end?", type="date"),
    ColumnSpec(name="Law", question="Which law governs the agreement?"),
]


@pytest.fixture
def slow_model(settings, monkeypatch):
    """Started before the worker, which reads LLM_BASE_URL from settings."""
    monkeypatch.setattr(llm_server_module._Handler, "disable_nagle_algorithm", True)
    # Two cells at a time, 0.6 s each: the run takes long enough to be killed.
    monkeypatch.setenv("TABULAR_CONCURRENCY", "2")
    with ScriptedLLMServer(latency_s=0.6) as server:
        settings.LLM_BASE_URL = server.base_url
        yield server


@pytest.fixture
def worker(celery_worker_proc):
    """The shared worker, with this process's Celery client pointed at it.

    Anything that called `.delay()` earlier in the session under eager Celery
    pinned the app's connection pool (memory://) and default queue; without a
    reset the task would never reach the worker's Redis queue.
    """
    reset_celery_client()
    yield celery_worker_proc
    reset_celery_client()


def _wait(predicate, timeout: float, what: str, worker=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    log = worker.log_path.read_text()[-3000:] if worker is not None else ""
    raise AssertionError(f"timed out waiting for {what}\n{log}")


def test_a_killed_worker_leaves_the_run_resumable_and_no_cell_duplicated(
    tenant_a, slow_model, worker
):
    documents = [
        make_document(tenant_a, SUPPLY, title="Supply"),
        make_document(tenant_a, LICENCE, title="Licence"),
        make_document(tenant_a, SUPPLY[::-1], title="Supply (reordered)"),
    ]
    review = review_create(
        tenant=tenant_a,
        name="Killed",
        document_ids=[d.pk for d in documents],
        columns=COLUMNS,
    )
    total = len(documents) * len(COLUMNS)

    def count(status):
        with tenant_scope(tenant_a):
            return Cell.objects.filter(review=review, status=status).count()

    review_start(review=review)  # published to Redis on commit
    _wait(lambda: count(Cell.Status.DONE) >= 3, 60, "the first cells", worker)
    worker.kill()  # SIGKILL: no ack, no cleanup
    done_at_kill = count(Cell.Status.DONE)
    assert done_at_kill < total, "the run finished before the kill; make it slower"
    with tenant_scope(tenant_a):
        assert Review.objects.get(pk=review.pk).status == Review.Status.RUNNING

    worker.restart()
    # Redis gives the unacknowledged message back only after the visibility
    # timeout and kombu's restore cycle (~100 s here); the sweeper (celery
    # beat) does not wait for that: a running review without a heartbeat is
    # queued again. Whichever delivery comes second finds nothing to do.
    time.sleep(STALE_S + 0.5)
    assert reviews_sweep(stale_after_s=STALE_S) == 1

    def finished():
        with tenant_scope(tenant_a):
            return Review.objects.get(pk=review.pk).status == Review.Status.COMPLETED

    _wait(finished, 60, "the resumed run to complete", worker)
    with tenant_scope(tenant_a):
        review.refresh_from_db()
        cells = list(Cell.objects.filter(review=review))
        assert len(cells) == total
        assert all(c.status == Cell.Status.DONE for c in cells), [
            c.error for c in cells
        ]
        assert review.deliveries >= 2
        # One message and one citation per cell: no cell was stored twice.
        messages = Message.objects.filter(role=Message.Role.CELL)
        cell_ids = [m.payload["tabular"]["cell_id"] for m in messages]
        assert sorted(cell_ids) == sorted(c.pk for c in cells)
        assert (
            MessageCitation.objects.filter(execution_context_id=str(review.pk)).count()
            == total
        )
        assert all(c.citation_id and c.message_id for c in cells)
    # The model was asked again only for cells that had not finished: at
    # most the two rows in flight at the kill (a row's columns are asked in
    # one call, and any the reply left out alone), each at most once more.
    assert len(slow_model.chat_requests) <= total + 2 * len(COLUMNS)
