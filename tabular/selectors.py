"""Reading reviews: lists, the grid, progress, results. No writes here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import Count, QuerySet

from accounts.scoping import first_by_pk
from tabular import column_types
from tabular.models import Cell, Review, ReviewColumn, ReviewDocument

if TYPE_CHECKING:
    from accounts.models import Tenant


def review_list(*, tenant: Tenant) -> QuerySet[Review]:
    return Review.objects.with_scope(tenant=tenant.pk).order_by("-created_at")


def review_get(*, tenant: Tenant, pk: object) -> Review | None:
    """The tenant's review, or None (also for another tenant's id or a bad id)."""
    return first_by_pk(review_list(tenant=tenant), pk)


def cell_get(*, tenant: Tenant, review: Review, pk: object) -> Cell | None:
    return first_by_pk(
        Cell.objects.with_scope(tenant=tenant.pk)
        .filter(review=review)
        .select_related("row", "column", "citation", "edited_by", "reviewed_by"),
        pk,
    )


@dataclass(frozen=True)
class Progress:
    total: int
    done: int
    failed: int
    running: int
    pending: int

    @property
    def finished(self) -> int:
        return self.done + self.failed

    @property
    def percent(self) -> int:
        return round(100 * self.finished / self.total) if self.total else 100


def review_progress(review: Review) -> Progress:
    counts = {
        row["status"]: row["n"]
        for row in Cell.objects.filter(review=review)
        .values("status")
        .annotate(n=Count("pk"))
    }
    return Progress(
        total=sum(counts.values()),
        done=counts.get(Cell.Status.DONE, 0),
        failed=counts.get(Cell.Status.FAILED, 0),
        running=counts.get(Cell.Status.RUNNING, 0),
        pending=counts.get(Cell.Status.PENDING, 0),
    )


@dataclass(frozen=True)
class GridRow:
    row: ReviewDocument
    cells: list[Cell | None]


@dataclass(frozen=True)
class Grid:
    review: Review
    columns: list[ReviewColumn]
    rows: list[GridRow]
    progress: Progress
    show: str = ""  # the filter applied ("" for all rows)
    sort: int | None = None  # the column sorted by
    descending: bool = False
    counts: dict[str, int] | None = None  # cells per filter, for its buttons


def _cell_matches(cell: Cell | None, show: str) -> bool:
    if cell is None:
        return False
    rule = CELL_FILTERS.get(show)
    return rule is None or rule(cell)


# The grid's filters: which cells a reviewer wants to see.
CELL_FILTERS = {
    "unreviewed": lambda c: (
        c.is_finished and c.review_state == Cell.ReviewState.UNREVIEWED
    ),
    "flagged": lambda c: c.review_state == Cell.ReviewState.FLAGGED,
    "approved": lambda c: c.review_state == Cell.ReviewState.APPROVED,
    "edited": lambda c: c.is_edited,
    "not_found": lambda c: c.is_not_found,
    "unsupported": lambda c: (
        c.status == Cell.Status.DONE and c.shown_support == Cell.Support.UNSUPPORTED
    ),
    "stale": lambda c: c.citation is not None and c.citation.is_stale,
    "failed": lambda c: c.status == Cell.Status.FAILED,
}


def review_grid(
    review: Review,
    *,
    show: str = "",
    sort: int | None = None,
    descending: bool = False,
) -> Grid:
    """Rows in the operator's order, cells aligned with the columns.

    ``show``: only rows with a cell of that kind (CELL_FILTERS: unreviewed,
    flagged, not_found, unsupported, stale, ...). ``sort``: rows by that
    column's values (durations in days, amounts, dates and numbers as
    quantities; tabular.column_types.sort_key), cells without a value last.
    """
    columns = list(ReviewColumn.objects.filter(review=review).order_by("order"))
    rows = list(ReviewDocument.objects.filter(review=review).order_by("order"))
    cells = list(
        Cell.objects.filter(review=review).select_related(
            "citation", "edited_by", "reviewed_by"
        )
    )
    by_key = {(c.row_id, c.column_id): c for c in cells}
    grid_rows = [
        GridRow(row=row, cells=[by_key.get((row.pk, col.pk)) for col in columns])
        for row in rows
    ]
    counts = {
        name: sum(1 for c in cells if rule(c)) for name, rule in CELL_FILTERS.items()
    }
    if show in CELL_FILTERS:
        grid_rows = [
            r for r in grid_rows if any(_cell_matches(c, show) for c in r.cells)
        ]
    else:
        show = ""
    position = next((i for i, col in enumerate(columns) if col.pk == sort), None)
    if position is not None:
        valued = [r for r in grid_rows if _has_value(r.cells[position])]
        empty = [r for r in grid_rows if not _has_value(r.cells[position])]
        valued.sort(key=lambda r: _sort_key(r.cells[position]), reverse=descending)
        grid_rows = valued + empty
    else:
        sort = None
    return Grid(
        review=review,
        columns=columns,
        rows=grid_rows,
        progress=review_progress(review),
        show=show,
        sort=sort,
        descending=descending and sort is not None,
        counts=counts,
    )


def _has_value(cell: Cell | None) -> bool:
    return (
        cell is not None
        and cell.status == Cell.Status.DONE
        and not cell.is_not_found
        and bool(cell.shown_value)
    )


def _sort_key(cell: Cell | None) -> tuple:
    assert cell is not None
    return column_types.sort_key(cell.shown_typed_value, cell.shown_value)


def cell_citation(cell: Cell) -> dict[str, Any]:
    """The cell's citation as exports and the API show it (document, page,
    quote, status, whether it went stale after a new revision, relevance)."""
    citation = cell.citation
    if citation is None:
        return {
            "citation_id": None,
            "document": cell.row.title,
            "page": None,
            "quote": cell.quote,
            "status": "",
            "method": "",
            "source_text": "",
            "stale": False,
            "relevance": "",
        }
    return {
        "citation_id": str(citation.pk),
        "document": citation.document_name,
        "page": citation.source_page,
        "quote": citation.quoted_text,
        "status": citation.verification_status,
        "method": citation.verification_method or "",
        "source_text": citation.source_text if citation.verified else "",
        "stale": bool(citation.is_stale),
        "relevance": citation.relevance or "",
    }


def cell_review(cell: Cell) -> dict[str, Any]:
    """A cell's typed value and its review, as exports and the API show them."""
    return {
        "outcome": cell.outcome,
        "value": cell.shown_value,
        "typed_value": cell.shown_typed_value,
        "original_value": cell.value,
        "edited_value": cell.edited_value if cell.is_edited else "",
        "edited_by": _name(cell.edited_by) if cell.is_edited else "",
        "edited_at": cell.edited_at,
        "edit_note": cell.edit_note,
        "support": cell.shown_support,
        "support_reason": cell.edited_support_reason
        if cell.is_edited
        else cell.support_reason,
        "review_state": cell.review_state,
        "reviewed_by": _name(cell.reviewed_by),
        "reviewed_at": cell.reviewed_at,
    }


def _name(user: Any) -> str:
    return user.get_username() if user is not None else ""


def review_results(review: Review) -> dict[str, Any]:
    """The aggregate stored on the review: per document, per column, the cell."""
    grid = review_grid(review)
    return {
        "columns": [
            {
                "id": c.pk,
                "name": c.name,
                "question": c.question,
                "type": c.type,
                "options": c.options,
            }
            for c in grid.columns
        ],
        "documents": [
            {
                "row_id": r.row.pk,
                "document_id": str(r.row.document_uid),
                "title": r.row.title,
                "state": r.row.state,
                "error": r.row.error,
                "cells": {
                    str(col.pk): _result_cell(cell, r.row)
                    for col, cell in zip(grid.columns, r.cells, strict=True)
                    if cell is not None
                },
            }
            for r in grid.rows
        ],
        "counts": {
            "total": grid.progress.total,
            "done": grid.progress.done,
            "failed": grid.progress.failed,
        },
    }


def _result_cell(cell: Cell, row: ReviewDocument) -> dict[str, Any]:
    cell.row = row  # already loaded; avoids a query per cell
    citation = cell_citation(cell)
    return {
        "status": cell.status,
        "outcome": cell.outcome,
        "value": cell.shown_value,
        "typed_value": cell.shown_typed_value,
        "original_value": cell.value,
        "support": cell.shown_support,
        "review_state": cell.review_state,
        "confidence": cell.confidence,
        "error": cell.error,
        "page": citation["page"],
        "quote": citation["quote"],
        "citation_status": citation["status"],
        "citation_id": citation["citation_id"],
        "stale": citation["stale"],
    }
