"""CSV and XLSX exports of a review, with each cell's citation and review.

Layout (both formats): one row per document in the operator's order, then
per column the fields of `FIELDS`: the value shown (the reviewer's edit, else
the engine's), the engine's original value, the edited value, who edited it,
the review state and reviewer, whether the verified quote supports the
value, the confidence, the cell's status (done, not found, or failed with
the reason), the citation's verification status, whether that citation went
stale after a new revision of the document, the page and the quote.

The XLSX writes typed values as what they are: amounts, numbers and
durations as numbers (the currency or unit in the cell's number format),
dates as dates, so a spreadsheet sorts and sums them. It adds a "Citations"
sheet with one row per cell (document, column, question, values, review,
page, quote, the document's own text at the cited span, verification
method) and a "History" sheet with every review change (who, when, what).

Nothing a document or a model wrote is ever a formula: cells go through
`lib.spreadsheets` (CSV cells a spreadsheet would evaluate get a leading
apostrophe; XLSX text cells are typed strings).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

from django.utils.text import slugify
from openpyxl import Workbook
from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter

from lib.spreadsheets import XLSX_CONTENT_TYPE as XLSX_CONTENT_TYPE
from lib.spreadsheets import (
    csv_row,
    put_cell,
    put_header,
    workbook_bytes,
)
from tabular import column_types
from tabular.models import Cell, CellEvent, Review, ReviewDocument
from tabular.selectors import cell_citation, cell_review, review_grid

FIELDS = (
    "value",
    "original value",
    "edited value",
    "edited by",
    "review",
    "reviewer",
    "support",
    "confidence",
    "status",
    "citation",
    "stale",
    "page",
    "quote",
)


@dataclass(frozen=True)
class Typed:
    """A value with its typed form, for the XLSX writer (CSV writes `text`)."""

    text: str
    typed: dict | None

    def __str__(self) -> str:
        return self.text


def filename(review: Review, ext: str) -> str:
    return f"review-{slugify(review.name)[:60] or 'export'}-{str(review.pk)[:8]}.{ext}"


def _status(cell: Cell | None) -> str:
    if cell is None:
        return ""
    if cell.status == Cell.Status.FAILED:
        return f"failed: {cell.error}"
    if cell.is_not_found:
        read = (cell.searched or {}).get("read") or {}
        if read and not read.get("whole"):
            return "not found in the sections read"
        return "not found"
    return cell.status


def _fields(cell: Cell | None, row: ReviewDocument) -> list[Any]:
    if cell is None:
        return [""] * len(FIELDS)
    cell.row = row
    citation = cell_citation(cell)
    review = cell_review(cell)
    shown = "" if cell.is_not_found and not cell.is_edited else review["value"]
    return [
        Typed(shown, review["typed_value"] if shown else None),
        Typed(cell.value, cell.typed_value),
        Typed(review["edited_value"], cell.edited_typed_value),
        review["edited_by"],
        review["review_state"] if cell.is_finished else "",
        review["reviewed_by"],
        review["support"],
        cell.confidence,
        _status(cell),
        citation["status"],
        "stale" if citation["stale"] else "",
        citation["page"] if citation["page"] is not None else "",
        citation["quote"],
    ]


def header(columns: list) -> list[str]:
    head = ["Document", "Document ID", "Document status"]
    for column in columns:
        head += [column.name] + [f"{column.name} · {f}" for f in FIELDS[1:]]
    return head


def rows(review: Review) -> tuple[list[str], list[list[Any]]]:
    """The export table: header and one row per document."""
    grid = review_grid(review)
    body = []
    for grid_row in grid.rows:
        row = grid_row.row
        line: list[Any] = [
            row.title or "(unknown document)",
            str(row.document_uid),
            row.state,
        ]
        for cell in grid_row.cells:
            line += _fields(cell, row)
        body.append(line)
    return header(grid.columns), body


def review_csv(review: Review) -> str:
    head, body = rows(review)
    out = io.StringIO()
    # A BOM so spreadsheet programs open UTF-8 (accents, section signs) correctly.
    out.write("\ufeff")
    writer = csv.writer(out)
    writer.writerow(csv_row(head))
    for line in body:
        writer.writerow(csv_row(line))
    return out.getvalue()


def write_csv(review: Review, path) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(review_csv(review))


def _put(ws, row: int, col: int, value: Any) -> None:
    """A typed value as the number or date it is; anything else as
    `lib.spreadsheets.put_cell` writes it (text stays text)."""
    if isinstance(value, Typed):
        number, number_format = column_types.xlsx_value(value.typed)
        if number is not None and value.text:
            put_cell(ws, row, col, number, number_format=number_format)
            return
        value = value.text
    put_cell(ws, row, col, value)


def review_xlsx(review: Review) -> io.BytesIO:
    """The workbook in memory: "Review" (the grid), "Citations" (per cell),
    "History" (every review change)."""
    head, body = rows(review)
    wb = Workbook()
    ws = wb.active
    ws.title = "Review"
    put_header(ws, head)
    for r, line in enumerate(body, start=2):
        for c, value in enumerate(line, start=1):
            _put(ws, r, c, value)
    ws.freeze_panes = "B2"
    for c in range(1, len(head) + 1):
        first_of_column = c > 3 and (c - 4) % len(FIELDS) == 0
        ws.column_dimensions[get_column_letter(c)].width = (
            32 if c <= 1 or first_of_column else 14
        )

    cites = wb.create_sheet("Citations")
    cite_head = [
        "Document",
        "Column",
        "Question",
        "Value",
        "Original value",
        "Edited value",
        "Edited by",
        "Edit note",
        "Review",
        "Reviewer",
        "Support",
        "Confidence",
        "Status",
        "Error",
        "Page",
        "Quote",
        "Source text",
        "Verification",
        "Stale",
        "Method",
    ]
    put_header(cites, cite_head)
    grid = review_grid(review)
    r = 2
    for grid_row in grid.rows:
        for column, cell in zip(grid.columns, grid_row.cells, strict=True):
            if cell is None:
                continue
            cell.row = grid_row.row
            citation = cell_citation(cell)
            review_of = cell_review(cell)
            shown = (
                "" if cell.is_not_found and not cell.is_edited else review_of["value"]
            )
            values = [
                citation["document"] or grid_row.row.title,
                column.name,
                column.question,
                Typed(shown, review_of["typed_value"] if shown else None),
                Typed(cell.value, cell.typed_value),
                Typed(review_of["edited_value"], cell.edited_typed_value),
                review_of["edited_by"],
                review_of["edit_note"],
                review_of["review_state"],
                review_of["reviewed_by"],
                review_of["support"],
                cell.confidence,
                _status(cell),
                cell.error,
                citation["page"] if citation["page"] is not None else "",
                citation["quote"],
                citation["source_text"],
                citation["status"],
                "stale" if citation["stale"] else "",
                citation["method"],
            ]
            for c, value in enumerate(values, start=1):
                _put(cites, r, c, value)
                cites.cell(row=r, column=c).alignment = Alignment(
                    wrap_text=True, vertical="top"
                )
            r += 1
    cites.freeze_panes = "A2"
    widths = (
        30,
        20,
        30,
        20,
        20,
        20,
        12,
        30,
        11,
        12,
        12,
        11,
        12,
        30,
        6,
        50,
        50,
        12,
        7,
        14,
    )
    for c, width in enumerate(widths, start=1):
        cites.column_dimensions[get_column_letter(c)].width = width

    history = wb.create_sheet("History")
    history_head = [
        "When",
        "Document",
        "Column",
        "Who",
        "Action",
        "Value before",
        "Value after",
        "Review before",
        "Review after",
        "Note",
    ]
    put_header(history, history_head, (20, 30, 20, 14, 22, 24, 24, 12, 12, 40))
    events = (
        CellEvent.objects.filter(cell__review=review)
        .select_related("cell__row", "cell__column")
        .order_by("created_at", "id")
    )
    for r, event in enumerate(events, start=2):
        for c, value in enumerate(
            [
                event.created_at.strftime("%Y-%m-%d %H:%M:%S"),
                event.cell.row.title,
                event.cell.column.name,
                event.user_name,
                event.get_action_display(),
                event.value_before,
                event.value_after,
                event.state_before,
                event.state_after,
                event.note,
            ],
            start=1,
        ):
            _put(history, r, c, value)
    return workbook_bytes(wb)


def write_xlsx(review: Review, path) -> None:
    with open(path, "wb") as fh:
        fh.write(review_xlsx(review).getvalue())
