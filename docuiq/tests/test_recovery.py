"""Recovery without a person, through the real path: a redis-server of the
test's own, a real worker and the sweeping beat beside it (as `make worker`
and `make beat` run them: a 5 s sweep here, a 10 s visibility timeout),
PostgreSQL shared with the worker. The test stops the broker, empties it or
SIGKILLs the worker, then only waits: nothing calls a sweeper by hand.

CEL-04 (whole worker killed mid-task), CEL-06 (broker restart, queues lost;
a restart under a busy worker, which kombu 5.7 did not survive), CEL-07
(upload while the broker is down), CEL-11 (SIGTERM during a task), a
tabular review stranded by a killed worker, and DAT-05 (verification
messages lost: the sweep verifies the citations). Needs PostgreSQL and a
redis-server binary (`make test-pg`); the shared Redis on 6379 is never
touched.
"""

from __future__ import annotations

import io
import os
import shutil
import time
from contextlib import contextmanager

import pytest
import redis
from django.db import connection

from accounts.scoping import tenant_scope, unscoped
from docuiq.testing import pdfgen
from docuiq.testing.processes import CeleryWorker, RedisServer
from ingest.models import Document, DocumentRevision
from ingest.services import Upload, document_upload
from lib.worker import liveness

pytestmark = [
    pytest.mark.pg,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        shutil.which("redis-server") is None, reason="needs redis-server"
    ),
]

SWEEP_S = 5
VISIBILITY_S = 10
STALE_S = 4
CELLS = 18  # the slow review's: 6 documents x 3 columns


def _reset_celery_client() -> None:
    """Drop the app's cached connection pool, producers and routes (built at
    the first eager `.delay()` of the session, for memory://)."""
    from docuiq.celery import app

    app._pool = None
    app.amqp._producer_pool = None
    for name in ("queues", "default_queue", "router", "default_exchange"):
        app.amqp.__dict__.pop(name, None)


def _prefix() -> str:
    return f"recovery-{os.getpid()}-"


@pytest.fixture
def broker(tmp_path):
    server = RedisServer(tmp_path / "redis")
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def _worker_on(broker: RedisServer, settings, tmp_path, *, beat: bool = True, **env):
    """A worker + beat on the private broker, and this process publishing
    there; `env` adds to the worker's environment."""
    from docuiq.celery import app

    if connection.vendor != "postgresql":
        pytest.skip("the worker needs PostgreSQL to share the test database")
    db = connection.settings_dict
    prefix = _prefix()
    media = tmp_path / "media"
    settings.MEDIA_ROOT = media
    settings.CELERY_TASK_ALWAYS_EAGER = False
    env = {
        "DATABASE_URL": (
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "CELERY_BROKER_URL": broker.url,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "MEDIA_ROOT": str(media),
        "CELERY_QUEUE_PREFIX": prefix,
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_S),
        "CELERY_SWEEP_S": str(SWEEP_S),
        "INGEST_HEARTBEAT_S": "1",
        "INGEST_STALE_AFTER_S": str(STALE_S),
        "TABULAR_HEARTBEAT_S": "1",
        "TABULAR_STALE_AFTER_S": str(STALE_S),
        "CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT": "2",
        "REMAP_SIGTERM": "SIGQUIT",  # as `make worker` runs it
        "CELERY_LOG_LEVEL": "INFO",
        "LLM_BASE_URL": settings.LLM_BASE_URL or "",
        "EMBEDDINGS": "off",
        "CELERY_WORKER_ALIVE_FILE": str(tmp_path / "worker.alive"),
        "CELERY_BEAT_ALIVE_FILE": str(tmp_path / "beat.alive"),
        **env,
    }
    settings.CELERY_QUEUE_PREFIX = prefix  # read by lib.worker.queues when sending
    old = (app.conf.broker_url, app.conf.task_always_eager, app.conf.task_default_queue)
    app.conf.broker_url = broker.url
    app.conf.task_always_eager = False
    app.conf.task_default_queue = prefix + "bulk"
    _reset_celery_client()
    proc = CeleryWorker(env, tmp_path / "worker.log", beat=beat)
    try:
        yield proc
    finally:
        proc.stop()
        app.conf.broker_url, app.conf.task_always_eager, app.conf.task_default_queue = (
            old
        )
        _reset_celery_client()


@pytest.fixture
def worker(settings, transactional_db, tmp_path, broker):
    with _worker_on(broker, settings, tmp_path) as proc:
        yield proc


def _doc(pk) -> Document:
    with unscoped():
        return Document.objects.get(pk=pk)


def _until(predicate, timeout: float, what: str, worker: CeleryWorker) -> float:
    """Seconds until `predicate()` held; fails with the worker's log."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():
            return time.monotonic() - started
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}\n{worker.log_tail()}")


def _upload(tenant, name: str, data: bytes) -> Document:
    with tenant_scope(tenant):
        return document_upload(
            tenant=tenant, upload=Upload(filename=name, stream=io.BytesIO(data))
        )


def _ready(*pks):
    return lambda: all(_doc(pk).status == "ready" for pk in pks)


def test_cel07_an_upload_while_the_broker_is_down_is_ingested_once_it_is_back(
    worker, broker, tenant_a
):
    broker.stop()
    document = _upload(tenant_a, "outage.txt", b"Uploaded while Redis was down.")
    assert _doc(document.pk).status == "queued"
    assert _doc(document.pk).enqueued_at is None  # the send failed; the row stays
    broker.start()
    # The worker reconnects on its own; beat's sweep sends the document.
    waited = _until(_ready(document.pk), 60, "the outage upload", worker)
    assert waited < 2 * SWEEP_S + 30
    assert _doc(document.pk).attempts == 1


def test_cel06_the_worker_consumes_again_after_a_broker_restart(
    worker, broker, tenant_a
):
    """Idle worker, Redis stopped for 10 s and started again: new uploads are
    ingested within 30 s (the regression test for workers that stop
    consuming after a reconnect)."""
    broker.stop()
    time.sleep(10)
    broker.start()
    document = _upload(tenant_a, "after.txt", b"Uploaded after the restart.")
    _until(_ready(document.pk), 30, "the first upload after the restart", worker)


def test_cel06_queued_documents_lost_with_the_broker_are_queued_again(
    worker, broker, tenant_a
):
    """Redis without persistence restarts while 8 documents wait in its queue
    (no worker running): their messages are gone, and the sweep sees that the
    broker lost its data and sends them again."""
    worker.kill()
    documents = [
        _upload(
            tenant_a, f"lost-{i}.txt", f"Document {i} lost with the queue.".encode()
        )
        for i in range(8)
    ]
    assert all(_doc(d.pk).enqueued_at is not None for d in documents)  # sent
    broker.restart()  # the queue is gone with the process
    worker.start()
    _until(_ready(*[d.pk for d in documents]), 60, "the lost documents", worker)
    assert {_doc(d.pk).attempts for d in documents} == {1}


def test_cel04_a_killed_worker_leaves_no_document_processing(
    worker, broker, tenant_a, tmp_path
):
    path = pdfgen.prose_pdf(tmp_path / "long.pdf", pages=400)
    with tenant_scope(tenant_a), path.open("rb") as stream:
        document = document_upload(
            tenant=tenant_a, upload=Upload(filename="long.pdf", stream=stream)
        )
    _until(lambda: _doc(document.pk).status == "processing", 60, "processing", worker)
    worker.kill()  # SIGKILL, pool and beat with it
    killed_at = time.monotonic()
    assert _doc(document.pk).status == "processing"
    worker.start()
    _until(_ready(document.pk), 120, "the killed document", worker)
    # Picked up by the sweep (stale heartbeat) or the broker's redelivery,
    # whichever came first; never both at once.
    recovered = time.monotonic() - killed_at
    finished = _doc(document.pk)
    assert finished.attempts == 2, worker.log_tail()
    with unscoped():
        assert DocumentRevision.objects.filter(document=finished).count() == 1
        assert finished.chunks.count() == finished.current_revision.chunks.count()
    assert recovered < STALE_S + SWEEP_S + VISIBILITY_S + 60


@pytest.fixture
def slow_review(settings, tenant_a, monkeypatch):
    """A review of 6 documents x 3 columns whose model answers in 0.6 s, two
    cells at a time (about 6 s): long enough to be interrupted. Started before the
    worker, which reads LLM_BASE_URL when it starts."""
    from docuiq.testing import llm_server as llm_server_module
    from docuiq.testing.factories import make_document
    from docuiq.testing.llm_server import ScriptedLLMServer
    from tabular.services import ColumnSpec, review_create

    monkeypatch.setattr(llm_server_module._Handler, "disable_nagle_algorithm", True)
    text = (
        "This Supply Agreement is made between Acme Corp and Beta LLC. Invoices "
        "are payable within thirty (30) days. This Agreement ends on 31 December "
        "2027 and is governed by the laws of New York."
    )
    with ScriptedLLMServer(latency_s=0.6) as server:
        settings.LLM_BASE_URL = server.base_url
        documents = [
            make_document(tenant_a, text, title=f"Supply {i}")
            for i in range(CELLS // 3)
        ]
        yield review_create(
            tenant=tenant_a,
            name="Interrupted",
            document_ids=[d.pk for d in documents],
            columns=[
                ColumnSpec(name="Parties", question="Who are the parties?"),
                ColumnSpec(name="Payment", question="When must invoices be paid?"),
                ColumnSpec(name="Law", question="Which law governs the agreement?"),
            ],
        )


def _cells_done(review) -> int:
    from tabular.models import Cell

    with tenant_scope(review.tenant):
        return Cell.objects.filter(review=review, status=Cell.Status.DONE).count()


def _review_completed(review) -> bool:
    from tabular.models import Review

    with tenant_scope(review.tenant):
        return Review.objects.get(pk=review.pk).status == Review.Status.COMPLETED


def test_a_review_stranded_by_a_killed_worker_resumes_without_a_person(
    settings, broker, slow_review, tmp_path
):
    """The review's run dies with its worker (SIGKILL); beat's sweep queues
    it again once its heartbeat is stale; every cell finishes once."""
    from tabular.services import review_start

    with _worker_on(broker, settings, tmp_path, TABULAR_CONCURRENCY="2") as worker:
        review_start(review=slow_review)
        _until(lambda: _cells_done(slow_review) >= 2, 60, "the first cells", worker)
        worker.kill()
        assert _cells_done(slow_review) < CELLS, "finished before the kill: slower"
        worker.start()
        _until(lambda: _review_completed(slow_review), 90, "the review", worker)
        assert _cells_done(slow_review) == CELLS


def test_cel11_sigterm_during_a_task_puts_its_message_back_at_once(
    settings, broker, slow_review, tmp_path
):
    """A deploy: SIGTERM to the worker in the middle of a review's run. After
    CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT the run stops and its message is back
    in the queue at once (not after the visibility timeout); the next worker
    finishes the review."""
    from tabular.services import review_start

    with _worker_on(
        broker,
        settings,
        tmp_path,
        TABULAR_CONCURRENCY="2",
        CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT="1",
    ) as worker:
        review_start(review=slow_review)
        _until(lambda: _cells_done(slow_review) >= 2, 60, "the first cells", worker)
        worker.terminate()
        assert _cells_done(slow_review) < CELLS, "finished before SIGTERM: slower"
        client = redis.Redis.from_url(broker.url)
        assert client.llen(_prefix() + "bulk") == 1, worker.log_tail()
        worker.start()
        _until(lambda: _review_completed(slow_review), 90, "the review", worker)
        assert _cells_done(slow_review) == CELLS


def test_cel06_a_redis_restart_under_a_busy_worker_leaves_the_same_worker_working(
    settings, broker, slow_review, tmp_path, tenant_a
):
    """Redis is killed and started again (its data gone) while the worker runs
    a review with a pool slot free (a BRPOP in flight: the case that made
    kombu 5.7 stop the worker with "Unrecoverable error", see
    lib/worker/redis_transport.py). The same worker process finishes the review
    and then takes new work; nobody restarts it."""
    from tabular.services import review_start

    with _worker_on(
        broker, settings, tmp_path, beat=False, TABULAR_CONCURRENCY="2"
    ) as worker:
        pid = worker.proc.pid
        review_start(review=slow_review)
        _until(lambda: _cells_done(slow_review) >= 2, 60, "the first cells", worker)
        broker.restart()
        assert _cells_done(slow_review) < CELLS, "finished before the restart: slower"
        _until(lambda: _review_completed(slow_review), 60, "the review", worker)
        assert _cells_done(slow_review) == CELLS
        document = _upload(tenant_a, "after.txt", b"Sent after the broker restart.")
        _until(_ready(document.pk), 30, "new work after the restart", worker)
        assert worker.proc.pid == pid and worker.proc.poll() is None
        assert "Unrecoverable error" not in worker.log_tail(10**6)
        # What a supervisor's health check reads: the consumer is running.
        assert liveness.check(str(tmp_path / "worker.alive"), 15) == 0


def test_citations_whose_verification_messages_were_lost_are_verified_by_the_sweep(
    settings, broker, tmp_path, tenant_a, alice
):
    """Verification messages dropped from the broker (no worker running, the
    interactive queue deleted): beat, a process of its own that outlived the
    worker, queues the pending citations again once they are older than
    CITATIONS_PENDING_AFTER_S, and the restarted worker verifies them."""
    from chat.services import message_ask, session_create
    from citations.models import MessageCitation
    from docuiq.testing.factories import make_document

    make_document(
        tenant_a, "The notice period for termination is ninety (90) days.", title="MSA"
    )
    with _worker_on(
        broker, settings, tmp_path, CITATIONS_PENDING_AFTER_S="2"
    ) as worker:
        worker.kill()
        with tenant_scope(tenant_a):
            session = session_create(tenant=tenant_a, user=alice)
            message = message_ask(
                session=session, question="What is the notice period for termination?"
            )
        queue = _prefix() + "interactive"
        client = redis.Redis.from_url(broker.url)
        assert client.llen(queue) == 1, "the verification was sent"
        client.delete(queue)  # ... and lost

        def statuses() -> set[str]:
            with unscoped():
                return set(
                    MessageCitation.objects.filter(message=message).values_list(
                        "verification_status", flat=True
                    )
                )

        assert statuses() == {"pending"}
        assert worker.beat_proc.poll() is None  # beat outlived the worker
        worker.start()
        _until(
            lambda: statuses() == {"verified"}, 60, "the sweep's verification", worker
        )
        assert liveness.check(str(tmp_path / "beat.alive"), 3 * SWEEP_S) == 0
        # A supervisor's stop: beat ends on SIGTERM (the embedded beat of a
        # SIGKILLed `worker -B` lived on, ignoring it).
        worker.beat_proc.terminate()
        worker.beat_proc.wait(timeout=15)
