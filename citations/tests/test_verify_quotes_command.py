"""python manage.py verify_quotes: JSON lines in, JSON lines out, no writes."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from docuiq.testing import pdfgen
from docuiq.testing.factories import make_document

pytestmark = pytest.mark.django_db


def _run(lines: list, tmp_path) -> list[dict]:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    )
    out = io.StringIO()
    call_command("verify_quotes", str(path), stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_cases_against_a_pdf_a_database_document_and_inline_text(tenant_a, tmp_path):
    pdfgen.text_pages_pdf(
        tmp_path / "c.pdf", {1: "Cover page.", 2: "The Buyer shall pay within 30 days."}
    )
    document = make_document(
        tenant_a, ["Intro.", "Termination needs 90 days' notice."], title="T"
    )
    rows = _run(
        [
            {
                "id": "pdf",
                "document": "c.pdf",
                "quote": "The Buyer shall pay within 30 days.",
            },
            {
                "id": "trap",
                "document": "c.pdf",
                "quote": "The Buyer shall pay within 60 days.",
            },
            {
                "id": "db",
                "document": str(document.pk),
                "quote": "Termination needs 90 days' notice.",
            },
            {
                "id": "inline",
                "text": "Alpha beta gamma.",
                "quote": "beta  gamma",
                "within": [0, 17],
            },
        ],
        tmp_path,
    )
    by_id = {r["id"]: r for r in rows}
    assert (
        by_id["pdf"]["verified"]
        and by_id["pdf"]["method"] == "exact_match"
        and by_id["pdf"]["page"] == 2
    )
    assert not by_id["trap"]["verified"] and "60" in by_id["trap"]["reason"]
    # Found, differs: the passage on page 2 says 30, where the quote says 60.
    assert by_id["trap"]["failure_kind"] == "differs"
    assert by_id["trap"]["candidate_page"] == 2
    assert by_id["trap"]["candidate_start"] < by_id["trap"]["candidate_end"]
    assert by_id["db"]["verified"] and by_id["db"]["page"] == 2
    text = document.current_revision.normalized_content
    assert text[by_id["db"]["start"] : by_id["db"]["end"]] == by_id["db"]["source_text"]
    assert by_id["inline"]["verified"] and by_id["inline"]["method"] == "tolerant_match"
    assert set(by_id["pdf"]) == {
        "id",
        "verified",
        "method",
        "match_type",
        "confidence",
        "start",
        "end",
        "page",
        "source_text",
        "reason",
        "candidate_start",
        "candidate_end",
        "candidate_page",
        "failure_kind",
        "rule",
    }


def test_bad_lines_get_a_reason_and_the_run_goes_on(tmp_path):
    rows = _run(
        [
            "{not json",
            {"id": 2, "document": "missing.pdf", "quote": "x"},
            {"id": 3, "text": "abc", "quote": ""},
            {"id": 4, "text": "abc def", "quote": "abc", "within": [5, 99]},
            {"id": 5, "text": "abc def", "quote": "abc def"},
        ],
        tmp_path,
    )
    assert len(rows) == 5
    assert "invalid JSON" in rows[0]["reason"]
    assert "no such file" in rows[1]["reason"]
    assert "no quote" in rows[2]["reason"]
    assert "within" in rows[3]["reason"]
    assert rows[4]["verified"]


def test_a_long_string_as_document_is_one_bad_line_and_the_run_goes_on(tmp_path):
    rows = _run(
        [
            {"id": 1, "document": "The Buyer shall pay. " * 300, "quote": "pay"},
            {"id": 2, "document": "x" * 300, "quote": "pay"},
            {"id": 3, "document": "a\u0000b", "quote": "pay"},
            {"id": 4, "text": "The Buyer shall pay.", "quote": "The Buyer shall pay"},
        ],
        tmp_path,
    )
    assert len(rows) == 4
    assert [r["id"] for r in rows] == [1, 2, 3, 4]
    for row in rows[:3]:
        assert not row["verified"] and row["failure_kind"] == "not_found"
        assert row["reason"].startswith(f"line {row['id']}: ")
        assert len(row["reason"]) < 300
    assert rows[3]["verified"]


def test_inline_text_with_form_feeds_has_pages(tmp_path):
    text = "Cover.\fRecitals.\fThe Buyer shall pay within 30 days."
    rows = _run(
        [
            {"id": "ok", "text": text, "quote": "The Buyer shall pay within 30 days."},
            {"id": "no", "text": text, "quote": "The Buyer shall pay within 60 days."},
            {"id": "flat", "text": "The Buyer shall pay.", "quote": "Buyer shall pay"},
        ],
        tmp_path,
    )
    by_id = {r["id"]: r for r in rows}
    assert by_id["ok"]["verified"] and by_id["ok"]["page"] == 3
    assert by_id["no"]["failure_kind"] == "differs"
    assert by_id["no"]["candidate_page"] == 3
    assert by_id["flat"]["verified"] and by_id["flat"]["page"] is None


def test_explain_gives_each_stage_and_the_rule_that_decided(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "x",
                "text": "The Buyer shall pay within 30 days.",
                "quote": "The Buyer shall pay within 60 days.",
            }
        )
        + "\n"
    )
    out, err = io.StringIO(), io.StringIO()
    call_command("verify_quotes", str(path), "--explain", stdout=out, stderr=err)
    (row,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert row["rule"] == "meaning.number"
    assert [s["stage"] for s in row["stages"]] == ["exact_match", "tolerant_match"]
    assert row["stages"][-1]["rule"] == "meaning.number"
    explained = err.getvalue()
    assert "tolerant_match: rejected [meaning.number]" in explained
    assert "decided by meaning.number (guard: meaning)" in explained
    assert "found, differs" in explained
