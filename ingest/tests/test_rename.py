"""Renaming a document (issue 32 item 2): the REST API and the documents
page; bad titles are a 400 / a form error and change nothing; a person's
title survives a new revision and `manage.py retitle`; every change is a
TitleChange with who made it; HTML in a title is shown as text."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from accounts.scoping import tenant_scope
from docuiq.testing import pdfgen
from docuiq.testing.factories import make_document
from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures
from docuiq.tests.api_fixtures import random_id
from ingest.models import Document, TitleChange

pytestmark = pytest.mark.django_db

HOSTILE = '<script>alert(1)</script> "><img src=x onerror=alert(2)> Lease'


@pytest.fixture
def lease(tenant_a):
    return make_document(
        tenant_a,
        "OFFICE LEASE\n\nThe Tenant shall pay rent of USD 12,500 each month.",
        title="CONFIDENTIAL TREATMENT REQUEST",
    )


def rename(api, document, title):
    return api.post(
        f"/api/documents/{document.pk}/rename", {"title": title}, format="json"
    )


def _changes(tenant):
    with tenant_scope(tenant):
        return list(TitleChange.objects.order_by("created_at"))


def test_the_api_renames_and_records_who(a_user_api, alice, tenant_a, lease):
    response = rename(a_user_api, lease, "  Office Lease — Acme Properties  ")
    assert response.status_code == 200, response.content
    assert response.json()["title"] == "Office Lease — Acme Properties"
    assert response.json()["filename"] == "CONFIDENTIAL TREATMENT REQUEST.txt"
    (change,) = _changes(tenant_a)
    assert (change.old_title, change.new_title) == (
        "CONFIDENTIAL TREATMENT REQUEST",
        "Office Lease — Acme Properties",
    )
    assert change.changed_by == alice and change.via == "api"
    assert change.actor == "alice"
    with tenant_scope(tenant_a):
        assert Document.objects.get(pk=lease.pk).metadata["title_from"] == "person"


@pytest.mark.parametrize(
    ("title", "says"),
    [
        ("", "cannot be empty"),
        ("   ", "cannot be empty"),
        ("x" * 301, "at most 300 characters"),
        ("Lease\nAgreement", "control characters"),
        ("Lease\x00", "characters are not allowed"),  # DRF refuses NUL itself
        ("Lease\u202eesaeL", "control characters"),
    ],
)
def test_a_bad_title_is_a_400_and_changes_nothing(
    a_user_api, tenant_a, lease, title, says
):
    response = rename(a_user_api, lease, title)
    assert response.status_code == 400
    assert says in " ".join(response.json()["title"])
    with tenant_scope(tenant_a):
        assert Document.objects.get(pk=lease.pk).title == lease.title
    assert _changes(tenant_a) == []


def test_an_api_key_rename_records_the_keys_name(a_key_api, tenant_a, lease):
    assert rename(a_key_api, lease, "Office Lease").status_code == 200
    (change,) = _changes(tenant_a)
    assert change.changed_by is None and change.actor == "API key test"


def test_exactly_300_characters_is_accepted(a_user_api, lease):
    assert rename(a_user_api, lease, "y" * 300).status_code == 200


def test_another_tenants_document_is_a_404(b_key_api, a_key_api, lease):
    assert rename(b_key_api, lease, "Mine now").status_code == 404
    assert (
        a_key_api.post(
            f"/api/documents/{random_id()}/rename", {"title": "x"}, format="json"
        ).status_code
        == 404
    )


def test_html_in_a_title_is_text_in_the_list_page_and_api(
    a_user_api, alice_client, lease
):
    assert rename(a_user_api, lease, HOSTILE).json()["title"] == HOSTILE
    for url in ("/documents/", f"/documents/{lease.pk}/"):
        page = alice_client.get(url).content.decode()
        assert "<script>alert(1)</script>" not in page
        assert "<img src=x" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_page_renames_inline_with_htmx(alice_client, alice, tenant_a, lease):
    response = alice_client.post(
        f"/documents/{lease.pk}/rename/",
        {"title": "Office Lease", "where": "list"},
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert f'id="title-{lease.pk}"' in body and ">Office Lease</a>" in body
    assert "CONFIDENTIAL TREATMENT REQUEST.txt" in body  # the file name beside it
    (change,) = _changes(tenant_a)
    assert change.changed_by == alice and change.via == "page"


def test_the_page_shows_a_refused_title_with_its_reason(alice_client, tenant_a, lease):
    response = alice_client.post(
        f"/documents/{lease.pk}/rename/",
        {"title": "", "where": "page"},
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    assert response.status_code == 200  # htmx swaps only 2xx
    assert 'role="alert"' in body and "cannot be empty" in body
    assert "<h1" in body and "CONFIDENTIAL TREATMENT REQUEST" in body
    assert _changes(tenant_a) == []


def test_without_javascript_the_form_posts_and_returns(alice_client, lease):
    response = alice_client.post(
        f"/documents/{lease.pk}/rename/", {"title": "Office Lease", "where": "page"}
    )
    assert response.status_code == 302
    assert response["Location"] == f"/documents/{lease.pk}/"
    page = alice_client.get(response["Location"]).content.decode()
    assert "Office Lease" in page and "Renamed to" in page


def test_a_persons_title_survives_a_new_revision_and_retitle(
    tmp_path, tenant_a, alice, django_capture_on_commit_callbacks
):
    from ingest.services import Upload, document_upload
    from ingest.titling import document_rename

    def upload(text: str):
        path = pdfgen.text_pages_pdf(tmp_path / "lease.pdf", [text])
        with django_capture_on_commit_callbacks(execute=True), path.open("rb") as f:
            return document_upload(
                tenant=tenant_a, upload=Upload(filename="lease.pdf", stream=f)
            )

    document = upload("OFFICE LEASE\nThe rent is USD 12,500.")
    with tenant_scope(tenant_a):
        document = Document.objects.select_related("file").get(pk=document.pk)
        assert document.title == "Office Lease"
        document_rename(document=document, title="Acme HQ lease", user=alice)
    upload("OFFICE LEASE\nThe rent is USD 13,000.")  # same name: a new revision
    call_command("retitle", tenant="tenant-a")
    with tenant_scope(tenant_a):
        document = Document.objects.get(pk=document.pk)
        assert document.revisions.count() == 2
        assert document.title == "Acme HQ lease"
        assert [c.via for c in TitleChange.objects.all()] == ["page"]
