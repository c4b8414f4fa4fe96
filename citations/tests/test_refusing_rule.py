"""The rule that refused a citation is a column of it (`MessageCitation.rule`):
written with the verdict, backfilled from the audit rows, shown in the panel,
filtered in the review tab, the admin and the API, counted in the stats,
each scoped to the caller's tenant. Tests compare rule ids, never prose."""

from __future__ import annotations

import importlib

import html5lib
import pytest
from django.apps import apps as django_apps
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator

from accounts.scoping import tenant_scope, unscoped
from citations.cascade.rules import BY_ID
from citations.models import CitationVerification, MessageCitation
from citations.panel import citation_panel_context
from citations.tests.review_helpers import CONTRACT, make_citation
from docuiq.testing.factories import make_document
from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures
from docuiq.tests.api_fixtures import first_chunk

pytestmark = pytest.mark.django_db

REVIEW = reverse("citations:review")
CHANGELIST = reverse("admin:citations_messagecitation_changelist")
NUMBER = "meaning.number"
NEGATION = "meaning.negation"


def _refused(tenant, document, quote: str, rule: str) -> MessageCitation:
    citation = make_citation(tenant, document, quote=quote, status="failed")
    with unscoped():
        MessageCitation.objects.filter(pk=citation.pk).update(rule=rule)
    citation.rule = rule
    return citation


@pytest.fixture
def world(tenant_a, tenant_b):
    doc_a = make_document(tenant_a, CONTRACT, title="Alpha Agreement")
    doc_b = make_document(tenant_b, "Bravo shall pay 7 million.", title="Bravo")
    return {
        "verified": make_citation(tenant_a, doc_a, quote="The Supplier shall deliver"),
        "number": _refused(tenant_a, doc_a, "within 60 days of the order", NUMBER),
        "number_2": _refused(tenant_a, doc_a, "within 90 days of the invoice", NUMBER),
        "negation": _refused(tenant_a, doc_a, "Payment is not due", NEGATION),
        "b_negation": _refused(tenant_b, doc_b, "Bravo shall not pay", NEGATION),
    }


def _tree(response):
    return html5lib.parse(response.content.decode(), namespaceHTMLElements=False)


def _testid(tree, testid):
    return [el for el in tree.iter() if el.get("data-testid") == testid]


# ---------------------------------------------------------------- written


def test_the_verdict_writes_the_rule_that_refused_and_clears_it_when_verified(
    a_key_api, tenant_a
):
    document = make_document(tenant_a, CONTRACT, title="Master Services Agreement")
    chunk = first_chunk(document)
    refused = a_key_api.post(
        "/api/citations/resolve",
        {
            "chunk_id": str(chunk.uid),
            "quoted_text": "The Supplier shall deliver the goods within 60 days of the order.",
        },
        format="json",
    ).json()
    assert refused["verification_status"] == "failed"
    assert refused["rule"] == NUMBER
    with tenant_scope(tenant_a):
        assert MessageCitation.objects.get(pk=refused["id"]).rule == NUMBER
    verified = a_key_api.post(
        "/api/citations/resolve",
        {
            "chunk_id": str(chunk.uid),
            "quoted_text": "The Supplier shall deliver the goods within 30 days of the order.",
        },
        format="json",
    ).json()
    assert verified["verification_status"] == "verified"
    assert verified["rule"] == ""


def test_the_backfill_reads_the_rule_of_the_latest_failed_audit(tenant_a):
    document = make_document(tenant_a, CONTRACT, title="Master Services Agreement")
    citation = make_citation(
        tenant_a, document, quote="within 60 days of the order", status="failed"
    )
    untouched = make_citation(
        tenant_a, document, quote="The Supplier shall deliver", status="verified"
    )
    with tenant_scope(tenant_a):
        for stages in (
            [{"stage": "tolerant_match", "rule": "tolerant.not_similar"}],
            [
                {"stage": "tolerant_match", "rule": "tolerant.not_similar"},
                {"stage": "llm_judge", "outcome": "rejected", "rule": "entity.law"},
            ],
        ):
            CitationVerification.objects.create(
                tenant=tenant_a,
                citation=citation,
                trigger="reverify",
                verification_status="failed",
                verification_method="failed",
                match_type="not_found",
                stages=stages,
            )
    migration = importlib.import_module(
        "citations.migrations.0013_backfill_citation_rule"
    )
    migration.backfill(django_apps, None)
    with unscoped():
        assert MessageCitation.objects.get(pk=citation.pk).rule == "entity.law"
        assert MessageCitation.objects.get(pk=untouched.pk).rule == ""


# ---------------------------------------------------------------- API


def test_the_api_returns_filters_and_counts_by_rule_in_the_callers_tenant(
    a_key_api, b_key_api, tenant_a, tenant_b, world
):
    listed = a_key_api.get(
        "/api/citations", {"tenant_id": tenant_a.slug, "rule": NUMBER}
    ).json()
    assert {item["id"] for item in listed["items"]} == {
        str(world["number"].pk),
        str(world["number_2"].pk),
    }
    assert {item["rule"] for item in listed["items"]} == {NUMBER}
    negations = a_key_api.get(
        "/api/citations", {"tenant_id": tenant_a.slug, "rule": NEGATION}
    ).json()
    assert [item["id"] for item in negations["items"]] == [str(world["negation"].pk)]
    stats = a_key_api.get("/api/citations/stats", {"tenant_id": tenant_a.slug}).json()
    assert stats["by_rule"] == {NUMBER: 2, NEGATION: 1}
    b_stats = b_key_api.get("/api/citations/stats", {"tenant_id": tenant_b.slug}).json()
    assert b_stats["by_rule"] == {NEGATION: 1}
    narrowed = a_key_api.get(
        "/api/citations/stats", {"tenant_id": tenant_a.slug, "rule": NEGATION}
    ).json()
    assert (narrowed["failed"], narrowed["total"]) == (1, 1)
    unknown = a_key_api.get(
        "/api/citations", {"tenant_id": tenant_a.slug, "rule": "no.such_rule"}
    )
    assert unknown.status_code == 400


def test_the_openapi_schema_describes_rule():
    body = SchemaGenerator().get_schema(request=None, public=True)
    citation = body["components"]["schemas"]["Citation"]["properties"]
    assert "rule" in citation
    stats = body["components"]["schemas"]["CitationStats"]["properties"]
    assert "by_rule" in stats
    listed = body["paths"]["/api/citations"]["get"]["parameters"]
    assert "rule" in {p["name"] for p in listed}


# ---------------------------------------------------------------- review tab


def test_the_review_tab_filters_and_counts_by_rule_within_the_tenant(
    alice_client, charlie_client, world
):
    response = alice_client.get(REVIEW, {"rule": NEGATION})
    tree = _tree(response)
    rows = _testid(tree, "review-row")
    assert [r.get("id") for r in rows] == [f"row-{world['negation'].pk}"]
    everything = _tree(alice_client.get(REVIEW))
    cards = {
        card.get("data-rule"): int(
            "".join(_testid(card, "rule-card-count")[0].itertext())
        )
        for card in _testid(everything, "rule-card")
    }
    assert cards == {NUMBER: 2, NEGATION: 1}
    # Tenant B's reviewer sees only B's refusal under the same rule.
    theirs = _tree(charlie_client.get(REVIEW, {"rule": NEGATION}))
    assert [r.get("id") for r in _testid(theirs, "review-row")] == [
        f"row-{world['b_negation'].pk}"
    ]
    # The filter's choices are the rule table's names.
    options = {
        el.get("value"): "".join(el.itertext())
        for el in everything.iter("option")
        if el.get("value") == NUMBER
    }
    assert BY_ID[NUMBER].name in options[NUMBER]


def test_an_unknown_rule_in_the_review_tab_is_reported_not_a_500(alice_client, world):
    response = alice_client.get(REVIEW, {"rule": "<script>x</script>"})
    assert response.status_code == 200
    assert "<script>x</script>" not in response.content.decode()


# ---------------------------------------------------------------- admin


def test_the_admin_filters_by_rule_and_lists_only_the_tenants_rules(
    alice_client, charlie_client, world
):
    narrowed = alice_client.get(CHANGELIST, {"rule": NUMBER})
    assert {c.pk for c in narrowed.context["cl"].result_list} == {
        world["number"].pk,
        world["number_2"].pk,
    }
    sidebar = (
        charlie_client.get(CHANGELIST)
        .content.decode()
        .split('id="changelist-filter"')[1]
    )
    assert f"?rule={NEGATION}" in sidebar and f"?rule={NUMBER}" not in sidebar
    theirs = charlie_client.get(CHANGELIST, {"rule": NEGATION})
    assert {c.pk for c in theirs.context["cl"].result_list} == {world["b_negation"].pk}


# ---------------------------------------------------------------- panel


def test_the_panel_names_the_rule_from_the_table(alice_client, tenant_a, world):
    citation = world["number"]
    with tenant_scope(tenant_a):
        context = citation_panel_context(citation)
    assert context["rule"].id == NUMBER
    assert context["rule"].name == BY_ID[NUMBER].name
    response = alice_client.get(reverse("citations:detail", args=[citation.pk]))
    shown = _testid(_tree(response), "panel-rule")
    assert [el.get("data-rule") for el in shown] == [NUMBER]


def test_the_panel_escapes_a_stored_rule_the_table_does_not_know(
    alice_client, tenant_a
):
    document = make_document(tenant_a, CONTRACT, title="Master Services Agreement")
    hostile = '<img src=x onerror=alert(1)>"'
    citation = _refused(tenant_a, document, "within 60 days of the order", hostile)
    body = alice_client.get(reverse("citations:detail", args=[citation.pk])).content
    assert b"<img src=x" not in body
    assert b"&lt;img src=x onerror=alert(1)&gt;" in body
