"""CSV and XLSX exports of a review, with each cell's citation.

Layout (both formats): one row per document in the operator's order, then
per column six fields: the value, confidence, status (done, or failed with
the reason), citation verification status, page and quote. The XLSX adds a
"Citations" sheet with one row per cell (document, column, value, page,
quote, the document's own text at the cited span, verification method).

Nothing a document or a model wrote is ever a formula: CSV cells that a
spreadsheet would evaluate (= + - @, tab, carriage return) get a leading
apostrophe (OWASP CSV injection); XLSX cells are written as typed strings.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from django.utils.text import slugify
from openpyxl import Workbook
from openpyxl.cell.cell import TYPE_STRING
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter

from tabular.models import Cell, Review, ReviewDocument
from tabular.selectors import cell_citation, review_grid

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
FIELDS = ("value", "confidence", "status", "citation", "page", "quote")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# XLSX (XML 1.0) cannot hold most control characters.
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def safe_csv(value: Any) -> str:
    """Text a spreadsheet shows as text, never runs as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def filename(review: Review, ext: str) -> str:
    return f"review-{slugify(review.name)[:60] or 'export'}-{str(review.pk)[:8]}.{ext}"


def _status(cell: Cell | None) -> str:
    if cell is None:
        return ""
    if cell.status == Cell.Status.FAILED:
        return f"failed: {cell.error}"
    return cell.status


def _fields(cell: Cell | None, row: ReviewDocument) -> list[Any]:
    if cell is None:
        return [""] * len(FIELDS)
    cell.row = row
    citation = cell_citation(cell)
    return [
        cell.value,
        cell.confidence,
        _status(cell),
        citation["status"],
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
    writer.writerow([safe_csv(h) for h in head])
    for line in body:
        writer.writerow([safe_csv(v) for v in line])
    return out.getvalue()


def write_csv(review: Review, path) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(review_csv(review))


def _put(ws, row: int, col: int, value: Any) -> None:
    cell = ws.cell(row=row, column=col)
    if isinstance(value, int) and not isinstance(value, bool):
        cell.value = value
        return
    cell.value = _ILLEGAL_XML.sub("", "" if value is None else str(value))
    # Typed as a string: "=HYPERLINK(...)" in a quote stays text.
    cell.data_type = TYPE_STRING


def review_xlsx(review: Review) -> io.BytesIO:
    """The workbook in memory: "Review" (the grid) and "Citations" (per cell)."""
    head, body = rows(review)
    wb = Workbook()
    ws = wb.active
    ws.title = "Review"
    for c, text in enumerate(head, start=1):
        _put(ws, 1, c, text)
        ws.cell(row=1, column=c).font = Font(bold=True)
    for r, line in enumerate(body, start=2):
        for c, value in enumerate(line, start=1):
            _put(ws, r, c, value)
    ws.freeze_panes = "B2"
    for c in range(1, len(head) + 1):
        ws.column_dimensions[get_column_letter(c)].width = (
            14 if (c > 3 and (c - 4) % 6) else 32
        )

    cites = wb.create_sheet("Citations")
    cite_head = [
        "Document",
        "Column",
        "Question",
        "Value",
        "Confidence",
        "Status",
        "Error",
        "Page",
        "Quote",
        "Source text",
        "Verification",
        "Method",
    ]
    for c, text in enumerate(cite_head, start=1):
        _put(cites, 1, c, text)
        cites.cell(row=1, column=c).font = Font(bold=True)
    grid = review_grid(review)
    r = 2
    for grid_row in grid.rows:
        for column, cell in zip(grid.columns, grid_row.cells, strict=True):
            if cell is None:
                continue
            cell.row = grid_row.row
            citation = cell_citation(cell)
            values = [
                citation["document"] or grid_row.row.title,
                column.name,
                column.question,
                cell.value,
                cell.confidence,
                cell.status,
                cell.error,
                citation["page"] if citation["page"] is not None else "",
                citation["quote"],
                citation["source_text"],
                citation["status"],
                citation["method"],
            ]
            for c, value in enumerate(values, start=1):
                _put(cites, r, c, value)
                cites.cell(row=r, column=c).alignment = Alignment(
                    wrap_text=True, vertical="top"
                )
            r += 1
    cites.freeze_panes = "A2"
    for c, width in enumerate((30, 20, 30, 30, 11, 10, 30, 6, 50, 50, 12, 14), start=1):
        cites.column_dimensions[get_column_letter(c)].width = width

    out = io.BytesIO()
    wb.save(out)
    out.seek(0)
    return out


def write_xlsx(review: Review, path) -> None:
    with open(path, "wb") as fh:
        fh.write(review_xlsx(review).getvalue())
