"""One contract per name (issue 32 item 3): a question naming one document
in words that fit two same-kind contracts gets "which one?" (chips in the
chat, `searched.ambiguous` in the REST payload), nothing retrieved; a chip,
`document_ids`, `@` or a narrower name answers from one; a question about
several ("both", "the agreements") is not ambiguous."""

from __future__ import annotations

import pytest

from accounts.scoping import tenant_scope
from chat.naming import DocumentNames, NameIndex, named_documents
from chat.services import message_ask, session_create
from docuiq.testing.factories import make_document
from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures

pytestmark = pytest.mark.django_db

BORROW = (
    "JOINT VENTURE AGREEMENT\n\nThis Joint Venture Agreement is made between "
    "BorrowMoney.com, Inc. and JVLS, LLC. The term of this Agreement ends on "
    "February 28, 2025."
)
MJ = (
    "JOINT VENTURE AGREEMENT\n\nThis Joint Venture Agreement is made between "
    "MJ Syndicated, Inc. and Bio Holdings, LLC. The term of this Agreement ends on "
    "February 28, 2004."
)
QUESTION = "When does the joint venture agreement end?"


@pytest.fixture
def ventures(tenant_a):
    return [
        make_document(tenant_a, BORROW, title="Joint Venture Agreement"),
        make_document(
            tenant_a, MJ, title="Joint Venture Agreement — MJ Syndicated and Bio"
        ),
    ]


def _session(api):
    return api.post("/api/chat/sessions/create", {}, format="json").json()["id"]


def _ask(api, session, **body):
    response = api.post(f"/api/chat/sessions/{session}/ask", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["payload"]


def test_the_api_says_which_documents_the_question_fits(a_key_api, ventures):
    payload = _ask(a_key_api, _session(a_key_api), question=QUESTION)
    searched = payload["searched"]
    assert searched["kind"] == "ambiguous"
    assert {c["id"] for c in searched["ambiguous"]} == {str(d.pk) for d in ventures}
    for candidate in searched["ambiguous"]:
        assert set(candidate) == {"id", "title", "filename", "added"}
        assert candidate["filename"].endswith(".txt")
    assert payload["citations"] == []
    assert payload["answer"].startswith("Which one?")
    assert "2004" not in payload["answer"] and "2025" not in payload["answer"]


def test_an_explicit_choice_is_never_ambiguous(a_key_api, ventures):
    session = _session(a_key_api)
    payload = _ask(
        a_key_api, session, question=QUESTION, document_ids=[str(ventures[1].pk)]
    )
    assert payload["searched"]["kind"] == "chosen"
    assert "ambiguous" not in payload["searched"]
    assert "2004" in payload["answer"] and "2025" not in payload["answer"]
    mention = _ask(
        a_key_api, session, question="@Joint Venture Agreement when does it end?"
    )
    assert mention["searched"]["kind"] == "mentioned"


def test_a_narrower_name_or_a_question_about_both_is_not_ambiguous(tenant_a, ventures):
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=None)
        narrow = message_ask(
            session=session, question="When does the MJ Syndicated joint venture end?"
        )
        both = message_ask(
            session=session, question="Compare both joint venture agreements' terms"
        )
    assert narrow.payload["searched"]["kind"] == "named"
    assert [d["id"] for d in narrow.payload["searched"]["documents"]] == [
        str(ventures[1].pk)
    ]
    assert both.payload["searched"]["kind"] != "ambiguous"


def test_the_chat_shows_chips_that_ask_again_scoped_to_one(
    alice_client, alice, tenant_a, ventures
):
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
    response = alice_client.post(
        f"/chat/{session.pk}/messages/", {"question": QUESTION}
    )
    assert response.status_code == 302
    page = alice_client.get(response["Location"])
    body = page.content.decode()
    assert body.count('data-testid="which-one-choice"') == 2
    assert "Joint Venture Agreement — MJ Syndicated and Bio" in body
    assert f'name="document" value="{ventures[1].pk}"' in body
    again = alice_client.post(
        f"/chat/{session.pk}/messages/",
        {"question": QUESTION, "document": str(ventures[1].pk)},
    )
    assert again.status_code == 302
    with tenant_scope(tenant_a):
        last = session.messages.filter(role="assistant").order_by("-created_at")[0]
    assert last.payload["searched"]["kind"] == "chosen"
    assert "2004" in last.content and "2025" not in last.content


def test_naming_marks_one_naming_of_several_documents_ambiguous():
    index = NameIndex(
        [
            DocumentNames("a", "Joint Venture Agreement", "a.pdf"),
            DocumentNames("b", "Joint Venture Agreement — MJ Syndicated", "b.pdf"),
            DocumentNames("c", "Supply Agreement — Acme Widgets", "c.pdf"),
        ]
    )
    assert named_documents(QUESTION, index).ambiguous
    assert set(named_documents(QUESTION, index).document_ids) == {"a", "b"}
    assert not named_documents("Do all joint venture agreements end?", index).ambiguous
    assert named_documents(
        "Does the MJ Syndicated joint venture end?", index
    ).document_ids == ["b"]
    assert not named_documents("Does the supply agreement renew?", index).ambiguous
