"""Playbooks: a tenant's standard positions, and their runs on contracts.

A playbook is a named list of positions (a title, the question, the
standard in words, fallbacks, a typed rule, what a missing clause means, a
severity and guidance). A run is a tabular `Review` whose columns come from
the positions (one executor, one queue, one cell model): `PlaybookRun`
points at that review, and `RunPosition` is a snapshot of each position
beside the column it became, so editing the playbook later never changes an
old run's findings. A `Finding` is computed from a finished cell and its
position's rule (playbook.findings); a reviewer may accept or override it
with a note, every change a `FindingEvent`.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from accounts.models import TenantOwned, optional_link, tenant_id_unique

SEVERITIES = ("low", "medium", "high")


class Severity(models.TextChoices):
    LOW = "low", "Low"
    MEDIUM = "medium", "Medium"
    HIGH = "high", "High"


class Playbook(TenantOwned):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_by = optional_link(settings.AUTH_USER_MODEL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            tenant_id_unique(),
            models.UniqueConstraint(
                fields=["tenant", "name"], name="uniq_playbook_tenant_name"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Position(TenantOwned):
    """One standard position. `type` is a tabular column type; `rule` and
    `fallback_rule` are typed rules (playbook.rules: {"at_least": {...}},
    {"in": [...]}, {"is": true}); a text position has none, and offline it is
    never "meets" or "deviates". `if_absent`: "acceptable", or the severity
    of a missing clause."""

    id = models.BigAutoField(primary_key=True)
    playbook = models.ForeignKey(
        Playbook, on_delete=models.CASCADE, related_name="positions"
    )
    order = models.PositiveIntegerField()
    title = models.CharField(max_length=200)
    question = models.TextField()
    type = models.CharField(max_length=16, default="text")
    options = models.JSONField(default=list, blank=True)
    standard = models.TextField()
    rule = models.JSONField(null=True, blank=True)
    fallbacks = models.JSONField(default=list, blank=True)
    fallback_rule = models.JSONField(null=True, blank=True)
    deviation = models.TextField(blank=True)
    severity = models.CharField(
        max_length=8, choices=Severity.choices, default=Severity.MEDIUM
    )
    if_absent = models.CharField(max_length=16, default="acceptable")
    guidance = models.TextField(blank=True)
    # Extra words the search should look for (the tabular column's description).
    search = models.TextField(blank=True)

    class Meta:
        ordering = ["playbook", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["playbook", "order"], name="uniq_position_playbook_order"
            ),
            models.UniqueConstraint(
                fields=["playbook", "title"], name="uniq_position_playbook_title"
            ),
            tenant_id_unique(),
            models.CheckConstraint(
                condition=Q(severity__in=SEVERITIES),
                name="chk_position_severity_values",
            ),
            models.CheckConstraint(
                condition=Q(if_absent__in=("acceptable", *SEVERITIES)),
                name="chk_position_if_absent_values",
            ),
        ]

    def __str__(self) -> str:
        return self.title


class PlaybookRun(TenantOwned):
    """A playbook checked on contracts: its tabular review does the work."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    playbook = optional_link(Playbook, related_name="runs")
    playbook_name = models.CharField(max_length=200)
    review = models.OneToOneField(
        "tabular.Review", on_delete=models.CASCADE, related_name="playbook_run"
    )
    created_by = optional_link(settings.AUTH_USER_MODEL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            tenant_id_unique(),
        ]
        indexes = [
            # The runs list: a tenant's newest first.
            models.Index(
                fields=["tenant", "-created_at"], name="idx_playbookrun_tenant_new"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.playbook_name} ({self.created_at:%Y-%m-%d})"


class RunPosition(TenantOwned):
    """A position as it was when the run started, beside its column.
    `judged_by_model`: a position without a typed rule, asked of a model as
    an options column (meets / fallback / deviates)."""

    id = models.BigAutoField(primary_key=True)
    run = models.ForeignKey(
        PlaybookRun, on_delete=models.CASCADE, related_name="positions"
    )
    position = optional_link(Position)
    column = models.OneToOneField(
        "tabular.ReviewColumn", on_delete=models.CASCADE, related_name="+"
    )
    order = models.PositiveIntegerField()
    title = models.CharField(max_length=200)
    question = models.TextField()
    type = models.CharField(max_length=16, default="text")
    standard = models.TextField()
    rule = models.JSONField(null=True, blank=True)
    fallbacks = models.JSONField(default=list, blank=True)
    fallback_rule = models.JSONField(null=True, blank=True)
    deviation = models.TextField(blank=True)
    severity = models.CharField(max_length=8, default=Severity.MEDIUM)
    if_absent = models.CharField(max_length=16, default="acceptable")
    guidance = models.TextField(blank=True)
    judged_by_model = models.BooleanField(default=False)

    class Meta:
        ordering = ["run", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "order"], name="uniq_runposition_run_order"
            ),
            tenant_id_unique(),
        ]

    def __str__(self) -> str:
        return self.title


class Finding(TenantOwned):
    """What a run found for one (contract, position): computed from the cell
    and the position's rule (`rule` names the finding rule that decided), kept
    in step with the cell (`cell_version`), and reviewed by a person."""

    class Kind(models.TextChoices):
        MEETS = "meets", "Meets the standard"
        FALLBACK = "fallback", "Acceptable fallback"
        DEVIATES = "deviates", "Deviates"
        MISSING = "missing", "Missing"
        NEEDS_REVIEW = "needs_review", "Needs review"

    class Decision(models.TextChoices):
        UNREVIEWED = "unreviewed", "Unreviewed"
        ACCEPTED = "accepted", "Accepted"
        OVERRIDDEN = "overridden", "Overridden"

    class SuggestionStatus(models.TextChoices):
        NONE = "", "None"
        PENDING = "pending", "Pending"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    id = models.BigAutoField(primary_key=True)
    run = models.ForeignKey(
        PlaybookRun, on_delete=models.CASCADE, related_name="findings"
    )
    position = models.ForeignKey(
        RunPosition, on_delete=models.CASCADE, related_name="findings"
    )
    row = models.ForeignKey(
        "tabular.ReviewDocument", on_delete=models.CASCADE, related_name="+"
    )
    cell = models.OneToOneField(
        "tabular.Cell", on_delete=models.CASCADE, related_name="finding"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    severity = models.CharField(max_length=8, blank=True)
    rule = models.CharField(max_length=64)
    reason = models.TextField(blank=True)
    # The cell state the finding was computed from (status, finish, edit).
    cell_version = models.CharField(max_length=200)
    suggestion = models.TextField(blank=True)
    suggestion_model = models.CharField(max_length=200, blank=True)
    suggestion_status = models.CharField(
        max_length=8, choices=SuggestionStatus.choices, blank=True
    )
    suggestion_error = models.TextField(blank=True)
    decision = models.CharField(
        max_length=16, choices=Decision.choices, default=Decision.UNREVIEWED
    )
    override_kind = models.CharField(max_length=16, blank=True)
    override_severity = models.CharField(max_length=8, blank=True)
    decision_note = models.TextField(blank=True)
    decided_by = optional_link(settings.AUTH_USER_MODEL)
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    KINDS = ("meets", "fallback", "deviates", "missing", "needs_review")

    class Meta:
        ordering = ["row__order", "position__order"]
        constraints = [
            tenant_id_unique(),
            models.CheckConstraint(
                condition=Q(
                    kind__in=[
                        "meets",
                        "fallback",
                        "deviates",
                        "missing",
                        "needs_review",
                    ]
                ),
                name="chk_finding_kind_values",
            ),
            models.CheckConstraint(
                condition=Q(severity__in=["", "low", "medium", "high"]),
                name="chk_finding_severity_values",
            ),
            models.CheckConstraint(
                condition=Q(decision__in=["unreviewed", "accepted", "overridden"]),
                name="chk_finding_decision_values",
            ),
            models.CheckConstraint(
                condition=~Q(decision="overridden") | ~Q(override_kind=""),
                name="chk_finding_override_has_kind",
            ),
        ]
        indexes = [
            # The report: a run's findings, contract by contract.
            models.Index(fields=["run", "row"], name="idx_finding_run_row"),
        ]

    def __str__(self) -> str:
        return f"{self.position_id}/{self.row_id}: {self.kind}"

    @property
    def shown_kind(self) -> str:
        """The reviewer's finding over the engine's."""
        return self.override_kind if self.decision == "overridden" else self.kind

    @property
    def shown_severity(self) -> str:
        return (
            self.override_severity if self.decision == "overridden" else self.severity
        )

    @property
    def shown_kind_label(self) -> str:
        return dict(self.Kind.choices).get(self.shown_kind, self.shown_kind)


class FindingEvent(TenantOwned):
    """One reviewer decision on a finding, with who and when; never updated."""

    class Action(models.TextChoices):
        ACCEPT = "accept", "Accepted"
        OVERRIDE = "override", "Overrode"
        CLEAR = "clear", "Decision cleared"
        RESET = "reset", "Reset by a re-run"

    id = models.BigAutoField(primary_key=True)
    finding = models.ForeignKey(
        Finding, on_delete=models.CASCADE, related_name="events"
    )
    action = models.CharField(max_length=16, choices=Action.choices)
    user = optional_link(settings.AUTH_USER_MODEL)
    user_name = models.CharField(max_length=150, blank=True)
    note = models.TextField(blank=True)
    kind_before = models.CharField(max_length=16, blank=True)
    kind_after = models.CharField(max_length=16, blank=True)
    severity_before = models.CharField(max_length=8, blank=True)
    severity_after = models.CharField(max_length=8, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(action__in=["accept", "override", "clear", "reset"]),
                name="chk_findingevent_action_values",
            ),
        ]
        indexes = [
            models.Index(
                fields=["finding", "-created_at"], name="idx_findingevent_finding"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.finding_id} {self.action} by {self.user_name or '?'}"
