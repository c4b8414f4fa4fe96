"""Admin for citations: the reviewer's view of every verdict, limited to the
request's tenant (TEN-07).

The machine verdict is read-only. Reviewers act through actions: re-verify
(queues `verify_citation`), accept / reject with a note (a CitationReview row
next to the verdict, never over it), and CSV export.
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator

from accounts.admin_mixins import (
    ReadOnlyAdminMixin,
    ReadOnlyInline,
    TenantScopedAdmin,
    is_tenant_staff,
    request_tenant,
)
from citations.forms import AdminDecisionNoteForm
from citations.models import (
    CitationReview,
    CitationVerification,
    MessageCitation,
    Status,
    UnsourcedCitation,
)
from citations.panel import citation_panel_context
from citations.presentation import citation_badge
from citations.refusing_rules import rule_counts, rule_shown
from citations.reviews import (
    citation_review_record,
    citation_stat_cards,
    citations_csv_rows,
    citations_reverify,
    with_latest_review,
)
from citations.selectors import CitationFilters

if TYPE_CHECKING:
    from django.db.models import QuerySet
    from django.http import HttpRequest


def _badge_html(citation: MessageCitation) -> str:
    badge = citation_badge(citation)
    return format_html(
        '<span class="dq-badge dq-badge--{}" title="{}">{} {}</span>',
        badge.css,
        badge.label,
        badge.icon,
        Status(citation.verification_status).label,
    )


_DECISION_TITLES = {
    CitationReview.Decision.ACCEPT: "Accept citations",
    CitationReview.Decision.REJECT: "Reject citations",
}


class ReviewStateFilter(admin.SimpleListFilter):
    title = "review"
    parameter_name = "review"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("none", "Not reviewed"),
            ("accept", "Accepted"),
            ("reject", "Rejected"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "none":
            return queryset.filter(latest_decision__isnull=True)
        if self.value() in CitationReview.Decision.values:
            return queryset.filter(latest_decision=self.value())
        return queryset


class DocumentFilter(admin.SimpleListFilter):
    """The most-cited documents (a long tail is reached through search)."""

    title = "document (most cited)"
    parameter_name = "document"
    LIMIT = 15

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        rows = (
            model_admin.get_queryset(request)  # tenant-scoped (TEN-07)
            .exclude(document_name="")
            .order_by()
            .values("document_name")
            .annotate(n=Count("id"))
            .order_by("-n", "document_name")[: self.LIMIT]
        )
        return [(r["document_name"], f"{r['document_name']} ({r['n']})") for r in rows]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value():
            return queryset.filter(document_name=self.value())
        return queryset


class RuleFilter(admin.SimpleListFilter):
    """The rule that refused a citation, named by the rule table; only the
    rules that refused some citation of the tenant are listed."""

    title = "refused by rule"
    parameter_name = "rule"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        tenant = request_tenant(request)
        if tenant is None:
            return []
        return [
            (counted.rule.id, f"{counted.rule.name} ({counted.count})")
            for counted in rule_counts(tenant=tenant)
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value():
            return queryset.filter(rule=self.value())
        return queryset


class VerificationInline(ReadOnlyInline):
    model = CitationVerification
    verbose_name_plural = "Verification history"
    fields = [
        "created_at", "trigger", "verification_status", "verification_method", "match_type",
        "confidence", "match_score", "source_offset_start", "source_offset_end", "reason",
        "duration_ms",
    ]  # fmt: skip
    readonly_fields = fields
    ordering = ["-created_at"]


class ReviewInline(ReadOnlyInline):
    model = CitationReview
    verbose_name_plural = "Reviews"
    fields = ["created_at", "decision", "reviewer", "note"]
    readonly_fields = fields
    ordering = ["-created_at"]


VERDICT_FIELDS = [
    "badge", "verification_status", "verified", "verification_method", "match_type", "score",
    "verification_confidence", "reason", "refused_by", "mis_attributed_to", "verified_at",
]  # fmt: skip
SOURCE_FIELDS = [
    "document_name", "document_link", "source_file", "source_page", "source_offset_start",
    "source_offset_end", "source_text", "revision_id", "chunk_id", "revision_length",
]  # fmt: skip
CONTEXT_FIELDS = [
    "message", "ref_label", "execution_context_type", "execution_context_id", "answer_start",
    "answer_end", "created_at", "updated_at",
]  # fmt: skip


@admin.register(MessageCitation)
class MessageCitationAdmin(TenantScopedAdmin):
    change_list_template = "admin/citations/messagecitation/change_list.html"
    list_display = [
        "badge", "document_name", "quote", "verification_method", "score", "review", "created_at",
    ]  # fmt: skip
    list_display_links = ["badge", "quote"]
    list_filter = [
        "verification_status",
        "verification_method",
        ("created_at", admin.DateFieldListFilter),
        "match_type",
        ReviewStateFilter,
        RuleFilter,
        DocumentFilter,
    ]
    search_fields = ["document_name", "quoted_text"]
    date_hierarchy = "created_at"
    list_per_page = 50
    inlines = [ReviewInline, VerificationInline]
    actions = ["reverify_selected", "accept_selected", "reject_selected", "export_csv"]
    fieldsets = [
        ("Verdict", {"fields": VERDICT_FIELDS}),
        ("Quote", {"fields": ["quoted_text", "source_passage", "difference"]}),
        ("Source", {"fields": SOURCE_FIELDS}),
        ("Context", {"fields": CONTEXT_FIELDS}),
    ]

    class Media:
        css = {"all": ["citations/admin.css"]}

    # ------------------------------------------------------------ rows
    def get_queryset(self, request: HttpRequest) -> QuerySet[MessageCitation]:
        qs = super().get_queryset(request)
        tenant = request_tenant(request)
        if tenant is None:
            return qs
        return with_latest_review(qs, tenant=tenant)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # Every field: the verdict is the machine's, and only the cascade writes it.
        return [f for fs in self.fieldsets for f in fs[1]["fields"]]

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> Any:
        extra_context = dict(extra_context or {})
        tenant = request_tenant(request)
        if tenant is not None:
            extra_context["stat_cards"] = citation_stat_cards(tenant=tenant)
        extra_context["review_tab_url"] = reverse("citations:review")
        return super().changelist_view(request, extra_context)

    # ------------------------------------------------------------ permissions
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # citations come from answers, never typed in

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # view only; reviews are recorded by the actions

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # citations are the audit trail

    def has_review_permission(self, request: HttpRequest) -> bool:
        return is_tenant_staff(request)

    # ------------------------------------------------------------ columns
    @admin.display(description="Status", ordering="verification_status")
    def badge(self, obj: MessageCitation) -> str:
        return _badge_html(obj)

    @admin.display(description="Refused by", ordering="rule")
    def refused_by(self, obj: MessageCitation) -> str:
        shown = rule_shown(obj.rule)
        if shown is None:
            return "—"
        return format_html(
            '{} <code>{}</code><br><span class="help">{}</span>',
            shown.name,
            shown.id,
            shown.refuses,
        )

    @admin.display(description="Quoted text")
    def quote(self, obj: MessageCitation) -> str:
        return Truncator(obj.quoted_text).chars(120) or "(no quote)"

    @admin.display(description="Match score", ordering="match_score")
    def score(self, obj: MessageCitation) -> str:
        return "—" if obj.match_score is None else f"{obj.match_score:.2f}"

    @admin.display(description="Review")
    def review(self, obj: MessageCitation) -> str:
        decision = getattr(obj, "latest_decision", None)
        if not decision:
            return "—"
        return format_html(
            '<span class="dq-review dq-review--{}">{}</span>',
            decision,
            CitationReview.Decision(decision).label,
        )

    @staticmethod
    def _panel(obj: MessageCitation) -> dict:
        """The citation panel's context (passage, diff, document link), computed
        once per object shown."""
        if not hasattr(obj, "_panel_context"):
            obj._panel_context = citation_panel_context(obj)
        return obj._panel_context

    @admin.display(description="Source passage")
    def source_passage(self, obj: MessageCitation) -> str:
        panel = self._panel(obj)
        if not (panel["before"] or panel["span"] or panel["after"]):
            return format_html('<p class="dq-passage">{}</p>', obj.source_text)
        return format_html(
            '<p class="dq-passage">{}<mark class="dq-span">{}</mark>{}</p>',
            panel["before"],
            panel["span"],
            panel["after"],
        )

    @admin.display(description="Difference from the source")
    def difference(self, obj: MessageCitation) -> str:
        diff = self._panel(obj)["diff"]
        if not diff:
            return "—"
        tags = {"equal": "span", "insert": "del", "delete": "ins"}
        return format_html(
            '<p class="dq-diff">{}</p>',
            format_html_join(
                " ", "<{0}>{1}</{0}>", ((tags.get(p.op, "span"), p.text) for p in diff)
            ),
        )

    @admin.display(description="Open in document")
    def document_link(self, obj: MessageCitation) -> str:
        url = self._panel(obj)["document_url"]
        if not url:
            return "—"
        return format_html('<a href="{}">Show the span in the document</a>', url)

    # ------------------------------------------------------------ actions
    @admin.action(description="Re-verify selected citations", permissions=["review"])
    def reverify_selected(
        self, request: HttpRequest, queryset: QuerySet[MessageCitation]
    ) -> None:
        n = citations_reverify(citations=queryset.only("id", "quoted_text"))
        self.message_user(
            request, f"Queued re-verification of {n} citation(s).", messages.SUCCESS
        )

    @admin.action(
        description="Accept selected citations (with a note)", permissions=["review"]
    )
    def accept_selected(
        self, request: HttpRequest, queryset: QuerySet[MessageCitation]
    ) -> Any:
        return self._decide(
            request, queryset, CitationReview.Decision.ACCEPT, "accept_selected"
        )

    @admin.action(
        description="Reject selected citations (with a note)", permissions=["review"]
    )
    def reject_selected(
        self, request: HttpRequest, queryset: QuerySet[MessageCitation]
    ) -> Any:
        return self._decide(
            request, queryset, CitationReview.Decision.REJECT, "reject_selected"
        )

    def _decide(
        self,
        request: HttpRequest,
        queryset: QuerySet[MessageCitation],
        decision: str,
        action: str,
    ) -> Any:
        """An intermediate page asks for the note; its POST (with `apply`)
        records one CitationReview per selected citation."""
        form = AdminDecisionNoteForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            note = form.cleaned_data["note"]
            try:
                for citation in queryset:
                    citation_review_record(
                        citation=citation,
                        reviewer=request.user,
                        decision=decision,
                        note=note,
                    )
            except ValidationError as error:
                form.add_error("note", error)
            else:
                label = CitationReview.Decision(decision).label.lower()
                self.message_user(
                    request,
                    f"{queryset.count()} citation(s) {label}.",
                    messages.SUCCESS,
                )
                return None
        context = {
            **self.admin_site.each_context(request),
            "title": _DECISION_TITLES[decision],
            "opts": self.model._meta,
            "citations": list(queryset[:200]),
            "count": queryset.count(),
            "selected_ids": [str(pk) for pk in queryset.values_list("pk", flat=True)],
            "form": form,
            "decision": decision,
            "action": action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "media": self.media,
        }
        return TemplateResponse(
            request, "admin/citations/messagecitation/review_decision.html", context
        )

    @admin.action(description="Export selected citations as CSV", permissions=["view"])
    def export_csv(
        self, request: HttpRequest, queryset: QuerySet[MessageCitation]
    ) -> HttpResponse:
        tenant = request_tenant(request)
        out = io.StringIO()
        out.write("\ufeff")
        writer = csv.writer(out)
        for row in citations_csv_rows(
            tenant=tenant, filters=CitationFilters(), citations=queryset
        ):
            writer.writerow(row)
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response["Content-Disposition"] = (
            f'attachment; filename="citations-{stamp}.csv"'
        )
        return response


@admin.register(UnsourcedCitation)
class UnsourcedCitationAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    """References to sources the model was never given (out of provenance)."""

    list_display = ["ref_label", "quoted_text", "reason", "created_at"]
    list_filter = [("created_at", admin.DateFieldListFilter)]
    search_fields = ["ref_label", "quoted_text"]
    fields = ["ref_label", "quoted_text", "reason", "message", "answer_start", "answer_end",
              "execution_context_type", "execution_context_id", "created_at"]  # fmt: skip
    readonly_fields = fields


@admin.register(CitationVerification)
class CitationVerificationAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = [
        "created_at",
        "citation",
        "trigger",
        "verification_status",
        "verification_method",
        "match_type",
        "duration_ms",
    ]
    list_filter = ["verification_status", "verification_method", "trigger"]
    search_fields = ["citation__document_name", "citation__quoted_text"]
    list_select_related = ["citation"]
    readonly_fields = [
        "citation", "revision_id", "trigger", "verification_status", "verification_method",
        "match_type", "confidence", "match_score", "source_offset_start", "source_offset_end",
        "reason", "stages", "models_used", "duration_ms", "created_at",
    ]  # fmt: skip
    fields = readonly_fields


@admin.register(CitationReview)
class CitationReviewAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ["created_at", "decision", "reviewer", "citation", "note"]
    list_filter = ["decision", ("created_at", admin.DateFieldListFilter)]
    search_fields = ["note", "citation__document_name", "citation__quoted_text"]
    list_select_related = ["citation", "reviewer"]
    fields = ["citation", "decision", "reviewer", "note", "created_at"]
    readonly_fields = fields
