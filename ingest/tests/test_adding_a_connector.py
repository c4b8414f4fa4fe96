"""docs/how-to-add-a-connector.md, walked: a fake connector (a "memo" export,
a JSON list of memos), one row of the table plus its own class, is offered by
the sources page and the API, recognised on the upload form, synced into
documents (a changed memo a new revision, a gone one deleted), and cited in
an answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.scoping import tenant_scope
from chat.models import Message
from chat.payload import payload_with_verdicts
from chat.services import message_ask, session_create
from ingest import source_kinds
from ingest.connectors.items import Item
from ingest.exports import Head
from ingest.models import Document, Source
from ingest.source_kinds import Plan, SourceKind
from ingest.source_kinds.base import export_bytes

pytestmark = pytest.mark.django_db


class Memos(SourceKind):
    """What a memo connector's module would hold
    (ingest/source_kinds/memo.py): how to recognise and read its export."""

    def recognises(self, head: Head) -> bool:
        return head.filename.endswith(".memos.json")

    def plan(self, source: Source) -> Plan:
        memos = json.loads(export_bytes(source))
        items = (
            Item(
                key=m["id"],
                title=m["title"],
                source_type="text",
                text=m["text"],
                segments=[],
                metadata={"memo": m["id"]},
            )
            for m in memos
        )
        return Plan(items=iter(items), covers=lambda key: True, warnings=[])


MEMO = Memos(
    "memo",
    "Memo export",
    name="Memo",
    export_label="Memo export (.memos.json)",
    recognised_by="a JSON list of memos named *.memos.json",
)


def _memos(*texts: str) -> bytes:
    return json.dumps(
        [
            {"id": f"m{i}", "title": f"Memo {i}", "text": text}
            for i, text in enumerate(texts, start=1)
        ]
    ).encode()


@pytest.fixture
def memo():
    with source_kinds.registered(MEMO) as kind:
        yield kind


def test_the_sources_page_and_the_api_offer_a_new_connector(memo, alice_client):
    page = alice_client.get(reverse("ingest:source-list")).content.decode()
    assert '<option value="memo">Memo export (.memos.json)</option>' in page
    assert "Slack or Teams or Memo export</h2>" in page
    refused = alice_client.post(reverse("ingest:source-export"), {}, follow=True)
    assert "Choose Slack or Teams or Memo and an export file." in (
        refused.content.decode()
    )
    response = alice_client.post(
        "/api/sources/exports",
        {"kind": "memo", "file": SimpleUploadedFile("q3.memos.json", _memos("Hi."))},
    )
    assert response.status_code == 201, response.content
    assert response.json()["kind"] == "memo"


def test_a_new_connector_is_synced_into_documents_and_resynced(
    memo, alice_client, tenant_a, django_capture_on_commit_callbacks
):
    first = _memos(
        "The escrow release window is fourteen business days.", "Lunch is at noon."
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            reverse("ingest:source-export"),
            {"kind": "memo", "file": SimpleUploadedFile("q3.memos.json", first)},
        )
    assert response.status_code == 302
    with tenant_scope(tenant_a):
        source = Source.objects.get()
        assert (source.kind, source.status) == ("memo", "ready")
        assert source.stats["created"] == 2
        assert Document.objects.filter(is_deleted=False).count() == 2
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(
            "/api/sources/exports",
            {
                "kind": "memo",
                "file": SimpleUploadedFile(
                    "q3.memos.json", _memos("The window is ten days.")
                ),
                "source_id": str(source.pk),
            },
        )
    with tenant_scope(tenant_a):
        source.refresh_from_db()
        assert (source.stats["updated"], source.stats["deleted"]) == (1, 1)


def test_the_upload_form_recognises_a_new_connectors_export(
    memo, alice_client, tenant_a, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(
            reverse("ingest:document-upload"),
            {"files": SimpleUploadedFile("team.memos.json", _memos("Hello there."))},
        )
    with tenant_scope(tenant_a):
        assert Source.objects.get().kind == "memo"


def test_an_answer_cites_a_new_connectors_document(
    memo, alice, tenant_a, alice_client, django_capture_on_commit_callbacks
):
    said = "The escrow release window is fourteen business days after closing."
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(
            reverse("ingest:source-export"),
            {"kind": "memo", "file": SimpleUploadedFile("a.memos.json", _memos(said))},
        )
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
        with django_capture_on_commit_callbacks(execute=True):
            message = message_ask(
                session=session, question="What is the escrow release window?"
            )
        message = Message.objects.get(pk=message.pk)
        memo_doc = Document.objects.get(title="Memo 1")
        cited = [
            c
            for c in payload_with_verdicts(message)["citations"]
            if str(memo_doc.pk) in (c.get("url") or "")
        ]
    assert cited, message.content
    assert cited[0]["status"] == "verified"


def test_the_model_field_is_derived_from_the_table_and_the_docs_walk_it():
    assert source_kinds.kind_of("memo") is None  # the fake is gone
    field = Source._meta.get_field("kind")
    assert list(field.choices) == source_kinds.choices()
    how_to = (
        Path(django_settings.BASE_DIR) / "docs" / "how-to-add-a-connector.md"
    ).read_text()
    assert "ingest/source_kinds/__init__.py" in how_to
    assert Path(__file__).name in how_to
