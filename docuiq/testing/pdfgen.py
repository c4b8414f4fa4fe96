"""Real PDFs for tests, benchmarks and the demo, generated with fpdf2.

Every generator writes a genuine PDF (fonts, content streams, xref) so the
extraction code is exercised exactly as with an uploaded file; nothing here
mocks a parser. Text is deterministic (seeded), so tests can assert on it.

* :func:`prose_pdf`: N pages of single-column prose (the throughput benchmark).
* :func:`two_column_pdf`: a full-width heading over two columns whose lines are
  written *interleaved* (left line, right line, left line, ...) in the content
  stream, so that extracting in content order gives the wrong reading order.
* :func:`text_pages_pdf`: given text on given pages (other pages blank or prose).
* :func:`encrypted_pdf`: user-password (needs a password to open) or
  owner-password-only (opens freely, permissions restricted).
* :func:`image_only_pdf`: pages that are one raster image each, no text layer.
* :func:`truncated_pdf_bytes` / :func:`corrupt_pdf_bytes`: broken files.
* :func:`flate_bomb_pdf`: a small file whose content stream inflates to a lot
  of memory (for the memory-limit tests).
* :func:`recursive_pages_pdf_bytes`, :func:`circular_xobject_pdf_bytes`: the
  malformed structures that made parsers loop (UPL-04).
"""

from __future__ import annotations

import io
import random
import zlib
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import EncryptionMethod

__all__ = [
    "WORDS",
    "circular_xobject_pdf_bytes",
    "corrupt_pdf_bytes",
    "encrypted_pdf",
    "flate_bomb_pdf",
    "image_only_pdf",
    "prose_lines",
    "prose_pdf",
    "raw_pdf",
    "recursive_pages_pdf_bytes",
    "text_pages_pdf",
    "truncated_pdf_bytes",
    "two_column_pdf",
]

# A4 in points; the generators use points so coordinates match what pdfium reports.
PAGE_W, PAGE_H = 595.28, 841.89
MARGIN = 56.0
FONT_SIZE = 10.0
LEADING = 14.0

WORDS = [
    "agreement",
    "party",
    "parties",
    "shall",
    "supplier",
    "customer",
    "services",
    "term",
    "termination",
    "notice",
    "written",
    "days",
    "period",
    "payment",
    "fees",
    "invoice",
    "confidential",
    "information",
    "obligations",
    "liability",
    "damages",
    "indemnify",
    "warranty",
    "breach",
    "remedy",
    "governing",
    "law",
    "jurisdiction",
    "effective",
    "date",
    "renewal",
    "assignment",
    "consent",
    "affiliate",
    "subcontractor",
    "license",
    "intellectual",
    "property",
    "rights",
    "data",
    "protection",
    "audit",
    "records",
    "compliance",
    "force",
    "majeure",
    "delivery",
    "acceptance",
    "specification",
    "deliverables",
    "milestone",
    "schedule",
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "for",
    "with",
    "by",
    "on",
    "under",
    "any",
    "all",
    "such",
    "this",
    "that",
    "which",
    "each",
    "reasonable",
    "material",
    "prior",
    "including",
    "without",
    "limitation",
    "provided",
    "however",
    "except",
]


def _pdf() -> FPDF:
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=FONT_SIZE)
    pdf.set_creator("DocuIQ pdfgen")
    return pdf


def prose_lines(
    rng: random.Random, n_lines: int, width: float, pdf: FPDF | None = None
) -> list[str]:
    """Lines of sentence-like prose, each at most `width` points wide in Helvetica 10."""
    pdf = pdf or _pdf()
    lines: list[str] = []
    words: list[str] = []
    sentence_left = rng.randint(8, 20)
    capitalize = True
    while len(lines) < n_lines:
        word = rng.choice(WORDS)
        if capitalize:
            word = word.capitalize()
            capitalize = False
        sentence_left -= 1
        if sentence_left == 0:
            word += "."
            sentence_left = rng.randint(8, 20)
            capitalize = True
        if words and pdf.get_string_width(" ".join([*words, word])) > width:
            lines.append(" ".join(words))
            words = []
        words.append(word)
    return lines


def prose_pdf(path: Path | str, pages: int = 200, *, seed: int = 0) -> Path:
    """A single-column prose PDF, ~50 lines and ~4,000 characters per page."""
    path = Path(path)
    rng = random.Random(seed)
    pdf = _pdf()
    width = PAGE_W - 2 * MARGIN
    lines_per_page = int((PAGE_H - 2 * MARGIN) // LEADING)
    for page in range(1, pages + 1):
        pdf.add_page()
        y = MARGIN + FONT_SIZE
        for line in prose_lines(rng, lines_per_page - 2, width, pdf):
            pdf.text(MARGIN, y, line)
            y += LEADING
        pdf.text(PAGE_W / 2 - 10, PAGE_H - MARGIN / 2, f"- {page} -")
    pdf.output(str(path))
    return path


def two_column_pdf(
    path: Path | str,
    pages: int = 2,
    *,
    seed: int = 1,
    interleave: bool = True,
    heading: bool = True,
) -> Path:
    """Two-column pages under a full-width heading.

    Left-column lines start with ``L<page>.<line>`` and right-column lines with
    ``R<page>.<line>``, so a test can check the reading order: heading, then every
    L line of the page, then every R line. With ``interleave`` the content stream
    alternates left and right lines, which is what defeats content-order extraction.
    """
    path = Path(path)
    rng = random.Random(seed)
    pdf = _pdf()
    gutter = 24.0
    col_w = (PAGE_W - 2 * MARGIN - gutter) / 2
    right_x = MARGIN + col_w + gutter
    for page in range(1, pages + 1):
        pdf.add_page()
        y0 = MARGIN + FONT_SIZE
        if heading:
            pdf.set_font("Helvetica", style="B", size=14)
            pdf.text(
                MARGIN,
                y0,
                f"Quarterly Supply Review, part {page}: findings and actions",
            )
            pdf.set_font("Helvetica", size=FONT_SIZE)
            y0 += 2.5 * LEADING
        n = int((PAGE_H - MARGIN - y0) // LEADING)
        left = prose_lines(rng, n, col_w - 40, pdf)
        right = prose_lines(rng, n, col_w - 40, pdf)
        left = [f"L{page}.{i + 1} {line}" for i, line in enumerate(left)]
        right = [f"R{page}.{i + 1} {line}" for i, line in enumerate(right)]
        if interleave:
            for i in range(n):
                pdf.text(MARGIN, y0 + i * LEADING, left[i])
                pdf.text(right_x, y0 + i * LEADING, right[i])
        else:
            for i in range(n):
                pdf.text(MARGIN, y0 + i * LEADING, left[i])
            for i in range(n):
                pdf.text(right_x, y0 + i * LEADING, right[i])
    pdf.output(str(path))
    return path


def text_pages_pdf(
    path: Path | str,
    texts: dict[int, str] | list[str],
    *,
    pages: int | None = None,
    filler: bool = False,
    seed: int = 2,
) -> Path:
    """A PDF with the given text on the given 1-based pages.

    `texts` is either a list (page 1, 2, ...) or a mapping page -> text. Pages not
    named are blank, or prose when `filler` is true. Each text line is written as
    one line (no wrapping), so the extracted text is predictable. Latin-1 only
    (Helvetica is a core font).
    """
    path = Path(path)
    if isinstance(texts, list):
        texts = {i + 1: t for i, t in enumerate(texts)}
    total = pages or max(texts, default=1)
    rng = random.Random(seed)
    pdf = _pdf()
    for page in range(1, total + 1):
        pdf.add_page()
        y = MARGIN + FONT_SIZE
        if page in texts:
            lines = texts[page].split("\n")
        elif filler:
            lines = prose_lines(rng, 40, PAGE_W - 2 * MARGIN, pdf)
        else:
            lines = []
        for line in lines:
            if line:
                pdf.text(MARGIN, y, line)
            y += LEADING
    pdf.output(str(path))
    return path


def encrypted_pdf(
    path: Path | str,
    *,
    user_password: str = "secret",
    owner_password: str = "owner-secret",
    text: str = "Encrypted agreement text.",
) -> Path:
    """An AES-128 encrypted PDF; ``user_password=""`` makes it owner-password-only."""
    path = Path(path)
    pdf = _pdf()
    pdf.set_encryption(
        owner_password=owner_password,
        user_password=user_password,
        encryption_method=EncryptionMethod.AES_128,
        permissions=0,  # nothing allowed: an owner-only file must still be readable
    )
    pdf.add_page()
    pdf.text(MARGIN, MARGIN + FONT_SIZE, text)
    pdf.output(str(path))
    return path


def image_only_pdf(path: Path | str, pages: int = 1) -> Path:
    """Pages that each hold one image of "text" (drawn bars), with no text layer."""
    from PIL import Image, ImageDraw

    path = Path(path)
    pdf = _pdf()
    for page in range(pages):
        img = Image.new("L", (600, 800), 255)
        draw = ImageDraw.Draw(img)
        for row in range(40):
            draw.rectangle(
                (40, 40 + row * 18, 520 - (row * 37 + page * 11) % 200, 50 + row * 18),
                fill=0,
            )
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        pdf.add_page()
        pdf.image(buf, x=0, y=0, w=PAGE_W, h=PAGE_H)
    pdf.output(str(path))
    return path


def _small_pdf_bytes(pages: int = 3) -> bytes:
    pdf = _pdf()
    for page in range(1, pages + 1):
        pdf.add_page()
        pdf.text(
            MARGIN, MARGIN + FONT_SIZE, f"Page {page} of a file that will be cut short."
        )
    return bytes(pdf.output())


def truncated_pdf_bytes(keep: float = 0.35) -> bytes:
    """The first `keep` fraction of a valid PDF: xref, trailer and page tree are gone."""
    data = _small_pdf_bytes()
    return data[: int(len(data) * keep)]


def corrupt_pdf_bytes() -> bytes:
    """A PDF header followed by garbage: no objects, no xref."""
    rng = random.Random(3)
    return b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + bytes(
        rng.randrange(256) for _ in range(4096)
    )


def flate_bomb_pdf(path: Path | str, *, inflated_mb: int = 512) -> Path:
    """A one-page PDF whose content stream is `inflated_mb` MB of spaces, deflated.

    The file is ~1/1000 of that size; a parser that inflates the stream in memory
    needs the full amount, which is what the memory limit must stop.
    """
    path = Path(path)
    comp = zlib.compressobj(9)
    block = b" " * (1024 * 1024)
    stream = b"".join(comp.compress(block) for _ in range(inflated_mb)) + comp.flush()
    path.write_bytes(
        raw_pdf(
            [
                b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << >> >>",
                b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream)
                + stream
                + b"\nendstream",
            ]
        )
    )
    return path


def recursive_pages_pdf_bytes() -> bytes:
    """A page tree whose /Kids contains itself (pdfminer/pdfminer.six#998)."""
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
        ]
    )


def circular_xobject_pdf_bytes() -> bytes:
    """A page drawing a form XObject that draws itself, forever if allowed."""
    content = b"BT /F1 12 Tf 72 720 Td (Visible text) Tj ET /X1 Do"
    form = b"/X1 Do"
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
            b"/Resources << /XObject << /X1 5 0 R >> /Font << /F1 6 0 R >> >> >>",
            b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
            b"<< /Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << /XObject << /X1 5 0 R >> >> "
            b"/Length %d >>\nstream\n" % len(form) + form + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
    )


def raw_pdf(objects: list[bytes]) -> bytes:
    """Objects 1..n written with a correct xref table (object 1 is the catalog)."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for num, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % num + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
