"""Deleting a document from the pages and the API, and taking it back.

A deletion is soft (seed 003: citations outlive their sources): the document
leaves lists, search and chat, its citations stay as history, and it can be
restored. An email goes with its attachments, and comes back with those that
went with it (not with one deleted on its own before).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from accounts.scoping import first_by_pk
from ingest.models import Document

if TYPE_CHECKING:
    from accounts.models import Tenant


@transaction.atomic
def document_delete(*, document: Document) -> int:
    """Soft-delete a document and its live attachments; returns how many."""
    now = timezone.now()
    ids = [
        document.pk,
        *document.attachments.filter(is_deleted=False).values_list("pk", flat=True),
    ]
    count = Document.objects.filter(pk__in=ids, is_deleted=False).update(
        is_deleted=True, deleted_at=now
    )
    document.refresh_from_db()
    return count


@transaction.atomic
def document_restore(*, document: Document) -> int:
    """Bring back a deleted document and the attachments deleted with it;
    returns how many. Restoring a live document changes nothing."""
    if not document.is_deleted:
        return 0
    ids = [document.pk]
    if document.deleted_at is not None:
        ids += list(
            document.attachments.filter(
                is_deleted=True, deleted_at=document.deleted_at
            ).values_list("pk", flat=True)
        )
    count = Document.objects.filter(pk__in=ids).update(
        is_deleted=False, deleted_at=None
    )
    document.refresh_from_db()
    return count


def documents_deleted(*, tenant: Tenant) -> QuerySet[Document]:
    """A tenant's deleted documents, most recently deleted first (top-level
    ones and attachments deleted on their own)."""
    return (
        Document.objects.with_scope(tenant=tenant.pk)
        .filter(is_deleted=True)
        .exclude(parent__is_deleted=True, parent__deleted_at=F("deleted_at"))
        .select_related("file")
        .order_by("-deleted_at")
    )


def document_get_any(*, tenant: Tenant, pk: object) -> Document | None:
    """A document of the tenant, deleted or not (to restore it)."""
    return first_by_pk(
        Document.objects.with_scope(tenant=tenant.pk).select_related("file"), pk
    )
