"""Nothing lost to de-duplication (issue 27 item 2): bytes are stored once per
tenant, but an email attachment is always a child of its email, and the same
bytes under another name keep both names and say which document they are."""

from __future__ import annotations

import io
from email.message import EmailMessage

import pytest

from accounts.scoping import tenant_scope
from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures
from ingest.models import Document, File
from ingest.services import Upload, document_process, document_upload_result

pytestmark = pytest.mark.django_db

TERMS = b"The parties agree that notice is thirty (30) days."


@pytest.fixture(autouse=True)
def _run_on_commit(django_capture_on_commit_callbacks):
    global _capture
    _capture = django_capture_on_commit_callbacks


_capture = None


def _upload(tenant, name: str, data: bytes):
    with _capture(execute=True), tenant_scope(tenant):
        return document_upload_result(
            tenant=tenant, upload=Upload(filename=name, stream=io.BytesIO(data))
        )


def _email(attachments: dict[str, bytes]) -> bytes:
    msg = EmailMessage()
    msg["From"] = "ann@example.com"
    msg["To"] = "bob@example.com"
    msg["Subject"] = "Terms again"
    msg["Message-ID"] = "<dedupe@example.com>"
    msg.set_content("The terms are attached.")
    for name, data in attachments.items():
        msg.add_attachment(data, maintype="text", subtype="plain", filename=name)
    return bytes(msg)


def test_an_attachment_whose_bytes_exist_is_a_new_child_of_the_email(tenant_a):
    first = _upload(tenant_a, "terms.txt", TERMS).document
    email = _upload(tenant_a, "terms.eml", _email({"terms-signed.txt": TERMS}))
    assert email.outcome == "created"
    with tenant_scope(tenant_a):
        email_doc = Document.objects.get(pk=email.document.pk)
        child = email_doc.attachments.get()
        assert child.pk != first.pk
        assert child.file_id == first.file_id  # the bytes are stored once
        assert File.objects.filter(sha256=first.file.sha256).count() == 1
        assert child.status == "ready"
        assert "thirty (30) days" in child.current_revision.normalized_content
        assert child.file.filenames == ["terms.txt", "terms-signed.txt"]
        # The first document is untouched: no parent, its own name.
        first.refresh_from_db()
        assert first.parent_id is None
        assert first.file.filenames[0] == "terms.txt"


def test_an_email_processed_again_finds_its_children_again(tenant_a):
    _upload(tenant_a, "terms.txt", TERMS)
    email = _upload(tenant_a, "terms.eml", _email({"copy.txt": TERMS})).document
    with tenant_scope(tenant_a):
        Document.objects.filter(pk=email.pk).update(status="queued")
    with _capture(execute=True):
        document_process(document_id=email.pk)  # a redelivered message
    with tenant_scope(tenant_a):
        assert Document.objects.get(pk=email.pk).attachments.count() == 1


def test_the_same_bytes_twice_in_one_email_keep_both_names(tenant_a):
    email = _upload(tenant_a, "two.eml", _email({"a.txt": TERMS, "b.txt": TERMS}))
    with tenant_scope(tenant_a):
        child = Document.objects.get(pk=email.document.pk).attachments.get()
        assert child.file.filenames == ["a.txt", "b.txt"]


def test_same_bytes_under_another_name_answer_as_a_duplicate_with_both_names(
    tenant_a,
):
    first = _upload(tenant_a, "empty.docx", b"PK\x03\x04 not really a docx")
    again = _upload(tenant_a, "empty.pdf", b"PK\x03\x04 not really a docx")
    assert (first.outcome, again.outcome) == ("created", "duplicate")
    assert again.document.pk == first.document.pk
    assert again.uploaded_as == "empty.pdf"
    assert again.document.file.filenames == ["empty.docx", "empty.pdf"]
    # A third upload under a known name adds nothing.
    third = _upload(tenant_a, "empty.pdf", b"PK\x03\x04 not really a docx")
    assert third.document.file.filenames == ["empty.docx", "empty.pdf"]


def test_the_upload_api_says_duplicate_and_lists_the_filenames(a_key_api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    def post(name):
        return a_key_api.post(
            "/api/documents/upload",
            {"files": [SimpleUploadedFile(name, b"same bytes", "text/plain")]},
            format="multipart",
        )

    first = post("empty.docx").json()["items"][0]
    again = post("empty.pdf").json()["items"][0]
    assert first["outcome"] == "created" and first["uploaded_as"] == "empty.docx"
    assert again["outcome"] == "duplicate" and again["uploaded_as"] == "empty.pdf"
    assert again["id"] == first["id"]
    assert again["filenames"] == ["empty.docx", "empty.pdf"]
    listed = a_key_api.get(f"/api/documents/{first['id']}").json()
    assert listed["filenames"] == ["empty.docx", "empty.pdf"]


def test_the_documents_page_names_the_duplicate(alice_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    for name in ("empty.docx", "empty.pdf"):
        response = alice_client.post(
            "/documents/upload/",
            {"files": [SimpleUploadedFile(name, b"same bytes", "text/plain")]},
            HTTP_HX_REQUEST="true",
        )
    html = response.content.decode()
    assert "“empty.pdf” has the same content as “empty.docx”" in html
    assert "uploaded as empty.docx, empty.pdf" in html
