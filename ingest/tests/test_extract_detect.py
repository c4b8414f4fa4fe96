from __future__ import annotations

import io
import zipfile

import pytest

from docuiq.testing import pdfgen
from ingest.errors import ErrorCode, ExtractionError, UnsupportedType
from ingest.extractors import SOURCE_TYPES, detect_source_type, extract
from ingest.limits import Limits


def _zip(names: list[str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in names:
            zf.writestr(name, "x")
    return buf.getvalue()


PDF_HEAD = pdfgen.corrupt_pdf_bytes()[:64]


@pytest.mark.parametrize(
    ("head", "filename", "content_type", "expected"),
    [
        (PDF_HEAD, "report.pdf", None, "pdf"),
        (PDF_HEAD, "report.txt", "text/plain", "pdf"),  # magic bytes win
        (PDF_HEAD, "", None, "pdf"),
        (b"Just some text", "notes.txt", None, "text"),
        (b"# Title\n\nBody", "README.md", None, "markdown"),
        (b"<p>hi</p>", "page.htm", None, "html"),
        (b"a,b\n1,2\n", "data.csv", None, "csv"),
        (b"a\tb\n1\t2\n", "data.tsv", None, "csv"),
        (
            b"From: a@example.com\r\nTo: b@example.com\r\nSubject: x\r\n\r\nbody",
            "msg.eml",
            None,
            "email",
        ),
        (
            _zip(["[Content_Types].xml", "word/document.xml"]),
            "contract.docx",
            None,
            "docx",
        ),
        (_zip(["word/document.xml", "[Content_Types].xml"]), "upload", None, "docx"),
        # No extension: the declared type, then sniffing.
        (b"plain words", "upload", "text/markdown", "markdown"),
        (b"<!doctype html><html><title>t</title>", "upload", None, "html"),
        (
            b"Received: from x\r\nFrom: a@b.c\r\nSubject: s\r\n\r\nbody",
            "upload",
            None,
            "email",
        ),
        (b"plain words", "upload", "application/octet-stream", "text"),
        (b"plain words", "data.log", None, "text"),
        ("caf\u00e9".encode("utf-16"), "notes.txt", None, "text"),
    ],
)
def test_detect_source_type(head, filename, content_type, expected):
    assert detect_source_type(head, filename, content_type) == expected
    assert expected in SOURCE_TYPES


@pytest.mark.parametrize(
    ("head", "filename", "fragment"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "scan.png", "PNG image"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "photo.jpg", "JPEG image"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00", "old.doc", "legacy Office"),
        (_zip(["a.txt"]), "bundle.zip", "ZIP archives"),
        (_zip(["[Content_Types].xml", "xl/workbook.xml"]), "book.xlsx", "Excel"),
        (b"\x00\x01\x02\x03binary\x00\x00", "blob.bin", ".bin"),
        (b"{\\rtf1\\ansi hello}", "letter.rtf", "RTF"),
    ],
)
def test_unsupported_types_name_what_is_supported(head, filename, fragment):
    with pytest.raises(UnsupportedType) as info:
        detect_source_type(head, filename, None)
    assert info.value.code == "unsupported_type"
    assert fragment in info.value.message
    assert "supported: PDF" in info.value.message


def test_a_file_named_pdf_that_is_not_a_pdf_is_corrupt():
    with pytest.raises(ExtractionError) as info:
        detect_source_type(
            b"<html><body>Access denied</body></html>", "invoice.pdf", "application/pdf"
        )
    assert info.value.code == "corrupt"
    assert "HTML" in info.value.message


def test_empty_file_is_empty(tmp_path):
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(ExtractionError) as info:
        extract(path, filename="empty.pdf", content_type=None, limits=Limits())
    assert info.value.code == "empty"


def test_whitespace_only_text_is_empty(tmp_path):
    path = tmp_path / "blank.txt"
    path.write_text(" \n\n\t \r\n")
    with pytest.raises(ExtractionError) as info:
        extract(path, filename="blank.txt", content_type=None, limits=Limits())
    assert info.value.code == "empty"


def test_oversized_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("word " * 1000)
    with pytest.raises(ExtractionError) as info:
        extract(
            path,
            filename="big.txt",
            content_type=None,
            limits=Limits(max_file_bytes=100),
        )
    assert info.value.code == "too_large"


def test_unknown_type_through_extract(tmp_path):
    path = tmp_path / "song.mp3"
    path.write_bytes(b"ID3\x03\x00\x00\x00\x00\x00\x00" + bytes(range(256)))
    with pytest.raises(ExtractionError) as info:
        extract(path, filename="song.mp3", content_type="audio/mpeg", limits=Limits())
    assert info.value.code == "unsupported_type"


def test_error_codes_are_a_fixed_set():
    assert {c.value for c in ErrorCode} >= {
        "encrypted",
        "corrupt",
        "empty",
        "no_text",
        "too_large",
        "too_many_pages",
        "timeout",
        "too_complex",
        "unsupported_type",
        "zip_bomb",
        "bad_email",
    }
    with pytest.raises(ValueError):
        ExtractionError("made_up")
    assert ExtractionError("timeout").message  # every code has a default message


def test_metadata_is_made_json_and_database_safe(tmp_path):
    # A lone surrogate (from undecodable header bytes) or NUL must not reach the DB.
    from ingest.extractors import json_safe

    assert json_safe({"a": "x\udcff\x00y", "b": [1.5, float("nan"), None, True]}) == {
        "a": "x\ufffdy",
        "b": [1.5, None, None, True],
    }
