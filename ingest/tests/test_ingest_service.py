"""Ingestion through the real pipeline: upload -> Celery task (eager) ->
extraction in a child process -> revision -> chunks -> search."""

from __future__ import annotations

import io
import zipfile
from email.message import EmailMessage
from pathlib import Path

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from docuiq.testing import pdfgen
from ingest.models import Document, DocumentChunk
from ingest.search import search_chunks
from ingest.services import Upload, document_process, document_upload, documents_sweep

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _run_on_commit(django_capture_on_commit_callbacks):
    global _capture
    _capture = django_capture_on_commit_callbacks


def upload(tenant, name: str, data: bytes, **kwargs) -> Document:
    """Upload as a request would, running the on-commit work (the task) too."""
    with _capture(execute=True), tenant_scope(tenant):
        document = document_upload(
            tenant=tenant,
            upload=Upload(filename=name, stream=io.BytesIO(data)),
            **kwargs,
        )
    with tenant_scope(tenant):
        return Document.objects.get(pk=document.pk)


_capture = None


def test_a_pdf_becomes_a_ready_document_with_real_pages(tenant_a, tmp_path):
    path = pdfgen.text_pages_pdf(
        tmp_path / "lease.pdf",
        {
            1: "Lease agreement between the parties.",
            3: "The tenant shall pay rent monthly.",
        },
    )
    document = upload(tenant_a, "lease.pdf", path.read_bytes())
    assert document.status == "ready", document.error
    assert document.source_type == "pdf"
    revision = document.current_revision
    assert revision.page_count == 3
    content = revision.normalized_content
    at = content.index("The tenant shall pay rent")
    assert revision.page_for_offset(at) == 3
    with tenant_scope(tenant_a):
        chunks = list(DocumentChunk.objects.filter(revision=revision))
        hits = search_chunks(tenant_a, "rent")
    assert chunks and all(
        content[c.start_offset : c.end_offset] == c.content for c in chunks
    )
    assert hits and hits[0].chunk.page_start <= 3 <= hits[0].chunk.page_end
    assert document.progress_done == document.progress_total == 3


def test_the_same_bytes_twice_are_one_document(tenant_a):
    first = upload(tenant_a, "a.txt", b"Same content.")
    second = upload(tenant_a, "b.txt", b"Same content.")
    assert first.pk == second.pk
    with tenant_scope(tenant_a):
        assert Document.objects.count() == 1


def test_the_same_bytes_in_another_tenant_are_another_document(tenant_a, tenant_b):
    assert (
        upload(tenant_a, "a.txt", b"Shared text.").pk
        != upload(tenant_b, "a.txt", b"Shared text.").pk
    )


def test_changed_content_under_the_same_name_is_a_new_revision(tenant_a):
    first = upload(tenant_a, "policy.txt", b"Refunds are accepted within 14 days.")
    second = upload(tenant_a, "policy.txt", b"Refunds are accepted within 30 days.")
    assert second.pk == first.pk
    assert second.current_revision.number == 2
    with tenant_scope(tenant_a):
        assert second.revisions.count() == 2
        hits = search_chunks(tenant_a, "refunds accepted")
    assert [h.chunk.revision_id for h in hits] == [second.current_revision_id]
    assert "30 days" in hits[0].chunk.content


def test_processing_twice_is_a_no_op(tenant_a):
    document = upload(tenant_a, "a.txt", b"Idempotent ingestion.")
    document_process(document_id=document.pk)
    with tenant_scope(tenant_a):
        assert document.revisions.count() == 1
        assert DocumentChunk.objects.filter(document=document).count() == 1


def test_a_poison_file_fails_after_too_many_deliveries(tenant_a, settings):
    """CEL-05: the counter is on the document, so a worker killed every time ends."""
    with tenant_scope(tenant_a), transaction.atomic():
        document = document_upload(
            tenant=tenant_a, upload=Upload(filename="x.txt", stream=io.BytesIO(b"text"))
        )
        transaction.on_commit(lambda: None)
    with unscoped():
        Document.objects.filter(pk=document.pk).update(
            status="processing",
            attempts=settings.INGEST_MAX_ATTEMPTS,
            current_revision=None,
            # Left by a dead worker: its heartbeat stopped.
            updated_at=timezone.now()
            - timezone.timedelta(seconds=settings.INGEST_STALE_AFTER_S + 1),
        )
    document_process(document_id=document.pk)
    with unscoped():
        document.refresh_from_db()
    assert document.status == "failed"
    assert document.error_code == "worker_lost"
    assert "stopped" in document.error


def test_no_task_is_queued_when_the_upload_rolls_back(
    tenant_a, django_capture_on_commit_callbacks
):
    """CEL-08: enqueue on commit only."""
    with (
        django_capture_on_commit_callbacks() as callbacks,
        tenant_scope(tenant_a),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        document_upload(
            tenant=tenant_a,
            upload=Upload(filename="x.txt", stream=io.BytesIO(b"never")),
        )
        raise RuntimeError("rolled back")
    assert callbacks == []
    with unscoped():
        assert not Document.objects.exists()


def test_an_upload_while_the_broker_is_down_stays_queued_for_the_sweeper(
    broker_publishes, tenant_a, settings, monkeypatch
):
    """CEL-07: the row survives; the sweeper queues it once the broker is back."""
    from ingest import tasks

    def broker_down(*args, **kwargs):
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(tasks.ingest_document, "delay", broker_down)
    document = upload(tenant_a, "later.txt", b"Uploaded during an outage.")
    assert document.status == "queued" and document.enqueued_at is None
    monkeypatch.undo()
    settings.CELERY_TASK_ALWAYS_EAGER = True
    with _capture(execute=True):
        assert documents_sweep() == 1
    with unscoped():
        document.refresh_from_db()
    assert document.status == "ready"


# ---------------------------------------------------------------- bad input (SPEC §7)


def _email_with_zip_bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bomb.txt", b"\0" * (200 * 1024 * 1024))
    msg = EmailMessage()
    msg["From"] = "a@example.com"
    msg["To"] = "b@example.com"
    msg["Subject"] = "Quarterly numbers"
    msg["Message-ID"] = "<1@example.com>"
    msg.set_content("Numbers attached.")
    msg.add_attachment(
        buffer.getvalue(), maintype="application", subtype="zip", filename="numbers.zip"
    )
    return bytes(msg)


def _bad_inputs(tmp_path: Path) -> dict[str, bytes]:
    return {
        "encrypted.pdf": pdfgen.encrypted_pdf(tmp_path / "enc.pdf").read_bytes(),
        "corrupt.pdf": pdfgen.corrupt_pdf_bytes(),
        "truncated.pdf": pdfgen.truncated_pdf_bytes(),
        "empty.pdf": b"",
        "scan.pdf": pdfgen.image_only_pdf(tmp_path / "scan.pdf").read_bytes(),
        "program.exe": b"MZ\x90\x00\x03" + bytes(range(256)) * 4,
    }


def test_each_bad_file_fails_with_a_clear_error_and_the_good_ones_succeed(
    tenant_a, tmp_path
):
    results = {
        name: upload(tenant_a, name, data)
        for name, data in _bad_inputs(tmp_path).items()
    }
    good = upload(tenant_a, "good.txt", b"A perfectly fine document.")
    assert good.status == "ready"
    expected_codes = {
        "encrypted.pdf": "encrypted",
        "corrupt.pdf": "corrupt",
        "truncated.pdf": "corrupt",
        "empty.pdf": "empty",
        "scan.pdf": "no_text",
        "program.exe": "unsupported_type",
    }
    for name, document in results.items():
        assert document.status == "failed", name
        assert document.error_code == expected_codes[name], (
            name,
            document.error_code,
            document.error,
        )
        assert document.error and "Traceback" not in document.error
        assert len(document.error) < 400


def test_an_owner_password_only_pdf_is_read(tenant_a, tmp_path):
    path = pdfgen.encrypted_pdf(
        tmp_path / "owner.pdf", user_password="", text="Owner locked but readable."
    )
    document = upload(tenant_a, "owner.pdf", path.read_bytes())
    assert document.status == "ready", document.error
    assert "Owner locked but readable." in document.current_revision.normalized_content


def test_a_file_over_the_size_limit_fails_without_storing_it(tenant_a, settings):
    settings.INGEST_MAX_FILE_BYTES = 1000
    document = upload(tenant_a, "big.txt", b"x" * 5000)
    assert document.status == "failed" and document.error_code == "too_large"
    assert "limit" in document.error
    assert not document.file.blob


def test_a_pdf_over_the_page_limit_fails(tenant_a, settings, tmp_path):
    settings.INGEST_MAX_PAGES = 3
    path = pdfgen.prose_pdf(tmp_path / "long.pdf", pages=5)
    document = upload(tenant_a, "long.pdf", path.read_bytes())
    assert document.status == "failed" and document.error_code == "too_many_pages"


def test_a_document_that_exceeds_its_time_limit_fails(tenant_a, settings, tmp_path):
    settings.INGEST_TIME_LIMIT_S = 0.05
    path = pdfgen.prose_pdf(tmp_path / "slow.pdf", pages=60)
    document = upload(tenant_a, "slow.pdf", path.read_bytes())
    assert document.status == "failed" and document.error_code == "timeout"


def test_html_full_of_scripts_keeps_only_the_text(tenant_a):
    html = (
        b"<html><head><title>Notice</title><script>alert('x')</script>"
        b"<style>p{color:red}</style></head><body><script>steal()</script>"
        b"<p>The office closes on Friday.</p><div style='display:none'>hidden instructions</div>"
        b"<img src=x onerror=alert(1)></body></html>"
    )
    document = upload(tenant_a, "notice.html", html)
    assert document.status == "ready"
    assert document.title == "Notice"
    text = document.current_revision.normalized_content
    assert "The office closes on Friday." in text
    for forbidden in ("alert", "steal", "color:red", "hidden instructions", "onerror"):
        assert forbidden not in text


def test_an_email_with_a_zip_bomb_keeps_the_email_and_fails_the_attachment(tenant_a):
    document = upload(tenant_a, "numbers.eml", _email_with_zip_bomb())
    assert document.status == "ready"
    assert document.title == "Quarterly numbers"
    assert document.metadata["message_id"] == "<1@example.com>"
    with tenant_scope(tenant_a):
        children = list(document.attachments.all())
    assert len(children) == 1
    assert children[0].status == "failed" and children[0].title == "numbers.zip"
    assert children[0].error


def test_email_attachments_become_their_own_documents(tenant_a):
    msg = EmailMessage()
    msg["From"] = "Ann <ann@example.com>"
    msg["To"] = "bob@example.com"
    msg["Subject"] = "Signed contract"
    msg["Message-ID"] = "<2@example.com>"
    msg["In-Reply-To"] = "<1@example.com>"
    msg["References"] = "<1@example.com>"
    msg.set_content("Please find the signed contract attached.")
    msg.add_attachment(
        b"The parties agree to the terms.",
        maintype="text",
        subtype="plain",
        filename="contract.txt",
    )
    document = upload(tenant_a, "signed.eml", bytes(msg))
    assert document.status == "ready"
    assert document.metadata["thread_id"] == "<1@example.com>"
    with tenant_scope(tenant_a):
        child = document.attachments.get()
    assert child.status == "ready" and child.file.filename == "contract.txt"
    assert "The parties agree" in child.current_revision.normalized_content
