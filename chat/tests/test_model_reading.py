"""Chat with a model configured: what the model reads (whole documents within
the context budget, else their best sections, said so), its one structured
answer, and that its own "answers" marks are never the word rater's.

Real HTTP to the scripted OpenAI-compatible server; eager Celery verifies."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from accounts.scoping import tenant_scope
from chat.models import Message, MessageSource
from chat.payload import payload_with_verdicts
from chat.reading import prompt_budget, sources_tokens
from chat.services import (
    message_ask,
    message_stream,
    question_store,
    session_create,
    turn_for,
)
from citations.models import MessageCitation
from citations.relevance import RelevanceJudge
from docuiq.testing.factories import make_document
from docuiq.testing.llm_server import Reply
from ingest.sections import document_sections, estimate_tokens
from llm.configured import llm_config

pytestmark = pytest.mark.django_db

FENCE = re.compile(r'<source id="(S\d+)">\n(.*?)\n</source>', re.DOTALL)


def _page(n: int, words: int = 180) -> str:
    body = " ".join(f"term{n}w{i}" for i in range(words))
    return f"Section {n}. General provisions, page {n}. {body}."


CAP_PAGE = (
    "Neither party shall owe the other more than the fees paid in the prior "
    "twelve months."
)


@pytest.fixture
def contract(tenant_a):
    """A 12-page PDF; page 7 holds the limitation clause."""
    pages = [_page(n) for n in range(1, 13)]
    pages[6] = CAP_PAGE + " " + _page(7, 40)
    return make_document(tenant_a, pages, title="Supply Agreement", source_type="pdf")


@pytest.fixture
def ask(tenant_a, alice, django_capture_on_commit_callbacks):
    def run(question: str, documents=(), **kwargs) -> Message:
        with tenant_scope(tenant_a):
            session = session_create(
                tenant=tenant_a, user=alice, documents=list(documents), **kwargs
            )
            with django_capture_on_commit_callbacks(execute=True):
                message = message_ask(session=session, question=question)
            return Message.objects.get(pk=message.pk)

    return run


def _fenced(request) -> list[tuple[str, str]]:
    return FENCE.findall(request.user_prompt)


def _citations(message) -> list[MessageCitation]:
    with tenant_scope(message.tenant):
        return list(
            MessageCitation.objects.filter(message=message).order_by("answer_start")
        )


def test_a_whole_named_contract_that_fits_is_what_the_model_reads(contract, ask, llm):
    llm.script(Reply.chat_answer("See the agreement [S1].", ("S1", "Section 1.")))
    message = ask("What does the agreement say about exposure?", [contract])
    assert message.status == "complete", message.error
    fenced = _fenced(llm.last_request)
    text = contract.current_revision.normalized_content
    with tenant_scope(contract.tenant):
        sections = document_sections(contract)
    # Every section, in order, each its own source: the whole revision.
    assert len(fenced) == len(sections) > 1
    assert [ref for ref, _ in fenced] == [f"S{i}" for i in range(1, len(sections) + 1)]
    assert "".join(body for _, body in fenced) == text
    assert sum(len(body) for _, body in fenced) == len(text)
    # Each section is stored as the message's source with its span and pages.
    with tenant_scope(contract.tenant):
        stored = list(MessageSource.objects.filter(message=message).order_by("rank"))
    assert [(s.start_offset, s.end_offset) for s in stored] == [
        (s.start, s.end) for s in sections
    ]
    assert [(s.page_start, s.page_end) for s in stored] == [
        (s.page_start, s.page_end) for s in sections
    ]
    assert "Location: Page" in llm.last_request.user_prompt
    assert message.payload["searched"]["reading"][0]["whole"] is True
    assert "Read pages" not in message.content  # nothing to say: all was read
    # The structured call: JSON schema and an explicit answer budget.
    assert llm.last_request.response_format["type"] == "json_schema"
    assert llm.last_request.body["max_tokens"] > 0


def test_a_quote_from_a_later_page_of_a_section_verifies_with_its_page(
    contract, ask, llm
):
    def respond(request):
        ref = next(r for r, b in _fenced_body(request) if CAP_PAGE in b)
        return Reply.chat_answer(f"Capped at the fees [{ref}].", (ref, CAP_PAGE))

    llm.respond_with(respond)
    message = ask("Is liability capped?", [contract])
    (citation,) = _citations(message)
    text = contract.current_revision.normalized_content
    assert citation.verification_status == "verified", citation.reason
    assert text[citation.source_offset_start : citation.source_offset_end] == CAP_PAGE
    assert citation.source_page == 7


def test_over_budget_the_model_reads_the_best_sections_and_the_answer_says_so(
    contract, ask, llm, settings
):
    settings.LLM_CONTEXT_TOKENS = 4000
    settings.LLM_MAX_TOKENS = 500
    llm.script(Reply.chat_answer("Capped [S1].", ("S1", CAP_PAGE)))
    message = ask("What do the parties owe at most in fees?", [contract])
    assert message.status == "complete", message.error
    fenced = _fenced(llm.last_request)
    text = contract.current_revision.normalized_content
    assert 0 < sum(len(b) for _, b in fenced) < len(text)
    # The section the retrieval found is read whole.
    assert any(CAP_PAGE in body for _, body in fenced)
    # What was read fits the budget, and is said in the answer and the payload.
    with tenant_scope(contract.tenant):
        session = message.session
        budget = prompt_budget(
            llm_config(), question=message.reply_to.content, history=[]
        )
        turn = turn_for(question=message.reply_to)
    assert sources_tokens(turn.sources) <= budget
    reading = message.payload["searched"]["reading"]
    assert reading == turn.reading.describe()
    assert reading[0]["whole"] is False
    assert 0 < reading[0]["sections_read"] < reading[0]["sections_total"]
    said = re.search(
        r'Read pages? ([\d, -]+) of "Supply Agreement" \(the document is longer '
        r"than the model's budget\)\.",
        message.content,
    )
    assert said, message.content
    assert "7" in said.group(1)
    assert "Read pages" in llm.last_request.user_prompt  # the model is told too
    assert session is not None


def test_a_not_found_over_budget_says_which_sections_were_read(
    contract, ask, llm, settings
):
    settings.LLM_CONTEXT_TOKENS = 4000
    settings.LLM_MAX_TOKENS = 500
    llm.script(Reply.chat_answer("", not_found=True))
    message = ask("What do the parties owe at most in fees?", [contract])
    payload = message.payload
    assert payload["not_found"] is True and payload["contradiction"] is False
    assert _citations(message) == []
    assert "do not contain an answer" in message.content
    assert 'of "Supply Agreement" (the document is longer' in message.content
    assert payload["searched"]["reading"][0]["whole"] is False


def test_a_whole_reading_not_found_says_it_read_everything(contract, ask, llm):
    llm.script(Reply.chat_answer("", not_found=True))
    message = ask("Who is the escrow agent?", [contract])
    assert message.payload["not_found"] is True
    assert 'Read in full: "Supply Agreement".' in message.content


def test_the_models_answers_mark_is_never_the_word_raters(contract, ask, llm):
    """A passage the word rater calls off-topic stays "answers" when the
    model says so: relevance_method is "model" on every citation."""
    question = "Is there a cap on liability?"
    assert (
        RelevanceJudge(question).rate(CAP_PAGE).label == "off_topic"
    )  # the word rater's view: no word of the question
    llm.respond_with(
        lambda request: Reply.chat_answer(
            "Yes: aggregate exposure is limited to the fees paid [S1].",
            (
                next(ref for ref, b in _fenced_body(request) if CAP_PAGE in b),
                CAP_PAGE,
                "answers",
            ),
            ("S1", "Section 1. General provisions, page 1.", "related"),
        )
    )
    message = ask(question, [contract])
    citations = _citations(message)
    assert len(citations) == 2
    assert all(c.relevance_method == "model" for c in citations)
    cap = next(c for c in citations if c.quoted_text == CAP_PAGE)
    other = next(c for c in citations if c.quoted_text != CAP_PAGE)
    assert cap.relevance == "answers" and cap.verification_status == "verified"
    assert other.relevance == "related"
    with tenant_scope(message.tenant):
        live = payload_with_verdicts(message)
    assert any(m["status"] == "supported" for m in live["coverage"])
    # The rendered answer keeps the canonical form.
    assert f'"{CAP_PAGE}" (Source: [' in message.content
    assert message.content.index("The documents say:") < message.content.index(
        "Related passages:"
    )


def _fenced_body(request_json) -> list[tuple[str, str]]:
    users = [m for m in request_json["messages"] if m["role"] == "user"]
    return FENCE.findall(users[-1]["content"])


def test_a_failed_quote_stays_failed_whatever_the_model_says(contract, ask, llm):
    llm.script(
        Reply.chat_answer(
            "Capped at twice the fees [S1].",
            ("S1", "Neither party shall owe the other more than twice the fees paid"),
        )
    )
    message = ask("Is liability capped?", [contract])
    (citation,) = _citations(message)
    assert citation.relevance == "answers" and citation.relevance_method == "model"
    assert citation.verification_status == "failed" and not citation.verified
    with tenant_scope(message.tenant):
        live = payload_with_verdicts(message)
    assert live["citations"][0]["status"] == "failed"
    assert all(m["status"] == "unsupported" for m in live["coverage"])


def test_not_found_while_quoting_is_a_contradiction_for_review(
    contract, ask, llm, alice_client
):
    llm.script(
        Reply.chat_answer(
            "The documents do not say.", ("S1", "Section 1."), not_found=True
        )
    )
    message = ask("Is liability capped?", [contract])
    payload = message.payload
    assert payload["contradiction"] is True
    assert payload["not_found"] is False  # never a plain "not found"
    assert _citations(message)  # the quote is kept, and verified as any other
    page = alice_client.get(reverse("chat:session", args=[message.session_id]))
    html = page.content.decode()
    assert 'data-testid="contradiction-banner"' in html
    assert "yet it quoted them" in html


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (Reply.answer("The fee is due in 30 days."), "JSON"),
        (Reply.object({"answer": "x"}), "expected format"),
        (Reply.chat_answer(""), "empty answer"),
        (Reply.error(503, "overloaded"), "503"),
    ],
)
def test_bad_model_output_is_a_failed_answer_with_a_clear_error(
    contract, ask, llm, reply, words
):
    llm.respond_with(lambda request: reply)
    message = ask("Is liability capped?", [contract])
    assert message.status == "failed"
    assert words in message.error and "Traceback" not in message.error
    assert _citations(message) == []


def test_a_model_that_times_out_is_a_failed_answer(contract, ask, llm, settings):
    settings.LLM_TIMEOUT_S = 0.5
    settings.LLM_MAX_RETRIES = 0
    llm.script(Reply.chat_answer("Late.").with_delay(2))
    message = ask("Is liability capped?", [contract])
    assert message.status == "failed"
    assert "did not answer within" in message.error


def test_unscoped_questions_get_as_many_chunks_as_the_budget_holds(
    tenant_a, ask, llm, settings
):
    for n in range(30):
        make_document(
            tenant_a,
            f"Payment terms {n}. The customer shall pay invoice {n} within "
            f"{n + 10} days of receipt.",
            title=f"Order {n}",
        )
    llm.respond_with(lambda request: Reply.chat_answer("", not_found=True))
    ask("When must the customer pay an invoice?")
    given = len(_fenced(llm.last_request))
    assert given > settings.RETRIEVAL_TOP_K  # not 6: the budget holds more
    assert given == 30
    # A small budget holds fewer, and what is given fits it.
    settings.LLM_CONTEXT_TOKENS = 2400
    settings.LLM_MAX_TOKENS = 400
    ask("When must the customer pay an invoice?")
    fenced = _fenced(llm.last_request)
    assert settings.RETRIEVAL_TOP_K <= len(fenced) < 30
    budget = prompt_budget(
        llm_config(), question="When must the customer pay an invoice?", history=[]
    )
    assert (
        estimate_tokens(llm.last_request.user_prompt.split("Question:")[0])
        <= budget + 50
    )  # the "Sources (…):" line


def test_a_judge_model_may_re_rate_the_models_citations(contract, ask, llm, settings):
    settings.LLM_JUDGE_MODEL = "judge-model"
    llm.script(
        Reply.chat_answer("Capped [S1].", ("S1", "Section 1.")),
        Reply.object(
            {"ratings": [{"id": "P1", "relevance": "off_topic", "reason": "A title."}]}
        ),
    )
    message = ask("Is liability capped?", [contract])
    (citation,) = _citations(message)
    citation.refresh_from_db()
    assert citation.relevance == "off_topic" and citation.relevance_method == "judge"
    assert llm.chat_requests[-1].model == "judge-model"


def test_a_structured_answer_streams_as_one_piece_then_the_message(
    contract, tenant_a, alice, llm, django_capture_on_commit_callbacks
):
    llm.script(Reply.chat_answer("Capped [S1].", ("S1", "Section 1.")))
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice, documents=[contract])
        question = question_store(session=session, question="Is liability capped?")
        with django_capture_on_commit_callbacks(execute=True):
            parts = list(message_stream(turn=turn_for(question=question)))
    assert len(parts) == 2 and isinstance(parts[1], Message)
    assert parts[0] == parts[1].content and '"Section 1." (Source: [S1])' in parts[0]
    assert not llm.last_request.stream


def test_the_stream_view_sends_the_rendered_answer(contract, alice, llm, alice_client):
    llm.script(Reply.chat_answer("Capped [S1].", ("S1", "Section 1.")))
    with tenant_scope(contract.tenant):
        session = session_create(
            tenant=contract.tenant, user=alice, documents=[contract]
        )
        question = question_store(session=session, question="Is liability capped?")
    response = alice_client.get(reverse("chat:message-stream", args=[question.pk]))
    body = b"".join(response.streaming_content).decode()
    events = re.findall(r"event: (\w+)\ndata: (.*)\n", body)
    assert [e for e, _ in events] == ["delta", "done"]
    assert "Section 1." in json.loads(events[0][1])["t"]


def test_a_context_too_small_for_any_section_is_a_clear_error_not_a_not_found(
    contract, ask, llm, settings
):
    settings.LLM_CONTEXT_TOKENS = 1500
    settings.LLM_MAX_TOKENS = 500
    message = ask("Is liability capped?", [contract])
    assert message.status == "failed"
    assert "LLM_CONTEXT_TOKENS=1500" in message.error
    assert llm.chat_requests == []  # the model is not asked to read nothing


def test_the_citation_panel_shows_a_quote_cited_in_a_section(
    contract, ask, llm, alice_client
):
    def respond(request):
        ref = next(r for r, b in _fenced_body(request) if CAP_PAGE in b)
        return Reply.chat_answer(f"Capped [{ref}].", (ref, CAP_PAGE))

    llm.respond_with(respond)
    message = ask("Is liability capped?", [contract])
    (citation,) = _citations(message)
    panel = alice_client.get(reverse("chat:citation", args=[citation.pk]))
    assert panel.status_code == 200
    html = panel.content.decode()
    assert "Neither party shall owe the other" in html and "Supply Agreement" in html
