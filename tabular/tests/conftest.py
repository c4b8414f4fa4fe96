"""Tabular fixtures: the demo documents ingested for real, and a scripted model
server wired into settings (the executor talks to it through the openai SDK)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import TestCase

from accounts.scoping import tenant_scope
from docuiq.testing import llm_server as llm_server_module
from docuiq.testing.llm_server import ScriptedLLMServer
from tabular.services import ColumnSpec

DEMO = Path(django_settings.BASE_DIR) / "demo"

COLUMNS = [
    ColumnSpec(name="Parties", question="Who are the parties to the agreement?"),
    ColumnSpec(
        name="Payment terms", question="When must invoices be paid?", type="text"
    ),
    ColumnSpec(name="Governing law", question="Which law governs the agreement?"),
]


def ingest_demo(tenant, names: list[str] | None = None):
    """Upload demo files through the real pipeline; returns ready documents in order."""
    from ingest.models import Document
    from ingest.services import Upload, document_upload

    paths = sorted(
        p for p in DEMO.iterdir() if p.is_file() and not p.name.startswith(".")
    )
    if names is not None:
        paths = [p for p in paths if p.name in names]
    documents = []
    for path in paths:
        # Ingestion is queued on commit; run it now (eager Celery).
        with path.open("rb") as stream, TestCase.captureOnCommitCallbacks(execute=True):
            doc = document_upload(
                tenant=tenant, upload=Upload(filename=path.name, stream=stream)
            )
        with tenant_scope(tenant):
            doc = Document.objects.get(pk=doc.pk)
        assert doc.status == Document.Status.READY, (path.name, doc.error)
        documents.append(doc)
    return documents


def reset_celery_client() -> None:
    """Drop the Celery app's cached connection pool, producer pool and routing.

    An eager `.delay()` (ingestion queued on commit, a review run) builds them
    from the configuration of that moment (memory://, queue "celery") and the
    app keeps them for the process: a later test with a real worker would
    publish where no worker listens. Private attributes, reset the way Celery
    does after a fork.
    """
    from docuiq.celery import app

    app._pool = None
    app.amqp._producer_pool = None
    for name in ("queues", "default_queue", "router", "default_exchange"):
        app.amqp.__dict__.pop(name, None)


@pytest.fixture(autouse=True)
def _fresh_celery_client():
    yield
    reset_celery_client()


@pytest.fixture(autouse=True)
def _one_cell_at_a_time(settings):
    """The test database is an in-memory SQLite inside a transaction that pool
    threads cannot see: cells run in the test's thread unless a test opts in
    (with a database threads can share)."""
    settings.TABULAR_CONCURRENCY = 1


def shared_database() -> bool:
    """Whether pool threads can use the test database (not in-memory SQLite)."""
    from django.db import connection

    return not connection.is_in_memory_db() if connection.vendor == "sqlite" else True


@pytest.fixture
def demo_docs(tenant_a):
    return ingest_demo(
        tenant_a,
        [
            "master-services-agreement.pdf",
            "data-processing-addendum.md",
            "q2-invoices-email.eml",
        ],
    )


@pytest.fixture
def llm(settings, monkeypatch):
    """A scripted OpenAI-compatible server as the configured model.

    No retries and a short timeout, so a scripted failure is the cell's
    failure and a scripted delay is a timeout.
    """
    # Headers and body go out in one segment each without Nagle's delay.
    monkeypatch.setattr(llm_server_module._Handler, "disable_nagle_algorithm", True)
    with ScriptedLLMServer() as server:
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_API_KEY = "test-key"
        settings.LLM_MODEL = server.model
        settings.LLM_MAX_RETRIES = 0
        settings.LLM_TIMEOUT_S = 2.0
        settings.LLM_JUDGE_MODEL = ""
        settings.LLM_PRICES = {**settings.LLM_PRICES, server.model: (1.0, 2.0)}
        yield server


SUPPLY = [
    "SUPPLY AGREEMENT\n\nThis Supply Agreement is made on 1 March 2024 between Acme Tools Ltd "
    '("Supplier") and Beta Retail plc ("Buyer").\n\n1. Payment. The Buyer shall pay each '
    "invoice within 30 days of receipt. Late payments bear interest at 1% per month.",
    "2. Term. This Agreement continues until 28 February 2027.\n\n3. Governing Law. This "
    "Agreement is governed by the laws of England and Wales.\n\n4. Liability. The Supplier's "
    "aggregate liability shall not exceed GBP 250,000.",
]
LICENCE = [
    "SOFTWARE LICENCE AGREEMENT\n\nThis Licence Agreement is entered into on 15 June 2023 by "
    'Gamma Software Inc. ("Licensor") and Delta Bank N.A. ("Licensee").\n\nThe Licensee shall '
    "pay the annual fee of USD 120,000 within 45 days of the invoice date. This Agreement is "
    "governed by the laws of the State of New York."
]


@pytest.fixture
def contracts(tenant_a):
    """Two short contracts built directly (fast), for API, page and export tests."""
    from docuiq.testing.factories import make_document

    return [
        make_document(tenant_a, SUPPLY, title="Acme supply agreement"),
        make_document(tenant_a, LICENCE, title="Gamma licence"),
    ]


# ------------------------------------------------ a model's read-whole replies


def cell_answer(
    value: str,
    quote: str = "",
    *,
    question: int = 1,
    found: bool | None = None,
    section: int = 0,
    quote_answers: bool = True,
    confidence: str = "high",
    justification: str = "stated",
) -> dict:
    """One answer of the read-whole cell schema (llm.prompting.CELL_READ_SCHEMA)."""
    return {
        "question": question,
        "found": bool(value or quote) if found is None else found,
        "value": value,
        "quote": quote,
        "section_index": section if quote else -1,
        "quote_answers": quote_answers,
        "confidence": confidence,
        "justification": justification,
    }


def read_reply(*answers: dict):
    from docuiq.testing.llm_server import Reply

    return Reply.object({"answers": list(answers)})


_PASSAGE_RE = re.compile(r'<passage index="(\d+)">\n(.*?)\n</passage>', re.S)
_QUESTION_RE = re.compile(r'<question number="(\d+)">')


def passages_of(body: dict) -> list[tuple[int, str]]:
    """The (section index, text) pairs a cell call's prompt holds."""
    prompt = body["messages"][-1]["content"]
    return [(int(i), text) for i, text in _PASSAGE_RE.findall(prompt)]


def questions_of(body: dict) -> list[int]:
    prompt = body["messages"][-1]["content"]
    return [int(n) for n in _QUESTION_RE.findall(prompt)]


def every_question(body: dict):
    """A responder answering every question of a cell call with the first
    line of the first section it was given, quoted (None for other calls)."""
    if "<question number=" not in body["messages"][-1]["content"]:
        return None
    index, text = passages_of(body)[0]
    line = next(line for line in text.splitlines() if line.strip()).strip()
    return read_reply(
        *(
            cell_answer(line, line, question=n, section=index)
            for n in questions_of(body)
        )
    )
