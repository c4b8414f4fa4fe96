"""A playbook run on a real Celery worker (Redis, PostgreSQL): the run is
tabular's task on tabular's queue, cells answered two at a time; the
findings follow; a deviation's suggested wording is the playbook's own task,
delivered to the worker. Needs `make test-pg` (CELERY_TEST_BROKER_URL)."""

from __future__ import annotations

import time

import pytest

from accounts.scoping import tenant_scope
from docuiq.testing import llm_server as llm_server_module
from docuiq.testing.factories import make_document
from docuiq.testing.llm_server import Reply, ScriptedLLMServer, extractive_reply
from playbook.models import Finding
from playbook.runs import findings_sync, run_create
from playbook.schema import spec_from_data
from playbook.services import playbook_create
from tabular.models import Review
from tabular.tests.conftest import LICENCE, SUPPLY, reset_celery_client

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

PAYMENT = (
    "The Buyer shall pay each invoice within 30 days of receipt.",
    "The Licensee shall pay the annual fee of USD 120,000 within 45 days of the invoice date.",
)
SUGGESTION = "The Buyer shall pay each undisputed invoice within 60 days of receipt."


def _model(request: dict) -> Reply:
    """A cell call answers 'Deviates' with the first sentence as its quote;
    the suggestion call (plain text) answers with a clause."""
    if (request.get("response_format") or {}).get("type") == "json_schema":
        reply = extractive_reply(request)
        answers = [
            {**a, "value": "Deviates from the standard"} for a in reply.obj["answers"]
        ]
        return Reply.object({"answers": answers}, delay_s=0.3)
    return Reply.answer(SUGGESTION)


@pytest.fixture
def model(settings, monkeypatch):
    monkeypatch.setattr(llm_server_module._Handler, "disable_nagle_algorithm", True)
    monkeypatch.setenv("TABULAR_CONCURRENCY", "2")
    with ScriptedLLMServer() as server:
        server.respond_with(_model)
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_MODEL = server.model
        yield server


@pytest.fixture
def worker(celery_worker_proc):
    reset_celery_client()
    yield celery_worker_proc
    reset_celery_client()


def _wait(predicate, timeout: float, what: str, worker):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(
        f"timed out waiting for {what}\n{worker.log_path.read_text()[-3000:]}"
    )


def test_a_run_and_its_suggestions_run_on_the_worker(tenant_a, model, worker):
    documents = [
        make_document(tenant_a, SUPPLY, title="Supply"),
        make_document(tenant_a, LICENCE, title="Licence"),
    ]
    with tenant_scope(tenant_a):
        playbook = playbook_create(
            tenant=tenant_a,
            spec=spec_from_data(
                {
                    "name": "Payments",
                    "positions": [
                        {
                            "title": "Payment",
                            "question": "When must invoices be paid?",
                            "standard": "Within 60 days of receipt",
                            "severity": "high",
                        }
                    ],
                }
            ),
        )
        run = run_create(
            tenant=tenant_a, playbook=playbook, document_ids=[d.pk for d in documents]
        )

    def completed():
        with tenant_scope(tenant_a):
            return (
                Review.objects.get(pk=run.review_id).status == Review.Status.COMPLETED
            )

    _wait(completed, 60, "the run to complete on the worker", worker)
    with tenant_scope(tenant_a):
        assert (
            findings_sync(run) == 2
        )  # queues the suggestions (on commit: autocommit here)
        kinds = list(Finding.objects.filter(run=run).values_list("kind", flat=True))
    assert kinds == ["deviates", "deviates"]

    def suggested():
        with tenant_scope(tenant_a):
            pending = Finding.objects.filter(run=run, kind="deviates").exclude(
                suggestion_status="done"
            )
            return (
                Finding.objects.filter(run=run, kind="deviates").exists()
                and not pending.exists()
            )

    if "deviates" in kinds:
        _wait(suggested, 60, "the suggested wording", worker)
        with tenant_scope(tenant_a):
            assert set(
                Finding.objects.filter(run=run, kind="deviates").values_list(
                    "suggestion", flat=True
                )
            ) == {SUGGESTION}
    with tenant_scope(tenant_a):
        assert Review.objects.get(pk=run.review_id).deliveries >= 1
