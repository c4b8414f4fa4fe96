"""`manage.py tabular`: runs a review with a progress bar, prints the grid,
writes CSV (one row per document; per column value, review, confidence,
status, page, quote) and XLSX."""

from __future__ import annotations

import csv
import io
import uuid

import pytest
from django.core.management import CommandError, call_command
from openpyxl import load_workbook

from accounts.scoping import tenant_scope
from tabular.models import Review

pytestmark = pytest.mark.django_db


def _run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("tabular", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_runs_prints_the_grid_and_writes_csv_and_xlsx(
    tenant_a, contracts, tmp_path, monkeypatch
):
    # The grid fits the terminal's width: a wide one, whatever runs the test
    # (an xdist worker reports 80 columns, where a cell is clipped).
    monkeypatch.setenv("COLUMNS", "160")
    ghost = uuid.uuid4()
    out, err = _run(
        "--tenant", tenant_a.slug,
        "--documents", str(contracts[0].pk), str(contracts[1].pk), str(ghost),
        "--column", "Governing law: Which law governs the agreement?",
        "--column", "Fee (money): What fee or amount is payable?",
        "--csv", str(tmp_path / "out.csv"),
        "--xlsx", str(tmp_path / "out.xlsx"),
    )  # fmt: skip
    lines = out.splitlines()
    assert lines[0].split(" | ")[0].strip() == "Document"
    assert "Governing law" in lines[0] and "Fee" in lines[0]
    assert any(
        line.startswith("Acme supply agreement") and "governe" in line and "✓p2" in line
        for line in lines
    )
    assert any(line.startswith("[missing]") for line in lines)
    assert "Completed:" in out
    assert "cell" in err  # the progress bar (stderr)

    with (tmp_path / "out.csv").open(encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 4  # header + one row per document
    head = rows[0]
    for field in ("Governing law", "Governing law · confidence", "Governing law · status",
                  "Governing law · page", "Governing law · quote"):  # fmt: skip
        assert field in head
    assert rows[1][head.index("Governing law · page")] == "2"
    assert "England and Wales" in rows[1][head.index("Governing law · quote")]
    status = head.index("Governing law · status")
    assert rows[3][status].startswith("failed: No such document")
    workbook = load_workbook(tmp_path / "out.xlsx")
    assert workbook["Review"].max_row == 4
    with tenant_scope(tenant_a):
        assert Review.objects.get().status == Review.Status.COMPLETED


def test_bad_arguments_are_clear_errors(tenant_a, contracts):
    with pytest.raises(CommandError, match="No tenant"):
        _run(
            "--tenant",
            "nobody",
            "--documents",
            str(contracts[0].pk),
            "--column",
            "A: b?",
        )
    with pytest.raises(CommandError, match="Name: question"):
        _run(
            "--tenant",
            tenant_a.slug,
            "--documents",
            str(contracts[0].pk),
            "--column",
            "no colon",
        )
    with pytest.raises(CommandError, match="Unknown column type"):
        _run(
            "--tenant",
            tenant_a.slug,
            "--documents",
            str(contracts[0].pk),
            "--column",
            "A (colour): b?",
        )
    with pytest.raises(CommandError, match="Not a document id"):
        _run("--tenant", tenant_a.slug, "--documents", "42", "--column", "A: b?")
