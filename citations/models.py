"""Citations: the `message_citations` table of seed 000, plus what seed 003
needs, one row per verification attempt, and reviewers' decisions."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone

from accounts.models import TenantOwned


class Method(models.TextChoices):
    EXACT = "exact_match", "Exact match"
    TOLERANT = "tolerant_match", "Tolerant match"
    LLM_JUDGE = "llm_judge", "LLM judge"
    ENSEMBLE = "ensemble", "Ensemble"
    FAILED = "failed", "Failed"


class MatchType(models.TextChoices):
    EXACT = "exact", "Exact"
    NORMALIZED = "normalized", "Normalized"
    FUZZY = "fuzzy", "Fuzzy"
    PARAPHRASE = "paraphrase", "Paraphrase"
    NOT_FOUND = "not_found", "Not found"


class Status(models.TextChoices):
    VERIFIED = "verified", "Verified"
    FAILED = "failed", "Failed"
    PENDING = "pending", "Pending"
    UNVERIFIED = "unverified", "Unverified"
    OUT_OF_PROVENANCE = "out_of_provenance", "Out of provenance"


class Relevance(models.TextChoices):
    """Does the cited passage bear on the question (citations.relevance)?"""

    ANSWERS = "answers", "Answers the question"
    RELATED = "related", "Related"
    OFF_TOPIC = "off_topic", "Does not answer the question"


class FailureKind(models.TextChoices):
    """Why a failed citation failed: its passage was found but says something
    else, no passage was found, it names a source the answer was not given,
    or the quote is in another source of the same answer."""

    DIFFERS = "differs", "Found, differs"
    NOT_FOUND = "not_found", "Not found"
    OUT_OF_PROVENANCE = "out_of_provenance", "Out of provenance"
    MISATTRIBUTED = "misattributed", "Mis-attributed"


class MessageCitation(TenantOwned):
    """One model-emitted citation. The first eleven columns are seed 000's DDL,
    by name and type; the constraints and two indexes carry its names.

    `source_text` is always the document's own text at the offsets; the
    model's words are `quoted_text`. While pending (and when a reference has
    no quote) the offsets cover the cited chunk. Chunk and revision ids are
    plain values, not foreign keys: citations outlive their sources.
    """

    # --- seed 000 -----------------------------------------------------------
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    message = models.ForeignKey(
        "chat.Message",
        on_delete=models.CASCADE,
        related_name="citations",
        db_index=False,
    )
    source_file = models.ForeignKey(
        "ingest.File", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    source_offset_start = models.IntegerField()
    source_offset_end = models.IntegerField()
    source_page = models.IntegerField(null=True, blank=True)
    source_text = models.TextField()
    verified = models.BooleanField(default=False, db_default=False)
    verification_method = models.TextField(  # noqa: DJ001 - seed 000: TEXT, NULL until verified
        null=True, blank=True, choices=Method.choices
    )
    verification_confidence = models.DecimalField(
        max_digits=3, decimal_places=2, null=True, blank=True
    )
    created_at = models.DateTimeField(default=timezone.now, db_default=Now())

    # --- seed 003 and the engine ------------------------------------------
    quoted_text = models.TextField(blank=True)
    match_type = models.CharField(  # noqa: DJ001 - NULL until verified
        max_length=16, choices=MatchType.choices, null=True, blank=True
    )
    match_score = models.FloatField(null=True, blank=True)
    verification_status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.PENDING
    )
    reason = models.TextField(blank=True)
    mis_attributed_to = models.CharField(max_length=8, blank=True)
    chunk_id = models.UUIDField(null=True, blank=True)
    revision_id = models.UUIDField(null=True, blank=True)
    document_id = models.UUIDField(null=True, blank=True)
    document_name = models.CharField(max_length=500, blank=True)
    # Length of the revision text the offsets point into (DAT-02).
    revision_length = models.IntegerField(null=True, blank=True)
    execution_context_type = models.CharField(max_length=32, default="chat")
    execution_context_id = models.CharField(max_length=64, blank=True)
    ref_label = models.CharField(max_length=8, blank=True)
    answer_start = models.IntegerField(null=True, blank=True)
    answer_end = models.IntegerField(null=True, blank=True)
    candidate_text = models.TextField(blank=True)
    # "Found, differs": the closest passage a failure located (its offsets
    # into the revision and page), and the kind of failure; null/blank
    # while pending, when verified, and when no passage was located.
    candidate_start = models.IntegerField(null=True, blank=True)
    candidate_end = models.IntegerField(null=True, blank=True)
    candidate_page = models.IntegerField(null=True, blank=True)
    failure_kind = models.CharField(
        max_length=20, choices=FailureKind.choices, blank=True
    )
    # The id of the rule that refused a failed citation (the rule table,
    # citations/cascade/rules.py: its name and what it refuses); blank when
    # verified, pending, or failed by no rule of the cascade.
    # A database default too: a process still running the code before this
    # column (a rolling deploy) or another system writing seed 000's columns
    # inserts rows without it.
    rule = models.CharField(max_length=64, blank=True, default="", db_default="")
    verified_at = models.DateTimeField(null=True, blank=True)
    # Relevance, a signal separate from verification: does the passage bear
    # on the question, rated offline (measured) or by a judge model; and is
    # it from a document other than the one the question is about.
    relevance = models.CharField(  # noqa: DJ001 - NULL until rated
        max_length=16, choices=Relevance.choices, null=True, blank=True
    )
    relevance_score = models.FloatField(null=True, blank=True)
    relevance_method = models.CharField(
        max_length=16, blank=True
    )  # offline | model | judge
    relevance_reason = models.TextField(blank=True)
    other_document = models.BooleanField(default=False)
    # Verified once, failed on re-verification against a new revision: every
    # answer, cell and export that used it says so.
    is_stale = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = (
            "message_citations"  # fixed by seed 000; other systems read this table
        )
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(source_offset_start__gte=0),
                name="chk_message_citations_offset_start_nonneg",
            ),
            models.CheckConstraint(
                condition=Q(source_offset_end__gt=models.F("source_offset_start")),
                name="chk_message_citations_offset_end_gt_start",
            ),
            models.CheckConstraint(
                condition=Q(verification_method__isnull=True)
                | Q(verification_method__in=[m.value for m in Method]),
                name="chk_message_citations_method_values",
            ),
            models.CheckConstraint(
                condition=Q(verification_confidence__isnull=True)
                | (
                    Q(verification_confidence__gte=0)
                    & Q(verification_confidence__lte=1)
                ),
                name="chk_message_citations_confidence_range",
            ),
            models.CheckConstraint(
                condition=Q(verified=False) | Q(verification_method__isnull=False),
                name="chk_message_citations_verified_has_method",
            ),
            # --- beyond seed 000 (DAT-01, DAT-02) ---
            models.CheckConstraint(
                condition=Q(verification_status__in=[s.value for s in Status]),
                name="chk_message_citations_status_values",
            ),
            models.CheckConstraint(
                condition=Q(verified=False)
                | (Q(verification_status="verified") & Q(verified_at__isnull=False)),
                name="chk_message_citations_verified_consistent",
            ),
            models.CheckConstraint(
                condition=Q(revision_length__isnull=True)
                | Q(source_offset_end__lte=models.F("revision_length")),
                name="chk_message_citations_end_within_text",
            ),
        ]
        indexes = [
            models.Index(fields=["message"], name="idx_message_citations_message"),
            models.Index(fields=["source_file"], name="idx_message_citations_file"),
            # The review tab and GET /api/citations: a tenant's newest first.
            models.Index(
                fields=["tenant", "-created_at"], name="idx_citations_tenant_created"
            ),
            # Stats and the status filter.
            models.Index(
                fields=["tenant", "verification_status"],
                name="idx_citations_tenant_status",
            ),
            # The review tab's and the API's rule filter, counts by rule.
            models.Index(fields=["tenant", "rule"], name="idx_citations_tenant_rule"),
            # Re-verification when a document gets a new revision; document filter.
            models.Index(
                fields=["tenant", "document_id"], name="idx_citations_tenant_doc"
            ),
            # The chat citation status endpoint: a chunk's citations, newest first.
            models.Index(
                fields=["chunk_id", "-created_at"], name="idx_citations_chunk_created"
            ),
        ]

    def __str__(self) -> str:
        return f"[{self.ref_label}] {self.quoted_text[:40]}"

    @property
    def is_pending(self) -> bool:
        return self.verification_status == Status.PENDING


class UnsourcedCitation(TenantOwned):
    """A reference to a source that was never given to the model (out of
    provenance). It has no file to point at, so it cannot be a row of
    `message_citations` (whose source_file_id is NOT NULL); it is kept here,
    never dropped, and counted in the stats."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    message = models.ForeignKey(
        "chat.Message", on_delete=models.CASCADE, related_name="unsourced_citations"
    )
    ref_label = models.CharField(max_length=32)
    quoted_text = models.TextField(blank=True)
    reason = models.TextField(blank=True)
    answer_start = models.IntegerField(null=True, blank=True)
    answer_end = models.IntegerField(null=True, blank=True)
    execution_context_type = models.CharField(max_length=32, default="chat")
    execution_context_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(
                fields=["tenant", "-created_at"], name="idx_unsourced_tenant_created"
            )
        ]

    def __str__(self) -> str:
        return f"[{self.ref_label}] out of provenance"

    @property
    def verification_status(self) -> str:
        return Status.OUT_OF_PROVENANCE

    @property
    def failure_kind(self) -> str:
        return FailureKind.OUT_OF_PROVENANCE

    @property
    def rule(self) -> str:
        return ""  # it never reached the cascade: no rule refused it


class CitationVerification(TenantOwned):
    """One verification attempt: what each stage said, how long it took, with
    which models. Never updated; the citation row holds the latest verdict."""

    id = models.BigAutoField(primary_key=True)
    citation = models.ForeignKey(
        MessageCitation, on_delete=models.CASCADE, related_name="verifications"
    )
    revision_id = models.UUIDField(null=True, blank=True)
    trigger = models.CharField(
        max_length=32, default="initial"
    )  # initial | reverify | revision
    verification_status = models.CharField(max_length=20, choices=Status.choices)
    verification_method = models.CharField(max_length=20, choices=Method.choices)
    match_type = models.CharField(max_length=16, choices=MatchType.choices)
    confidence = models.FloatField(null=True, blank=True)
    match_score = models.FloatField(null=True, blank=True)
    source_offset_start = models.IntegerField(null=True, blank=True)
    source_offset_end = models.IntegerField(null=True, blank=True)
    reason = models.TextField(blank=True)
    stages = models.JSONField(default=list, blank=True)
    models_used = models.JSONField(default=list, blank=True)
    duration_ms = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.verification_method} ({self.trigger})"


class CitationReview(TenantOwned):
    """A reviewer's accept/reject with a note; never overwrites the machine verdict."""

    class Decision(models.TextChoices):
        ACCEPT = "accept", "Accepted"
        REJECT = "reject", "Rejected"

    id = models.BigAutoField(primary_key=True)
    citation = models.ForeignKey(
        MessageCitation, on_delete=models.CASCADE, related_name="reviews"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    decision = models.CharField(max_length=8, choices=Decision.choices)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_decision_display()} by {self.reviewer_id}"


class PreparedForm(TenantOwned):
    """A revision's text prepared for quote search (folded, indexed), stored
    so that every process reads it instead of building it: at 5 MB building
    takes about 2 s, reading about 0.1 s. Built after ingestion for texts of
    citations.prepared_store.STORE_MIN_CHARS or more; `format` is the code's
    version (citations.cascade.prepared.FORMAT): a form of another format is
    never read, and is replaced."""

    id = models.BigAutoField(primary_key=True)
    revision = models.OneToOneField(
        "ingest.DocumentRevision",
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=True,
    )
    format = models.CharField(max_length=32)
    data = models.BinaryField()
    chars = models.IntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "citations_prepared_form"

    def __str__(self) -> str:
        return f"prepared {self.revision_id} ({self.format})"
