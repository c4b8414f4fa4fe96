"""Admin for documents and their revisions, limited to the request's tenant.

Documents are uploaded through the app, not the admin, and are soft-deleted
(citations keep their history); revisions are read-only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages

from accounts.admin_mixins import ReadOnlyAdminMixin, ReadOnlyInline, TenantScopedAdmin
from ingest.models import Document, DocumentRevision

if TYPE_CHECKING:
    from django.db.models import QuerySet
    from django.http import HttpRequest


class RevisionInline(ReadOnlyInline):
    model = DocumentRevision
    fk_name = "document"
    fields = ["number", "page_count", "characters", "content_sha256", "created_at"]
    readonly_fields = fields
    ordering = ["-number"]
    show_change_link = True

    @admin.display(description="Characters")
    def characters(self, obj: DocumentRevision) -> int:
        return len(obj.normalized_content)


@admin.register(Document)
class DocumentAdmin(TenantScopedAdmin):
    list_display = ["title", "source_type", "status", "is_deleted", "created_at"]
    list_filter = [
        "status",
        "source_type",
        "is_deleted",
        ("created_at", admin.DateFieldListFilter),
    ]
    search_fields = ["title", "file__filename"]
    date_hierarchy = "created_at"
    autocomplete_fields = ["collections", "parent"]
    fields = [
        "title", "collections", "parent", "source_type", "status", "error", "origin_url",
        "metadata", "file", "current_revision", "progress_done", "progress_total",
        "is_deleted", "deleted_at", "uploaded_by", "created_at", "updated_at",
    ]  # fmt: skip
    readonly_fields = [
        "source_type", "status", "error", "origin_url", "metadata", "file", "current_revision",
        "progress_done", "progress_total", "is_deleted", "deleted_at", "uploaded_by",
        "created_at", "updated_at",
    ]  # fmt: skip
    inlines = [RevisionInline]
    actions = ["soft_delete_selected"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        return super().get_queryset(request).select_related("file")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # uploads go through the app: limits, type detection, ingestion

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # soft delete instead, so citations keep their source

    @admin.action(description="Soft-delete selected documents", permissions=["change"])
    def soft_delete_selected(
        self, request: HttpRequest, queryset: QuerySet[Document]
    ) -> None:
        from ingest.services import document_soft_delete

        n = 0
        for document in queryset.filter(is_deleted=False):
            document_soft_delete(document=document)
            n += 1
        self.message_user(request, f"Soft-deleted {n} document(s).", messages.SUCCESS)


@admin.register(DocumentRevision)
class DocumentRevisionAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ["document", "number", "created_at"]
    search_fields = ["document__title"]
    list_select_related = ["document"]
    fields = [
        "document",
        "number",
        "file",
        "content_sha256",
        "page_starts",
        "created_at",
        "normalized_content",
    ]
    readonly_fields = fields
