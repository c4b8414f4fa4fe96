"""Admin for chat sessions and messages, limited to the request's tenant.

Messages and their sources are the record the citations point at: read-only.
"""

from __future__ import annotations

from django.contrib import admin
from django.utils.text import Truncator

from accounts.admin_mixins import ReadOnlyAdminMixin, ReadOnlyInline, TenantScopedAdmin
from chat.models import ChatSession, Message, MessageSource


class MessageInline(ReadOnlyInline):
    model = Message
    fields = ["created_at", "role", "status", "excerpt", "model_name"]
    readonly_fields = fields
    ordering = ["created_at"]
    show_change_link = True

    @admin.display(description="Content")
    def excerpt(self, obj: Message) -> str:
        return Truncator(obj.content).chars(160)


class SourceInline(ReadOnlyInline):
    model = MessageSource
    fields = [
        "ref_label",
        "rank",
        "score",
        "document_title",
        "page_start",
        "page_end",
        "start_offset",
        "end_offset",
    ]
    readonly_fields = fields
    ordering = ["rank"]


@admin.register(ChatSession)
class ChatSessionAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ["__str__", "user", "collection", "created_at", "updated_at"]
    list_filter = [("created_at", admin.DateFieldListFilter)]
    search_fields = ["title", "user__username"]
    list_select_related = ["user", "collection"]
    fields = ["title", "user", "collection", "created_at", "updated_at"]
    readonly_fields = fields
    inlines = [MessageInline]


@admin.register(Message)
class MessageAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ["created_at", "role", "status", "excerpt", "session", "model_name"]
    list_filter = ["role", "status", ("created_at", admin.DateFieldListFilter)]
    search_fields = ["content"]
    list_select_related = ["session"]
    fields = [
        "session", "role", "status", "reply_to", "content", "error", "model_name",
        "prompt_tokens", "completion_tokens", "payload", "created_at",
    ]  # fmt: skip
    readonly_fields = fields
    inlines = [SourceInline]

    @admin.display(description="Content")
    def excerpt(self, obj: Message) -> str:
        return Truncator(obj.content).chars(100)
