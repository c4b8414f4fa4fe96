"""Verification as a service: idempotent (CEL-02), every attempt recorded, and
re-verified against the new text when a document gets a new revision (DAT-07)."""

from __future__ import annotations

import io

import pytest

from accounts.scoping import tenant_scope, unscoped
from chat.models import Message
from chat.services import message_ask, session_create
from citations.models import CitationVerification, MessageCitation
from citations.services import citation_verify, message_citations_verify
from ingest.services import Upload, document_upload

pytestmark = pytest.mark.django_db

V1 = (
    b"Refund policy. Refunds are accepted within 14 days of delivery. Shipping is free."
)


@pytest.fixture
def cited(tenant_a, alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True), tenant_scope(tenant_a):
        document_upload(
            tenant=tenant_a, upload=Upload(filename="policy.txt", stream=io.BytesIO(V1))
        )
    with django_capture_on_commit_callbacks(execute=True), tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
        message = message_ask(
            session=session, question="Within how many days are refunds accepted?"
        )
    with unscoped():
        citation = MessageCitation.objects.get(
            message=message, quoted_text__contains="14 days"
        )
    assert citation.verified
    return citation


def test_verifying_again_is_a_no_op(cited):
    before = CitationVerification.objects.with_scope(tenant=cited.tenant_id).count()
    citation_verify(citation_id=cited.pk)
    message_citations_verify(message_id=cited.message_id)
    with unscoped():
        # The answer may cite more than this passage: each verified once.
        assert CitationVerification.objects.count() == before
        assert CitationVerification.objects.filter(citation=cited).count() == 1
        again = MessageCitation.objects.get(pk=cited.pk)
    assert (again.source_offset_start, again.verified_at) == (
        cited.source_offset_start,
        cited.verified_at,
    )


def test_a_reverification_is_recorded_as_a_new_attempt(cited):
    citation_verify(citation_id=cited.pk, trigger="reverify")
    with unscoped():
        attempts = list(
            CitationVerification.objects.filter(citation=cited).order_by("created_at")
        )
    assert [a.trigger for a in attempts] == ["initial", "reverify"]
    assert all(a.verification_status == "verified" for a in attempts)


def test_a_new_revision_that_keeps_the_sentence_moves_the_offsets(
    cited, tenant_a, django_capture_on_commit_callbacks
):
    v2 = b"Updated terms. " + V1
    with django_capture_on_commit_callbacks(execute=True), tenant_scope(tenant_a):
        document_upload(
            tenant=tenant_a, upload=Upload(filename="policy.txt", stream=io.BytesIO(v2))
        )
    with unscoped():
        again = MessageCitation.objects.get(pk=cited.pk)
        revision = again.revision_id
        from ingest.models import DocumentRevision

        text = DocumentRevision.objects.get(pk=revision).normalized_content
    assert revision != cited.revision_id
    assert (
        again.verified
        and text[again.source_offset_start : again.source_offset_end]
        == again.source_text
    )
    assert again.source_offset_start == cited.source_offset_start + len(
        "Updated terms. "
    )


def test_a_new_revision_that_changes_the_number_fails_the_citation(
    cited, tenant_a, django_capture_on_commit_callbacks
):
    v2 = V1.replace(b"14 days", b"30 days")
    with django_capture_on_commit_callbacks(execute=True), tenant_scope(tenant_a):
        document_upload(
            tenant=tenant_a, upload=Upload(filename="policy.txt", stream=io.BytesIO(v2))
        )
    with unscoped():
        again = MessageCitation.objects.get(pk=cited.pk)
        triggers = list(
            CitationVerification.objects.filter(citation=cited).values_list(
                "trigger", flat=True
            )
        )
    assert not again.verified and again.verification_status == "failed"
    assert again.rule == "meaning.number", again.reason
    assert "14" in again.reason and "30" in again.reason
    assert "revision" in triggers
    # Found, differs: the passage is located, stored with its page, and the
    # citation points at it.
    assert again.failure_kind == "differs"
    assert (again.candidate_start, again.candidate_end) == (
        again.source_offset_start,
        again.source_offset_end,
    )
    assert again.candidate_page == 1
    assert "30 days" in again.candidate_text == again.source_text


def test_failed_citations_are_stored_never_dropped(
    tenant_a, alice, llm, django_capture_on_commit_callbacks
):
    from docuiq.testing.factories import make_document
    from docuiq.testing.llm_server import Reply

    make_document(tenant_a, "The warranty lasts twelve months.", title="W")
    llm.script(
        Reply.chat_answer(
            "Twenty-four months [S1].", ("S1", "The warranty lasts twenty-four months.")
        )
    )
    with django_capture_on_commit_callbacks(execute=True), tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
        message = message_ask(session=session, question="How long is the warranty?")
    with unscoped():
        (row,) = MessageCitation.objects.filter(message=message)
        assert Message.objects.filter(pk=message.pk).exists()
    assert row.verification_status == "failed" and row.verification_method == "failed"
    assert row.verification_confidence is None and not row.verified
    assert row.failure_kind in ("differs", "not_found")


def _revision(text: str, page_starts=(0,)):
    import uuid

    from citations.verdicts import RevisionText

    return RevisionText(uuid.uuid4(), uuid.uuid4(), text, list(page_starts))


def test_verdict_fields_store_a_located_passage_and_nothing_for_absence():
    from citations.cascade import verify_quote
    from citations.verdicts import verdict_fields

    text = "Cover page.\fThe Buyer shall pay within 30 days of the invoice date."
    revision = _revision(text, (0, 12))
    differs = verdict_fields(
        verify_quote(text, "The Buyer shall pay within 35 days of the invoice date."),
        revision,
        within=(12, len(text)),
        current=(12, len(text)),
    )
    assert differs["failure_kind"] == "differs"
    start, end = differs["candidate_start"], differs["candidate_end"]
    assert text[start:end] == differs["candidate_text"] == differs["source_text"]
    assert "30 days" in differs["candidate_text"]
    assert differs["candidate_page"] == 2
    absent = verdict_fields(
        verify_quote(text, "The Seller may terminate for convenience at any time."),
        revision,
        within=(12, len(text)),
        current=(12, len(text)),
    )
    assert absent["failure_kind"] == "not_found"
    assert absent["candidate_start"] is absent["candidate_end"] is None
    assert absent["candidate_page"] is None and absent["candidate_text"] == ""
    # The row points at the cited chunk, not at a passage that is not the quote's.
    assert (absent["source_offset_start"], absent["source_offset_end"]) == (
        12,
        len(text),
    )
    verified = verdict_fields(
        verify_quote(text, "The Buyer shall pay within 30 days"),
        revision,
        within=None,
        current=(0, 5),
    )
    assert verified["failure_kind"] == "" and verified["candidate_start"] is None
