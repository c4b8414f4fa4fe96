from __future__ import annotations

import copy
import io
import zipfile
from pathlib import Path

import docx
import pytest
from docx.oxml.ns import qn

from ingest.errors import ExtractionError
from ingest.extractors import extract
from ingest.limits import Limits


def run(path: Path, limits: Limits | None = None):
    return extract(
        path, filename=path.name, content_type=None, limits=limits or Limits()
    )


def make_docx(path: Path, *, title: str = "") -> Path:
    document = docx.Document()
    document.core_properties.title = title
    document.add_heading("Master Services Agreement", level=1)
    document.add_paragraph("1. The Supplier shall provide the Services.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Term"
    table.cell(0, 1).text = "Five years"
    table.cell(1, 0).text = "Fees"
    table.cell(1, 1).text = "USD 10,000"
    document.add_paragraph("2. Payment is due within 30 days.")
    document.save(path)
    return path


def test_paragraphs_and_tables_in_document_order(tmp_path):
    result = run(make_docx(tmp_path / "msa.docx"))
    assert result.source_type == "docx"
    assert result.pages == [
        "Master Services Agreement\n\n"
        "1. The Supplier shall provide the Services.\n\n"
        "Term\tFive years\nFees\tUSD 10,000\n\n"
        "2. Payment is due within 30 days."
    ]
    assert result.metadata["tables"] == 1


def test_title_from_core_properties_then_heading_then_file_name(tmp_path):
    assert (
        run(make_docx(tmp_path / "a.docx", title="MSA (final)")).title == "MSA (final)"
    )
    assert run(make_docx(tmp_path / "b.docx")).title == "Master Services Agreement"
    plain = docx.Document()
    plain.core_properties.title = ""
    plain.add_paragraph("Body only.")
    plain.save(tmp_path / "Side Letter.docx")
    assert run(tmp_path / "Side Letter.docx").title == "Side Letter"


def test_tracked_changes_and_content_controls(tmp_path):
    document = docx.Document()
    paragraph = document.add_paragraph("The fee is ")
    body = paragraph._p
    # A tracked insertion (kept) and a tracked deletion (dropped).
    ins = body.makeelement(qn("w:ins"), {qn("w:id"): "1", qn("w:author"): "A"})
    run_ins = copy.deepcopy(body.findall(qn("w:r"))[0])
    run_ins.find(qn("w:t")).text = "USD 12,000"
    ins.append(run_ins)
    body.append(ins)
    deleted = body.makeelement(qn("w:del"), {qn("w:id"): "2", qn("w:author"): "A"})
    run_del = body.makeelement(qn("w:r"), {})
    del_text = run_del.makeelement(qn("w:delText"), {})
    del_text.text = " USD 10,000"
    run_del.append(del_text)
    deleted.append(run_del)
    body.append(deleted)
    # A paragraph inside a block content control (w:sdt), which python-docx skips.
    sdt = document.element.body.makeelement(qn("w:sdt"), {})
    content = sdt.makeelement(qn("w:sdtContent"), {})
    inner = copy.deepcopy(body)
    for t in inner.iter(qn("w:t")):
        t.text = "Inside a content control."
    for child in list(inner):
        if child.tag in (qn("w:ins"), qn("w:del")):
            inner.remove(child)
    content.append(inner)
    sdt.append(content)
    document.element.body.insert(1, sdt)
    document.save(tmp_path / "tracked.docx")
    text = run(tmp_path / "tracked.docx").pages[0]
    assert "The fee is USD 12,000" in text
    assert "10,000" not in text
    assert "Inside a content control." in text


def test_docx_zip_bomb_is_refused_before_parsing(tmp_path):
    path = make_docx(tmp_path / "bomb.docx")
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("word/media/padding.bin", b"\0" * (2 * 1024 * 1024))
    with pytest.raises(ExtractionError) as info:
        run(path)
    assert info.value.code == "zip_bomb"


def test_not_a_docx(tmp_path):
    bad = tmp_path / "bad.docx"
    bad.write_bytes(b"this is not a zip at all")
    with pytest.raises(ExtractionError) as info:
        run(bad)
    assert info.value.code == "corrupt"

    other = tmp_path / "other.docx"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("readme.txt", "not word")
    other.write_bytes(buf.getvalue())
    with pytest.raises(ExtractionError) as info:
        run(other)
    assert info.value.code == "corrupt"


def test_truncated_docx_is_corrupt(tmp_path):
    path = make_docx(tmp_path / "t.docx")
    path.write_bytes(path.read_bytes()[:2000])
    with pytest.raises(ExtractionError) as info:
        run(path)
    assert info.value.code == "corrupt"
