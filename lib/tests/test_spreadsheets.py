"""The one spreadsheet escape: no CSV cell and no XLSX text cell can start a
formula, and nothing else about the text changes."""

from __future__ import annotations

import csv
import io

from hypothesis import given
from hypothesis import strategies as st
from openpyxl import Workbook, load_workbook

from lib.spreadsheets import FORMULA_LEADS, csv_cell, put_cell, workbook_bytes
from lib.tests.strategies import HOSTILE, TEXT


@given(HOSTILE)
def test_a_csv_cell_with_a_dangerous_lead_is_shown_as_text(text):
    cell = csv_cell(text)
    assert not cell.startswith(FORMULA_LEADS)
    assert cell[1:] == text


@given(TEXT)
def test_a_csv_cell_changes_only_by_its_leading_quote(text):
    cell = csv_cell(text)
    assert cell == text or cell == "'" + text
    assert (cell != text) == text.startswith(FORMULA_LEADS)


@given(st.lists(st.one_of(HOSTILE, TEXT), min_size=1, max_size=5))
def test_a_csv_row_reads_back_as_text_a_spreadsheet_will_not_run(values):
    out = io.StringIO(newline="")
    csv.writer(out).writerow([csv_cell(v) for v in values])
    (row,) = csv.reader(io.StringIO(out.getvalue(), newline=""))
    assert not any(cell.startswith(FORMULA_LEADS) for cell in row)


def test_none_is_an_empty_cell():
    assert csv_cell(None) == ""


@given(st.lists(st.one_of(HOSTILE, TEXT), min_size=1, max_size=5))
def test_an_xlsx_text_cell_is_a_string_never_a_formula(values):
    wb = Workbook()
    for col, value in enumerate(values, start=1):
        put_cell(wb.active, 1, col, value)
    ws = load_workbook(workbook_bytes(wb)).active
    for col, value in enumerate(values, start=1):
        cell = ws.cell(row=1, column=col)
        assert cell.data_type != "f"
        assert (cell.value or "") == value


def test_xlsx_keeps_whole_numbers_and_drops_what_xml_cannot_hold():
    wb = Workbook()
    put_cell(wb.active, 1, 1, 42)
    put_cell(wb.active, 1, 2, "a\x00b\x1fc")
    put_cell(wb.active, 1, 3, True)
    ws = load_workbook(workbook_bytes(wb)).active
    assert ws["A1"].value == 42
    assert ws["B1"].value == "abc"
    assert ws["C1"].value == "True"
