"""Rows for the review-tab and admin tests: citations as the engine leaves
them (verified, failed, pending, unverified, out of provenance)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.utils import timezone

from accounts.scoping import tenant_scope
from chat.models import ChatSession, Message
from citations.models import MessageCitation, UnsourcedCitation

CONTRACT = (
    "Master Services Agreement. The Supplier shall deliver the goods within 30 days of the order. "
    "Payment is due within 45 days of the invoice. Either party may terminate this agreement "
    "with 90 days written notice. Liability is capped at the fees paid in the previous 12 months."
)


def make_message(tenant) -> Message:
    with tenant_scope(tenant):
        session = ChatSession.objects.create(tenant=tenant, title="Review test")
        return Message.objects.create(
            tenant=tenant, session=session, role="assistant", content="An answer."
        )


def make_citation(
    tenant,
    document,
    *,
    quote: str,
    status: str = "verified",
    method: str | None = None,
    score: float | None = None,
    document_name: str | None = None,
    created_at: dt.datetime | None = None,
    message: Message | None = None,
) -> MessageCitation:
    """A citation of `document` quoting `quote`, stored with the verdict
    `status` (offsets point at the quote when the document contains it)."""
    revision = document.current_revision
    text = revision.normalized_content
    start = text.find(quote)
    if start < 0:
        start, end = 0, min(len(text), 40)
    else:
        end = start + len(quote)
    verified = status == "verified"
    if method is None:
        method = {"verified": "exact_match", "failed": "failed"}.get(status)
    match_type = {
        "exact_match": "exact",
        "tolerant_match": "normalized",
        "failed": "not_found",
    }.get(method or "")
    if score is None and method is not None:
        score = 1.0 if verified else 0.42
    message = message or make_message(tenant)
    with tenant_scope(tenant):
        return MessageCitation.objects.create(
            tenant=tenant,
            message=message,
            source_file=document.file,
            source_offset_start=start,
            source_offset_end=end,
            source_page=revision.page_for_offset(start),
            source_text=text[start:end],
            quoted_text=quote,
            verified=verified,
            verification_status=status,
            verification_method=method,
            verification_confidence=Decimal("1.00") if verified else None,
            match_type=match_type,
            match_score=score,
            verified_at=timezone.now() if verified else None,
            revision_id=revision.pk,
            revision_length=len(text),
            document_id=document.pk,
            document_name=document_name
            if document_name is not None
            else document.title,
            ref_label="S1",
            reason=""
            if status != "failed"
            else "The quote was not found in the cited source.",
            created_at=created_at or timezone.now(),
        )


def make_unsourced(
    tenant, *, quote: str = "An invented clause.", ref: str = "S9"
) -> UnsourcedCitation:
    message = make_message(tenant)
    with tenant_scope(tenant):
        return UnsourcedCitation.objects.create(
            tenant=tenant,
            message=message,
            ref_label=ref,
            quoted_text=quote,
            reason=f"{ref} names no source given to the model for this answer.",
        )
