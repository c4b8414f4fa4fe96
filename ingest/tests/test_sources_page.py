"""The sources page: connect an export, capture a page, register a table
(owners only); errors shown, everything escaped, other tenants' sources
never shown."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.scoping import tenant_scope
from docuiq.testing.exports import BASE, teams_export
from ingest.models import Document, Source

pytestmark = pytest.mark.django_db


def test_an_export_uploaded_on_the_page_becomes_documents(
    alice_client, tenant_a, django_capture_on_commit_callbacks
):
    data = teams_export(
        [
            {
                "id": "1",
                "from": "Ana <b>R</b>",
                "at": BASE,
                "text": "<p>Renewal agreed.</p>",
            }
        ]
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            reverse("ingest:source-export"),
            {"kind": "teams", "file": SimpleUploadedFile("general.json", data)},
        )
    assert response.status_code == 302
    page = alice_client.get(reverse("ingest:source-list")).content.decode()
    assert 'data-status="ready"' in page and "1 new, 0 changed" in page
    with tenant_scope(tenant_a):
        assert Document.objects.get().source_type == "teams"


def test_a_refused_address_is_said_on_the_page(alice_client, tenant_a):
    response = alice_client.post(
        reverse("ingest:source-web"), {"url": "http://169.254.169.254/"}, follow=True
    )
    assert "a link-local address" in response.content.decode()
    with tenant_scope(tenant_a):
        assert not Source.objects.exists()


def test_only_an_owner_registers_a_database(client, bob, tenant_a):
    client.force_login(bob)
    page = client.get(reverse("ingest:source-list")).content.decode()
    assert 'data-testid="db-form"' not in page
    response = client.post(
        reverse("ingest:source-database"),
        {
            "name": "x",
            "connection_url": "sqlite:////tmp/x.db",
            "table": "t",
            "key_column": "id",
            "text_columns": "a",
        },
        follow=True,
    )
    assert "Only a workspace owner" in response.content.decode()


def test_a_failed_source_shows_its_error_escaped_and_other_tenants_see_nothing(
    alice_client, charlie_client, tenant_a
):
    with tenant_scope(tenant_a):
        Source.objects.create(
            tenant=tenant_a,
            kind="web",
            name="<script>alert(1)</script>",
            status="failed",
            error="<img src=x>",
        )
    page = alice_client.get(reverse("ingest:source-list")).content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
    assert "&lt;img src=x&gt;" in page
    assert (
        "alert(1)"
        not in charlie_client.get(reverse("ingest:source-list")).content.decode()
    )


def test_another_tenants_source_cannot_be_synced(charlie_client, tenant_a):
    with tenant_scope(tenant_a):
        source = Source.objects.create(
            tenant=tenant_a, kind="web", name="a", status="ready"
        )
    assert (
        charlie_client.post(reverse("ingest:source-sync", args=[source.pk])).status_code
        == 404
    )


def test_a_later_export_of_an_unknown_or_foreign_source_is_a_400(
    alice_client, charlie_client, tenant_a
):
    """A source id in the body is a field: unknown and another tenant's are
    the same 400 on that field, and nothing is written."""
    import uuid

    with tenant_scope(tenant_a):
        source = Source.objects.create(
            tenant=tenant_a, kind="teams", name="a", status="ready"
        )
    data = teams_export([{"id": "1", "from": "Ana", "at": BASE, "text": "<p>x</p>"}])
    for client, source_id in (
        (alice_client, uuid.uuid4()),
        (charlie_client, source.pk),
    ):
        response = client.post(
            "/api/sources/exports",
            {
                "kind": "teams",
                "file": SimpleUploadedFile("general.json", data),
                "source_id": str(source_id),
            },
        )
        assert response.status_code == 400, response.content
        assert response.json()["source_id"] == ["Unknown source."]
    with tenant_scope(tenant_a):
        assert Source.objects.count() == 1
        assert not Document.objects.exists()
