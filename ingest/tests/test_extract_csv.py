from __future__ import annotations

from pathlib import Path

import pytest

from ingest.errors import ExtractionError
from ingest.extractors import extract
from ingest.limits import Limits
from ingest.normalize import normalize_pages


def run(tmp_path: Path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return extract(path, filename=name, content_type=None, limits=Limits())


def test_rows_render_as_column_value_lines(tmp_path):
    result = run(
        tmp_path,
        "vendors.csv",
        b'Vendor,Amount,Note\r\nAcme,"1,200.00",late\r\nGlobex,300,\r\n',
    )
    assert result.source_type == "csv"
    assert result.title == "vendors"
    assert (
        result.pages[0]
        == "Vendor: Acme\nAmount: 1,200.00\nNote: late\n\nVendor: Globex\nAmount: 300"
    )
    assert result.metadata["columns"] == ["Vendor", "Amount", "Note"]
    assert result.metadata["rows"] == 2


def test_row_spans_point_into_the_normalized_content(tmp_path):
    result = run(tmp_path, "r.csv", b'name,comment\nAlice,"two\nlines"\n,\nBob,ok\n')
    content = normalize_pages(result.pages).content
    spans = result.metadata["row_spans"]
    assert [row for row, _, _ in spans] == [1, 3]  # the empty row 2 has no text
    assert content[spans[0][1] : spans[0][2]] == "name: Alice\ncomment: two\nlines"
    assert content[spans[1][1] : spans[1][2]] == "name: Bob\ncomment: ok"
    assert result.metadata["row_spans_truncated"] is False


@pytest.mark.parametrize(
    ("name", "data", "delimiter"),
    [
        ("semi.csv", b"a;b\n1;2\n3;4\n", ";"),
        ("tabs.tsv", b"a\tb\n1\t2\n", "\t"),
        ("pipes.csv", b"a|b\n1|2\n3|4\n", "|"),
    ],
)
def test_dialect_is_sniffed(tmp_path, name, data, delimiter):
    result = run(tmp_path, name, data)
    assert result.metadata["delimiter"] == delimiter
    assert result.pages[0].startswith("a: 1\nb: 2")


def test_blank_and_duplicate_headers_get_names(tmp_path):
    result = run(tmp_path, "h.csv", b"Name,,Name\nx,y,z\n")
    assert result.metadata["columns"] == ["Name", "column 2", "Name (2)"]
    assert result.pages[0] == "Name: x\ncolumn 2: y\nName (2): z"


def test_extra_values_beyond_the_header_are_kept(tmp_path):
    assert "column 3: extra" in run(tmp_path, "x.csv", b"a,b\n1,2,extra\n").pages[0]


def test_header_only_csv_is_empty(tmp_path):
    with pytest.raises(ExtractionError) as info:
        run(tmp_path, "h.csv", b"a,b,c\n")
    assert info.value.code == "empty"


def test_cp1252_csv(tmp_path):
    result = run(tmp_path, "e.csv", "Client,Note\nCafé,“ok”\n".encode("cp1252"))
    assert result.pages[0] == "Client: Café\nNote: “ok”"
