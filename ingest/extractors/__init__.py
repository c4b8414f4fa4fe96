"""Turn an uploaded file into text pages and metadata, without Django.

`detect_source_type` decides what a file is (magic bytes first, then the
extension, then the declared content type); `extract` runs the matching
extractor in the current process. Untrusted uploads should go through
:func:`ingest.sandbox.extract_in_child`, which runs `extract` in a child process
under memory and time limits.

Every failure is an :class:`~ingest.errors.ExtractionError` with a code from a
fixed set and a message written for the person who uploaded the file.
"""

from __future__ import annotations

import importlib
import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest import file_types
from ingest.errors import ErrorCode, ExtractionError, UnsupportedType
from ingest.extractors._common import Progress
from ingest.limits import Limits
from ingest.normalize import normalize_page

__all__ = [
    "SOURCE_TYPES",
    "WEB_CAPTURE_TYPE",
    "Attachment",
    "Extracted",
    "detect_source_type",
    "extract",
    "json_safe",
]

logger = logging.getLogger(__name__)

# The types an upload may be, and how messages name them (ingest.file_types).
SOURCE_TYPES = file_types.upload_types()
HEAD_BYTES = 8192

# A page captured by URL (ingest.sources): stored with this type so that
# ingestion reads its article, not every visible word (ingest.connectors.web).
WEB_CAPTURE_TYPE = "application/vnd.docuiq.web-capture+html"
# Formats people upload that we cannot read, by signature, for a precise message.
_KNOWN_BINARIES = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "a legacy Office file (.doc, .xls, .ppt or Outlook .msg)",
    ),
    (b"{\\rtf", "an RTF document"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x1f\x8b", "a gzip archive"),
)
_OOXML_OTHER = {".xlsx": "an Excel workbook", ".pptx": "a PowerPoint presentation"}
_EMAIL_HEADERS = frozenset(
    {
        "from",
        "to",
        "subject",
        "date",
        "message-id",
        "received",
        "return-path",
        "mime-version",
        "delivered-to",
        "reply-to",
        "in-reply-to",
        "references",
        "x-mailer",
        "cc",
    }
)
_HEADER_LINE = re.compile(rb"^([!-9;-~]+):[ \t]?")
_HTML_START = re.compile(
    rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta|title)\b",
    re.I | re.S,
)
_UNSAFE_CHARS = re.compile("[\x00\ud800-\udfff]")


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str
    data: bytes


@dataclass
class Extracted:
    title: str
    source_type: str
    # One entry per page (1 for documents without pages), already passed through
    # normalize_page (which is idempotent, so normalizing again changes nothing).
    pages: list[str]
    metadata: dict[str, Any]
    origin_url: str | None = None
    attachments: list[Attachment] = field(default_factory=list)
    # (filename, message for the user) for attachments that were refused.
    attachment_errors: list[tuple[str, str]] = field(default_factory=list)


def detect_source_type(head: bytes, filename: str, content_type: str | None) -> str:
    """The source type of a file from its first bytes, name and declared type.

    Magic bytes decide for binary formats, so a PDF named ``.txt`` is a PDF; a file
    named ``.pdf``/``.docx`` without the matching signature is reported as not
    being what its name says (corrupt), not silently read as something else.
    """
    ext = Path(filename.replace("\\", "/")).suffix.lower()
    declared = file_types.by_extension(ext)
    by_content_type = file_types.by_content_type(
        (content_type or "").split(";")[0].strip().lower()
    )

    if (content_type or "").split(";")[0].strip().lower() == WEB_CAPTURE_TYPE:
        if _looks_binary(head):
            raise UnsupportedType("This captured page is not a web page (HTML).")
        return "web"
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        if declared == "docx" or by_content_type == "docx" or b"word/" in head:
            return "docx"
        if ext in _OOXML_OTHER:
            raise UnsupportedType(
                f"This file is {_OOXML_OTHER[ext]}, which is not supported; supported: {file_types.supported_label()}."
            )
        raise UnsupportedType(
            f"ZIP archives are not supported as documents; upload the files inside it; supported: {file_types.supported_label()}."
        )
    if head and (declared or by_content_type) in ("pdf", "docx"):
        expected = (
            "PDF" if (declared or by_content_type) == "pdf" else "Word (.docx) document"
        )
        raise ExtractionError(
            ErrorCode.CORRUPT,
            f"This file is named as a {expected} but is not one (it looks like {_describe(head)}).",
        )
    for signature, what in _KNOWN_BINARIES:
        if head.startswith(signature):
            raise UnsupportedType(
                f"This file is {what}, which is not supported; supported: {file_types.supported_label()}."
            )
    if _looks_binary(head):
        raise UnsupportedType(
            f"This type of file ({ext or 'no extension'}) is not supported; supported: {file_types.supported_label()}."
        )
    if declared:
        return declared
    if by_content_type:
        return by_content_type
    if _HTML_START.match(head):
        return "html"
    if _looks_like_email(head):
        return "email"
    if ext in _OOXML_OTHER:
        raise UnsupportedType(
            f"This file is {_OOXML_OTHER[ext]}, which is not supported; supported: {file_types.supported_label()}."
        )
    return "text"


def extract(
    path: Path,
    *,
    filename: str,
    content_type: str | None,
    limits: Limits,
    on_progress: Callable[[int, int], None] | None = None,
) -> Extracted:
    """Extract one file in this process; raises ExtractionError for every bad input.

    `on_progress(pages_done, pages_total)` is called as pages are read.
    """
    path = Path(path)
    size = path.stat().st_size
    if size == 0:
        raise ExtractionError(ErrorCode.EMPTY, "This file is empty (0 bytes).")
    if size > limits.max_file_bytes:
        raise ExtractionError(
            ErrorCode.TOO_LARGE,
            f"This file is {size / 2**20:.1f} MB; the limit is {limits.max_file_bytes / 2**20:.0f} MB.",
        )
    with path.open("rb") as fh:
        head = fh.read(HEAD_BYTES)
    source_type = detect_source_type(head, filename, content_type)
    kind = file_types.file_type(source_type)
    if kind is None or not kind.extractor:
        raise UnsupportedType(f"No extractor reads {source_type!r} files.")
    module_name, func_name = kind.extractor.split(":")
    func = getattr(importlib.import_module(module_name), func_name)
    progress = Progress(limits, on_progress)
    try:
        result: Extracted = func(
            path, filename=filename, limits=limits, progress=progress
        )
    except ExtractionError:
        raise
    except (MemoryError, RecursionError) as exc:
        raise ExtractionError(ErrorCode.TOO_COMPLEX) from exc
    except Exception as exc:
        # Parsers raise anything on malformed input (pdfminer#547..#551); the user
        # needs one clear answer, the operator the traceback.
        logger.warning(
            "extracting %r as %s failed", filename, source_type, exc_info=True
        )
        label = kind.noun or kind.label
        raise ExtractionError(
            ErrorCode.CORRUPT,
            f"This {label} file is damaged or malformed and could not be read.",
        ) from exc
    return _finish(result, limits)


def _finish(result: Extracted, limits: Limits) -> Extracted:
    result.pages = [normalize_page(page) for page in result.pages] or [""]
    total = sum(len(page) for page in result.pages)
    if total > limits.max_total_chars:
        raise ExtractionError(
            ErrorCode.TOO_LARGE,
            f"This file holds {total:,} characters of text; the limit is {limits.max_total_chars:,}.",
        )
    if not any(page.strip() for page in result.pages):
        raise ExtractionError(ErrorCode.EMPTY, "This file contains no text.")
    result.title = " ".join(_clean(result.title).split())[:500]
    result.metadata = json_safe(result.metadata)
    result.attachments = [
        Attachment(
            filename=_clean(a.filename),
            content_type=_clean(a.content_type),
            data=a.data,
        )
        for a in result.attachments
    ]
    result.attachment_errors = [
        (_clean(name), _clean(msg)) for name, msg in result.attachment_errors
    ]
    return result


def json_safe(value: Any) -> Any:
    """A copy of `value` that JSON and PostgreSQL accept.

    Header decoding leaves lone surrogates for undecodable bytes, and NUL is
    legal in Python strings but not in PostgreSQL text.
    """
    if isinstance(value, str):
        return _clean(value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {_clean(str(k)): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return _clean(str(value))


def _clean(text: str) -> str:
    return _UNSAFE_CHARS.sub(lambda m: "" if m.group() == "\x00" else "\ufffd", text)


def _looks_binary(head: bytes) -> bool:
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return False  # UTF-16/32 text has NULs by design
    # A stray NUL or control byte happens in real text files; binary formats are full of them.
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls > max(4, len(head) // 100)


def _looks_like_email(head: bytes) -> bool:
    names = []
    for line in head.splitlines()[:40]:
        if not line.strip():
            break
        if line[:1] in (b" ", b"\t"):
            continue  # a folded continuation of the previous header
        match = _HEADER_LINE.match(line)
        if not match:
            return False
        names.append(match.group(1).decode("ascii").lower())
    return len(names) >= 2 and len(_EMAIL_HEADERS.intersection(names)) >= 2


def _describe(head: bytes) -> str:
    if _HTML_START.match(head) or b"<html" in head[:2048].lower():
        return "an HTML web page"
    for signature, what in _KNOWN_BINARIES:
        if head.startswith(signature):
            return what
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "a ZIP archive"
    return "binary data" if _looks_binary(head) else "plain text"
