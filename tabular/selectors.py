"""Reading reviews: lists, the grid, progress, results. No writes here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import Count, QuerySet

from tabular.models import Cell, Review, ReviewColumn, ReviewDocument

if TYPE_CHECKING:
    from accounts.models import Tenant


def review_list(*, tenant: Tenant) -> QuerySet[Review]:
    return Review.objects.with_scope(tenant=tenant.pk).order_by("-created_at")


def review_get(*, tenant: Tenant, pk: object) -> Review | None:
    """The tenant's review, or None (also for another tenant's id or a bad id)."""
    try:
        return review_list(tenant=tenant).filter(pk=pk).first()
    except (ValueError, TypeError):
        return None


def cell_get(*, tenant: Tenant, review: Review, pk: object) -> Cell | None:
    try:
        return (
            Cell.objects.with_scope(tenant=tenant.pk)
            .filter(review=review, pk=pk)
            .select_related("row", "column", "citation")
            .first()
        )
    except (ValueError, TypeError):
        return None


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


def review_grid(review: Review) -> Grid:
    """Rows in the operator's order, cells aligned with the columns."""
    columns = list(ReviewColumn.objects.filter(review=review).order_by("order"))
    rows = list(ReviewDocument.objects.filter(review=review).order_by("order"))
    cells = Cell.objects.filter(review=review).select_related("citation")
    by_key = {(c.row_id, c.column_id): c for c in cells}
    grid_rows = [
        GridRow(row=row, cells=[by_key.get((row.pk, col.pk)) for col in columns])
        for row in rows
    ]
    return Grid(
        review=review, columns=columns, rows=grid_rows, progress=review_progress(review)
    )


def cell_citation(cell: Cell) -> dict[str, Any]:
    """The cell's citation as exports and the API show it (document, page, quote, status)."""
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
        }
    return {
        "citation_id": str(citation.pk),
        "document": citation.document_name,
        "page": citation.source_page,
        "quote": citation.quoted_text,
        "status": citation.verification_status,
        "method": citation.verification_method or "",
        "source_text": citation.source_text if citation.verified else "",
    }


def review_results(review: Review) -> dict[str, Any]:
    """The aggregate stored on the review: per document, per column, the cell."""
    grid = review_grid(review)
    return {
        "columns": [
            {"id": c.pk, "name": c.name, "question": c.question, "type": c.type}
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
        "value": cell.value,
        "confidence": cell.confidence,
        "error": cell.error,
        "page": citation["page"],
        "quote": citation["quote"],
        "citation_status": citation["status"],
        "citation_id": citation["citation_id"],
    }
