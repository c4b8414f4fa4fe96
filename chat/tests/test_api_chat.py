"""REST API for chat: sessions, asking, messages, and the widget's citation
status endpoint (X-API-Key only; SEC-04, LLM-07, TEN-02, TEN-04)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from chat.models import ChatSession, Message
from docuiq.testing.factories import make_document
from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures
from docuiq.tests.api_fixtures import (
    CONTRACT,
    add_revision,
    first_chunk,
    random_id,
    tenant_row_counts,
)

pytestmark = pytest.mark.django_db

QUESTION = "When shall the Supplier deliver the goods?"


def status_url(session_id, chunk_id, revision_id) -> str:
    return f"/api/chat/{session_id}/citation/{chunk_id}/{revision_id}/status"


# ---------------------------------------------------------------- sessions


def test_create_a_session_limited_to_documents(a_user_api, world):
    response = a_user_api.post(
        "/api/chat/sessions/create",
        {
            "title": "Terms",
            "document_ids": [str(world.document_a.pk)],
            "collection_id": world.collection_a.pk,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["title"] == "Terms"
    assert body["document_ids"] == [str(world.document_a.pk)]
    assert body["collection_id"] == world.collection_a.pk
    with tenant_scope(world.tenant_a):
        session = ChatSession.objects.get(pk=body["id"])
    assert session.tenant == world.tenant_a
    assert session.user.username == "alice"


def test_a_session_cannot_name_another_tenants_documents_or_collection(
    b_key_api, b_user_api, world
):
    before = tenant_row_counts(world.tenant_b), tenant_row_counts(world.tenant_a)
    for client in (b_key_api, b_user_api):
        foreign_doc = client.post(
            "/api/chat/sessions/create",
            {"document_ids": [str(world.document_a.pk)]},
            format="json",
        )
        unknown_doc = client.post(
            "/api/chat/sessions/create", {"document_ids": [random_id()]}, format="json"
        )
        assert foreign_doc.status_code == unknown_doc.status_code == 400
        assert foreign_doc.content == unknown_doc.content
        foreign_collection = client.post(
            "/api/chat/sessions/create",
            {"collection_id": world.collection_a.pk},
            format="json",
        )
        assert foreign_collection.status_code == 400
        assert foreign_collection.json() == {"collection_id": ["Unknown collection."]}
    assert (
        tenant_row_counts(world.tenant_b),
        tenant_row_counts(world.tenant_a),
    ) == before


def test_a_person_lists_their_own_sessions_a_key_lists_the_tenants(
    a_user_api, a_key_api, b_key_api, world, bob
):
    from chat.services import session_create

    with tenant_scope(world.tenant_a):
        bobs = session_create(tenant=world.tenant_a, user=bob, title="Bob's")
        api_made = session_create(tenant=world.tenant_a, user=None, title="Agent")
    mine = {s["id"] for s in a_user_api.get("/api/chat/sessions").json()["items"]}
    assert mine == {str(world.session_a.pk)}
    tenants = {s["id"] for s in a_key_api.get("/api/chat/sessions").json()["items"]}
    assert tenants == {str(world.session_a.pk), str(bobs.pk), str(api_made.pk)}
    assert {s["id"] for s in b_key_api.get("/api/chat/sessions").json()["items"]} == {
        str(world.session_b.pk)
    }
    # Bob's chat is not Alice's to read, though it is in her tenant.
    assert a_user_api.get(f"/api/chat/sessions/{bobs.pk}").status_code == 404


def test_session_list_pages(a_key_api, world):
    from chat.services import session_create

    with tenant_scope(world.tenant_a):
        for i in range(4):
            session_create(tenant=world.tenant_a, user=None, title=f"s{i}")
    first = a_key_api.get("/api/chat/sessions", {"limit": 3}).json()
    second = a_key_api.get(
        "/api/chat/sessions", {"limit": 3, "skip": first["next_skip"]}
    ).json()
    assert len(first["items"]) == 3 and first["next_skip"] == 3
    assert len(second["items"]) == 2 and second["next_skip"] is None
    assert a_key_api.get("/api/chat/sessions", {"limit": 501}).status_code == 400


# ---------------------------------------------------------------- asking


def test_ask_answers_with_cited_and_verified_quotes(
    a_key_api, world, django_capture_on_commit_callbacks
):
    session = a_key_api.post("/api/chat/sessions/create", {}, format="json").json()
    with django_capture_on_commit_callbacks(
        execute=True
    ):  # verification runs on commit
        response = a_key_api.post(
            f"/api/chat/sessions/{session['id']}/ask",
            {"question": QUESTION},
            format="json",
        )
    assert response.status_code == 201, response.content
    answer = response.json()
    assert answer["role"] == "assistant" and answer["status"] == "complete"
    payload = answer["payload"]
    assert payload["question"] == QUESTION
    assert "within 30 days" in payload["answer"]
    assert payload["citations"], payload
    cited = payload["citations"][0]
    assert cited["doc_title"] == "Master Services Agreement"
    assert cited["chunk_id"] == str(world.chunk_a.uid)
    assert cited["status"] in {
        "verified",
        "pending",
    }  # payload_with_verdicts: current at read time
    messages = a_key_api.get(f"/api/chat/sessions/{session['id']}/messages").json()[
        "items"
    ]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == QUESTION and messages[0]["payload"] is None
    listed = messages[1]["payload"]["citations"][0]
    assert listed["status"] == "verified" and listed["method"] == "exact_match"
    text = world.document_a.current_revision.normalized_content
    assert (
        text[listed["start"] : listed["end"]]
        == listed["source_text"]
        == listed["quoted_text"]
    )


def test_ask_with_a_session_cookie(a_user_api, world):
    response = a_user_api.post(
        f"/api/chat/sessions/{world.session_a.pk}/ask",
        {"question": "What is the payment term?"},
        format="json",
    )
    assert response.status_code == 201
    assert "45 days" in response.json()["payload"]["answer"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"question": ""},
        {"question": "   "},
        {"question": "x" * 4001},
        {"question": ["a"]},
    ],
)
def test_ask_rejects_bad_questions_and_stores_nothing(a_key_api, world, body):
    before = tenant_row_counts(world.tenant_a)
    response = a_key_api.post(
        f"/api/chat/sessions/{world.session_a.pk}/ask", body, format="json"
    )
    assert response.status_code == 400
    assert tenant_row_counts(world.tenant_a) == before


def test_another_tenants_session_is_404_like_an_unknown_one_and_nothing_is_written(
    b_key_api, b_user_api, world
):
    before = tenant_row_counts(world.tenant_a), tenant_row_counts(world.tenant_b)
    for client in (b_key_api, b_user_api):
        for suffix, method, body in (
            ("", "get", None),
            ("/messages", "get", None),
            ("/ask", "post", {"question": QUESTION}),
        ):
            call = getattr(client, method)
            foreign = call(
                f"/api/chat/sessions/{world.session_a.pk}{suffix}", body, format="json"
            )
            unknown = call(
                f"/api/chat/sessions/{random_id()}{suffix}", body, format="json"
            )
            malformed = call(f"/api/chat/sessions/nope{suffix}", body, format="json")
            assert (
                foreign.status_code
                == unknown.status_code
                == malformed.status_code
                == 404
            )
            assert foreign.content == unknown.content == malformed.content
    assert (
        tenant_row_counts(world.tenant_a),
        tenant_row_counts(world.tenant_b),
    ) == before


def test_messages_of_a_session(a_user_api, world):
    body = a_user_api.get(f"/api/chat/sessions/{world.session_a.pk}/messages").json()
    assert [m["role"] for m in body["items"]] == ["user", "assistant"]
    answer = body["items"][1]
    assert answer["id"] == str(world.answer_a.pk)
    assert answer["reply_to_id"] == body["items"][0]["id"]
    assert answer["payload"]["citations"][0]["status"] == "verified"
    assert body["next_skip"] is None


# ---------------------------------------------------------------- citation status (widget)


def test_status_of_a_verified_citation(a_key_api, world):
    c = world.citation_a
    response = a_key_api.get(status_url(world.session_a.pk, c.chunk_id, c.revision_id))
    assert response.status_code == 200
    body = response.json()
    assert body == {
        "found": True,
        "verification_status": "verified",
        "match_type": "exact",
        "match_score": pytest.approx(1.0),
        "matched_span_start": c.source_offset_start,
        "matched_span_end": c.source_offset_end,
        "verified_at": body["verified_at"],
        # Issue 23: relevance beside verification, and staleness.
        "relevance": c.relevance,
        "other_document": False,
        "stale": False,
    }
    assert body["relevance"] in {"answers", "related", "off_topic"}
    assert body["verified_at"].startswith(str(timezone.now().year))
    text = world.document_a.current_revision.normalized_content
    assert text[body["matched_span_start"] : body["matched_span_end"]] == c.quoted_text


def test_status_of_a_chunk_not_cited_in_the_session_is_not_found(a_key_api, world):
    other = make_document(
        world.tenant_a, "An unrelated memo about parking spaces.", title="Memo"
    )
    chunk = first_chunk(other)
    body = a_key_api.get(
        status_url(world.session_a.pk, chunk.uid, chunk.revision_id)
    ).json()
    assert body == {
        "found": False,
        "verification_status": None,
        "match_type": None,
        "match_score": None,
        "matched_span_start": None,
        "matched_span_end": None,
        "verified_at": None,
        "relevance": None,
        "other_document": None,
        "stale": None,
    }
    # Ids that exist nowhere, or are not even uuids, answer the same.
    assert (
        a_key_api.get(status_url(world.session_a.pk, random_id(), random_id())).json()
        == body
    )
    assert a_key_api.get(status_url(world.session_a.pk, "x", "y")).json() == body


def test_status_reports_no_span_until_verified(a_key_api, world):
    from citations.models import MessageCitation, Status

    c = world.citation_a
    with tenant_scope(world.tenant_a):
        MessageCitation.objects.filter(pk=c.pk).update(
            verification_status=Status.PENDING,
            verified=False,
            verification_method=None,
            verification_confidence=None,
            match_type=None,
            match_score=None,
            verified_at=None,
        )
    body = a_key_api.get(
        status_url(world.session_a.pk, c.chunk_id, c.revision_id)
    ).json()
    assert body["found"] is True and body["verification_status"] == "pending"
    assert body["matched_span_start"] is None and body["matched_span_end"] is None


def test_status_after_reverification_on_a_new_revision_still_answers_for_the_old_one(
    a_key_api, world
):
    from citations.services import citation_verify

    c = world.citation_a
    new = add_revision(world.document_a, "Recitals come first. " + CONTRACT)
    citation_verify(citation_id=c.pk, trigger="revision")
    body = a_key_api.get(
        status_url(world.session_a.pk, c.chunk_id, c.revision_id)
    ).json()
    assert body["found"] is True and body["verification_status"] == "verified"
    assert (
        new.normalized_content[body["matched_span_start"] : body["matched_span_end"]]
        == c.quoted_text
    )


def test_status_of_a_citation_resolved_by_an_agent_in_the_chat(a_key_api, world):
    chunk = world.chunk_a
    quote = "Payment is due within 45 days of the invoice date."
    resolved = a_key_api.post(
        "/api/citations/resolve",
        {
            "chunk_id": str(chunk.uid),
            "quoted_text": quote,
            "execution_context_type": "chat",
            "execution_context_id": str(world.session_a.pk),
        },
        format="json",
    )
    assert resolved.status_code == 201
    body = a_key_api.get(
        status_url(world.session_a.pk, chunk.uid, chunk.revision_id),
        {"message_id": resolved.json()["message_id"]},
    ).json()
    assert body["found"] is True and body["verification_status"] == "verified"
    text = world.document_a.current_revision.normalized_content
    assert text[body["matched_span_start"] : body["matched_span_end"]] == quote


def test_status_needs_an_api_key_and_every_failure_looks_the_same(
    anon_api, a_user_api, world, tenant_a
):
    from accounts.models import ApiKey, Tenant
    from docuiq.tests.api_fixtures import _key

    c = world.citation_a
    url = status_url(world.session_a.pk, c.chunk_id, c.revision_id)
    revoked, disabled = _key(tenant_a, "revoked"), _key(tenant_a, "disabled")
    with unscoped():
        ApiKey.objects.filter(prefix=revoked.split("_")[1]).update(
            revoked_at=timezone.now()
        )
    attempts = [
        anon_api.get(url),
        anon_api.get(url, HTTP_X_API_KEY=""),
        anon_api.get(url, HTTP_X_API_KEY="dq_00000000_wrong"),
        anon_api.get(url, HTTP_X_API_KEY="not even a key"),
        anon_api.get(url, HTTP_X_API_KEY=revoked),
        a_user_api.get(url),  # a valid session cookie never authenticates it (SEC-04)
    ]
    Tenant.objects.filter(pk=tenant_a.pk).update(is_active=False)
    attempts.append(anon_api.get(url, HTTP_X_API_KEY=disabled))
    assert [r.status_code for r in attempts] == [401] * len(attempts)
    assert len({r.content for r in attempts}) == 1
    assert attempts[0].json() == {"detail": "A valid X-API-Key header is required."}
    assert attempts[0]["WWW-Authenticate"] == "X-API-Key"


def test_status_of_another_tenants_chat_is_404_like_an_unknown_session(
    b_key_api, world
):
    c = world.citation_a
    foreign = b_key_api.get(status_url(world.session_a.pk, c.chunk_id, c.revision_id))
    unknown = b_key_api.get(status_url(random_id(), c.chunk_id, c.revision_id))
    malformed = b_key_api.get(status_url("nope", c.chunk_id, c.revision_id))
    assert foreign.status_code == unknown.status_code == malformed.status_code == 404
    assert foreign.content == unknown.content == malformed.content


def test_a_key_reads_any_session_of_its_tenant(a_key_api, world):
    # Alice's chat, read by the tenant's key (a service account).
    assert a_key_api.get(f"/api/chat/sessions/{world.session_a.pk}").status_code == 200
    with unscoped():
        assert Message.objects.filter(session=world.session_a).count() == 2
