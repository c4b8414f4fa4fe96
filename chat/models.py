"""Chat sessions, messages (payload stored unchanged for replay) and the
sources retrieved for each answer, under their ref labels S1, S2, …"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from accounts.models import TenantOwned, optional_link, tenant_id_unique


class ChatSession(TenantOwned):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = optional_link(settings.AUTH_USER_MODEL)
    title = models.CharField(max_length=200, blank=True)
    collection = optional_link("accounts.Collection")
    documents = models.ManyToManyField("ingest.Document", blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [tenant_id_unique()]

    def __str__(self) -> str:
        return self.title or f"Chat {str(self.pk)[:8]}"


class Message(TenantOwned):
    class Role(models.TextChoices):
        USER = "user", "User"
        ASSISTANT = "assistant", "Assistant"
        CELL = "cell", "Tabular cell"

    class Status(models.TextChoices):
        COMPLETE = "complete", "Complete"
        GENERATING = "generating", "Generating"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    session = models.ForeignKey(
        ChatSession,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="messages",
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    # The question an assistant message answers (one answer per question).
    reply_to = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="reply"
    )
    content = models.TextField(blank=True)
    # answer, citations, all_citations, inline_refs (seed 004), stored unchanged.
    payload = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.COMPLETE
    )
    error = models.TextField(blank=True)
    model_name = models.CharField(max_length=200, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "messages"  # seed 000's message_citations references messages(id)
        ordering = ["created_at"]
        constraints = [tenant_id_unique()]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:40]}"


class MessageSource(TenantOwned):
    """A chunk retrieved for an answer. Snapshots survive the chunk's deletion."""

    message = models.ForeignKey(
        Message, on_delete=models.CASCADE, related_name="sources"
    )
    ref_label = models.CharField(max_length=8)
    rank = models.PositiveSmallIntegerField()
    score = models.FloatField(default=0.0)
    chunk = optional_link("ingest.DocumentChunk")
    chunk_uid = models.UUIDField()
    chunk_index = models.PositiveIntegerField(default=0)
    document = optional_link("ingest.Document")
    revision_id = models.UUIDField()
    file_id = models.UUIDField()
    document_title = models.CharField(max_length=500)
    source_type = models.CharField(max_length=16)
    page_start = models.PositiveIntegerField(default=1)
    page_end = models.PositiveIntegerField(default=1)
    start_offset = models.PositiveIntegerField()
    end_offset = models.PositiveIntegerField()

    class Meta:
        ordering = ["message", "rank"]
        constraints = [
            models.UniqueConstraint(
                fields=["message", "ref_label"], name="uniq_source_message_ref"
            )
        ]

    def __str__(self) -> str:
        return f"{self.ref_label} {self.document_title}"
