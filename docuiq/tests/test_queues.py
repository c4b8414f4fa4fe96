"""Two queues, interactive before bulk (issue 34 item 2): what a person waits
for is routed to `interactive`, everything else to `bulk`, and a worker
serving both reads `interactive` first."""

from __future__ import annotations

from docuiq.celery import app
from lib.worker.queues import INTERACTIVE_TASKS, lane_of, queue_name, route_task


def test_asks_and_verification_are_interactive_and_the_rest_bulk():
    app.loader.import_default_modules()
    ours = {
        name
        for name in app.tasks
        if name.split(".")[0] in {"chat", "citations", "ingest", "tabular", "playbook"}
    }
    assert ours >= INTERACTIVE_TASKS  # no stale names in the table
    interactive = {n for n in ours if lane_of(n) == "interactive"}
    assert interactive == {
        "chat.tasks.answer_question",
        "citations.tasks.verify_message_citations",
        "citations.tasks.verify_citation",
    }
    for name in ("ingest.tasks.ingest_document", "tabular.tasks.run_review"):
        assert route_task(name, (), {}, {}) == {"queue": "bulk"}
    assert route_task("citations.tasks.verify_citation", (), {}, {}) == {
        "queue": "interactive"
    }


def test_the_prefix_is_read_when_a_task_is_sent(settings):
    settings.CELERY_QUEUE_PREFIX = "run-7-"
    assert route_task("chat.tasks.answer_question", (), {}, {}) == {
        "queue": "run-7-interactive"
    }
    assert queue_name("bulk", prefix="") == "bulk"


def test_a_worker_serving_both_reads_interactive_first():
    assert list(app.amqp.queues)[:2] == ["interactive", "bulk"]
    assert app.conf.broker_transport_options["queue_order_strategy"] == "priority"
    assert app.conf.task_default_queue == "bulk"
