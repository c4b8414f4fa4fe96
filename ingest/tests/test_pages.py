"""The documents pages: upload several files, watch status, read a document."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from ingest.models import Document

pytestmark = pytest.mark.django_db


def test_pages_need_a_login(client):
    response = client.get(reverse("ingest:document-list"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_uploading_several_files_at_once_lists_each_with_its_status(
    alice_client, tenant_a, django_capture_on_commit_callbacks
):
    files = [
        SimpleUploadedFile(
            "notes.txt", b"Meeting notes about the merger.", "text/plain"
        ),
        SimpleUploadedFile("broken.pdf", b"%PDF-1.7 not really", "application/pdf"),
        SimpleUploadedFile(
            "memo.md", b"# Memo\n\nThe budget is approved.", "text/markdown"
        ),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            reverse("ingest:document-upload"), {"files": files}, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200
    assert "notes.txt" in response.content.decode()  # listed at once, still queued
    # The page polls the rows until every document is ready or failed.
    html = alice_client.get(reverse("ingest:document-rows")).content.decode()
    assert 'id="document-rows"' in html and "notes.txt" in html and "Memo" in html
    assert "every 2s" not in html
    with tenant_scope(tenant_a):
        statuses = {d.file.filename: d.status for d in Document.objects.all()}
    assert statuses == {
        "notes.txt": "ready",
        "broken.pdf": "failed",
        "memo.md": "ready",
    }
    assert "could not be read" in html or "damaged" in html


def test_rows_poll_only_while_something_is_in_progress(alice_client, tenant_a):
    document = make_document(tenant_a, "Done.", title="Done")
    html = alice_client.get(reverse("ingest:document-rows")).content.decode()
    assert "every 2s" not in html
    with tenant_scope(tenant_a):
        Document.objects.filter(pk=document.pk).update(
            status="processing", progress_done=2, progress_total=4
        )
    html = alice_client.get(reverse("ingest:document-rows")).content.decode()
    assert 'hx-trigger="every 2s"' in html
    assert "2 / 4 pages" in html and 'value="50"' in html


def test_a_document_reads_with_page_markers_and_highlights_a_span(
    alice_client, tenant_a
):
    document = make_document(
        tenant_a,
        ["First page text.", "Second page: the cited clause."],
        title="Two pages",
    )
    content = document.current_revision.normalized_content
    start = content.index("the cited clause")
    url = (
        reverse("ingest:document-detail", args=[document.pk])
        + f"?at={start}&end={start + 16}"
    )
    html = alice_client.get(url).content.decode()
    assert "Page 1" in html and "Page 2" in html
    assert '<mark id="at" class="span-highlight">the cited clause</mark>' in html


def test_another_tenants_document_is_not_found(charlie_client, tenant_a):
    document = make_document(tenant_a, "Tenant A only.", title="Secret")
    assert (
        charlie_client.get(
            reverse("ingest:document-detail", args=[document.pk])
        ).status_code
        == 404
    )
    assert (
        "Secret"
        not in charlie_client.get(reverse("ingest:document-list")).content.decode()
    )


def test_document_text_is_escaped(alice_client, tenant_a):
    document = make_document(
        tenant_a,
        "<script>alert(1)</script> and <img src=x onerror=alert(2)>",
        title="<b>x</b>",
    )
    html = alice_client.get(
        reverse("ingest:document-detail", args=[document.pk])
    ).content.decode()
    assert (
        "<script>alert(1)" not in html
        and "<img src=x" not in html
        and "<b>x</b>" not in html
    )
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_search_box_shows_matching_passages(alice_client, tenant_a):
    make_document(
        tenant_a, "The indemnity clause covers third-party claims.", title="MSA"
    )
    html = alice_client.get(
        reverse("ingest:document-list") + "?q=indemnity"
    ).content.decode()
    assert "MSA" in html and "third-party claims" in html


@pytest.fixture(autouse=True)
def _on_commit(django_capture_on_commit_callbacks, monkeypatch):
    """Run the ingest task when the command's upload commits, as outside tests."""
    from ingest import services

    original = services.document_upload

    def upload_and_run(**kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return original(**kwargs)

    monkeypatch.setattr(
        "ingest.management.commands.ingest.document_upload", upload_and_run
    )


def test_ingest_command_prints_json_per_file_and_fails_if_any_file_failed(
    tenant_a, tmp_path, capsys
):
    (tmp_path / "ok.txt").write_text("A fine text.")
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.4 truncated")
    with pytest.raises(SystemExit) as exit_info:
        call_command(
            "ingest",
            str(tmp_path),
            "--tenant",
            "tenant-a",
            "--collection",
            "Inbox",
            "--json",
        )
    assert exit_info.value.code == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    by_file = {row["file"].rsplit("/", 1)[-1]: row for row in rows}
    assert set(by_file) == {"ok.txt", "bad.pdf"}
    assert by_file["ok.txt"]["status"] == "ready" and by_file["ok.txt"]["pages"] == 1
    assert by_file["bad.pdf"]["status"] == "failed" and by_file["bad.pdf"]["error"]
    assert set(by_file["ok.txt"]) == {
        "file",
        "document_id",
        "title",
        "source_type",
        "status",
        "pages",
        "error",
    }


def test_ingest_command_succeeds_when_every_file_is_ingested(
    tenant_a, tmp_path, capsys
):
    (tmp_path / "a.txt").write_text("Alpha.")
    call_command("ingest", str(tmp_path / "a.txt"), "--tenant", "tenant-a")
    assert "ready" in capsys.readouterr().out
