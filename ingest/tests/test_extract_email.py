from __future__ import annotations

import io
import struct
import time
import zipfile
from email.message import EmailMessage
from pathlib import Path

import pytest

from docuiq.testing import pdfgen
from ingest.errors import ExtractionError
from ingest.extractors import extract
from ingest.extractors.archive import read_zip
from ingest.limits import Limits

LIMITS = Limits()


def message(
    subject: str = "Renewal terms", body: str = "Please review the attached draft."
) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Alice Example <alice@example.com>"
    msg["To"] = "Bob <bob@example.com>, carol@example.com"
    msg["Cc"] = "Dan <dan@example.com>"
    msg["Subject"] = subject
    msg["Date"] = "Tue, 02 Jan 2024 10:30:00 +0100"
    msg["Message-ID"] = "<msg-3@example.com>"
    msg["In-Reply-To"] = "<msg-2@example.com>"
    msg["References"] = "<msg-1@example.com> <msg-2@example.com>"
    msg.set_content(body)
    return msg


def run(
    tmp_path: Path,
    data: bytes | EmailMessage,
    limits: Limits = LIMITS,
    name: str = "mail.eml",
):
    path = tmp_path / name
    path.write_bytes(bytes(data) if isinstance(data, EmailMessage) else data)
    return extract(path, filename=name, content_type="message/rfc822", limits=limits)


def expect_error(
    tmp_path: Path, data: bytes, code: str, limits: Limits = LIMITS
) -> ExtractionError:
    with pytest.raises(ExtractionError) as info:
        run(tmp_path, data, limits)
    assert info.value.code == code, info.value
    return info.value


def make_zip(files: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_headers_and_thread_identity(tmp_path):
    result = run(tmp_path, message())
    meta = result.metadata
    assert result.source_type == "email"
    assert result.title == "Renewal terms"
    assert meta["sender"] == "Alice Example <alice@example.com>"
    assert meta["sender_email"] == "alice@example.com"
    assert meta["to"] == ["Bob <bob@example.com>", "carol@example.com"]
    assert meta["cc"] == ["Dan <dan@example.com>"]
    assert meta["ts"] == "2024-01-02T10:30:00+01:00"
    assert meta["message_id"] == "<msg-3@example.com>"
    assert meta["in_reply_to"] == "<msg-2@example.com>"
    assert meta["references"] == ["<msg-1@example.com>", "<msg-2@example.com>"]
    assert (
        meta["thread_id"] == "<msg-1@example.com>"
    )  # the first reference: the thread's root
    page = result.pages[0]
    assert page.startswith(
        "From: Alice Example <alice@example.com>\nTo: Bob <bob@example.com>, carol@example.com"
    )
    assert "Subject: Renewal terms\n\nPlease review the attached draft." in page


def test_thread_id_falls_back_to_in_reply_to_then_own_id(tmp_path):
    msg = message()
    del msg["References"]
    assert run(tmp_path, msg).metadata["thread_id"] == "<msg-2@example.com>"
    del msg["In-Reply-To"]
    assert run(tmp_path, msg).metadata["thread_id"] == "<msg-3@example.com>"


def test_plain_text_body_is_preferred_over_html(tmp_path):
    msg = message(body="Plain version.")
    msg.add_alternative("<p>HTML version.</p><script>SCRIPT</script>", subtype="html")
    page = run(tmp_path, msg).pages[0]
    assert "Plain version." in page and "HTML version." not in page


def test_html_only_body_is_converted_to_text(tmp_path):
    msg = message()
    msg.set_content(
        "<p>Only <b>HTML</b> here.</p><style>p{}</style><script>alert('x')</script>",
        subtype="html",
    )
    page = run(tmp_path, msg).pages[0]
    assert "Only HTML here." in page
    assert "alert" not in page and "<p>" not in page


def test_attachments_are_returned_for_ingestion(tmp_path):
    msg = message()
    pdf_bytes = pdfgen.text_pages_pdf(
        tmp_path / "draft.pdf", ["Draft clause."]
    ).read_bytes()
    msg.add_attachment(
        pdf_bytes, maintype="application", subtype="pdf", filename="draft.pdf"
    )
    msg.add_attachment(
        b"a,b\n1,2\n", maintype="text", subtype="csv", filename="../../etc/fees.csv"
    )
    result = run(tmp_path, msg)
    assert [(a.filename, a.content_type) for a in result.attachments] == [
        ("draft.pdf", "application/pdf"),
        ("fees.csv", "text/csv"),  # never a path
    ]
    assert result.attachments[0].data == pdf_bytes
    assert "Attachments: draft.pdf, fees.csv" in result.pages[0]
    assert result.attachment_errors == []


def test_attached_email_becomes_an_attachment(tmp_path):
    inner = message(subject="Original offer", body="Offer text.")
    outer = message(subject="Fwd: Original offer", body="See below.")
    outer.add_attachment(inner)
    result = run(tmp_path, outer)
    [attached] = result.attachments
    assert attached.content_type == "message/rfc822"
    assert attached.filename == "Original offer.eml"
    assert b"Offer text." in attached.data
    assert "Offer text." not in result.pages[0]  # it is its own document


def test_safe_zip_members_become_attachments(tmp_path):
    msg = message()
    msg.add_attachment(
        make_zip(
            {
                "contracts/msa.txt": b"Master agreement",
                "contracts/sow.md": b"# SOW",
                "empty/": b"",
            }
        ),
        maintype="application",
        subtype="zip",
        filename="contracts.zip",
    )
    result = run(tmp_path, msg)
    assert sorted((a.filename, a.data) for a in result.attachments) == [
        ("msa.txt", b"Master agreement"),
        ("sow.md", b"# SOW"),
    ]
    assert result.attachment_errors == []


def test_zip_bomb_attachment_is_refused_but_the_email_is_ingested(tmp_path):
    bomb = make_zip(
        {"zeros.bin": b"\0" * (8 * 1024 * 1024)}
    )  # ~8 KB compressed, ratio ~1000:1
    assert len(bomb) < 50_000
    msg = message()
    msg.add_attachment(
        bomb, maintype="application", subtype="zip", filename="invoices.zip"
    )
    msg.add_attachment(
        b"real notes", maintype="text", subtype="plain", filename="notes.txt"
    )
    started = time.monotonic()
    result = run(tmp_path, msg)
    assert time.monotonic() - started < 1.0
    assert "Please review" in result.pages[0]
    assert [a.filename for a in result.attachments] == ["notes.txt"]
    [(name, error)] = result.attachment_errors
    assert name == "invoices.zip"
    assert "zip bomb" in error


def test_zip_over_the_total_size_cap(tmp_path):
    data = make_zip(
        {f"f{i}.txt": bytes([65 + i]) * 600_000 for i in range(3)}, zipfile.ZIP_STORED
    )
    with pytest.raises(ExtractionError) as info:
        read_zip(data, Limits(max_zip_total_bytes=1_000_000), label="big.zip")
    assert info.value.code == "zip_bomb"
    assert "1 MB" in info.value.message


def test_zip_with_lying_sizes_is_caught_while_reading():
    data = bytearray(make_zip({"a.txt": b"A" * 5000}))
    # Claim 10 bytes in both headers; 5,000 come out.
    for signature, size_offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(signature)
        data[at + size_offset : at + size_offset + 4] = struct.pack("<I", 10)
    files, errors = read_zip(bytes(data), LIMITS, label="liar.zip")
    assert (
        files == [] and len(errors) == 1
    )  # CPython stops at the stated size: a CRC error


def test_too_many_entries():
    data = make_zip({f"{i}.txt": b"x" for i in range(30)})
    with pytest.raises(ExtractionError) as info:
        read_zip(data, Limits(max_zip_entries=20), label="many.zip")
    assert info.value.code == "zip_bomb"


@pytest.mark.parametrize(
    "name", ["../../evil.txt", "/etc/passwd", "C:\\Windows\\evil.dll", "a/../../b.txt"]
)
def test_zip_slip_paths_are_refused(name):
    data = make_zip({"ok.txt": b"fine", name: b"evil"})
    with pytest.raises(ExtractionError) as info:
        read_zip(data, LIMITS, label="slip.zip")
    assert "unsafe path" in info.value.message


def test_nested_zips_are_opened_two_levels_deep_and_no_further():
    level2 = make_zip({"deep.txt": b"deep text"})
    level1 = make_zip({"inner.zip": level2, "top.txt": b"top text"})
    files, _errors = read_zip(level1, LIMITS, label="outer.zip")
    assert sorted(files) == [
        ("inner.zip/deep.txt", b"deep text"),
        ("top.txt", b"top text"),
    ]
    level0 = make_zip({"middle.zip": level1})
    with pytest.raises(ExtractionError) as info:
        read_zip(level0, LIMITS, label="outer.zip")
    assert "2 levels" in info.value.message


def test_overlapping_entries_bomb_is_refused_fast():
    data = bytearray(make_zip({"a.txt": b"A" * 1000, "b.txt": b"B" * 1000}))
    second = data.find(b"PK\x01\x02", data.find(b"PK\x01\x02") + 1)
    data[second + 42 : second + 46] = struct.pack("<I", 0)  # b.txt reuses a.txt's data
    started = time.monotonic()
    with pytest.raises(ExtractionError) as info:
        read_zip(bytes(data), LIMITS, label="overlap.zip")
    assert time.monotonic() - started < 1.0
    assert "overlap" in info.value.message


def test_docx_inside_a_zip_stays_a_document():
    docx_like = make_zip(
        {"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>"}
    )
    files, _ = read_zip(
        make_zip({"contract.docx": docx_like}), LIMITS, label="docs.zip"
    )
    assert files == [("contract.docx", docx_like)]


# -- limits checked before the stdlib parser runs (UPL-06) -------------------


def multipart(n_parts: int) -> bytes:
    parts = b"".join(
        b"--B\r\nContent-Type: text/plain\r\n\r\npart %d\r\n" % i
        for i in range(n_parts)
    )
    return (
        b"From: a@example.com\r\nSubject: parts\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/mixed; boundary="B"\r\n\r\n' + parts + b"--B--\r\n"
    )


def test_part_count_limit(tmp_path):
    assert (
        "part 98" in run(tmp_path, multipart(99)).pages[0]
    )  # 99 parts + the container
    error = expect_error(tmp_path, multipart(100), "bad_email")
    assert "100 parts" in error.message


def test_ten_thousand_parts_are_refused_quickly(tmp_path):
    started = time.monotonic()
    expect_error(tmp_path, multipart(10_000), "bad_email")
    assert time.monotonic() - started < 2.0


def test_nesting_depth_limit(tmp_path):
    msg = message(body="level 0")
    for level in range(1, 4):
        outer = message(subject=f"level {level}", body=f"level {level}")
        outer.add_attachment(msg)
        msg = outer
    error = expect_error(tmp_path, bytes(msg), "bad_email")
    assert "5 levels" in error.message


def test_header_length_limit(tmp_path):
    huge = (
        b"Subject: " + b"x" * (70 * 1024) + b"\r\nFrom: a@example.com\r\n\r\nbody\r\n"
    )
    started = time.monotonic()
    error = expect_error(tmp_path, huge, "bad_email")
    assert time.monotonic() - started < 2.0
    assert "64 KB" in error.message


def test_size_limit(tmp_path):
    expect_error(tmp_path, bytes(message()), "too_large", Limits(max_email_bytes=100))


def test_malformed_headers_do_not_fail_the_email(tmp_path):
    data = (
        b'From: "unterminated <x@\r\nTo: ,,,@@\r\nDate: not a date\r\n'
        b"Subject: =?utf-8?B?4pyTIGNoZWNr?= \xff\xfe raw\r\nMessage-ID: no-brackets\r\n\r\nBody text.\r\n"
    )
    result = run(tmp_path, data)
    assert "Body text." in result.pages[0]
    assert "ts" not in result.metadata
    assert result.metadata["message_id"] == "no-brackets"
    assert "\udcff" not in result.metadata["subject"]
