"""Answers citing a Slack message and a database row (issue 29 items 1, 2
and 4): the payload, the panel and the footer name the message (channel,
sender, time) and the row (table, row, column), in their own words."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse

from accounts.scoping import tenant_scope
from chat.models import Message
from chat.payload import payload_with_verdicts
from chat.services import message_ask, session_create
from citations.models import MessageCitation
from docuiq.testing.exports import SlackMessage, slack_export, sqlite_contracts
from ingest.connectors.database import TableSpec
from ingest.models import Document
from ingest.sources import source_create_database, source_create_export

pytestmark = pytest.mark.django_db

from datetime import timedelta  # noqa: E402

from docuiq.testing.exports import BASE  # noqa: E402


@pytest.fixture
def connected(tenant_a, tmp_path, settings, django_capture_on_commit_callbacks):
    settings.CONNECTORS_SQLITE_DIRS = [str(tmp_path)]
    messages = [
        SlackMessage(
            "C1", "U1", "What escrow release window did Acme accept?", BASE, BASE
        ),
        SlackMessage(
            "C1",
            "U2",
            "Acme accepted an escrow release window of fourteen business days after closing.",
            BASE + timedelta(minutes=3),
            BASE,
        ),
    ]
    export = slack_export(
        messages, users={"U1": "Ana Ruiz", "U2": "Ben Okafor"}, channels={"C1": "deals"}
    )
    path = sqlite_contracts(
        tmp_path / "crm.db",
        [
            (
                1182,
                "Zephyr supply agreement",
                "Zephyr Ltd",
                "The indemnity cap for Zephyr is two million euros.",
            )
        ],
    )
    with django_capture_on_commit_callbacks(execute=True), tenant_scope(tenant_a):
        source_create_export(
            tenant=tenant_a,
            kind="slack",
            filename="acme.zip",
            stream=io.BytesIO(export),
        )
        source_create_database(
            tenant=tenant_a,
            name="CRM",
            connection_url=f"sqlite:///{path}",
            spec=TableSpec(
                table="contracts",
                key_column="id",
                text_columns=["counterparty", "notice_period"],
                title_column="title",
            ),
        )
    with tenant_scope(tenant_a):
        return {
            "thread": Document.objects.get(source_type="slack"),
            "row": Document.objects.get(source_type="db"),
        }


@pytest.fixture
def ask(tenant_a, alice, django_capture_on_commit_callbacks):
    def run(question: str) -> Message:
        with tenant_scope(tenant_a):
            session = session_create(tenant=tenant_a, user=alice)
            with django_capture_on_commit_callbacks(execute=True):
                message = message_ask(session=session, question=question)
            return Message.objects.get(pk=message.pk)

    return run


def _cited(message, source_type):
    payload = payload_with_verdicts(message)
    return [c for c in payload["citations"] if c.get("source_type") == source_type]


def test_an_answer_cites_the_slack_message_with_its_location(
    connected, ask, tenant_a, alice_client
):
    message = ask("What escrow release window did Acme accept?")
    with tenant_scope(tenant_a):
        cited = _cited(message, "slack")
        assert cited, message.content
        entry = next(
            c for c in cited if "fourteen" in (c["source_text"] or c["quoted_text"])
        )
        assert entry["status"] == "verified"
        assert entry["location"] == "#deals · Ben Okafor · 3 Mar 2026 14:05 UTC"
        assert entry["message_id"] == f"{(BASE + timedelta(minutes=3)).timestamp():.6f}"
        assert entry["thread_id"] == f"{BASE.timestamp():.6f}"
        assert entry["ts"] == "2026-03-03T14:05:00+00:00"
        assert (
            entry["extra"]["channel"] == "deals"
            and entry["extra"]["sender"] == "Ben Okafor"
        )
        assert entry["url"].startswith(f"/documents/{connected['thread'].pk}/")
        citation = MessageCitation.objects.get(pk=entry["citation_uuid"])
    panel = alice_client.get(reverse("chat:citation", args=[citation.pk]))
    assert 'data-testid="panel-location"' in panel.content.decode()
    assert "#deals · Ben Okafor · 3 Mar 2026 14:05 UTC" in panel.content.decode()
    page = alice_client.get(reverse("chat:session", args=[message.session_id]))
    footer = page.content.decode()
    assert 'data-testid="source-location"' in footer
    assert "#deals · Ben Okafor · 3 Mar 2026 14:05 UTC" in footer


def test_an_answer_cites_the_table_row_and_column(
    connected, ask, tenant_a, alice_client
):
    message = ask("What is the indemnity cap for Zephyr?")
    with tenant_scope(tenant_a):
        cited = _cited(message, "db")
        assert cited, message.content
        entry = cited[0]
        assert entry["status"] == "verified"
        assert entry["location"] == "contracts · row 1182 · notice_period"
        assert (entry["table"], entry["row_id"], entry["column"]) == (
            "contracts",
            "1182",
            "notice_period",
        )
        citation = MessageCitation.objects.get(pk=entry["citation_uuid"])
    panel = alice_client.get(
        reverse("chat:citation", args=[citation.pk])
    ).content.decode()
    assert "contracts · row 1182 · notice_period" in panel


def test_with_a_model_a_picked_thread_is_read_whole_and_cited_by_its_message(
    connected, tenant_a, alice, llm, django_capture_on_commit_callbacks
):
    from docuiq.testing.llm_server import Reply

    said = "Acme accepted an escrow release window of fourteen business days"
    llm.script(Reply.chat_answer("Fourteen business days [S1].", ("S1", said)))
    with tenant_scope(tenant_a):
        session = session_create(
            tenant=tenant_a, user=alice, documents=[connected["thread"]]
        )
        with django_capture_on_commit_callbacks(execute=True):
            message = message_ask(
                session=session, question="What window did Acme accept?"
            )
        message = Message.objects.get(pk=message.pk)
        assert message.payload["searched"]["reading"][0]["whole"] is True
        (entry,) = _cited(message, "slack")
    assert entry["status"] == "verified"
    assert entry["location"] == "#deals · Ben Okafor · 3 Mar 2026 14:05 UTC"
    assert "Location: Whole document" in llm.last_request.user_prompt
