"""Forms of the review tab and the admin's accept/reject step."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.utils import timezone

from citations.models import CitationReview, Method, Relevance, Status
from citations.refusing_rules import rule_choices
from citations.reviews import NOTE_MAX_CHARS, REVIEW_STATES
from citations.selectors import CitationFilters


class ReviewFilterForm(forms.Form):
    """The table's filters, read from the query string. Invalid values are
    reported and ignored, never a 500."""

    document = forms.CharField(
        required=False,
        max_length=200,
        label="Document",
        widget=forms.TextInput(
            attrs={
                "type": "search",
                "placeholder": "Document name contains…",
                "autocomplete": "off",
            }
        ),
    )
    status = forms.ChoiceField(
        required=False, choices=[("", "Any status"), *Status.choices], label="Status"
    )
    method = forms.ChoiceField(
        required=False, choices=[("", "Any method"), *Method.choices], label="Method"
    )
    date_from = forms.DateField(
        required=False, label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        required=False, label="To", widget=forms.DateInput(attrs={"type": "date"})
    )
    relevance = forms.ChoiceField(
        required=False,
        choices=[("", "Any relevance"), *Relevance.choices, ("unrated", "Not rated")],
        label="Relevance",
    )
    review = forms.ChoiceField(
        required=False,
        choices=[("", "Any review"), *REVIEW_STATES],
        label="Review",
    )
    stale = forms.BooleanField(
        required=False, label="Stale only (document changed since)"
    )
    rule = forms.ChoiceField(
        required=False,
        choices=lambda: [("", "Any rule"), *rule_choices()],
        label="Refused by",
    )
    document_id = forms.UUIDField(required=False, widget=forms.HiddenInput)

    FIELDS = (
        "document",
        "status",
        "method",
        "relevance",
        "review",
        "stale",
        "rule",
        "date_from",
        "date_to",
        "document_id",
    )

    def clean(self) -> dict:
        data = super().clean()
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            self.add_error("date_to", "The end date is before the start date.")
        return data

    def filters(self) -> CitationFilters:
        data = (
            self.cleaned_data if self.is_bound and hasattr(self, "cleaned_data") else {}
        )
        valid = {k: v for k, v in data.items() if k not in self.errors}
        tz = timezone.get_current_timezone()
        start, end = valid.get("date_from"), valid.get("date_to")
        return CitationFilters(
            document_name=(valid.get("document") or "").strip() or None,
            verification_status=valid.get("status") or None,
            verification_method=valid.get("method") or None,
            # Whole days, inclusive at both ends, in the site's time zone.
            date_from=dt.datetime.combine(start, dt.time.min, tzinfo=tz)
            if start
            else None,
            date_to=dt.datetime.combine(end, dt.time.max, tzinfo=tz) if end else None,
            document_id=valid.get("document_id") or None,
            relevance=valid.get("relevance") or None,
            stale=True if valid.get("stale") else None,
            rule=valid.get("rule") or None,
        )

    def review_state(self) -> str | None:
        """The review state asked for ("unreviewed", "accept", "reject"), if
        valid: it narrows the citations beside `filters()`."""
        data = getattr(self, "cleaned_data", {}) if self.is_bound else {}
        return None if "review" in self.errors else (data.get("review") or None)

    def query(self, **overrides: object) -> dict[str, str]:
        """The current filters as query parameters, with `overrides` applied
        (an empty override removes the parameter)."""
        raw = {k: self.data.get(k, "") for k in self.FIELDS}
        raw.update({k: str(v) if v is not None else "" for k, v in overrides.items()})
        return {k: v for k, v in raw.items() if v}

    @property
    def is_filtered(self) -> bool:
        return bool(self.query())


class ReviewDecisionForm(forms.Form):
    decision = forms.ChoiceField(
        choices=CitationReview.Decision.choices, widget=forms.HiddenInput
    )
    note = forms.CharField(
        required=False,
        max_length=NOTE_MAX_CHARS,
        widget=forms.Textarea(
            attrs={"rows": 3, "placeholder": "Note for the audit trail"}
        ),
    )

    def clean(self) -> dict:
        data = super().clean()
        if (
            data.get("decision") == CitationReview.Decision.REJECT
            and not (data.get("note") or "").strip()
        ):
            self.add_error("note", "Say why the citation is rejected.")
        return data


class AdminDecisionNoteForm(forms.Form):
    """The admin's intermediate page: one note for all selected citations."""

    note = forms.CharField(
        required=False,
        max_length=NOTE_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 80}),
    )
