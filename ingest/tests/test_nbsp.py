"""No-break spaces become plain spaces at ingestion (issue 25 item 6), one
character for one, so every offset holds: some PDFs write every space as
U+00A0, and answers, "Copy quote" and exports would carry them."""

from __future__ import annotations

import io

import pytest
from django.test import TestCase
from hypothesis import given
from hypothesis import strategies as st

from accounts.scoping import tenant_scope
from docuiq.testing import pdfgen
from ingest.models import Document
from ingest.normalize import normalize_page, normalize_page_with_map

NBSP, NARROW = "\u00a0", "\u202f"


def nbsp_pdf(text: str) -> bytes:
    """A one-page PDF whose every space extracts as U+00A0: Helvetica with a
    ToUnicode map that reads the space glyph as a no-break space."""
    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap "
        b"/CMapName /NBSP def 1 begincodespacerange <00> <FF> endcodespacerange "
        b"1 beginbfchar <20> <00A0> endbfchar endcmap "
        b"CMapName currentdict /CMap defineresource pop end end"
    )
    content = b"BT /F1 12 Tf 56 760 Td (" + text.encode("latin-1") + b") Tj ET"
    return pdfgen.raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
            b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream",
        ]
    )


def test_no_break_spaces_become_spaces_one_for_one():
    text = f"GOVERNING{NBSP}LAW.{NARROW}New{NBSP}York"
    assert normalize_page(text) == "GOVERNING LAW. New York"
    mapped, index = normalize_page_with_map(text)
    assert mapped == "GOVERNING LAW. New York"
    assert index == list(range(len(text)))  # every offset holds


@given(st.text(alphabet=st.sampled_from(["a", "b", " ", NBSP, NARROW, "\n", "é"])))
def test_normalized_text_holds_no_no_break_space_and_maps_every_character(text):
    normalized, index = normalize_page_with_map(text)
    assert NBSP not in normalized and NARROW not in normalized
    assert normalized == normalize_page(text)
    for out, source in zip(normalized, index, strict=True):
        if source != -1:
            wanted = text[source].replace(NBSP, " ").replace(NARROW, " ")
            assert out == wanted or out == "\n"


@pytest.mark.django_db
def test_a_pdf_whose_spaces_are_all_no_break_spaces_is_stored_with_spaces(tenant_a):
    from ingest.services import Upload, document_upload

    sentence = "GOVERNING LAW. This Agreement is governed by the laws of Delaware."
    with TestCase.captureOnCommitCallbacks(execute=True):
        document = document_upload(
            tenant=tenant_a,
            upload=Upload(filename="nbsp.pdf", stream=io.BytesIO(nbsp_pdf(sentence))),
        )
    with tenant_scope(tenant_a):
        document = Document.objects.select_related("current_revision").get(
            pk=document.pk
        )
        assert document.status == Document.Status.READY, document.error
        text = document.current_revision.normalized_content
        assert NBSP not in text and sentence in text
        for chunk in document.chunks.all():
            assert text[chunk.start_offset : chunk.end_offset] == chunk.content
            assert NBSP not in chunk.content
