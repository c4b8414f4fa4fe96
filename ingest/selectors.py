from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import QuerySet

from ingest.models import Document

if TYPE_CHECKING:
    from accounts.models import Tenant


def document_list(
    *, tenant: Tenant, include_deleted: bool = False
) -> QuerySet[Document]:
    qs = Document.objects.with_scope(tenant=tenant.pk).select_related(
        "current_revision", "file"
    )
    if not include_deleted:
        qs = qs.filter(is_deleted=False)
    return qs.order_by("-created_at")


def document_get(*, tenant: Tenant, pk: object) -> Document | None:
    try:
        return (
            document_list(tenant=tenant)
            .select_related("parent", "file")
            .filter(pk=pk)
            .first()
        )
    except (ValueError, TypeError):
        return None


def documents_pending(documents: list[Document]) -> bool:
    return any(not d.is_terminal for d in documents)
