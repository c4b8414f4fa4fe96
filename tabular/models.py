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

from accounts.models import TenantOwned, optional_link, tenant_id_unique
from tabular import column_types


class Review(TenantOwned):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        COMPLETED = "completed", "Completed"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    created_by = optional_link(settings.AUTH_USER_MODEL)
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

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            tenant_id_unique(),
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


class ReviewDocument(TenantOwned):
    """A row: one document in the operator's order. Kept when the document
    goes missing or is deleted; `state` says so and its cells fail with why."""

    class State(models.TextChoices):
        PENDING = "pending", "Not loaded yet"
        READY = "ready", "Ready"
        MISSING = "missing", "Missing"
        DELETED = "deleted", "Deleted"
        NOT_READY = "not_ready", "Not ready"

    id = models.BigAutoField(primary_key=True)
    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="rows")
    # The id the operator asked for, kept even if no such document exists.
    document_uid = models.UUIDField()
    document = optional_link("ingest.Document")
    title = models.CharField(max_length=500, blank=True)
    order = models.PositiveIntegerField()
    state = models.CharField(
        max_length=16, choices=State.choices, default=State.PENDING
    )
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["review", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["review", "order"], name="uniq_reviewdoc_review_order"
            ),
            models.UniqueConstraint(
                fields=["review", "document_uid"], name="uniq_reviewdoc_review_document"
            ),
            tenant_id_unique("uniq_reviewdoc_tenant_id"),
        ]

    def __str__(self) -> str:
        return self.title or str(self.document_uid)


class ReviewColumn(TenantOwned):
    # What a cell of the column holds: a row of tabular.column_types (which
    # says how each is asked, read, checked against its quote, sorted and
    # exported); the choices and the check constraint are derived from it.
    # Former `list` columns are `text` (migration 0003; "list" is still
    # accepted as a name for text). The choices are the table's function, read
    # when asked (a type a test adds is valid and displayed) and kept by
    # migrations as that reference, so a new type alters only the constraint.
    id = models.BigAutoField(primary_key=True)
    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="columns")
    name = models.CharField(max_length=200)
    question = models.TextField()
    # What the column means, in the operator's words; widens the search
    # (tabular.retrieval) when the question's wording differs from the documents'.
    description = models.TextField(blank=True)
    type = models.CharField(
        max_length=16, choices=column_types.choices, default=column_types.TEXT
    )
    # An options column's choices, in the operator's order (else []).
    options = models.JSONField(default=list, blank=True)
    order = models.PositiveIntegerField()

    class Meta:
        ordering = ["review", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["review", "order"], name="uniq_reviewcol_review_order"
            ),
            tenant_id_unique("uniq_reviewcol_tenant_id"),
            models.CheckConstraint(
                condition=Q(type__in=column_types.keys()),
                name="chk_reviewcol_type_values",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Cell(TenantOwned):
    """One (document, column) answer with its citation.

    Status: pending -> running (claimed by one delivery's run_token) -> done |
    failed; a re-run or a reclaimed cell goes back to pending. A done cell is
    `answered` (a short `value`, its normalised `typed_value`, the quote
    beside it, and whether the verified quote supports the value) or
    `not_found` (no passage bears on the column; `searched` says what was
    read). `confidence` is calibrated (tabular.confidence; the model's own
    word is `model_confidence`), or `failed` whenever status is failed.

    Review: a reviewer approves or flags a cell, or edits its value with a
    note; the engine's `value` is kept beside `edited_value`, and every change
    is a CellEvent.
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

    class Outcome(models.TextChoices):
        ANSWERED = "answered", "Answered"
        NOT_FOUND = "not_found", "Not found"

    class Support(models.TextChoices):
        SUPPORTED = "supported", "Supported by the quote"
        UNSUPPORTED = "unsupported", "Not supported by the quote"
        UNCHECKED = "unchecked", "Not checked"

    class ReviewState(models.TextChoices):
        UNREVIEWED = "unreviewed", "Unreviewed"
        APPROVED = "approved", "Approved"
        FLAGGED = "flagged", "Flagged"

    FINISHED = (Status.DONE, Status.FAILED)

    id = models.BigAutoField(primary_key=True)
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
    outcome = models.CharField(max_length=16, choices=Outcome.choices, blank=True)
    value = models.TextField(blank=True)
    # The value normalised ({"kind": "duration", "amount": 90, "unit": "day"},
    # tabular.column_types), so exports write numbers and dates and the grid sorts.
    typed_value = models.JSONField(null=True, blank=True)
    support = models.CharField(max_length=16, choices=Support.choices, blank=True)
    support_reason = models.TextField(blank=True)
    confidence = models.CharField(max_length=8, choices=Confidence.choices, blank=True)
    model_confidence = models.CharField(max_length=8, blank=True)
    # The calibration rule that set `confidence` (tabular.confidence).
    confidence_rule = models.CharField(max_length=64, blank=True)
    # What a not-found cell read: {"terms": [...], "passages": [{"page", "label"}]}.
    searched = models.JSONField(default=dict, blank=True)
    justification = models.TextField(blank=True)
    quote = models.TextField(blank=True)
    error = models.TextField(blank=True)
    # The cell's citation hangs off a Message with role "cell" (message_citations
    # needs a message); both survive a re-run as history.
    message = optional_link("chat.Message")
    citation = optional_link("citations.MessageCitation")
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
    # Review ("verified" stays the engine's word for the quote).
    review_state = models.CharField(
        max_length=16, choices=ReviewState.choices, default=ReviewState.UNREVIEWED
    )
    reviewed_by = optional_link(settings.AUTH_USER_MODEL)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    edited_value = models.TextField(blank=True)
    edited_typed_value = models.JSONField(null=True, blank=True)
    edited_support = models.CharField(
        max_length=16, choices=Support.choices, blank=True
    )
    edited_support_reason = models.TextField(blank=True)
    edit_note = models.TextField(blank=True)
    edited_by = optional_link(settings.AUTH_USER_MODEL)
    edited_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["row__order", "column__order"]
        constraints = [
            # One cell per (review, document, column): a redelivered run never duplicates one.
            models.UniqueConstraint(
                fields=["review", "row", "column"], name="uniq_cell_review_row_column"
            ),
            # Target of CellEvent's same-tenant guard (accounts.dbguards).
            tenant_id_unique(),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "running", "done", "failed"]),
                name="chk_cell_status_values",
            ),
            models.CheckConstraint(
                condition=~Q(status="failed") | Q(confidence="failed"),
                name="chk_cell_failed_has_failed_confidence",
            ),
            models.CheckConstraint(
                condition=Q(review_state__in=["unreviewed", "approved", "flagged"]),
                name="chk_cell_review_state_values",
            ),
            models.CheckConstraint(
                condition=Q(outcome__in=["", "answered", "not_found"]),
                name="chk_cell_outcome_values",
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

    @property
    def is_edited(self) -> bool:
        return self.edited_at is not None

    @property
    def is_not_found(self) -> bool:
        return (
            self.status == self.Status.DONE and self.outcome == self.Outcome.NOT_FOUND
        )

    @property
    def shown_value(self) -> str:
        """What the grid shows: the reviewer's value over the engine's."""
        return self.edited_value if self.is_edited else self.value

    @property
    def shown_typed_value(self) -> dict | None:
        return self.edited_typed_value if self.is_edited else self.typed_value

    @property
    def shown_support(self) -> str:
        return self.edited_support if self.is_edited else self.support


class CellEvent(TenantOwned):
    """One change to a cell's review, with who and when: the cell panel's
    history, and the audit trail behind exports' review columns. Rows are
    never updated; a user who leaves keeps their name here."""

    class Action(models.TextChoices):
        APPROVE = "approve", "Approved"
        FLAG = "flag", "Flagged"
        CLEAR = "clear", "Review cleared"
        EDIT = "edit", "Edited the value"
        REVERT = "revert", "Restored the engine's value"
        RERUN = "rerun", "Re-ran the cell"

    id = models.BigAutoField(primary_key=True)
    cell = models.ForeignKey(Cell, on_delete=models.CASCADE, related_name="events")
    action = models.CharField(max_length=16, choices=Action.choices)
    user = optional_link(settings.AUTH_USER_MODEL)
    user_name = models.CharField(max_length=150, blank=True)
    note = models.TextField(blank=True)
    value_before = models.TextField(blank=True)
    value_after = models.TextField(blank=True)
    state_before = models.CharField(max_length=16, blank=True)
    state_after = models.CharField(max_length=16, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    action__in=["approve", "flag", "clear", "edit", "revert", "rerun"]
                ),
                name="chk_cellevent_action_values",
            ),
        ]
        indexes = [
            # The cell panel's history: one cell's events, newest first.
            models.Index(fields=["cell", "-created_at"], name="idx_cellevent_cell"),
        ]

    def __str__(self) -> str:
        return f"{self.cell_id} {self.action} by {self.user_name or '?'}"
