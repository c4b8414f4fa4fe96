"""Spreadsheet cells that stay text: the one CSV escape and the one XLSX cell writer.

Every export that a spreadsheet program opens (a tabular review's CSV and
XLSX, a playbook report's XLSX, the citation review tab's CSV) writes its
cells through here, so the CSV-injection defence (OWASP) lives in one place.

- CSV: a cell whose first character a spreadsheet reads as the start of a
  formula or a command (`FORMULA_LEADS`) gets a leading apostrophe, which
  Excel, LibreOffice and Google Sheets show as text and do not display.
- XLSX: text is written as a typed string cell, never as a formula, and the
  characters XML 1.0 cannot hold are dropped (openpyxl refuses them).

defusedcsv was considered and not used: it leaves tab and carriage-return
leads alone, rewrites `|` inside the text, and only wraps `csv.writer`, while
the review tab streams rows and XLSX needs the same rule.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from typing import Any

from openpyxl.cell.cell import TYPE_STRING
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from openpyxl.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

# What a spreadsheet may run when a cell starts with it: a formula (= + -),
# a function call (@), a DDE command (| in old Excel, % in some locales), and
# the white space that some programs skip before reading one (tab, CR, LF).
FORMULA_LEADS = ("=", "+", "-", "@", "|", "%", "\t", "\r", "\n")
# XML 1.0 (and so XLSX) cannot hold most control characters.
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def csv_cell(value: Any) -> str:
    """The text of a CSV cell, which a spreadsheet shows and never runs."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_LEADS) else text


def csv_row(values: Iterable[Any]) -> list[str]:
    return [csv_cell(v) for v in values]


def xml_text(value: Any) -> str:
    """`value` as text XLSX and DOCX can hold (no XML-illegal characters)."""
    return _ILLEGAL_XML.sub("", "" if value is None else str(value))


def put_cell(
    ws: Worksheet,
    row: int,
    col: int,
    value: Any,
    *,
    number_format: str | None = None,
) -> None:
    """Write one XLSX cell: whole numbers as numbers, a value with a
    `number_format` (an amount, a date) as itself, anything else as a typed
    string, so "=HYPERLINK(…)" in a quote stays text."""
    cell = ws.cell(row=row, column=col)
    if number_format is not None:
        cell.value = value
        cell.number_format = number_format
        return
    if isinstance(value, int) and not isinstance(value, bool):
        cell.value = value
        return
    cell.value = xml_text(value)
    cell.data_type = TYPE_STRING


def put_header(
    ws: Worksheet, names: Iterable[str], widths: Iterable[float] | None = None
) -> None:
    """A bold first row, and the column widths when given."""
    for col, name in enumerate(names, start=1):
        put_cell(ws, 1, col, name)
        ws.cell(row=1, column=col).font = Font(bold=True)
    for col, width in enumerate(widths or (), start=1):
        ws.column_dimensions[get_column_letter(col)].width = width


def workbook_bytes(wb: Workbook) -> io.BytesIO:
    """The saved workbook in memory, rewound for a response or a file."""
    out = io.BytesIO()
    wb.save(out)
    out.seek(0)
    return out
