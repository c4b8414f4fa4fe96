"""Tabular review: documents (rows) x questions (columns), one cited cell each.

A review is the run record (CEL-10): it exists, `queued`, before its task is
published, and every delivery of the task leaves it `completed`, `failed` or
`cancelled`, or hands the unfinished cells to the next delivery. Cells are the
unit of idempotency: one row per (review, document row, column), claimed with
a conditional UPDATE under the delivery's `run_token` (see tabular.executor).
"""

from __future__ import annotations

import uuid
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django_scopes import ScopedManager


class Review(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        COMPLETED = "completed", "Completed"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(
        "accounts.Tenant", on_delete=models.CASCADE, related_name="+"
    )
    name = models.CharField(max_length=200)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED
    )
    # Per document: {"document_id", "title", "state", "cells": {column_id: {...}}};
    # written by the aggregate step, so an export or the API reads one row.
    results = models.JSONField(default=dict, blank=True)
    cost_actual_usd = models.DecimalField(
        max_digits=12, decimal_places=6, default=Decimal("0")
    )
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    model_name = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    # The delivery that owns the run; a new delivery takes over (a killed
    # worker's cells are then reclaimed) and an older one stops.
    run_token = models.UUIDField(null=True, blank=True)
    deliveries = models.PositiveIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ScopedManager(tenant="tenant")

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "id"], name="uniq_review_tenant_id"
            ),
            models.CheckConstraint(
                condition=Q(
                    status__in=["queued", "running", "completed", "failed", "cancelled"]
                ),
                name="chk_review_status_values",
            ),
        ]
        indexes = [
            # The reviews page (a tenant's newest first) and the sweeper (active ones).
            models.Index(
                fields=["tenant", "-created_at"], name="idx_review_tenant_created"
            ),
            models.Index(
                fields=["status", "heartbeat_at"], name="idx_review_status_heartbeat"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE


class ReviewDocument(models.Model):
    """A row: one document in the operator's order. Kept when the document
    goes missing or is deleted; `state` says so and its cells fail with why."""

    class State(models.TextChoices):
        PENDING = "pending", "Not loaded yet"
        READY = "ready", "Ready"
        MISSING = "missing", "Missing"
        DELETED = "deleted", "Deleted"
        NOT_READY = "not_ready", "Not ready"

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey(
        "accounts.Tenant", on_delete=models.CASCADE, related_name="+"
    )
    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="rows")
    # The id the operator asked for, kept even if no such document exists.
    document_uid = models.UUIDField()
    document = models.ForeignKey(
        "ingest.Document",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    title = models.CharField(max_length=500, blank=True)
    order = models.PositiveIntegerField()
    state = models.CharField(
        max_length=16, choices=State.choices, default=State.PENDING
    )
    error = models.TextField(blank=True)

    objects = ScopedManager(tenant="tenant")

    class Meta:
        ordering = ["review", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["review", "order"], name="uniq_reviewdoc_review_order"
            ),
            models.UniqueConstraint(
                fields=["review", "document_uid"], name="uniq_reviewdoc_review_document"
            ),
            models.UniqueConstraint(
                fields=["tenant", "id"], name="uniq_reviewdoc_tenant_id"
            ),
        ]

    def __str__(self) -> str:
        return self.title or str(self.document_uid)


class ReviewColumn(models.Model):
    class Type(models.TextChoices):
        TEXT = "text", "Text"
        DATE = "date", "Date"
        MONEY = "money", "Money"
        YES_NO = "yes_no", "Yes/No"
        LIST = "list", "List"

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey(
        "accounts.Tenant", on_delete=models.CASCADE, related_name="+"
    )
    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="columns")
    name = models.CharField(max_length=200)
    question = models.TextField()
    # What the column means, in the operator's words; widens the search
    # (tabular.retrieval) when the question's wording differs from the documents'.
    description = models.TextField(blank=True)
    type = models.CharField(max_length=16, choices=Type.choices, default=Type.TEXT)
    order = models.PositiveIntegerField()

    objects = ScopedManager(tenant="tenant")

    class Meta:
        ordering = ["review", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["review", "order"], name="uniq_reviewcol_review_order"
            ),
            models.UniqueConstraint(
                fields=["tenant", "id"], name="uniq_reviewcol_tenant_id"
            ),
            models.CheckConstraint(
                condition=Q(type__in=["text", "date", "money", "yes_no", "list"]),
                name="chk_reviewcol_type_values",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Cell(models.Model):
    """One (document, column) answer with its citation.

    Status: pending -> running (claimed by one delivery's run_token) -> done |
    failed; a re-run or a reclaimed cell goes back to pending. `confidence` is
    the model's (high/medium/low), or `failed` whenever status is failed.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    class Confidence(models.TextChoices):
        HIGH = "high", "High"
        MEDIUM = "medium", "Medium"
        LOW = "low", "Low"
        FAILED = "failed", "Failed"

    FINISHED = (Status.DONE, Status.FAILED)

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey(
        "accounts.Tenant", on_delete=models.CASCADE, related_name="+"
    )
    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="cells")
    row = models.ForeignKey(
        ReviewDocument, on_delete=models.CASCADE, related_name="cells"
    )
    column = models.ForeignKey(
        ReviewColumn, on_delete=models.CASCADE, related_name="cells"
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    value = models.TextField(blank=True)
    confidence = models.CharField(max_length=8, choices=Confidence.choices, blank=True)
    justification = models.TextField(blank=True)
    quote = models.TextField(blank=True)
    error = models.TextField(blank=True)
    # The cell's citation hangs off a Message with role "cell" (message_citations
    # needs a message); both survive a re-run as history.
    message = models.ForeignKey(
        "chat.Message",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    citation = models.ForeignKey(
        "citations.MessageCitation",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    retrieved_chunk_ids = models.JSONField(default=list, blank=True)
    cited_chunk_ids = models.JSONField(default=list, blank=True)
    used_fallback = models.BooleanField(default=False)
    model_name = models.CharField(max_length=200, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(
        max_digits=12, decimal_places=6, default=Decimal("0")
    )
    run_token = models.UUIDField(null=True, blank=True)
    # Claims of this cell; a cell whose worker died this often fails (CEL-05).
    attempts = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ScopedManager(tenant="tenant")

    class Meta:
        ordering = ["row__order", "column__order"]
        constraints = [
            # One cell per (review, document, column): a redelivered run never duplicates one.
            models.UniqueConstraint(
                fields=["review", "row", "column"], name="uniq_cell_review_row_column"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "running", "done", "failed"]),
                name="chk_cell_status_values",
            ),
            models.CheckConstraint(
                condition=~Q(status="failed") | Q(confidence="failed"),
                name="chk_cell_failed_has_failed_confidence",
            ),
        ]
        indexes = [
            # The executor's claim loop and the progress count: a review's cells by status.
            models.Index(fields=["review", "status"], name="idx_cell_review_status"),
        ]

    def __str__(self) -> str:
        return f"{self.row_id}x{self.column_id}: {self.value[:30]}"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED
