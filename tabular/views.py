"""The tabular review pages (HTMX): the list with a new-review form, and the grid.

The grid is one page, `tabular/grid.html`, with named fragments: `progress`
(status, progress bar, run/cancel, and the poller) and `cell`. While a review
is active the progress fragment polls every 2 s and brings the cells that
changed since its last poll as out-of-band swaps, so an open grid costs one
request per poll however many cells it has; it stops polling once the review
is finished (the swapped-in fragment has no trigger). Every hx-get/hx-post
has an href/action, so the pages work without JavaScript.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import FileResponse, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from accounts.http import found_or_404, require_tenant
from citations.panel import citation_panel_context
from ingest.models import Document
from ingest.selectors import document_list
from tabular import column_types, export
from tabular.cell_review import (
    cell_approve,
    cell_clear,
    cell_edit,
    cell_flag,
    cell_history,
    cell_revert,
)
from tabular.models import Cell, Review
from tabular.selectors import (
    cell_get,
    review_get,
    review_grid,
    review_list,
    review_progress,
)
from tabular.services import (
    ColumnSpec,
    ReviewError,
    cell_rerun,
    parse_column,
    review_cancel,
    review_create,
    review_start,
)

GRID = "tabular/grid.html"
# A poll re-sends cells changed this long before its `since`, so a cell
# committed just after a poll read is never missed.
POLL_OVERLAP_S = 5.0
DEFAULT_COLUMNS = (
    "Parties: Who are the parties to the agreement?\n"
    "Effective date (date): When does the agreement take effect?\n"
    "Governing law: Which law governs the agreement?\n"
    "Termination for convenience (yes/no): Can a party terminate without cause?"
)


def _review_or_404(request: HttpRequest, review_id) -> Review:
    return found_or_404(
        review_get(tenant=require_tenant(request), pk=review_id), "No such review."
    )


def _cell_or_404(request: HttpRequest, review: Review, cell_id) -> Cell:
    return found_or_404(
        cell_get(tenant=require_tenant(request), review=review, pk=cell_id),
        "No such cell.",
    )


# ---------------------------------------------------------------- list / create


@require_GET
@login_required
def review_list_view(request: HttpRequest) -> HttpResponse:
    tenant = require_tenant(request)
    return render(request, "tabular/review_list.html", _list_context(tenant))


def _list_context(tenant, **extra) -> dict:
    return {
        "reviews": review_list(tenant=tenant)[:50],
        "documents": document_list(tenant=tenant).filter(status=Document.Status.READY)[
            :500
        ],
        "column_types": column_types.choices(),
        "default_columns": DEFAULT_COLUMNS,
        **extra,
    }


@require_POST
@login_required
def review_create_view(request: HttpRequest) -> HttpResponse:
    tenant = require_tenant(request)
    lines = [ln for ln in request.POST.get("columns", "").splitlines() if ln.strip()]
    try:
        columns: list[ColumnSpec] = [parse_column(line) for line in lines]
        review = review_create(
            tenant=tenant,
            name=request.POST.get("name", ""),
            document_ids=request.POST.getlist("documents"),
            columns=columns,
            user=request.user,
        )
    except ReviewError as exc:
        # Re-rendered at 200 with the error, so htmx swaps it and nothing typed is lost.
        context = _list_context(
            tenant,
            error=exc.message,
            form={
                "name": request.POST.get("name", ""),
                "columns": request.POST.get("columns", ""),
                "documents": request.POST.getlist("documents"),
            },
        )
        return render(request, "tabular/review_list.html", context)
    review_start(review=review)
    return redirect("tabular:review", review_id=review.pk)


# ---------------------------------------------------------------- the grid


def _since(request: HttpRequest) -> datetime | None:
    raw = request.GET.get("since", "")
    try:
        return datetime.fromtimestamp(float(raw), tz=UTC)
    except (ValueError, OverflowError, OSError):
        return None


FILTERS = (
    ("", "All"),
    ("unreviewed", "Unreviewed"),
    ("flagged", "Flagged"),
    ("not_found", "Not found"),
    ("unsupported", "Unsupported"),
    ("edited", "Edited"),
    ("stale", "Stale"),
    ("failed", "Failed"),
)


def _grid_options(request: HttpRequest) -> dict:
    """The grid's filter and sort from the query string (bad values ignored)."""
    try:
        sort = int(request.GET.get("sort", ""))
    except ValueError:
        sort = None
    return {
        "show": request.GET.get("show", ""),
        "sort": sort,
        "descending": request.GET.get("order") == "desc",
    }


def _grid_context(review: Review, request: HttpRequest | None = None) -> dict:
    options = _grid_options(request) if request is not None else {}
    grid = review_grid(review, **options)
    return {
        "review": review,
        "grid": grid,
        "progress": grid.progress,
        "filters": [
            (key, label, (grid.counts or {}).get(key)) for key, label in FILTERS
        ],
        "since": f"{timezone.now().timestamp():.3f}",
    }


@require_GET
@login_required
def review_detail(request: HttpRequest, review_id) -> HttpResponse:
    review = _review_or_404(request, review_id)
    return render(request, GRID, _grid_context(review, request))


@require_GET
@login_required
def review_progress_view(request: HttpRequest, review_id) -> HttpResponse:
    """The progress fragment, plus the cells changed since the last poll (OOB)."""
    review = _review_or_404(request, review_id)
    now = timezone.now()
    since = _since(request)
    changed: list[Cell] = []
    if since is not None:
        cutoff = since - timedelta(seconds=POLL_OVERLAP_S)
        changed = list(
            Cell.objects.filter(review=review)
            .filter(Q(finished_at__gte=cutoff) | Q(started_at__gte=cutoff))
            .select_related("citation", "edited_by", "reviewed_by")[:2000]
        )
    return render(
        request,
        f"{GRID}#poll",
        {
            "review": review,
            "progress": review_progress(review),
            "changed": changed,
            "since": f"{now.timestamp():.3f}",
        },
    )


@require_POST
@login_required
def review_run_view(request: HttpRequest, review_id) -> HttpResponse:
    review = _review_or_404(request, review_id)
    review_start(review=review)
    return _after_action(request, review)


@require_POST
@login_required
def review_cancel_view(request: HttpRequest, review_id) -> HttpResponse:
    review = _review_or_404(request, review_id)
    if not review_cancel(review=review):
        messages.info(request, "The review had already finished.")
    return _after_action(request, review)


def _after_action(request: HttpRequest, review: Review) -> HttpResponse:
    if not request.htmx:
        return redirect("tabular:review", review_id=review.pk)
    review.refresh_from_db()
    # The whole grid: a run may have finished cells (eager mode) or reset them.
    return render(request, f"{GRID}#grid-body", _grid_context(review, request))


# ---------------------------------------------------------------- cells


CELL = "tabular/cell_detail.html"


def _cell_context(review: Review, cell: Cell, **extra) -> dict:
    # `tabular_review`: the citation panel's context has a `review` of its own
    # (the reviewer's decision on the citation).
    context = {
        "review": review,
        "tabular_review": review,
        "cell": cell,
        "history": cell_history(cell),
        "edit_value": cell.shown_value if not cell.is_not_found else "",
        **extra,
    }
    if cell.citation is not None:
        context.update(citation_panel_context(cell.citation))
        latest = context["verifications"][0] if context.get("verifications") else None
        context["stages"] = list(latest.stages or []) if latest else []
    return context


@require_GET
@login_required
def cell_detail(request: HttpRequest, review_id, cell_id) -> HttpResponse:
    review = _review_or_404(request, review_id)
    cell = _cell_or_404(request, review, cell_id)
    context = _cell_context(review, cell)
    return render(request, f"{CELL}#panel" if request.htmx else CELL, context)


@require_POST
@login_required
def cell_rerun_view(request: HttpRequest, review_id, cell_id) -> HttpResponse:
    review = _review_or_404(request, review_id)
    cell = _cell_or_404(request, review, cell_id)
    cell_rerun(cell=cell, user=request.user)
    return _after_action(request, review)


# What each review action does with the form's fields.
CELL_ACTIONS = {
    "approve": lambda cell, user, post: cell_approve(
        cell=cell, user=user, note=post.get("note", "")
    ),
    "flag": lambda cell, user, post: cell_flag(
        cell=cell, user=user, note=post.get("note", "")
    ),
    "clear": lambda cell, user, post: cell_clear(
        cell=cell, user=user, note=post.get("note", "")
    ),
    "edit": lambda cell, user, post: cell_edit(
        cell=cell, user=user, value=post.get("value", ""), note=post.get("note", "")
    ),
    "revert": lambda cell, user, post: cell_revert(
        cell=cell, user=user, note=post.get("note", "")
    ),
}


@require_POST
@login_required
def cell_action_view(
    request: HttpRequest, review_id, cell_id, action: str
) -> HttpResponse:
    """Approve, flag, clear, edit or revert a cell; answers with the cell's
    panel and its grid cell (out of band), or redirects without htmx."""
    review = _review_or_404(request, review_id)
    cell = _cell_or_404(request, review, cell_id)
    act = found_or_404(CELL_ACTIONS.get(action), "No such action.")
    error = ""
    try:
        act(cell, request.user, request.POST)
    except ReviewError as exc:
        error = exc.message
    cell = _cell_or_404(request, review, cell_id)
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect("tabular:cell", review_id=review.pk, cell_id=cell.pk)
    # Re-rendered at 200 with the error, so htmx swaps it and nothing typed is lost.
    context = _cell_context(
        review,
        cell,
        error=error,
        edit_value=request.POST.get("value", "") if error else None,
        note_value=request.POST.get("note", "") if error else "",
        oob_cell=True,
    )
    if context["edit_value"] is None:
        context["edit_value"] = cell.shown_value if not cell.is_not_found else ""
    # The filter buttons' counts change with the review: sent out of band,
    # keeping the grid's current filter and sort (htmx says which page asked).
    current = urlsplit(request.htmx.current_url_abs_path or "")
    grid = _grid_context(review, _QueryOf(current.query))
    context.update(filters=grid["filters"], grid=grid["grid"])
    return render(request, f"{CELL}#panel-with-cell", context)


class _QueryOf:
    """The parts of a request _grid_options reads, from a query string."""

    def __init__(self, query: str) -> None:
        self.GET = QueryDict(query)


# ---------------------------------------------------------------- export


@require_GET
@login_required
def review_export_csv(request: HttpRequest, review_id) -> HttpResponse:
    review = _review_or_404(request, review_id)
    response = HttpResponse(
        export.review_csv(review), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = (
        f'attachment; filename="{export.filename(review, "csv")}"'
    )
    return response


@require_GET
@login_required
def review_export_xlsx(request: HttpRequest, review_id) -> FileResponse:
    review = _review_or_404(request, review_id)
    return FileResponse(
        export.review_xlsx(review),
        as_attachment=True,
        filename=export.filename(review, "xlsx"),
        content_type=export.XLSX_CONTENT_TYPE,
    )
