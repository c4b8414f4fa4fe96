"""REST: create (JSON or a file's text), errors with lines, run, poll, report, decide, export."""

from __future__ import annotations

import io

import pytest
from rest_framework.test import APIClient

from accounts.scoping import tenant_scope
from playbook.services import SAMPLE
from tabular.executor import review_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_login(alice)
    return client


def test_create_from_yaml_text_then_read_and_export(api):
    created = api.post(
        "/api/playbooks/create",
        {"text": SAMPLE.read_text(), "format": "yaml"},
        format="json",
    )
    assert created.status_code == 201
    body = created.json()
    assert (
        len(body["positions"]) == 10
        and body["positions"][1]["rule_text"] == "at least 30 days"
    )
    exported = api.get(f"/api/playbooks/{body['id']}/export", {"format": "json"})
    assert exported.status_code == 200 and b'"at_least": "30 days"' in exported.content


def test_a_bad_playbook_answers_400_with_each_problem(api, tenant_a):
    text = "name: x\npositions:\n  - title: A\n    question: q\n    standard: s\n    severity: huge\n"
    response = api.post("/api/playbooks/create", {"text": text}, format="json")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "line": 6,
            "where": "positions[0].severity",
            "message": "'huge' is not one of: low, medium, high",
        }
    ]
    json_body = api.post(
        "/api/playbooks/create",
        {"playbook": {"name": "x", "positions": [{"title": "a"}]}},
        format="json",
    )
    assert json_body.status_code == 400 and {
        p["where"] for p in json_body.json()["problems"]
    } == {
        "positions[0].question",
        "positions[0].standard",
    }
    both = api.post(
        "/api/playbooks/create", {"text": "x", "playbook": {}}, format="json"
    )
    assert both.status_code == 400


def test_a_taken_name_is_refused(api):
    api.post("/api/playbooks/create", {"text": SAMPLE.read_text()}, format="json")
    again = api.post(
        "/api/playbooks/create", {"text": SAMPLE.read_text()}, format="json"
    )
    assert again.status_code == 400 and again.json()["code"] == "name_taken"


def test_run_poll_report_decide_export(api, contracts, tenant_a):
    playbook = api.post(
        "/api/playbooks/create", {"text": SAMPLE.read_text()}, format="json"
    ).json()
    run = api.post(
        f"/api/playbooks/{playbook['id']}/run",
        {"document_ids": [str(d.pk) for d in contracts]},
        format="json",
    )
    assert run.status_code == 202 and run.json()["status"] == "queued"
    review_run(review_id=run.json()["review_id"])
    polled = api.get(f"/api/playbooks/runs/{run.json()['id']}").json()
    assert polled["status"] == "completed" and polled["progress"]["percent"] == 100
    assert [c["summary_line"].split(",")[0] for c in polled["contracts"]] == [
        "2 meet",
        "1 meet",
    ]
    report = api.get(
        f"/api/playbooks/runs/{polled['id']}/report",
        {"contract_row_id": polled["contracts"][0]["row_id"]},
    ).json()
    assert len(report) == 10
    law = next(f for f in report if f["position"] == "Governing law")
    assert (
        law["kind"] == "meets"
        and law["citation"]["status"] == "verified"
        and law["citation"]["page"] == 2
    )
    assert law["citation"]["link"].endswith("#at")
    decided = api.post(
        f"/api/playbooks/runs/{polled['id']}/findings/{law['id']}/override",
        {"kind": "needs_review", "severity": "low", "note": "check the schedule"},
        format="json",
    )
    assert (
        decided.status_code == 200
        and decided.json()["kind"] == "needs_review"
        and decided.json()["engine_kind"] == "meets"
    )
    bad = api.post(
        f"/api/playbooks/runs/{polled['id']}/findings/{law['id']}/override",
        {"kind": "meets"},
        format="json",
    )
    assert bad.status_code == 400 and bad.json()["code"] == "note_required"
    docx = api.get(f"/api/playbooks/runs/{polled['id']}/export.docx")
    assert docx.status_code == 200 and docx["Content-Type"].endswith(
        "wordprocessingml.document"
    )
    from docx import Document as Docx

    text = "\n".join(
        p.text for p in Docx(io.BytesIO(b"".join(docx.streaming_content))).paragraphs
    )
    assert "Overridden by alice" in text and "check the schedule" in text


def test_the_schema_is_public_and_in_openapi(client):
    assert (
        client.get("/api/playbooks/schema").json()["properties"]["positions"][
            "maxItems"
        ]
        == 200
    )
    openapi = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    paths = (
        openapi.json()["paths"]
        if openapi["Content-Type"].startswith("application/json")
        else {}
    )
    if paths:
        assert "/api/playbooks/{playbook_id}/run" in paths


def test_the_command_runs_a_playbook_and_writes_the_docx(
    tenant_a, contracts, tmp_path, capsys
):
    from django.core.management import call_command

    with tenant_scope(tenant_a):
        pass
    call_command("playbook", "sample", tenant=tenant_a.slug)
    out = tmp_path / "report.docx"
    call_command(
        "playbook",
        "run",
        tenant=tenant_a.slug,
        playbook="Commercial contracts (sample)",
        documents=[str(d.pk) for d in contracts],
        docx=str(out),
    )
    printed = capsys.readouterr().out
    assert (
        "Acme supply agreement" in printed
        and "✓ Governing law — Meets the standard: England and Wales (p. 2, verified)"
        in printed
    )
    assert out.stat().st_size > 1000


def test_the_command_refuses_a_bad_file_with_its_lines(tenant_a, tmp_path, capsys):
    from django.core.management import call_command

    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: x\npositions:\n  - title: A\n    question: q\n    standard: s\n    rule: at least 3 dayz\n"
    )
    with pytest.raises(SystemExit):
        call_command("playbook", "import", str(bad), tenant=tenant_a.slug)
    assert "line 6: positions[0].rule" in capsys.readouterr().err
