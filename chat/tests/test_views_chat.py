"""The chat page's views: escaping, isolation, polling, retry, and `ask`."""

from __future__ import annotations

import io
import json

import html5lib
import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.scoping import tenant_scope, unscoped
from chat.models import Message
from chat.services import message_ask, session_create
from citations.models import MessageCitation
from docuiq.testing.factories import make_document
from docuiq.testing.llm_server import Reply

pytestmark = pytest.mark.django_db

XSS = [
    "<script>window.__xss=1</script>",
    '"><img src=x onerror=alert(1)>',
    "javascript:alert(1)",
    'hx-get="/admin/"',
    "hx-on:click=alert(1)",
    "{{ secret }}",
    "\u202etxt.exe",
]
ALLOWED_HX = {
    "hx-get",
    "hx-post",
    "hx-target",
    "hx-swap",
    "hx-trigger",
    "hx-encoding",
    "hx-headers",
    # A CSS selector of what to send along (the picker keeps its ticks while
    # searching); it runs no code.
    "hx-include",
}


def _ask(tenant, user, question, capture):
    with tenant_scope(tenant):
        session = session_create(tenant=tenant, user=user)
        with capture(execute=True):
            message = message_ask(session=session, question=question)
    return session, message


def _assert_inert(html: str, templates_own_scripts: int) -> None:
    tree = html5lib.parse(html, namespaceHTMLElements=False)
    scripts = [s for s in tree.iter("script") if not s.get("src")]
    assert len(scripts) <= templates_own_scripts
    for element in tree.iter():
        for name in element.attrib:
            assert not name.startswith("on"), (element.tag, name)
            if name.startswith("hx-"):
                assert name in ALLOWED_HX, (element.tag, name)
    assert "<script>window.__xss" not in html and "<img src=x" not in html


def test_model_and_document_text_is_rendered_inert(
    tenant_a, alice, alice_client, llm, django_capture_on_commit_callbacks
):
    """SEC-07 / LLM-03: answers, quotes, titles and passages full of markup."""
    payload = " ".join(XSS)
    make_document(
        tenant_a, f"Clause one. {payload} The fee is due.", title=f"<b>{XSS[1]}</b>"
    )
    llm.script(
        Reply.chat_answer(
            f"See {XSS[0]} and {XSS[1]} [S1].", ("S1", XSS[0]), ("S1", payload)
        )
    )
    session, message = _ask(
        tenant_a, alice, "fee due clause", django_capture_on_commit_callbacks
    )
    page = alice_client.get(reverse("chat:session", args=[session.pk])).content.decode()
    _assert_inert(page, templates_own_scripts=0)
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in page
    with tenant_scope(tenant_a):
        citations = list(MessageCitation.objects.filter(message=message))
    assert citations
    for citation in citations:
        panel = alice_client.get(
            reverse("chat:citation", args=[citation.pk])
        ).content.decode()
        _assert_inert(panel, templates_own_scripts=0)


def test_another_tenant_sees_none_of_a_chat(
    tenant_a, alice, charlie_client, django_capture_on_commit_callbacks
):
    make_document(tenant_a, "The notice period is ninety days.", title="MSA")
    session, message = _ask(
        tenant_a, alice, "notice period", django_capture_on_commit_callbacks
    )
    with unscoped():
        citation = MessageCitation.objects.filter(message=message).first()
        question = Message.objects.get(pk=message.reply_to_id)
    for url in (
        reverse("chat:session", args=[session.pk]),
        reverse("chat:message", args=[message.pk]),
        reverse("chat:citation", args=[citation.pk]),
        reverse("chat:message-stream", args=[question.pk]),
    ):
        assert charlie_client.get(url).status_code == 404, url
    assert (
        charlie_client.post(
            reverse("chat:message-create", args=[session.pk]), {"question": "x"}
        ).status_code
        == 404
    )
    assert (
        "notice period"
        not in charlie_client.get(reverse("chat:home") + "?new=1").content.decode()
    )


def test_a_message_polls_only_while_a_citation_is_pending(
    tenant_a, alice, alice_client, django_capture_on_commit_callbacks
):
    make_document(tenant_a, "The notice period is ninety days.", title="MSA")
    _, message = _ask(
        tenant_a, alice, "notice period", django_capture_on_commit_callbacks
    )
    url = reverse("chat:message", args=[message.pk])
    assert 'hx-trigger="every 2s"' not in alice_client.get(url).content.decode()
    with unscoped():
        MessageCitation.objects.filter(message=message).update(
            verification_status="pending",
            verified=False,
            verification_method=None,
            verification_confidence=None,
            verified_at=None,
        )
    html = alice_client.get(url).content.decode()
    assert 'hx-trigger="every 2s"' in html and "badge--pending" in html


def test_a_failed_answer_offers_a_retry_that_answers_the_same_question(
    tenant_a, alice, alice_client, llm, django_capture_on_commit_callbacks
):
    make_document(tenant_a, "The notice period is ninety days.", title="MSA")
    llm.respond_with(lambda request: Reply.error(503, "overloaded"))
    session, failed = _ask(
        tenant_a, alice, "notice period", django_capture_on_commit_callbacks
    )
    html = alice_client.get(reverse("chat:session", args=[session.pk])).content.decode()
    assert "could not be produced" in html and 'data-testid="retry"' in html
    llm.respond_with(
        lambda request: Reply.chat_answer(
            "Ninety days [S1].", ("S1", "The notice period is ninety days.")
        )
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(reverse("chat:message-retry", args=[failed.pk]))
    assert response.status_code == 302
    with tenant_scope(tenant_a):
        answers = list(Message.objects.filter(session=session, role="assistant"))
    assert [a.status for a in answers] == ["complete"]
    assert (
        MessageCitation.objects.with_scope(tenant=tenant_a.pk)
        .get(message=answers[0])
        .verified
    )


def test_streaming_sends_deltas_then_the_stored_message(tenant_a, alice, alice_client):
    make_document(tenant_a, "The notice period is ninety days.", title="MSA")
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
    response = alice_client.post(
        reverse("chat:message-create", args=[session.pk]),
        {"question": "notice period"},
        HTTP_HX_REQUEST="true",
    )
    assert 'data-stream-url="' in response.content.decode()
    with unscoped():
        question = Message.objects.get(session=session, role="user")
    stream = alice_client.get(reverse("chat:message-stream", args=[question.pk]))
    body = b"".join(stream.streaming_content).decode()
    events = [block for block in body.split("\n\n") if block]
    assert events[0].startswith("event: delta") and events[-1].startswith("event: done")
    done = json.loads(events[-1].split("data: ", 1)[1])
    with unscoped():
        answer = Message.objects.get(session=session, role="assistant")
    assert done["url"] == reverse("chat:message", args=[answer.pk])
    streamed = "".join(json.loads(e.split("data: ", 1)[1])["t"] for e in events[:-1])
    assert "ninety days" in streamed


def test_ask_command_prints_the_payload_with_verdicts(tenant_a):
    make_document(
        tenant_a,
        "The notice period is ninety (90) days.",
        title="MSA",
        source_type="pdf",
    )
    out = io.StringIO()
    call_command(
        "ask",
        "What is the notice period?",
        "--tenant",
        "tenant-a",
        "--json",
        stdout=out,
    )
    payload = json.loads(out.getvalue())
    assert payload["answer"] and payload["citations"]
    citation = payload["citations"][0]
    for key in (
        "status",
        "method",
        "match_type",
        "confidence",
        "start",
        "end",
        "page",
        "source_text",
        "quoted_text",
        "doc_id",
        "doc_title",
    ):
        assert key in citation, key
    assert citation["status"] == "verified" and citation["doc_title"] == "MSA"
