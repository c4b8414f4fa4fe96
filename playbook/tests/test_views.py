"""The playbook pages: list, import, positions, run, report, decisions, exports."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from docx import Document as Docx

from accounts.scoping import tenant_scope
from playbook.models import Finding, Playbook, Position
from playbook.runs import findings_sync, run_create
from tabular.executor import review_run

pytestmark = pytest.mark.django_db


def test_the_list_offers_the_sample_and_an_import(alice_client):
    page = alice_client.get("/playbook/")
    assert page.status_code == 200
    assert (
        b"Create from the sample" in page.content and b"Playbooks</a>" in page.content
    )


def test_create_from_the_sample_then_see_its_positions(alice_client, tenant_a):
    response = alice_client.post("/playbook/import/", {"sample": "1", "name": "Ours"})
    with tenant_scope(tenant_a):
        playbook = Playbook.objects.get(name="Ours")
    assert (
        response.status_code == 302
        and response["Location"] == f"/playbook/{playbook.pk}/"
    )
    page = alice_client.get(response["Location"]).content.decode()
    assert page.count('data-testid="position-row"') == 10
    assert "at least 60 days" in page and "one of England and Wales" in page


def test_a_bad_file_is_refused_with_its_lines_and_nothing_stored(
    alice_client, tenant_a
):
    bad = b"name: x\npositions:\n  - title: A\n    question: q\n    standard: s\n    colour: red\n"
    page = alice_client.post(
        "/playbook/import/", {"file": SimpleUploadedFile("p.yaml", bad)}
    )
    assert page.status_code == 200
    assert "line 6: positions[0].colour: unknown field" in page.content.decode()
    with tenant_scope(tenant_a):
        assert not Playbook.objects.exists()


def test_pasted_text_with_a_script_is_escaped(alice_client):
    text = "name: <script>alert(1)</script>\npositions:\n  - title: <b>x</b>\n    question: q\n    standard: s\n    type: bogus\n"
    page = alice_client.post("/playbook/import/", {"text": text}).content.decode()
    assert "<script>alert(1)" not in page and "&lt;script&gt;" in page


def test_a_position_is_added_edited_and_refused_with_the_field_named(
    alice_client, sample, tenant_a
):
    url = f"/playbook/{sample.pk}/positions/new/"
    assert alice_client.get(url).status_code == 200
    form = {
        "title": "Warranty",
        "question": "How long is the warranty?",
        "type": "duration",
        "standard": "12 months",
        "rule": "at least 12 months",
        "severity": "low",
        "if_absent": "acceptable",
    }
    assert alice_client.post(url, form).status_code == 302
    with tenant_scope(tenant_a):
        position = Position.objects.get(playbook=sample, title="Warranty")
    assert position.order == 10 and position.rule["at_least"]["unit"] == "month"
    page = alice_client.post(
        f"/playbook/{sample.pk}/positions/{position.pk}/",
        {**form, "rule": "at least twelve monthz"},
    )
    assert (
        page.status_code == 200
        and "rule: &#x27;twelve monthz&#x27; is not a duration" in page.content.decode()
    )
    page = alice_client.post(
        f"/playbook/{sample.pk}/positions/{position.pk}/",
        {**form, "title": "governing law"},
    )
    assert "already used" in page.content.decode()
    alice_client.post(
        f"/playbook/{sample.pk}/positions/{position.pk}/move/", {"direction": "up"}
    )
    with tenant_scope(tenant_a):
        position.refresh_from_db()
        assert position.order == 9
    alice_client.post(f"/playbook/{sample.pk}/positions/{position.pk}/delete/")
    with tenant_scope(tenant_a):
        assert not Position.objects.filter(pk=position.pk).exists()


def test_export_yaml_round_trips_through_import(alice_client, sample, tenant_a):
    text = alice_client.get(f"/playbook/{sample.pk}/export.yaml").content
    renamed = text.replace(b"name: Commercial contracts (sample)", b"name: Copy")
    alice_client.post(
        "/playbook/import/", {"file": SimpleUploadedFile("copy.yaml", renamed)}
    )
    with tenant_scope(tenant_a):
        copy = Playbook.objects.get(name="Copy")
        assert copy.positions.count() == 10


def _run(tenant, sample, contracts):
    with tenant_scope(tenant):
        run = run_create(
            tenant=tenant,
            playbook=sample,
            document_ids=[d.pk for d in contracts],
            start=False,
        )
        review_run(review_id=run.review_id)
        findings_sync(run)
    return run


def test_run_form_starts_a_run_and_the_report_groups_by_severity(
    alice_client, sample, contracts, tenant_a
):
    response = alice_client.post(
        f"/playbook/{sample.pk}/run/", {"documents": [str(d.pk) for d in contracts]}
    )
    assert response.status_code == 302
    run_page = alice_client.get(response["Location"]).content.decode()
    assert run_page.count('data-testid="run-contract"') == 2
    with tenant_scope(tenant_a):
        from playbook.models import PlaybookRun

        run = PlaybookRun.objects.get()
        review_run(review_id=run.review_id)
        row = run.review.rows.order_by("order").first()
    page = alice_client.get(
        f"/playbook/runs/{run.pk}/contracts/{row.pk}/"
    ).content.decode()
    assert "meet, " in page and 'data-severity="high"' in page
    assert page.index('data-severity="high"') < page.index('data-severity=""')
    assert "Open the clause" in page and "✓ verified" in page


def test_a_run_without_documents_is_refused_on_the_page(alice_client, sample):
    page = alice_client.post(f"/playbook/{sample.pk}/run/", {})
    assert (
        page.status_code == 200
        and "Choose at least one document" in page.content.decode()
    )


def test_override_and_accept_from_the_report(alice_client, sample, contracts, tenant_a):
    run = _run(tenant_a, sample, contracts)
    with tenant_scope(tenant_a):
        finding = Finding.objects.get(
            run=run, row__order=1, position__title="Governing law"
        )
    url = f"/playbook/runs/{run.pk}/findings/{finding.pk}"
    card = alice_client.post(
        f"{url}/override/",
        {"kind": "deviates", "severity": "high", "note": ""},
        HTTP_HX_REQUEST="true",
    )
    assert "Say why the finding changes" in card.content.decode()
    card = alice_client.post(
        f"{url}/override/",
        {"kind": "deviates", "severity": "high", "note": "client wants English law"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert (
        "Overridden" in card
        and "client wants English law" in card
        and "engine: Acceptable fallback" in card
    )
    response = alice_client.post(f"{url}/accept/", {"note": ""})
    assert response.status_code == 302
    with tenant_scope(tenant_a):
        finding.refresh_from_db()
        assert finding.decision == "accepted" and finding.events.count() == 2


def test_the_docx_carries_each_findings_citation(
    alice_client, sample, contracts, tenant_a
):
    run = _run(tenant_a, sample, contracts)
    response = alice_client.get(f"/playbook/runs/{run.pk}/export.docx")
    assert response.status_code == 200 and response["Content-Disposition"].startswith(
        "attachment"
    )
    doc = Docx(io.BytesIO(b"".join(response.streaming_content)))
    text = "\n".join(p.text for p in doc.paragraphs)
    assert "Acme supply agreement" in text and "Gamma licence" in text
    assert (
        "Quote, page 2, verified: “This Agreement is governed by the laws of England and Wales.”"
        in text
    )
    assert "Missing (high)" in text and "Searched for" in text


def test_the_xlsx_has_a_row_per_finding_with_its_citation(
    alice_client, sample, contracts, tenant_a
):
    from openpyxl import load_workbook

    run = _run(tenant_a, sample, contracts)
    with tenant_scope(tenant_a):
        row = run.review.rows.order_by("order").first()
    response = alice_client.get(
        f"/playbook/runs/{run.pk}/export.xlsx?contract={row.pk}"
    )
    wb = load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    rows = list(wb["Findings"].iter_rows(values_only=True))
    assert len(rows) == 11 and rows[0][:4] == (
        "Contract",
        "Position",
        "Finding",
        "Severity",
    )
    law = next(r for r in rows if r[1] == "Governing law")
    assert (
        law[2] == "Meets the standard"
        and "England and Wales" in law[8]
        and law[9] == 2
        and law[10] == "verified"
    )


def test_another_tenant_sees_nothing(charlie_client, sample, contracts, tenant_a):
    run = _run(tenant_a, sample, contracts)
    assert charlie_client.get(f"/playbook/{sample.pk}/").status_code == 404
    assert charlie_client.get(f"/playbook/runs/{run.pk}/").status_code == 404
    assert charlie_client.get(f"/playbook/runs/{run.pk}/export.docx").status_code == 404
    assert str(sample.pk).encode() not in charlie_client.get("/playbook/").content


def test_the_run_page_polls_while_active_and_stops_when_done(
    alice_client, sample, contracts, tenant_a
):
    with tenant_scope(tenant_a):
        run = run_create(
            tenant=tenant_a,
            playbook=sample,
            document_ids=[d.pk for d in contracts],
            start=False,
        )
    page = alice_client.get(f"/playbook/runs/{run.pk}/progress/").content.decode()
    assert 'hx-trigger="every 2s"' in page and "0 / 20 checks" in page
    with tenant_scope(tenant_a):
        review_run(review_id=run.review_id)
    page = alice_client.get(f"/playbook/runs/{run.pk}/progress/").content.decode()
    assert "hx-trigger" not in page and "20 / 20 checks" in page and "Completed" in page
