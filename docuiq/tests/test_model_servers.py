"""The product against scripted imitations of real model servers (fast and
deterministic; the real one is the real_model tier, docuiq/tests/test_real_model.py).

What issue 35 saw with llama-cpp-python's server: every JSON call failed on its
HTTP 500 to ``json_schema``, and a tabular review at concurrency 8 timed out
6 of 9 cells on its single slot while it computed 21 requests.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from docuiq.testing.llm_server import Reply, ScriptedLLMServer

pytestmark = pytest.mark.django_db

SUPPLY = (
    "SUPPLY AGREEMENT\n\nThis Supply Agreement is made between Acme Tools Ltd and "
    "Beta Retail plc.\n\n1. Payment. The Buyer shall pay each invoice within 30 days "
    "of receipt.\n\n2. Governing Law. This Agreement is governed by the laws of "
    "England and Wales."
)


@pytest.fixture
def llama_cpp_python(settings) -> Iterator[ScriptedLLMServer]:
    """A one-slot server that refuses json_schema with a 500, configured with
    the product's defaults (a user who set only LLM_BASE_URL)."""
    with ScriptedLLMServer(profile="llama-cpp-python", latency_s=0.05) as server:
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_API_KEY = ""
        settings.LLM_MODEL = ""
        settings.LLM_JUDGE_MODEL = ""
        settings.LLM_PARALLEL = 0
        settings.LLM_TIMEOUT_S = 60.0
        settings.LLM_MAX_RETRIES = 2
        settings.TABULAR_CONCURRENCY = 8
        yield server


def test_a_review_on_a_single_slot_server_runs_one_cell_at_a_time(
    tenant_a, llama_cpp_python: ScriptedLLMServer
) -> None:
    from tabular.executor import review_run
    from tabular.models import Cell, Review
    from tabular.services import ColumnSpec, review_create

    documents = [
        make_document(tenant_a, SUPPLY, title=f"Supply agreement {n}") for n in range(3)
    ]
    review = review_create(
        tenant=tenant_a,
        name="On llama-cpp-python",
        document_ids=[d.pk for d in documents],
        columns=[
            ColumnSpec(name="Parties", question="Who are the parties?"),
            ColumnSpec(name="Payment", question="When must invoices be paid?"),
            ColumnSpec(name="Law", question="Which law governs the agreement?"),
        ],
    )
    # No concurrency given: TABULAR_CONCURRENCY (8) meets the server's one slot.
    assert review_run(review_id=review.pk).status == Review.Status.COMPLETED
    with tenant_scope(tenant_a):
        cells = list(Cell.objects.filter(review=review))
    assert len(cells) == 9
    assert [c.error for c in cells if c.status != Cell.Status.DONE] == []
    assert llama_cpp_python.max_in_flight == 1
    requests = llama_cpp_python.chat_requests
    kinds = [(r.response_format or {}).get("type") for r in requests]
    # One 500 on json_schema, then json_object for every cell: 10 calls, not 9 x 3.
    assert kinds == ["json_schema"] + ["json_object"] * 9
    # Every request is bounded: LLM_MAX_TOKENS, or more for a row's columns.
    assert all(r.body.get("max_tokens", 0) >= 1024 for r in requests)


def test_a_chat_answer_cut_at_the_limit_is_a_failed_answer_not_a_stored_one(
    tenant_a,
    alice,
    llama_cpp_python: ScriptedLLMServer,
    django_capture_on_commit_callbacks,
) -> None:
    from chat.models import Message
    from chat.services import message_ask, session_create

    make_document(tenant_a, SUPPLY, title="Supply agreement")
    half = "The Buyer shall pay each invoice within"
    llama_cpp_python.script(Reply.cut_off(half), Reply.cut_off(half))
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
        with django_capture_on_commit_callbacks(execute=True):
            message = message_ask(
                session=session, question="When must invoices be paid?"
            )
        message = Message.objects.get(pk=message.pk)
    assert message.status == Message.Status.FAILED
    assert "cut off at the 1024-token limit" in message.error
    assert half not in message.content
