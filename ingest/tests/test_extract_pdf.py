from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from docuiq.testing import pdfgen
from ingest.errors import ExtractionError
from ingest.extractors import extract
from ingest.extractors.pdf import find_tables, page_char_boxes, render_page_png
from ingest.limits import Limits
from ingest.normalize import normalize_page, normalize_pages, page_for_offset

LIMITS = Limits()


def run(path: Path, limits: Limits = LIMITS, **kwargs):
    return extract(
        path,
        filename=kwargs.pop("filename", path.name),
        content_type=None,
        limits=limits,
        **kwargs,
    )


def expect_error(
    path: Path, code: str, limits: Limits = LIMITS, **kwargs
) -> ExtractionError:
    with pytest.raises(ExtractionError) as info:
        run(path, limits, **kwargs)
    assert info.value.code == code, info.value
    assert info.value.message and "Traceback" not in info.value.message
    return info.value


@pytest.fixture(scope="module")
def prose(tmp_path_factory) -> Path:
    return pdfgen.prose_pdf(tmp_path_factory.mktemp("pdf") / "prose.pdf", pages=30)


@pytest.fixture(scope="module")
def two_column(tmp_path_factory) -> Path:
    return pdfgen.two_column_pdf(
        tmp_path_factory.mktemp("pdf") / "columns.pdf", pages=3
    )


def test_prose_pdf_gives_one_entry_per_page_with_metadata(prose):
    result = run(prose, filename="Supply Agreement.pdf")
    assert result.source_type == "pdf"
    assert len(result.pages) == 30
    assert result.metadata["page_count"] == 30
    assert result.metadata["multi_column_pages"] == 0
    assert result.title == "Supply Agreement"  # no usable /Title: the file name
    assert all(len(page) > 2000 for page in result.pages)
    assert result.pages[4].rstrip().endswith("- 5 -")  # the page's own footer


def test_progress_reports_every_page(prose):
    seen: list[tuple[int, int]] = []
    run(prose, on_progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 30) and seen[-1] == (30, 30)
    assert [d for d, _ in seen] == list(range(31))


def test_text_on_given_pages_lands_on_those_pages(tmp_path):
    path = pdfgen.text_pages_pdf(
        tmp_path / "t.pdf",
        {2: "The indemnity cap is $2,000,000.", 5: "Governing law: Delaware."},
        pages=6,
    )
    result = run(path)
    text = normalize_pages(result.pages)
    for needle, page in (("indemnity cap", 2), ("Governing law", 5)):
        offset = text.content.index(needle)
        assert page_for_offset(text.page_starts, offset) == page
    assert result.pages[0] == ""


def test_two_column_page_is_read_column_by_column(two_column):
    result = run(two_column)
    assert result.metadata["multi_column_pages"] == 3
    for number, page in enumerate(result.pages, start=1):
        assert page.startswith(f"Quarterly Supply Review, part {number}")
        markers = re.findall(r"\b([LR])(\d+)\.(\d+)\b", page)
        order = [(side, int(line)) for side, pg, line in markers if int(pg) == number]
        lefts = [i for i, (side, _) in enumerate(order) if side == "L"]
        rights = [i for i, (side, _) in enumerate(order) if side == "R"]
        assert lefts and rights and max(lefts) < min(rights), (
            "all of the left column first"
        )
        assert [n for side, n in order if side == "L"] == sorted(
            n for side, n in order if side == "L"
        )
        assert [n for side, n in order if side == "R"] == sorted(
            n for side, n in order if side == "R"
        )


def test_sequential_two_column_layout_reads_the_same(tmp_path, two_column):
    other = pdfgen.two_column_pdf(tmp_path / "seq.pdf", pages=3, interleave=False)
    assert run(other).pages == run(two_column).pages


def test_single_column_text_keeps_pdfium_order(prose):
    pdf = pdfium.PdfDocument(str(prose))
    try:
        textpage = pdf[0].get_textpage()
        raw = textpage.get_text_range()
    finally:
        pdf.close()
    assert run(prose).pages[0] == normalize_page(raw)


@pytest.mark.parametrize("page_number", [1, 2])
def test_geometry_text_is_exactly_the_extracted_page(two_column, page_number):
    pages = run(two_column).pages
    geometry = page_char_boxes(two_column, page_number)
    assert geometry.text == pages[page_number - 1]
    assert len(geometry.boxes) == len(geometry.text)


def test_geometry_matches_on_single_column_pages(prose):
    pages = run(prose).pages
    for number in (1, 17, 30):
        geometry = page_char_boxes(prose, number)
        assert geometry.text == pages[number - 1]
        assert len(geometry.boxes) == len(geometry.text)


def test_boxes_are_top_left_points_where_the_glyphs_are(two_column):
    geometry = page_char_boxes(two_column, 1)
    assert (round(geometry.width), round(geometry.height)) == (595, 842)
    heading = geometry.boxes[geometry.text.index("Quarterly")]
    assert heading is not None and heading[1] < 100, (
        "top-left origin: the heading is near y=0"
    )
    right = geometry.boxes[geometry.text.index("R1.1")]
    left = geometry.boxes[geometry.text.index("L1.1")]
    assert right[0] > geometry.width / 2 > left[2]
    for ch, box in zip(geometry.text, geometry.boxes, strict=True):
        if not ch.isspace():
            assert box is not None
            x0, y0, x1, y1 = box
            assert 0 <= x0 <= x1 <= geometry.width and 0 <= y0 <= y1 <= geometry.height


def test_boxes_follow_page_rotation(tmp_path):
    path = pdfgen.text_pages_pdf(tmp_path / "r.pdf", ["Rotated clause text."])
    pdf = pdfium.PdfDocument(str(path))
    pdf[0].set_rotation(90)
    rotated = tmp_path / "rotated.pdf"
    pdf.save(str(rotated))
    pdf.close()
    geometry = page_char_boxes(rotated, 1)
    assert geometry.text == run(rotated).pages[0]
    assert geometry.width > geometry.height  # landscape once rotated
    for box in geometry.boxes:
        if box is not None:
            assert 0 <= box[0] <= box[2] <= geometry.width + 0.5
            assert 0 <= box[1] <= box[3] <= geometry.height + 0.5


def test_render_page_png(two_column):
    png = render_page_png(two_column, 2, scale=0.5)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(ValueError):
        render_page_png(two_column, 99)


def test_find_tables_uses_pdfplumber_off_the_hot_path(prose):
    assert find_tables(prose, 1) == []


def test_user_password_pdf_is_refused_as_encrypted(tmp_path):
    error = expect_error(pdfgen.encrypted_pdf(tmp_path / "locked.pdf"), "encrypted")
    assert "password" in error.message


def test_owner_password_only_pdf_extracts(tmp_path):
    path = pdfgen.encrypted_pdf(
        tmp_path / "owner.pdf", user_password="", text="Owner-only restrictions."
    )
    assert run(path).pages[0] == "Owner-only restrictions."


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (pdfgen.truncated_pdf_bytes(), "corrupt"),
        (pdfgen.corrupt_pdf_bytes(), "corrupt"),
        (b"", "empty"),
        (b"<!DOCTYPE html><html><body>Sign in to download</body></html>", "corrupt"),
        (b"%PDF-1.7\n", "corrupt"),
        (pdfgen.recursive_pages_pdf_bytes(), "corrupt"),
    ],
    ids=[
        "truncated",
        "garbage",
        "zero-bytes",
        "html-named-pdf",
        "header-only",
        "recursive-pages",
    ],
)
def test_broken_files_fail_with_a_clear_code(tmp_path, data, code):
    path = tmp_path / "broken.pdf"
    path.write_bytes(data)
    error = expect_error(path, code)
    if data.startswith(b"<!DOCTYPE"):
        assert "HTML" in error.message


def test_one_damaged_page_does_not_lose_the_others(tmp_path):
    content = b"BT /F1 12 Tf 72 720 Td (Readable page) Tj ET"
    path = tmp_path / "partly.pdf"
    path.write_bytes(
        pdfgen.raw_pdf(
            [
                b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",  # entry 1 is the tree itself
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
                b"/Resources << /Font << /F1 5 0 R >> >> >>",
                b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
                b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            ]
        )
    )
    result = run(path)
    assert sorted(result.pages) == ["", "Readable page"]
    [damaged] = result.metadata["damaged_pages"]
    assert result.pages[damaged - 1] == ""


def test_circular_xobject_terminates_with_the_page_text(tmp_path):
    path = tmp_path / "loop.pdf"
    path.write_bytes(pdfgen.circular_xobject_pdf_bytes())
    assert run(path).pages == ["Visible text"]


def test_image_only_pdf_says_ocr_is_not_available(tmp_path):
    error = expect_error(
        pdfgen.image_only_pdf(tmp_path / "scan.pdf", pages=2), "no_text"
    )
    assert "OCR" in error.message


def test_page_limit_is_checked_before_reading_pages(tmp_path):
    path = pdfgen.text_pages_pdf(tmp_path / "long.pdf", ["x"], pages=12)
    seen: list[tuple[int, int]] = []
    error = expect_error(
        path,
        "too_many_pages",
        Limits(max_pages=10),
        on_progress=lambda d, t: seen.append((d, t)),
    )
    assert "12" in error.message and "10" in error.message
    assert seen == []


def test_file_size_limit(prose):
    expect_error(prose, "too_large", Limits(max_file_bytes=1000))


def test_text_volume_limits(prose):
    expect_error(prose, "too_complex", Limits(max_chars_per_page=1000))
    expect_error(prose, "too_large", Limits(max_total_chars=10_000))


def test_time_limit_stops_in_process_extraction(prose):
    error = expect_error(prose, "timeout", Limits(timeout_s=1e-9))
    assert "seconds" in error.message


def test_pages_are_closed_as_they_are_read(prose, monkeypatch):
    """UPL-09: a page left open per page read is how 5,000-page files exhaust memory."""
    closed = {"page": 0, "textpage": 0}
    page_close, textpage_close = pdfium.PdfPage.close, pdfium.PdfTextPage.close

    def count_page(self, *args, **kwargs):
        closed["page"] += 1
        return page_close(self, *args, **kwargs)

    def count_textpage(self, *args, **kwargs):
        closed["textpage"] += 1
        return textpage_close(self, *args, **kwargs)

    monkeypatch.setattr(pdfium.PdfPage, "close", count_page)
    monkeypatch.setattr(pdfium.PdfTextPage, "close", count_textpage)
    seen_open: list[int] = []
    run(prose, on_progress=lambda done, total: seen_open.append(done - closed["page"]))
    assert closed == {"page": 30, "textpage": 30}
    assert max(seen_open) == 0, "every page is closed before the next one is read"


def test_pdf_detected_by_magic_even_with_a_wrong_name(prose, tmp_path):
    renamed = tmp_path / "notes.txt"
    renamed.write_bytes(prose.read_bytes())
    assert run(renamed).source_type == "pdf"


@pytest.mark.parametrize(
    ("info_title", "expected"),
    [
        ("Master Services Agreement", "Master Services Agreement"),
        ("Microsoft Word - draft7.docx", "contract"),
        ("10811.exe", "contract"),
        ("", "contract"),
    ],
)
def test_title_from_pdf_metadata_only_when_it_looks_like_a_title(
    tmp_path, info_title, expected
):
    from fpdf import FPDF

    pdf = FPDF(unit="pt")
    pdf.set_font("Helvetica", size=10)
    if info_title:
        pdf.set_title(info_title)
    pdf.add_page()
    pdf.text(50, 50, "Body text.")
    path = tmp_path / "contract.pdf"
    pdf.output(str(path))
    result = run(path)
    assert result.title == expected
    if info_title:
        assert result.metadata["title"] == info_title
