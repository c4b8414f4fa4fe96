"""The Django admin, tenant by tenant (TEN-07): a staff user of one tenant
sees none of another's rows in changelists, search, filters, autocomplete
and exports; citations are reviewed by actions that never overwrite the
machine verdict."""

from __future__ import annotations

import csv
import io
import json

import html5lib
import pytest
from django.contrib import admin as django_admin
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.models import ApiKey, Collection, Membership, hash_api_key
from accounts.scoping import tenant_scope, unscoped
from accounts.services import collection_get_or_create
from citations.models import CitationReview, CitationVerification, MessageCitation
from citations.tests.review_helpers import CONTRACT, make_citation, make_unsourced
from docuiq.testing.factories import make_document

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:citations_messagecitation_changelist")
AUTOCOMPLETE = reverse("admin:autocomplete")


@pytest.fixture
def world(tenant_a, tenant_b, alice, charlie):
    """Tenant A with a contract, two citations and a collection; tenant B with its own."""
    doc_a = make_document(tenant_a, CONTRACT, title="Alpha Master Agreement")
    doc_b = make_document(
        tenant_b, "Bravo plan: expand to Mars by 2030.", title="Bravo Secret Plan"
    )
    collection_get_or_create(tenant=tenant_a, name="Alpha deals")
    collection_get_or_create(tenant=tenant_b, name="Bravo deals")
    return {
        "doc_a": doc_a,
        "doc_b": doc_b,
        "a_verified": make_citation(
            tenant_a, doc_a, quote="The Supplier shall deliver the goods"
        ),
        "a_failed": make_citation(
            tenant_a, doc_a, quote="within 60 days of the order", status="failed"
        ),
        "b_verified": make_citation(tenant_b, doc_b, quote="expand to Mars"),
    }


def _action(client, action, pks, **extra):
    data = {
        "action": action,
        helpers.ACTION_CHECKBOX_NAME: [str(pk) for pk in pks],
        "index": 0,
    }
    data.update(extra)
    return client.post(CHANGELIST, data)


def _csv(response):
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


# ---------------------------------------------------------------- changelist, search, filters


def test_the_changelist_shows_only_the_tenants_citations_with_stats(
    alice_client, world
):
    response = alice_client.get(CHANGELIST)
    body = response.content.decode()
    assert response.status_code == 200
    assert "Alpha Master Agreement" in body
    assert "Bravo" not in body and "Mars" not in body
    assert 'data-testid="admin-stat-cards"' in body
    assert "50.0%" in body  # one verified and one failed of two
    assert 'class="dq-badge dq-badge--verified"' in body
    assert "citations/admin.css" in body


def test_charlie_sees_none_of_tenant_as_rows_in_changelist_search_and_filters(
    charlie_client, world
):
    body = charlie_client.get(CHANGELIST).content.decode()
    assert "Bravo Secret Plan" in body
    assert "Alpha" not in body and "Supplier" not in body
    searched = charlie_client.get(CHANGELIST, {"q": "Supplier"}).content.decode()
    assert "0 results" in searched and "Alpha" not in searched
    by_name = charlie_client.get(
        CHANGELIST, {"document_name": "Alpha Master Agreement"}
    )
    assert by_name.context["cl"].result_count == 0
    # The document-name filter lists only the tenant's own names.
    sidebar = body.split('id="changelist-filter"')[1]
    assert "Bravo Secret Plan" in sidebar and "Alpha" not in sidebar


def test_filters_by_status_method_and_date(alice_client, world):
    failed = alice_client.get(CHANGELIST, {"verification_status__exact": "failed"})
    assert failed.context["cl"].result_count == 1
    assert "60 days" in str(failed.context["cl"].result_list[0].quoted_text)
    exact = alice_client.get(CHANGELIST, {"verification_method__exact": "exact_match"})
    assert exact.context["cl"].result_count == 1
    today = alice_client.get(
        CHANGELIST,
        {
            "created_at__gte": "2000-01-01 00:00:00+00:00",
            "created_at__lt": "2100-01-01 00:00:00+00:00",
        },
    )
    assert today.context["cl"].result_count == 2
    searched = alice_client.get(CHANGELIST, {"q": "Alpha Master"})
    assert searched.context["cl"].result_count == 2
    by_quote = alice_client.get(CHANGELIST, {"q": "within 60 days"})
    assert by_quote.context["cl"].result_count == 1


def test_every_tenant_admin_is_scoped_for_charlie(charlie_client, world, tenant_a):
    """Walk every registered model admin: changelist and a search, no A rows."""
    with tenant_scope(tenant_a):
        ApiKey.objects.create(
            tenant=tenant_a, name="Alpha CI key", prefix="alpha001", hashed_key="x"
        )
    make_unsourced(tenant_a, quote="Alpha invented clause")
    for model, model_admin in django_admin.site._registry.items():
        opts = model._meta
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        response = charlie_client.get(url)
        if response.status_code == 403:
            continue  # e.g. auth groups: no permission at all
        assert response.status_code == 200, url
        assert "Alpha" not in response.content.decode(), url
        if model_admin.search_fields:
            searched = charlie_client.get(url, {"q": "Alpha"})
            assert searched.status_code == 200, url
            assert searched.context["cl"].result_count == 0, url


def test_autocomplete_returns_only_the_tenants_rows(
    charlie_client, alice_client, world
):
    def results(client, **params):
        response = client.get(AUTOCOMPLETE, {"term": "", **params})
        assert response.status_code == 200, response.content
        return [r["text"] for r in json.loads(response.content)["results"]]

    collections = results(
        charlie_client,
        app_label="ingest",
        model_name="document",
        field_name="collections",
    )
    assert collections == ["Bravo deals"]
    assert results(
        alice_client,
        app_label="ingest",
        model_name="document",
        field_name="collections",
    ) == ["Alpha deals"]
    parents = results(
        charlie_client, app_label="ingest", model_name="document", field_name="parent"
    )
    assert parents == ["Bravo Secret Plan"]
    tenants = results(
        charlie_client,
        app_label="citations",
        model_name="messagecitation",
        field_name="tenant",
    )
    assert tenants == ["tenant-b"]
    searched = results(
        charlie_client,
        app_label="ingest",
        model_name="document",
        field_name="parent",
        term="Alpha",
    )
    assert searched == []


def test_another_tenants_citation_cannot_be_opened_or_exported(charlie_client, world):
    a = world["a_verified"]
    change_url = reverse("admin:citations_messagecitation_change", args=[a.pk])
    response = charlie_client.get(change_url)
    assert response.status_code == 302  # "doesn't exist", back to the index
    exported = _action(charlie_client, "export_csv", [a.pk, world["a_failed"].pk])
    body = exported.content.decode()
    assert "Supplier" not in body and "Alpha" not in body
    _action(charlie_client, "accept_selected", [a.pk], apply="yes", note="not mine")
    _action(charlie_client, "reverify_selected", [a.pk])
    with unscoped():
        assert not CitationReview.objects.exists()
        assert not CitationVerification.objects.exists()


# ---------------------------------------------------------------- detail and actions


def test_the_detail_shows_the_quote_and_the_highlighted_source_passage(
    alice_client, world
):
    a = world["a_verified"]
    body = alice_client.get(
        reverse("admin:citations_messagecitation_change", args=[a.pk])
    ).content.decode()
    assert "The Supplier shall deliver the goods" in body
    assert '<mark class="dq-span">The Supplier shall deliver the goods</mark>' in body
    assert "Verification history" in body and "Reviews" in body
    assert 'name="_save"' not in body  # read-only: the verdict is the machine's


def test_reject_asks_for_a_note_then_records_a_review_without_touching_the_verdict(
    alice_client, alice, world
):
    a = world["a_failed"]
    with unscoped():
        before = MessageCitation.objects.filter(pk=a.pk).values().get()
    step1 = _action(alice_client, "reject_selected", [a.pk])
    assert step1.status_code == 200
    assert "Reject 1 citation" in step1.content.decode()
    missing_note = _action(
        alice_client, "reject_selected", [a.pk], apply="yes", note=""
    )
    assert missing_note.status_code == 200
    assert "Say why the citation is rejected." in missing_note.content.decode()
    done = _action(
        alice_client, "reject_selected", [a.pk], apply="yes", note="60 is not 30."
    )
    assert done.status_code == 302
    with unscoped():
        review = CitationReview.objects.get(citation=a)
        after = MessageCitation.objects.filter(pk=a.pk).values().get()
    assert (review.decision, review.reviewer, review.note) == (
        "reject",
        alice,
        "60 is not 30.",
    )
    before.pop("updated_at"), after.pop("updated_at")
    assert after == before
    listed = alice_client.get(CHANGELIST, {"review": "reject"})
    assert listed.context["cl"].result_count == 1


def test_accept_records_one_review_per_selected_citation(alice_client, alice, world):
    pks = [world["a_verified"].pk, world["a_failed"].pk]
    response = _action(
        alice_client, "accept_selected", pks, apply="yes", note="Checked by hand."
    )
    assert response.status_code == 302
    with unscoped():
        reviews = CitationReview.objects.filter(decision="accept", reviewer=alice)
        assert sorted(r.citation_id for r in reviews) == sorted(pks)


def test_reverify_action_records_a_verification(
    alice_client, world, django_capture_on_commit_callbacks
):
    a = world["a_verified"]
    with django_capture_on_commit_callbacks(execute=True):
        response = _action(alice_client, "reverify_selected", [a.pk])
    assert response.status_code == 302
    with unscoped():
        attempt = CitationVerification.objects.get(citation=a)
        row = MessageCitation.objects.get(pk=a.pk)
    assert attempt.trigger == "reverify" and attempt.verification_status == "verified"
    assert row.verification_status == "verified"


def test_export_action_writes_a_formula_safe_csv(alice_client, tenant_a, world):
    evil = make_citation(
        tenant_a, world["doc_a"], quote="=cmd|' /C calc'!A0", document_name="-Evil"
    )
    response = _action(alice_client, "export_csv", [evil.pk, world["a_verified"].pk])
    assert response["Content-Type"].startswith("text/csv")
    rows = _csv(response)
    header = rows[0]
    quotes = {r[header.index("quoted_text")] for r in rows[1:]}
    assert quotes == {"'=cmd|' /C calc'!A0", "The Supplier shall deliver the goods"}
    assert "'-Evil" in {r[header.index("document_name")] for r in rows[1:]}


def test_markup_in_quotes_and_names_is_escaped_in_the_admin(alice_client, tenant_a):
    payload = '<script>alert(1)</script>"><img src=x onerror=alert(1)>'
    doc = make_document(tenant_a, "Text " + payload + " more.", title=payload)
    citation = make_citation(tenant_a, doc, quote=payload)
    for url in (
        CHANGELIST,
        reverse("admin:citations_messagecitation_change", args=[citation.pk]),
    ):
        body = alice_client.get(url).content.decode()
        assert "<script>alert(1)" not in body and "<img src=x" not in body
        tree = html5lib.parse(body, namespaceHTMLElements=False)
        for el in tree.iter():
            assert not (el.tag == "img" and el.get("src") == "x")
            assert not any(name.startswith("on") for name in el.attrib)
    step = _action(alice_client, "accept_selected", [citation.pk]).content.decode()
    assert "<script>alert(1)" not in step


# ---------------------------------------------------------------- no workspace


def test_a_superuser_without_a_membership_sees_nothing_and_is_told_why(world):
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    c = Client()
    c.force_login(root)
    for model in django_admin.site._registry:
        opts = model._meta
        response = c.get(
            reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        )
        assert response.status_code == 200
        body = response.content.decode()
        assert "Alpha" not in body and "Bravo Secret" not in body
    body = c.get(CHANGELIST, follow=True).content.decode()
    assert "You are not a member of any workspace" in body
    assert (
        c.get(
            AUTOCOMPLETE,
            {
                "app_label": "ingest",
                "model_name": "document",
                "field_name": "collections",
            },
        ).status_code
        == 200
    )


# ---------------------------------------------------------------- accounts


def test_creating_an_api_key_shows_it_once_and_the_list_shows_the_prefix(
    alice_client, tenant_a
):
    response = alice_client.post(
        reverse("admin:accounts_apikey_add"), {"name": "CI pipeline"}, follow=True
    )
    body = response.content.decode()
    with tenant_scope(tenant_a):
        key = ApiKey.objects.get(name="CI pipeline")
    assert key.tenant_id == tenant_a.pk
    raw = next(
        w for w in body.replace("<", " ").split() if w.startswith(f"dq_{key.prefix}_")
    )
    assert key.hashed_key == hash_api_key(raw)
    listing = alice_client.get(
        reverse("admin:accounts_apikey_changelist")
    ).content.decode()
    assert f"dq_{key.prefix}_…" in listing and raw not in listing
    alice_client.post(
        reverse("admin:accounts_apikey_changelist"),
        {
            "action": "revoke_selected",
            helpers.ACTION_CHECKBOX_NAME: [key.pk],
            "index": 0,
        },
    )
    key.refresh_from_db()
    assert key.revoked_at is not None


def test_new_rows_belong_to_the_admins_tenant(
    alice_client, tenant_a, tenant_b, charlie
):
    alice_client.post(reverse("admin:accounts_collection_add"), {"name": "Litigation"})
    with unscoped():
        assert Collection.objects.get(name="Litigation").tenant_id == tenant_a.pk
    # A member is added by exact username; no user list from other tenants.
    page = alice_client.get(reverse("admin:accounts_membership_add")).content.decode()
    assert "charlie" not in page
    alice_client.post(
        reverse("admin:accounts_membership_add"),
        {"username": "charlie", "role": "reviewer"},
    )
    assert Membership.objects.filter(
        user=charlie, tenant=tenant_a, role="reviewer"
    ).exists()
    again = alice_client.post(
        reverse("admin:accounts_membership_add"),
        {"username": "charlie", "role": "member"},
    )
    assert "already a member" in again.content.decode()


def test_the_user_admin_lists_only_the_tenants_members_for_non_superusers(
    alice, charlie, tenant_a
):
    from django.contrib.auth.models import Permission

    alice.user_permissions.add(Permission.objects.get(codename="view_user"))
    c = Client()
    c.force_login(alice)
    body = c.get(reverse("admin:auth_user_changelist")).content.decode()
    assert "alice" in body and "charlie" not in body
