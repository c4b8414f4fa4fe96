from __future__ import annotations

from pathlib import Path

import pytest

from ingest.extractors import extract
from ingest.extractors.text import markdown_title
from ingest.limits import Limits


def run(tmp_path: Path, name: str, data: bytes, content_type: str | None = None):
    path = tmp_path / name
    path.write_bytes(data)
    return extract(path, filename=name, content_type=content_type, limits=Limits())


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("Café “quoted” — ok".encode(), "utf-8"),
        ("\ufeffCafé “quoted” — ok".encode(), "utf-8-sig"),
        ("Café “quoted” — ok".encode("utf-16"), "utf-16-le"),
        ("Café “quoted” — ok".encode("cp1252"), "cp1252"),
    ],
)
def test_text_decoding(tmp_path, data, encoding):
    result = run(tmp_path, "note.txt", data)
    assert result.pages == ["Café “quoted” — ok"]
    assert result.metadata["encoding"] == encoding
    assert result.source_type == "text"
    assert result.title == "note"


def test_bytes_invalid_in_cp1252_fall_back_to_latin1(tmp_path):
    result = run(tmp_path, "old.txt", b"caf\xe9 \x81")
    assert result.metadata["encoding"] == "latin-1"
    assert result.pages[0].startswith("café")


def test_crlf_and_controls_are_normalized(tmp_path):
    result = run(tmp_path, "n.txt", b"line one  \r\nline\x00 two\r\n")
    assert result.pages == ["line one\nline two\n"]


def test_form_feeds_split_pages(tmp_path):
    result = run(tmp_path, "paged.txt", b"first page\x0csecond page\x0c\n")
    assert result.pages == ["first page", "second page"]
    assert result.metadata["page_count"] == 2


def test_markdown_keeps_its_markup_and_takes_the_first_heading(tmp_path):
    data = b"Intro line\n\n```\n# not a title\n```\n\n# Services *Agreement*\n\nThe **Supplier** shall.\n"
    result = run(tmp_path, "terms.md", data)
    assert result.source_type == "markdown"
    assert result.title == "Services Agreement"
    assert "The **Supplier** shall." in result.pages[0]


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("# Heading One #\ntext", "Heading One"),
        ("Setext Title\n============\n\nbody", "Setext Title"),
        ("---\ntitle: 'From Front Matter'\n---\n# Other", "From Front Matter"),
        ("## Only a level two\n", None),
        ("no heading at all", None),
    ],
)
def test_markdown_title(text, title):
    assert markdown_title(text) == title


def test_markdown_without_heading_uses_the_file_name(tmp_path):
    assert run(tmp_path, "meeting-notes.md", b"just notes").title == "meeting-notes"


def test_total_text_limit(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("word " * 10_000)
    from ingest.errors import ExtractionError

    with pytest.raises(ExtractionError) as info:
        extract(
            path,
            filename="big.txt",
            content_type=None,
            limits=Limits(max_total_chars=1000),
        )
    assert info.value.code == "too_large"
