"""The real_model tier: the product against a real model server (`make model`;
`make test-model` runs it).

llama-cpp-python's server, started as a new user would (one slot, 8,192 tokens
of context), serves a small GGUF model (Gemma 3 270M base, docs/models.md)
through a recording proxy (docuiq.testing.recording_proxy) that
``LLM_BASE_URL`` points at. Chat, the citation judge, an ensemble of two model
names on the same server, a 3 x 3 tabular review and a playbook run go end to
end through the product's own services.

These tests assert the product's contract with real servers, not answer
quality (a 270M base model answers badly): no HTTP 500 reaches a user, no
request times out or is sent twice, every request carries ``max_tokens``, the
single-slot server gets one call at a time, a reply cut at the token limit is
never stored as an answer, and no quote the model invented is verified.

Skipped unless the model is built (var/model/MODEL_PATH) and its server
starts, and unless selected with ``-m real_model`` (the normal suite stays
fast and deterministic on the scripted server).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from docuiq.testing.processes import LlamaServer, built_model
from docuiq.testing.recording_proxy import RecordingProxy

pytestmark = [pytest.mark.real_model, pytest.mark.django_db]

# Each run's per-test summary of what went over the wire (calls, statuses,
# finish reasons, seconds), for the reader of a run.
REPORT = Path(__file__).resolve().parents[2] / "var" / "model" / "tier-report.json"

# Small enough that a run stays within minutes on 2 CPU cores, large enough for
# a tabular cell's JSON; replies cut at it are part of what is tested.
MAX_TOKENS = 96

SUPPLY = (
    "SUPPLY AGREEMENT\n\nThis Supply Agreement is made on 1 March 2024 between Acme "
    'Tools Ltd ("Supplier") and Beta Retail plc ("Buyer").\n\n1. Payment. The Buyer '
    "shall pay each invoice within 30 days of receipt.\n\n2. Term. This Agreement "
    "continues until 28 February 2027.\n\n3. Governing Law. This Agreement is governed "
    "by the laws of England and Wales.\n\n4. Liability. The Supplier's aggregate "
    "liability shall not exceed GBP 250,000."
)
LICENCE = (
    "SOFTWARE LICENCE\n\nThis Licence is made between Gamma Software Inc. "
    '("Licensor") and Delta Bank AG ("Licensee").\n\n1. Fees. The Licensee shall pay '
    "the annual fee within 45 days of the invoice date.\n\n2. Governing Law. This "
    "Licence is governed by the laws of the State of New York.\n\n3. Termination. "
    "Either party may terminate this Licence on 90 days' written notice."
)
NDA = (
    "MUTUAL NON-DISCLOSURE AGREEMENT\n\nThis Agreement is made between Epsilon Ltd and "
    "Zeta GmbH.\n\n1. Confidentiality. Each party shall keep the other's Confidential "
    "Information secret for five (5) years after disclosure.\n\n2. Governing Law. This "
    "Agreement is governed by the laws of Germany."
)


PLAYBOOK = {
    "name": "Real model playbook",
    "positions": [
        {
            "title": "Governing law",
            "question": "Which law governs the agreement?",
            "type": "jurisdiction",
            "standard": "English law (England and Wales).",
            "rule": {"in": ["England and Wales"]},
            "severity": "medium",
        },
        {
            "title": "Payment",
            "question": "When must invoices be paid?",
            "standard": "Payment within 60 days of receipt",
            "severity": "high",
            "guidance": "Ask for 60 days.",
        },
    ],
}


@pytest.fixture(scope="session")
def real_server(tmp_path_factory) -> Iterator[RecordingProxy]:
    built = built_model()
    if built is None:
        pytest.skip("no model: run `make model`")
    log = tmp_path_factory.mktemp("llama") / "llama_cpp.server.log"
    try:
        server = LlamaServer(*built, log, n_ctx=8192)
    except RuntimeError as exc:
        pytest.skip(f"llama_cpp.server did not start: {exc}")
    proxy = RecordingProxy(server.url).start()
    proxy.summaries = {}  # type: ignore[attr-defined]
    try:
        yield proxy
    finally:
        proxy.stop()
        server.stop()
        # What the real server did, per test, for whoever reads the run.
        REPORT.write_text(json.dumps(proxy.summaries, indent=1) + "\n")  # type: ignore[attr-defined]


@pytest.fixture
def real_llm(
    settings, request, real_server: RecordingProxy
) -> Iterator[RecordingProxy]:
    """The real server as the configured model, with the product's defaults
    for everything but the token limit (as a user with no LLM_* tuning)."""
    settings.LLM_BASE_URL = f"{real_server.url}/v1"
    settings.LLM_API_KEY = ""
    settings.LLM_MODEL = ""  # the server's first model (llama-cpp-python: its path)
    settings.LLM_MAX_TOKENS = MAX_TOKENS
    settings.LLM_TIMEOUT_S = 60.0
    settings.LLM_MAX_RETRIES = 2
    settings.LLM_PARALLEL = 0
    settings.LLM_JUDGE_MODEL = ""
    settings.LLM_ENSEMBLE_MODELS = []
    # The executor's default; the single-slot server must bring it to 1.
    settings.TABULAR_CONCURRENCY = 8
    real_server.reset()
    yield real_server
    real_server.summaries[request.node.name] = real_server.summary()  # type: ignore[attr-defined]
    assert_wire_contract(real_server)


# ------------------------------------------------------------------ contract


def assert_wire_contract(proxy: RecordingProxy) -> None:
    chats = proxy.chat_requests
    assert chats, "the product sent the model nothing"
    for request in chats:
        assert isinstance(request.body.get("max_tokens"), int), request.body
        assert request.body["max_tokens"] > 0
        assert not request.error, f"{request.path}: {request.error}"  # no timeout
        if request.status == 500:
            # The one 500 llama-cpp-python gives: json_schema, asked once.
            assert (request.body.get("response_format") or {}).get("type") == (
                "json_schema"
            ), request.response_head[:300]
    # The mode is learnt per model name: each name pays one 500, once.
    refused = [r.body.get("model") for r in chats if r.status == 500]
    assert len(refused) == len(set(refused)), "json_schema asked again after its 500"
    assert proxy.max_in_flight == 1, "a single-slot server got parallel calls"


def assert_nothing_cut_is_stored(proxy: RecordingProxy, tenant) -> None:
    from chat.models import Message

    cut = [
        text
        for text, finish in (r.reply() for r in proxy.chat_requests)
        if finish == "length" and text.strip()
    ]
    with tenant_scope(tenant):
        stored = [m.content for m in Message.objects.exclude(content="")]
    for text in cut:
        assert all(text.strip() not in content for content in stored), text[:200]


def assert_no_500_or_timeout_shown(tenant) -> None:
    from chat.models import Message
    from tabular.models import Cell

    with tenant_scope(tenant):
        errors = [m.error for m in Message.objects.exclude(error="")]
        errors += [c.error for c in Cell.objects.exclude(error="")]
    for error in errors:
        assert "HTTP 500" not in error, error
        assert "did not answer within" not in error, error


def assert_no_invented_quote_verified(tenant) -> None:
    from citations.models import MessageCitation
    from ingest.models import DocumentRevision

    def flat(text: str) -> str:
        return re.sub(r"\s+", " ", text).strip().casefold()

    with tenant_scope(tenant):
        for citation in MessageCitation.objects.filter(verified=True):
            revision = DocumentRevision.objects.get(pk=citation.revision_id)
            text = revision.normalized_content
            span = text[citation.source_offset_start : citation.source_offset_end]
            assert span == citation.source_text, citation.pk
            if citation.verification_method == "exact_match":
                assert flat(citation.quoted_text) in flat(text), citation.quoted_text


def contract(proxy: RecordingProxy, tenant) -> None:
    assert_nothing_cut_is_stored(proxy, tenant)
    assert_no_500_or_timeout_shown(tenant)
    assert_no_invented_quote_verified(tenant)


# --------------------------------------------------------------------- tests


def test_the_server_is_adapted_to(real_llm: RecordingProxy) -> None:
    """What the client learns: one slot, json_schema refused, so json_object."""
    from llm import ChatMessage
    from llm.configured import provider

    model = provider()
    assert model.parallel_slots == 1
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
    }
    try:
        model.complete_json(
            [ChatMessage("user", 'Reply with {"answer": "yes"}.')],
            schema=schema,
            name="probe",
        )
    except Exception as exc:  # a bad reply is allowed; a 500 is not
        assert "HTTP 500" not in str(exc), exc
    assert model.json_mode == "json_object"
    kinds = [
        (r.body.get("response_format") or {}).get("type")
        for r in real_llm.chat_requests
    ]
    assert kinds[0] == "json_schema" and set(kinds[1:]) == {"json_object"}


def test_chat_about_an_uploaded_contract(
    real_llm: RecordingProxy, tenant_a, alice, django_capture_on_commit_callbacks
) -> None:
    from chat.models import Message
    from chat.services import message_ask, session_create

    doc = make_document(tenant_a, SUPPLY, title="Acme supply agreement")
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
        for question in (
            "When must the Buyer pay an invoice?",
            "Which law governs the Acme supply agreement?",
        ):
            with django_capture_on_commit_callbacks(execute=True):
                message = message_ask(session=session, question=question)
            message = Message.objects.get(pk=message.pk)
            # A real answer, or a clear failure: never a half answer stored.
            assert message.status in {"complete", "failed"}, message.status
            if message.status == "failed":
                assert message.error and "Traceback" not in message.error
            else:
                assert message.content.strip()
    assert doc.pk
    contract(real_llm, tenant_a)


def test_a_streamed_answer_cut_at_the_limit_is_an_error(
    real_llm: RecordingProxy,
) -> None:
    from llm import ChatMessage, LLMBadResponse
    from llm.configured import provider

    stream = provider().stream(
        [ChatMessage("user", "Write a long essay about contract law.")], max_tokens=8
    )
    try:
        text = "".join(stream)
    except LLMBadResponse as exc:
        # A base model under a chat template often ends its turn at once.
        assert any(
            words in str(exc)
            for words in ("cut off at the 8-token limit", "repeating", "empty answer")
        ), exc
        assert stream.completion is None
    else:  # the model stopped by itself within 8 tokens
        assert stream.completion is not None and stream.completion.finish_reason != (
            "length"
        ), text


def test_the_judge_and_an_ensemble_of_two_model_names(
    real_llm: RecordingProxy, settings, tenant_a
) -> None:
    from citations.judge import judges_from_config
    from llm.configured import llm_config

    settings.LLM_JUDGE_MODEL = "judge-a"
    settings.LLM_ENSEMBLE_MODELS = ["judge-a", "judge-b"]
    settings.LLM_ENSEMBLE_QUORUM = 2
    judge, ensemble = judges_from_config(llm_config())
    passage = SUPPLY
    verdicts = [
        j(passage=passage, quote="The Buyer pays invoices within a month.")
        for j in (judge, *ensemble)
    ]
    invented = [
        j(
            passage=passage,
            quote="The Supplier may terminate at any time without notice.",
        )
        for j in ensemble
    ]
    for verdict in [*verdicts, *invented]:
        # Whatever a small model says, a span it claims must be the passage's.
        if verdict.supported:
            assert verdict.span and verdict.span in passage, verdict
    models = {r.body.get("model") for r in real_llm.chat_requests}
    assert {"judge-a", "judge-b"} <= models


def test_a_three_by_three_tabular_review(real_llm: RecordingProxy, tenant_a) -> None:
    from tabular.executor import review_run
    from tabular.models import Cell, Review
    from tabular.services import ColumnSpec, review_create

    documents = [
        make_document(tenant_a, SUPPLY, title="Acme supply agreement"),
        make_document(tenant_a, LICENCE, title="Gamma licence"),
        make_document(tenant_a, NDA, title="Epsilon NDA"),
    ]
    columns = [
        ColumnSpec(name="Parties", question="Who are the parties to the agreement?"),
        ColumnSpec(name="Governing law", question="Which law governs the agreement?"),
        ColumnSpec(name="Payment", question="When must invoices be paid?"),
    ]
    review = review_create(
        tenant=tenant_a,
        name="Real model review",
        document_ids=[d.pk for d in documents],
        columns=columns,
    )
    outcome = review_run(review_id=review.pk)
    assert outcome.status == Review.Status.COMPLETED
    with tenant_scope(tenant_a):
        cells = list(Cell.objects.filter(review=review))
    assert len(cells) == 9
    for cell in cells:
        # Answered, or failed with a reason: every cell, alone.
        assert cell.status in {Cell.Status.DONE, Cell.Status.FAILED}
        if cell.status == Cell.Status.FAILED:
            assert cell.error
    contract(real_llm, tenant_a)


def test_a_playbook_run(real_llm: RecordingProxy, tenant_a) -> None:
    from playbook.models import Finding
    from playbook.runs import findings_sync, run_create
    from playbook.schema import spec_from_data
    from playbook.services import playbook_create
    from tabular.executor import review_run

    documents = [make_document(tenant_a, SUPPLY, title="Acme supply agreement")]
    with tenant_scope(tenant_a):
        # Two of the sample's positions (a typed one and a text one the model
        # judges): the whole sample is 20 cells, minutes each on 2 cores.
        playbook = playbook_create(tenant=tenant_a, spec=spec_from_data(PLAYBOOK))
        run = run_create(
            tenant=tenant_a,
            playbook=playbook,
            document_ids=[d.pk for d in documents],
            start=False,
        )
        review_run(review_id=run.review_id)
        findings_sync(run)
        assert Finding.objects.filter(run=run).exists()
    contract(real_llm, tenant_a)
