"""REST API for citations (seed 003): resolve, verify, list with filters,
stats, detail, and tenant isolation (TEN-02, TEN-03)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from citations.models import (
    CitationVerification,
    MessageCitation,
    Status,
    UnsourcedCitation,
)
from docuiq.testing.factories import make_document
from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures
from docuiq.tests.api_fixtures import (
    CLIMATE,
    CONTRACT,
    add_revision,
    first_chunk,
    random_id,
    tenant_row_counts,
)

pytestmark = pytest.mark.django_db

QUOTE = "The Supplier shall deliver the goods within 30 days of the order."


@pytest.fixture
def contract(tenant_a):
    return make_document(tenant_a, CONTRACT, title="Master Services Agreement")


@pytest.fixture
def climate(tenant_a):
    return make_document(tenant_a, CLIMATE, title="Climate Report 2023")


@pytest.fixture
def ledger(tenant_b):
    return make_document(
        tenant_b, "The ledger of tenant B says 7 million.", title="B Ledger"
    )


def resolve(client, chunk, quote=None, **extra):
    body = {"chunk_id": str(chunk.uid), **extra}
    if quote is not None:
        body["quoted_text"] = quote
    return client.post("/api/citations/resolve", body, format="json")


def revision_text(document) -> str:
    with tenant_scope(document.tenant):
        document.refresh_from_db()
        return document.current_revision.normalized_content


# ---------------------------------------------------------------- resolve


def test_resolve_an_exact_quote_verifies_with_offsets_into_the_text(
    a_key_api, contract
):
    response = resolve(
        a_key_api,
        first_chunk(contract),
        QUOTE,
        execution_context_type="workflow",
        execution_context_id="wf-1",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["verification_status"] == "verified"
    assert body["match_type"] == "exact"
    assert body["verification_method"] == "exact_match"
    assert body["verified"] is True
    assert body["match_score"] == pytest.approx(1.0)
    assert body["source_text"] == QUOTE
    text = revision_text(contract)
    assert text[body["source_offset_start"] : body["source_offset_end"]] == QUOTE
    assert body["document_id"] == str(contract.pk)
    assert body["document_name"] == "Master Services Agreement"
    assert body["chunk_id"] == str(first_chunk(contract).uid)
    assert body["execution_context_type"] == "workflow"
    assert body["execution_context_id"] == "wf-1"
    assert body["verified_at"]
    assert body["failure_kind"] == ""
    assert body["candidate_start"] is body["candidate_end"] is None
    assert body["candidate_page"] is None


def test_resolve_a_quote_with_a_changed_number_is_stored_as_not_found(
    a_key_api, contract
):
    response = resolve(a_key_api, first_chunk(contract), QUOTE.replace("30", "60"))
    assert response.status_code == 201
    body = response.json()
    assert body["verification_status"] == "failed"
    assert body["match_type"] == "not_found"
    assert body["verified"] is False
    assert body["reason"]
    # Found, differs: the passage that says 30 is returned with its page.
    assert body["failure_kind"] == "differs"
    text = revision_text(contract)
    passage = text[body["candidate_start"] : body["candidate_end"]]
    assert "30" in passage and passage == body["source_text"]
    assert body["candidate_page"] == body["source_page"] >= 1
    assert (
        MessageCitation.objects.with_scope(tenant=contract.tenant_id)
        .filter(pk=body["id"])
        .exists()
    )


def test_resolve_tolerates_whitespace_and_typography(a_key_api, contract):
    quote = "The  Supplier shall\ndeliver the goods within 30 days of the order."
    body = resolve(a_key_api, first_chunk(contract), quote).json()
    assert body["verification_status"] == "verified"
    assert body["match_type"] in {"normalized", "fuzzy"}
    assert body["source_text"] == QUOTE  # the document's own words, not the quote's


def test_resolve_without_a_quote_is_unverified(a_user_api, contract):
    response = resolve(a_user_api, first_chunk(contract))
    assert response.status_code == 201
    body = response.json()
    assert body["verification_status"] == "unverified"
    assert body["match_type"] is None
    assert body["source_text"] == first_chunk(contract).content
    assert body["execution_context_type"] == "api"


def test_resolve_twice_returns_the_same_citation(a_key_api, contract, tenant_a):
    first = resolve(
        a_key_api, first_chunk(contract), QUOTE, execution_context_id="run-7"
    )
    before = tenant_row_counts(tenant_a)
    again = resolve(
        a_key_api, first_chunk(contract), QUOTE, execution_context_id="run-7"
    )
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert tenant_row_counts(tenant_a) == before


def test_resolve_in_a_chat_context_needs_a_session_of_the_caller(
    a_key_api, contract, tenant_a, tenant_b, charlie
):
    from chat.services import session_create

    with tenant_scope(tenant_b):
        foreign = session_create(tenant=tenant_b, user=charlie)
    before = tenant_row_counts(tenant_a)
    for context_id in (str(foreign.pk), random_id(), "not-a-uuid"):
        response = resolve(
            a_key_api,
            first_chunk(contract),
            QUOTE,
            execution_context_type="chat",
            execution_context_id=context_id,
        )
        assert response.status_code == 400
        assert response.json() == {"execution_context_id": ["Unknown chat session."]}
    assert tenant_row_counts(tenant_a) == before


def test_resolve_another_tenants_chunk_is_404_like_an_unknown_one_and_writes_nothing(
    b_key_api, b_user_api, contract, tenant_a, tenant_b
):
    before_a, before_b = tenant_row_counts(tenant_a), tenant_row_counts(tenant_b)
    foreign = resolve(b_key_api, first_chunk(contract), QUOTE)
    unknown = b_key_api.post(
        "/api/citations/resolve",
        {"chunk_id": random_id(), "quoted_text": QUOTE},
        format="json",
    )
    by_session = resolve(b_user_api, first_chunk(contract), QUOTE)
    assert foreign.status_code == unknown.status_code == by_session.status_code == 404
    assert foreign.content == unknown.content == by_session.content
    assert tenant_row_counts(tenant_a) == before_a
    assert tenant_row_counts(tenant_b) == before_b


def test_resolve_a_chunk_of_a_deleted_document_is_404(a_key_api, contract):
    from ingest.services import document_soft_delete

    with tenant_scope(contract.tenant):
        document_soft_delete(document=contract)
    assert resolve(a_key_api, first_chunk(contract), QUOTE).status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"chunk_id": "not-a-uuid"},
        {"chunk_id": None},
        {"chunk_id": "{chunk}", "quoted_text": "x" * 20_001},
        {"chunk_id": "{chunk}", "execution_context_id": "x" * 65},
        {"chunk_id": "{chunk}", "execution_context_type": "has spaces"},
        {"chunk_id": "{chunk}", "execution_context_type": "x" * 33},
        {"chunk_id": "{chunk}", "quoted_text": "nul \x00 byte"},
        {"chunk_id": "{chunk}", "quoted_text": ["a", "list"]},
    ],
)
def test_resolve_rejects_bad_input_with_400(a_key_api, contract, tenant_a, body):
    body = {
        k: (str(first_chunk(contract).uid) if v == "{chunk}" else v)
        for k, v in body.items()
    }
    before = tenant_row_counts(tenant_a)
    response = a_key_api.post("/api/citations/resolve", body, format="json")
    assert response.status_code == 400, response.content
    assert tenant_row_counts(tenant_a) == before


def test_resolve_rejects_a_body_that_is_not_json(a_key_api):
    response = a_key_api.post(
        "/api/citations/resolve", "{not json", content_type="application/json"
    )
    assert response.status_code == 400


# ---------------------------------------------------------------- verify


def test_verify_after_a_new_revision_follows_the_quote_into_the_new_text(
    a_key_api, contract
):
    created = resolve(a_key_api, first_chunk(contract), QUOTE).json()
    old_revision = created["revision_id"]
    new_revision = add_revision(
        contract, "Amendment No. 1 precedes the terms. " + CONTRACT
    )
    response = a_key_api.post(f"/api/citations/{created['id']}/verify")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == created["id"]
    assert body["verification_status"] == "verified"
    assert body["revision_id"] == str(new_revision.pk) != old_revision
    shift = len("Amendment No. 1 precedes the terms. ")
    assert body["source_offset_start"] == created["source_offset_start"] + shift
    assert (
        new_revision.normalized_content[
            body["source_offset_start"] : body["source_offset_end"]
        ]
        == QUOTE
    )
    with tenant_scope(contract.tenant):
        triggers = list(
            CitationVerification.objects.filter(citation_id=created["id"])
            .order_by("id")
            .values_list("trigger", flat=True)
        )
    assert triggers == ["initial", "reverify"]


def test_verify_after_the_number_changed_in_a_new_revision_fails(a_key_api, contract):
    created = resolve(a_key_api, first_chunk(contract), QUOTE).json()
    add_revision(contract, CONTRACT.replace("30 days", "60 days"))
    body = a_key_api.post(f"/api/citations/{created['id']}/verify").json()
    assert body["verification_status"] == "failed"
    assert body["match_type"] == "not_found"
    assert body["verified"] is False
    assert body["verified_at"] is None


def test_verify_another_tenants_citation_is_404_and_writes_nothing(
    a_key_api, b_key_api, b_user_api, contract, tenant_a
):
    created = resolve(a_key_api, first_chunk(contract), QUOTE).json()
    before = tenant_row_counts(tenant_a)
    foreign = b_key_api.post(f"/api/citations/{created['id']}/verify")
    unknown = b_key_api.post(f"/api/citations/{random_id()}/verify")
    malformed = b_key_api.post("/api/citations/not-a-uuid/verify")
    by_session = b_user_api.post(f"/api/citations/{created['id']}/verify")
    assert {r.status_code for r in (foreign, unknown, malformed, by_session)} == {404}
    assert foreign.content == unknown.content == malformed.content == by_session.content
    assert tenant_row_counts(tenant_a) == before


def test_verify_an_out_of_provenance_reference_is_400(a_key_api, unsourced):
    response = a_key_api.post(f"/api/citations/{unsourced.pk}/verify")
    assert response.status_code == 400


# ---------------------------------------------------------------- fixtures for lists


@pytest.fixture
def unsourced(tenant_a, contract):
    """An out-of-provenance reference, hung on a resolve holder message."""
    created = MessageCitation.objects
    with tenant_scope(tenant_a):
        holder = created.exclude(message=None).first()
        if holder is None:
            from chat.resolve import citation_resolve

            holder = citation_resolve(
                tenant=tenant_a, chunk_uid=first_chunk(contract).uid
            ).citation
        return UnsourcedCitation.objects.create(
            tenant=tenant_a,
            message_id=holder.message_id,
            ref_label="S9",
            quoted_text="an invented quote",
            reason="S9 names no source given to the model for this answer.",
            execution_context_type="chat",
            execution_context_id="ctx-oop",
        )


@pytest.fixture
def population(tenant_a, tenant_b, contract, climate, ledger):
    """A has 10x more citations than B, in every status (TEN-03)."""
    from accounts.services import collection_get_or_create
    from chat.resolve import citation_resolve

    def make(tenant, document, quote, **context):
        return citation_resolve(
            tenant=tenant,
            chunk_uid=first_chunk(document).uid,
            quoted_text=quote,
            **context,
        ).citation

    deals = collection_get_or_create(tenant=tenant_a, name="Deals")
    with tenant_scope(tenant_a):
        contract.collections.add(deals)
    a = {
        "verified": [
            make(tenant_a, contract, QUOTE, context_type="workflow", context_id="wf-1"),
            make(
                tenant_a,
                contract,
                "Payment is due within 45 days of the invoice date.",
                context_type="workflow",
                context_id="wf-1",
            ),
            make(
                tenant_a,
                climate,
                "Scope 1 emissions declined 10% year over year.",
                context_type="function_call",
                context_id="fc-9",
            ),
        ],
        "failed": [
            make(
                tenant_a, contract, "Payment is due within 90 days of the invoice date."
            ),
            make(tenant_a, climate, "Scope 1 emissions rose 10% year over year."),
        ],
        "unverified": [make(tenant_a, climate, ""), make(tenant_a, contract, "")],
        "pending": [
            make(
                tenant_a,
                climate,
                "Renewable electricity reached 62 percent of total consumption.",
            )
        ],
    }
    with tenant_scope(tenant_a):
        # A citation whose verification has not run yet.
        MessageCitation.objects.filter(pk=a["pending"][0].pk).update(
            verification_status=Status.PENDING,
            verified=False,
            verification_method=None,
            verification_confidence=None,
            match_type=None,
            verified_at=None,
        )
    b_citation = make(tenant_b, ledger, "The ledger of tenant B says 7 million.")
    return {"a": a, "b": b_citation, "deals": deals}


def listing(client, tenant, **params):
    return client.get("/api/citations", {"tenant_id": tenant.slug, **params})


def ids(response) -> set[str]:
    assert response.status_code == 200, response.content
    return {item["id"] for item in response.json()["items"]}


# ---------------------------------------------------------------- list


def test_list_requires_the_callers_own_tenant_id(
    a_key_api, b_key_api, tenant_a, tenant_b, population
):
    assert a_key_api.get("/api/citations").status_code == 400
    assert a_key_api.get("/api/citations", {"tenant_id": ""}).status_code == 400
    foreign = b_key_api.get("/api/citations", {"tenant_id": tenant_a.slug})
    nonexistent = b_key_api.get("/api/citations", {"tenant_id": "no-such-tenant"})
    assert foreign.status_code == nonexistent.status_code == 403
    assert foreign.content == nonexistent.content  # no oracle for tenant slugs
    assert ids(
        a_key_api.get("/api/citations", {"tenant_id": str(tenant_a.pk)})
    )  # the numeric id works too


def test_list_shows_each_tenant_only_its_own_citations(
    a_key_api, b_key_api, b_user_api, tenant_a, tenant_b, population
):
    a_ids = {str(c.pk) for group in population["a"].values() for c in group}
    assert ids(listing(a_key_api, tenant_a)) == a_ids
    assert ids(listing(b_key_api, tenant_b)) == {str(population["b"].pk)}
    assert ids(listing(b_user_api, tenant_b)) == {str(population["b"].pk)}


def test_list_filters(a_key_api, tenant_a, contract, climate, population):
    a = population["a"]
    as_ids = lambda rows: {str(c.pk) for c in rows}  # noqa: E731
    every = [c for group in a.values() for c in group]
    of_contract = [c for c in every if c.document_id == contract.pk]
    assert ids(listing(a_key_api, tenant_a, document_id=str(contract.pk))) == as_ids(
        of_contract
    )
    assert ids(
        listing(a_key_api, tenant_a, collection_id=population["deals"].pk)
    ) == as_ids(of_contract)
    assert ids(listing(a_key_api, tenant_a, verification_status="verified")) == as_ids(
        a["verified"]
    )
    assert ids(listing(a_key_api, tenant_a, verification_status="failed")) == as_ids(
        a["failed"]
    )
    assert ids(listing(a_key_api, tenant_a, verification_status="pending")) == as_ids(
        a["pending"]
    )
    assert ids(
        listing(a_key_api, tenant_a, verification_method="exact_match")
    ) == as_ids(a["verified"])
    assert ids(
        listing(a_key_api, tenant_a, execution_context_type="workflow")
    ) == as_ids(a["verified"][:2])
    assert ids(
        listing(
            a_key_api,
            tenant_a,
            execution_context_type="function_call",
            execution_context_id="fc-9",
        )
    ) == as_ids(a["verified"][2:])
    # document_name: case-insensitive, partial
    of_climate = [c for c in every if c.document_id == climate.pk]
    assert ids(listing(a_key_api, tenant_a, document_name="cLiMaTe rEp")) == as_ids(
        of_climate
    )
    assert ids(listing(a_key_api, tenant_a, document_name="services agree")) == as_ids(
        of_contract
    )
    assert ids(listing(a_key_api, tenant_a, document_name="nothing like it")) == set()
    # filters combine
    assert ids(
        listing(
            a_key_api, tenant_a, document_name="climate", verification_status="failed"
        )
    ) == as_ids([a["failed"][1]])


def test_list_filters_by_date_range(a_key_api, tenant_a, population):
    a = population["a"]
    old, older = a["failed"][0], a["unverified"][0]
    with unscoped():
        MessageCitation.objects.filter(pk=old.pk).update(
            created_at=dt.datetime(2026, 2, 20, 10, 30, tzinfo=dt.UTC)
        )
        MessageCitation.objects.filter(pk=older.pk).update(
            created_at=dt.datetime(2025, 12, 31, 23, 0, tzinfo=dt.UTC)
        )
    assert ids(
        listing(
            a_key_api,
            tenant_a,
            date_from="2026-02-01T00:00:00Z",
            date_to="2026-02-28T23:59:59Z",
        )
    ) == {str(old.pk)}
    # A bare date_to covers that whole day; a bare date_from starts at its midnight.
    assert ids(
        listing(a_key_api, tenant_a, date_from="2026-02-20", date_to="2026-02-20")
    ) == {str(old.pk)}
    assert ids(listing(a_key_api, tenant_a, date_to="2026-01-01")) == {str(older.pk)}
    assert ids(
        listing(
            a_key_api,
            tenant_a,
            date_from="2026-02-20T11:00:00+01:00",
            date_to="2026-02-20T11:30:00+01:00",
        )
    ) == {str(old.pk)}
    recent = ids(
        listing(
            a_key_api,
            tenant_a,
            date_from=(timezone.now() - dt.timedelta(hours=1)).isoformat(),
        )
    )
    assert str(old.pk) not in recent and str(older.pk) not in recent and recent
    assert listing(a_key_api, tenant_a, date_from="yesterday").status_code == 400
    assert (
        listing(
            a_key_api, tenant_a, date_from="2026-03-01", date_to="2026-02-01"
        ).status_code
        == 400
    )


def test_list_pages_with_skip_and_limit(a_key_api, tenant_a, population):
    total = sum(len(g) for g in population["a"].values())
    seen, skip = [], 0
    while skip is not None:
        page = listing(a_key_api, tenant_a, skip=skip, limit=3).json()
        assert page["limit"] == 3 and page["skip"] == skip and len(page["items"]) <= 3
        seen += [item["id"] for item in page["items"]]
        skip = page["next_skip"]
    assert len(seen) == len(set(seen)) == total
    created = [
        item["created_at"]
        for item in listing(a_key_api, tenant_a, limit=500).json()["items"]
    ]
    assert created == sorted(created, reverse=True)  # newest first


@pytest.mark.parametrize(
    "params",
    [
        {"limit": 0},
        {"limit": 501},
        {"limit": "ten"},
        {"skip": -1},
        {"skip": 2**63},
        {"document_id": "nope"},
        {"collection_id": "x"},
        {"verification_status": "great"},
        {"verification_method": "vibes"},
        {"date_to": "2026-13-01"},
        {"document_name": "x" * 501},
    ],
)
def test_list_rejects_bad_filters_with_400(a_key_api, tenant_a, params):
    assert listing(a_key_api, tenant_a, **params).status_code == 400


def test_list_out_of_provenance_references_on_request(
    a_key_api, tenant_a, population, unsourced
):
    response = listing(a_key_api, tenant_a, verification_status="out_of_provenance")
    assert ids(response) == {str(unsourced.pk)}
    item = response.json()["items"][0]
    assert item["quoted_text"] == "an invented quote"
    assert (
        item["chunk_id"] is None
        and item["source_text"] is None
        and item["verified"] is False
    )
    assert str(unsourced.pk) not in ids(listing(a_key_api, tenant_a))


# ---------------------------------------------------------------- stats


def test_stats_count_exactly_the_callers_tenant(
    a_key_api, b_key_api, a_user_api, tenant_a, tenant_b, population, unsourced
):
    expected_a = {
        "verified": 3,
        "failed": 2,
        "pending": 1,
        "unverified": 2,
        "out_of_provenance": 1,
        "total": 9,
    }
    with tenant_scope(tenant_a):
        refused = MessageCitation.objects.filter(
            pk__in=[c.pk for c in population["a"]["failed"]]
        ).values_list("rule", flat=True)
        by_rule_a: dict[str, int] = {}
        for rule in refused:
            by_rule_a[rule] = by_rule_a.get(rule, 0) + 1
    assert "" not in by_rule_a  # the cascade named the rule of each
    expected_a["by_rule"] = by_rule_a
    assert (
        a_key_api.get("/api/citations/stats", {"tenant_id": tenant_a.slug}).json()
        == expected_a
    )
    assert (
        a_user_api.get("/api/citations/stats", {"tenant_id": tenant_a.slug}).json()
        == expected_a
    )
    expected_b = {
        "verified": 1,
        "failed": 0,
        "pending": 0,
        "unverified": 0,
        "out_of_provenance": 0,
        "total": 1,
        "by_rule": {},
    }
    assert (
        b_key_api.get("/api/citations/stats", {"tenant_id": tenant_b.slug}).json()
        == expected_b
    )
    assert (
        b_key_api.get("/api/citations/stats", {"tenant_id": tenant_a.slug}).status_code
        == 403
    )


def test_stats_take_the_list_filters(a_key_api, tenant_a, climate, population):
    body = a_key_api.get(
        "/api/citations/stats",
        {"tenant_id": tenant_a.slug, "document_id": str(climate.pk)},
    ).json()
    with tenant_scope(tenant_a):
        refused = MessageCitation.objects.get(pk=population["a"]["failed"][1].pk)
    assert body == {
        "verified": 1,
        "failed": 1,
        "pending": 1,
        "unverified": 1,
        "out_of_provenance": 0,
        "total": 4,
        "by_rule": {refused.rule: 1},
    }


# ---------------------------------------------------------------- detail


def test_detail_returns_the_citation(a_user_api, tenant_a, population):
    citation = population["a"]["verified"][0]
    body = a_user_api.get(f"/api/citations/{citation.pk}").json()
    assert body["id"] == str(citation.pk)
    assert body["quoted_text"] == QUOTE
    assert body["source_page"] == 1
    assert body["verification_confidence"] == pytest.approx(1.0)
    assert body["message_id"] == str(citation.message_id)


def test_detail_of_another_tenants_citation_is_404_like_an_unknown_id(
    b_key_api, b_user_api, population
):
    citation = population["a"]["verified"][0]
    responses = [
        b_key_api.get(f"/api/citations/{citation.pk}"),
        b_user_api.get(f"/api/citations/{citation.pk}"),
        b_key_api.get(f"/api/citations/{random_id()}"),
        b_key_api.get("/api/citations/12345"),
    ]
    assert {r.status_code for r in responses} == {404}
    assert len({r.content for r in responses}) == 1
    assert responses[0]["Content-Type"] == "application/json"


def test_detail_of_an_out_of_provenance_reference(a_key_api, unsourced):
    body = a_key_api.get(f"/api/citations/{unsourced.pk}").json()
    assert body["verification_status"] == "out_of_provenance"
    assert body["ref_label"] == "S9"
    assert body["failure_kind"] == "out_of_provenance"
    assert body["candidate_start"] is None and body["candidate_page"] is None


def test_citation_endpoints_need_credentials(anon_api, tenant_a, population):
    citation = population["a"]["verified"][0]
    for response in (
        anon_api.get("/api/citations", {"tenant_id": tenant_a.slug}),
        anon_api.get("/api/citations/stats", {"tenant_id": tenant_a.slug}),
        anon_api.get(f"/api/citations/{citation.pk}"),
        anon_api.post(f"/api/citations/{citation.pk}/verify"),
        anon_api.post(
            "/api/citations/resolve",
            {"chunk_id": str(citation.chunk_id)},
            format="json",
        ),
    ):
        assert response.status_code == 401
    bad_key = anon_api.get(
        "/api/citations", {"tenant_id": tenant_a.slug}, HTTP_X_API_KEY="dq_nope_nope"
    )
    assert bad_key.status_code == 401


def test_list_filters_by_relevance_and_staleness_and_returns_them(
    a_key_api, tenant_a, population
):
    a = population["a"]
    off_topic, stale = a["verified"][0], a["failed"][0]
    with tenant_scope(tenant_a):
        MessageCitation.objects.filter(pk=off_topic.pk).update(
            relevance="off_topic", relevance_method="offline", relevance_score=0.1
        )
        MessageCitation.objects.filter(pk=stale.pk).update(is_stale=True)
    response = listing(a_key_api, tenant_a, relevance="off_topic")
    assert ids(response) == {str(off_topic.pk)}
    row = response.json()["items"][0]
    assert row["relevance"] == "off_topic" and row["relevance_score"] == 0.1
    assert ids(listing(a_key_api, tenant_a, stale="true")) == {str(stale.pk)}
    unrated = listing(a_key_api, tenant_a, relevance="unrated")
    assert ids(unrated) and str(off_topic.pk) not in ids(unrated)
    assert all(
        r["relevance"] is None and r["stale"] in {True, False}
        for r in unrated.json()["items"]
    )
    bad = listing(a_key_api, tenant_a, relevance="maybe")
    assert bad.status_code == 400
