"""The playbook report's XLSX: nothing a contract or a model wrote runs as a
spreadsheet formula."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from openpyxl import load_workbook

from accounts.scoping import tenant_scope
from lib.tests import strategies
from playbook import export
from playbook.models import Finding
from playbook.runs import findings_sync, run_create
from tabular.executor import review_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(tenant_a, sample, contracts):
    with tenant_scope(tenant_a):
        run = run_create(
            tenant=tenant_a,
            playbook=sample,
            document_ids=[d.pk for d in contracts],
            start=False,
        )
        review_run(review_id=run.review_id)
        findings_sync(run)
    return run


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=strategies.HOSTILE)
def test_no_xlsx_cell_is_a_formula(run, text):
    with tenant_scope(run.tenant):
        Finding.objects.filter(run=run).update(reason=text, decision_note=text)
        workbook = load_workbook(export.report_xlsx(run))
    cells = [c for ws in workbook for row in ws.iter_rows() for c in row]
    assert text in [c.value for c in cells]
    assert not any(c.data_type == "f" for c in cells)
