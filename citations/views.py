"""The staff citations review tab (SPEC §5, seed 003).

One page, `citations/review.html`, with named fragments: `results` (stats
cards, table, paging) and `detail` (the slide-over). Every link and form
works without JavaScript; htmx requests get just the fragment.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from accounts.scoping import tenant_scope
from citations.forms import ReviewDecisionForm, ReviewFilterForm
from citations.models import MessageCitation
from citations.panel import citation_panel_context, unsourced_panel_context
from citations.refusing_rules import rule_counts
from citations.reviews import (
    citation_review_record,
    citation_reviews,
    citation_stat_cards,
    citations_csv_rows,
    citations_reverify,
    review_counts,
    review_page,
)
from citations.selectors import citation_get, unsourced_list
from ingest.selectors import document_get

TEMPLATE = "citations/review.html"
PAGE_SIZE = 25
REVIEWED_EVENT = "citationReviewed"


def staff_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Signed-in staff acting for a tenant; others get 403 (not staff) or 404
    (no workspace)."""

    @wraps(view)
    @login_required
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_staff:
            raise PermissionDenied("Only staff review citations.")
        if getattr(request, "tenant", None) is None:
            raise Http404("You are not a member of any workspace.")
        return view(request, *args, **kwargs)

    return wrapper


def _is_fragment(request: HttpRequest) -> bool:
    # A history-restore request wants the whole page, not a fragment.
    return bool(request.htmx) and not request.htmx.history_restore_request


def _results_context(request: HttpRequest, form: ReviewFilterForm) -> dict:
    tenant = request.tenant
    filters = form.filters()
    after = request.GET.get("after") or None
    before = request.GET.get("before") or None
    review_state = form.review_state()
    page = review_page(
        tenant=tenant,
        filters=filters,
        after=after,
        before=before,
        size=PAGE_SIZE,
        review=review_state,
    )
    base = reverse("citations:review")

    def url(**overrides: object) -> str:
        query = form.query(**overrides)
        return f"{base}?{urlencode(query)}" if query else base

    current = {"after": after, "before": before}
    document_title = ""
    if filters.document_id:
        document = document_get(tenant=tenant, pk=filters.document_id)
        # A soft-deleted document keeps its citations: use their name snapshot.
        document_title = (
            document.title
            if document
            else next((r.document_name for r in page.rows if r.document_name), "")
        )
    cards = [
        {
            "card": card,
            "url": url(status="" if card.key == "total" else card.key),
            "active": (form.query().get("status") or "total") == card.key,
        }
        for card in citation_stat_cards(
            tenant=tenant, filters=filters, review=review_state
        )
    ]
    review_cards = [
        {
            "card": card,
            "url": url(review="" if review_state == card.key else card.key),
            "active": review_state == card.key,
        }
        for card in review_counts(tenant=tenant, filters=filters).cards()
    ]
    chosen_rule = filters.rule or ""
    rule_cards = [
        {
            "counted": counted,
            "url": url(rule="" if chosen_rule == counted.rule.id else counted.rule.id),
            "active": chosen_rule == counted.rule.id,
        }
        for counted in rule_counts(tenant=tenant, filters=filters)
    ]
    return {
        "form": form,
        "cards": cards,
        "review_cards": review_cards,
        "rule_cards": rule_cards,
        "page": page,
        "results_url": url(**{k: v for k, v in current.items() if v}),
        "first_url": url() if not page.is_first else "",
        "newer_url": url(before=page.newer) if page.newer else "",
        "older_url": url(after=page.older) if page.older else "",
        "export_url": reverse("citations:export")
        + (f"?{urlencode(form.query())}" if form.query() else ""),
        "filter_query": urlencode(form.query()),
        "document_title": document_title,
        "without_document_url": url(document_id=""),
    }


def _detail_context(request: HttpRequest, citation_id: object) -> dict:
    citation = citation_get(tenant=request.tenant, pk=citation_id)
    if citation is None:
        unsourced = unsourced_list(tenant=request.tenant).filter(pk=citation_id).first()
        if unsourced is None:
            raise Http404("No such citation.")
        return {**unsourced_panel_context(unsourced), "detail": True}
    context = citation_panel_context(citation)
    context.update(
        detail=True,
        reviews=citation_reviews(citation=citation),
        decision_form=ReviewDecisionForm(),
    )
    return context


def _citation_or_404(request: HttpRequest, citation_id: object) -> MessageCitation:
    citation = citation_get(tenant=request.tenant, pk=citation_id)
    if citation is None:
        raise Http404("No such citation.")
    return citation


def _vary(response: HttpResponse) -> HttpResponse:
    patch_vary_headers(response, ["HX-Request"])
    return response


# ---------------------------------------------------------------- pages


@require_GET
@staff_required
def review(request: HttpRequest) -> HttpResponse:
    form = ReviewFilterForm(request.GET)
    form.is_valid()
    context = _results_context(request, form)
    if _is_fragment(request):
        return _vary(render(request, f"{TEMPLATE}#results", context))
    return _vary(render(request, TEMPLATE, context))


@require_GET
@staff_required
def review_detail(request: HttpRequest, citation_id: object) -> HttpResponse:
    detail = _detail_context(request, citation_id)
    if _is_fragment(request):
        return _vary(render(request, f"{TEMPLATE}#detail", detail))
    form = ReviewFilterForm(request.GET)
    form.is_valid()
    context = _results_context(request, form)
    context.update(detail)
    return _vary(render(request, TEMPLATE, context))


# ---------------------------------------------------------------- actions


def _after_action(
    request: HttpRequest, citation: MessageCitation, **extra: Any
) -> HttpResponse:
    if not request.htmx:  # POST/redirect/GET without JS
        url = reverse("citations:detail", args=[citation.pk])
        query = request.POST.get("return_query", "")
        return redirect(f"{url}?{query}" if query else url)
    context = _detail_context(request, citation.pk)
    context.update(extra)
    response = render(request, f"{TEMPLATE}#detail", context)
    # Refresh the table (review column, statuses) behind the slide-over.
    return trigger_client_event(response, REVIEWED_EVENT)


@require_POST
@staff_required
def review_decide(request: HttpRequest, citation_id: object) -> HttpResponse:
    citation = _citation_or_404(request, citation_id)
    form = ReviewDecisionForm(request.POST)
    if form.is_valid():
        try:
            citation_review_record(
                citation=citation,
                reviewer=request.user,
                decision=form.cleaned_data["decision"],
                note=form.cleaned_data["note"],
            )
        except ValidationError as error:
            form.add_error("note", error)
    if not form.is_valid():
        # Re-rendered at 200: htmx 2 does not swap 4xx responses (STYLE §8).
        context = _detail_context(request, citation.pk)
        context["decision_form"] = form
        if _is_fragment(request):
            return render(request, f"{TEMPLATE}#detail", context)
        filter_form = ReviewFilterForm(request.GET)
        filter_form.is_valid()
        return render(
            request, TEMPLATE, {**_results_context(request, filter_form), **context}
        )
    return _after_action(request, citation, flash="Review recorded.")


@require_POST
@staff_required
def review_reverify(request: HttpRequest, citation_id: object) -> HttpResponse:
    citation = _citation_or_404(request, citation_id)
    queued = citations_reverify(citations=[citation])
    flash = (
        "Re-verification queued." if queued else "This citation has no quote to verify."
    )
    return _after_action(request, citation, flash=flash)


# ---------------------------------------------------------------- export


class _Echo:
    def write(self, value: str) -> str:
        return value


@require_GET
@staff_required
def review_export(request: HttpRequest) -> StreamingHttpResponse:
    form = ReviewFilterForm(request.GET)
    form.is_valid()
    tenant, filters, review = request.tenant, form.filters(), form.review_state()
    writer = csv.writer(_Echo())

    def lines() -> Iterator[str]:
        # The body is produced after the middleware's scope has closed, so the
        # generator enters the tenant scope itself.
        with tenant_scope(tenant):
            yield "\ufeff"  # BOM: spreadsheets then read the file as UTF-8
            for row in citations_csv_rows(
                tenant=tenant, filters=filters, review=review
            ):
                yield writer.writerow(row)

    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="citations-{stamp}.csv"'
    response["X-Content-Type-Options"] = "nosniff"
    return response
