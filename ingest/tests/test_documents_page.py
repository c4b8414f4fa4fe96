"""The documents page (issue 26 item 4): delete and restore (an email with its
attachments), failed attachments dismissed, collections made, renamed and
filled, per-file upload progress asked by name, names searchable, and the
REST restore. Every action is tenant-scoped and works without JavaScript."""

from __future__ import annotations

import io
from email.message import EmailMessage

import html5lib
import pytest
from django.urls import reverse

from accounts.models import Collection
from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from ingest.collections import CollectionError, collection_create
from ingest.models import Document
from ingest.progress import STAGES, stage_of
from ingest.services import Upload, document_upload

pytestmark = pytest.mark.django_db

LIST = reverse("ingest:document-list")


def _tree(response):
    return html5lib.parse(response.content.decode(), namespaceHTMLElements=False)


def _by_testid(tree, testid):
    return [el for el in tree.iter() if el.get("data-testid") == testid]


def _text(el) -> str:
    return " ".join("".join(el.itertext()).split())


def _rows(client, **query) -> list[str]:
    return [
        _text(r) for r in _by_testid(_tree(client.get(LIST, query)), "document-row")
    ]


@pytest.fixture
def email(tenant_a, django_capture_on_commit_callbacks):
    """An email with a readable attachment and one refused (a program)."""
    msg = EmailMessage()
    msg["From"] = "ann@example.com"
    msg["To"] = "bob@example.com"
    msg["Subject"] = "Signed lease"
    msg["Message-ID"] = "<9@example.com>"
    msg.set_content("The signed lease is attached.")
    msg.add_attachment(
        b"The Tenant shall pay the rent.",
        maintype="text",
        subtype="plain",
        filename="lease.txt",
    )
    msg.add_attachment(
        b"MZ\x90\x00\x03" + bytes(range(256)) * 4,
        maintype="application",
        subtype="x-msdownload",
        filename="setup.exe",
    )
    with django_capture_on_commit_callbacks(execute=True):
        document = document_upload(
            tenant=tenant_a,
            upload=Upload(filename="lease.eml", stream=io.BytesIO(bytes(msg))),
        )
    with tenant_scope(tenant_a):
        return Document.objects.get(pk=document.pk)


def test_attachments_sit_under_their_email_and_a_failed_one_is_dismissed(
    alice_client, tenant_a, email
):
    rows = _rows(alice_client)
    assert [r.split()[0] for r in rows][:1] == ["Signed"]  # the email first
    assert any(r.startswith("↳ Attachment: lease") for r in rows)
    failed = next(r for r in rows if "setup.exe" in r)
    assert "Dismiss" in failed
    with tenant_scope(tenant_a):
        refused = email.attachments.get(status="failed")
    response = alice_client.post(
        reverse("ingest:document-delete", args=[refused.pk]), HTTP_HX_REQUEST="true"
    )
    tree = _tree(response)
    assert _text(_by_testid(tree, "undo")[0]).startswith("Dismissed “setup.exe”.")
    assert not any("setup.exe" in _text(r) for r in _by_testid(tree, "document-row"))
    assert not any("setup.exe" in r for r in _rows(alice_client))
    assert any("lease" in r for r in _rows(alice_client))  # the email stays


def test_deleting_an_email_takes_its_attachments_and_restore_brings_them_back(
    alice_client, tenant_a, email
):
    response = alice_client.post(reverse("ingest:document-delete", args=[email.pk]))
    assert response.status_code == 302
    assert _rows(alice_client) == []
    deleted = _rows(alice_client, deleted="1")
    assert (
        len(deleted) == 1 and "Signed lease" in deleted[0]
    )  # its attachments go with it
    alice_client.post(reverse("ingest:document-restore", args=[email.pk]))
    with tenant_scope(tenant_a):
        live = Document.objects.filter(is_deleted=False).count()
    assert live == 3
    assert _rows(alice_client, deleted="1") == []


def test_an_htmx_delete_answers_with_the_rows_and_an_undo(alice_client, tenant_a):
    doc = make_document(tenant_a, "Short text.", title="Board minutes")
    html = alice_client.post(
        reverse("ingest:document-delete", args=[doc.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    tree = html5lib.parse(html, namespaceHTMLElements=False)
    assert "Board minutes" in _text(_by_testid(tree, "undo")[0])
    assert not _by_testid(tree, "document-row")


def test_collections_are_made_renamed_and_filled(alice_client, tenant_a):
    a = make_document(tenant_a, "Lease one.", title="Lease A")
    b = make_document(tenant_a, "Lease two.", title="Lease B")
    make_document(tenant_a, "Other.", title="Memo")
    response = alice_client.post(
        reverse("ingest:collection-create"), {"name": "  Q3  deals "}
    )
    with tenant_scope(tenant_a):
        collection = Collection.objects.get()
    assert collection.name == "Q3 deals"
    assert response["Location"].endswith(f"?collection={collection.pk}")
    alice_client.post(
        reverse("ingest:collection-documents"),
        {"collection": collection.pk, "documents": [a.pk, b.pk], "action": "add"},
    )
    assert sorted(
        r.split()[0] + " " + r.split()[1]
        for r in _rows(alice_client, collection=collection.pk)
    ) == [
        "Lease A",
        "Lease B",
    ]
    alice_client.post(
        reverse("ingest:collection-documents"),
        {"collection": collection.pk, "documents": [b.pk], "action": "remove"},
    )
    assert len(_rows(alice_client, collection=collection.pk)) == 1
    alice_client.post(
        reverse("ingest:collection-rename", args=[collection.pk]), {"name": "Leases"}
    )
    chips = _by_testid(_tree(alice_client.get(LIST)), "collection-chip")
    assert [_text(c) for c in chips] == ["Leases 1"]


def test_a_collections_name_is_checked(tenant_a, alice_client):
    with tenant_scope(tenant_a):
        collection_create(tenant=tenant_a, name="Leases")
        for bad, why in (("", "Give the collection a name."), ("Leases", "already")):
            with pytest.raises(CollectionError, match=why):
                collection_create(tenant=tenant_a, name=bad)
    response = alice_client.post(
        reverse("ingest:collection-create"), {"name": "Leases"}, follow=True
    )
    assert "There is already a collection named “Leases”." in response.content.decode()


def test_another_tenants_documents_and_collections_are_out_of_reach(
    alice_client, charlie_client, tenant_a
):
    doc = make_document(tenant_a, "Secret.", title="A's lease")
    with tenant_scope(tenant_a):
        collection = collection_create(tenant=tenant_a, name="A's")
    assert (
        charlie_client.post(
            reverse("ingest:document-delete", args=[doc.pk])
        ).status_code
        == 404
    )
    assert (
        charlie_client.post(
            reverse("ingest:document-restore", args=[doc.pk])
        ).status_code
        == 404
    )
    assert (
        charlie_client.post(
            reverse("ingest:collection-rename", args=[collection.pk]), {"name": "x"}
        ).status_code
        == 404
    )
    charlie_client.post(
        reverse("ingest:collection-documents"),
        {"collection": collection.pk, "documents": [doc.pk], "action": "remove"},
    )
    progress = charlie_client.get(
        reverse("ingest:document-upload-progress"), {"name": f"{doc.title}.txt"}
    ).json()
    assert progress["files"][0]["document"] is None
    with tenant_scope(tenant_a):
        assert Document.objects.get(pk=doc.pk).is_deleted is False
        assert collection.name == "A's"


def test_upload_progress_names_the_stage_of_each_file(alice_client, tenant_a):
    doc = make_document(tenant_a, "Text.", title="Report")
    with tenant_scope(tenant_a):
        Document.objects.filter(pk=doc.pk).update(
            status="processing", progress_done=3, progress_total=48
        )
    files = alice_client.get(
        reverse("ingest:document-upload-progress"),
        {"name": ["Report.txt", "later.pdf"]},
    ).json()["files"]
    assert files[0]["document"]["label"] == "Reading page 3 of 48"
    assert files[0]["document"]["stage"] == "reading"
    assert files[1] == {"name": "later.pdf", "document": None}


@pytest.mark.parametrize(
    ("fields", "stage"),
    [
        ({"status": "queued"}, "queued"),
        ({"status": "processing"}, "opening"),
        ({"status": "processing", "progress_total": 4, "progress_done": 1}, "reading"),
        ({"status": "ready", "progress_total": 4}, "ready"),
        ({"status": "failed", "error": "No text layer."}, "failed"),
    ],
)
def test_each_stage_rule(fields, stage):
    document = Document(**{"progress_done": 0, "progress_total": 0, **fields})
    assert stage_of(document).key == stage
    assert stage in {s.key for s in STAGES}


def test_the_search_finds_documents_by_file_name(alice_client, tenant_a):
    make_document(tenant_a, "Body.", title="STRATEGIC ALLIANCE AGREEMENT")
    with tenant_scope(tenant_a):
        Document.objects.filter(
            title="STRATEGIC ALLIANCE AGREEMENT"
        ).first().file.__class__.objects.filter(
            filename="STRATEGIC ALLIANCE AGREEMENT.txt"
        ).update(filename="ENTRUSTINC_1998-EX-10.5.pdf")
    named = _by_testid(_tree(alice_client.get(LIST, {"q": "entrustinc"})), "named-hits")
    assert "STRATEGIC ALLIANCE AGREEMENT" in _text(named[0])


def test_the_api_restores_a_deleted_document(tenant_a, alice_client):
    doc = make_document(tenant_a, "Text.", title="Memo")
    assert alice_client.post(f"/api/documents/{doc.pk}/delete").status_code == 204
    assert alice_client.get(f"/api/documents/{doc.pk}").status_code == 404
    response = alice_client.post(f"/api/documents/{doc.pk}/restore")
    assert response.status_code == 200 and response.json()["title"] == "Memo"
    assert alice_client.get(f"/api/documents/{doc.pk}").status_code == 200
