"""A title a person gave, HTML and all, is text in every export (issue 32):
the playbook report's DOCX and the tabular CSV carry it as written, never as
markup or a formula."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from docx import Document as Docx

from accounts.scoping import tenant_scope
from ingest.titling import document_rename
from playbook.runs import findings_sync, run_create
from tabular import export
from tabular.executor import review_run

pytestmark = pytest.mark.django_db

HOSTILE = '<script>alert(1)</script> "><img src=x onerror=alert(2)> Acme supply'


def test_a_renamed_title_is_text_in_the_docx_and_the_csv(
    alice, alice_client, sample, contracts, tenant_a
):
    with tenant_scope(tenant_a):
        document_rename(document=contracts[0], title=HOSTILE, user=alice)
        run = run_create(
            tenant=tenant_a,
            playbook=sample,
            document_ids=[d.pk for d in contracts],
            start=False,
        )
        review_run(review_id=run.review_id)
        findings_sync(run)
        text = export.review_csv(run.review)
    rows = list(csv.reader(io.StringIO(text[1:])))
    assert any(HOSTILE in cell for row in rows for cell in row)
    response = alice_client.get(f"/playbook/runs/{run.pk}/export.docx")
    data = b"".join(response.streaming_content)
    paragraphs = "\n".join(p.text for p in Docx(io.BytesIO(data)).paragraphs)
    assert HOSTILE in paragraphs
    xml = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml").decode()
    assert "<script>" not in xml and "&lt;script&gt;" in xml
