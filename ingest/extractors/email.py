"""Emails (.eml): headers, thread identity, body text and attachments.

The stdlib parser has known denial-of-service paths (quadratic header parsing,
python/cpython#136063; huge part counts, #75630), so a cheap byte-level scan
enforces size, part count, nesting depth and header length before it runs
(UPL-06). Attachments are returned for the ingest service to store as child
documents; ZIP attachments are opened safely (see `archive`), and a refused
archive becomes an attachment error while the email itself still succeeds.
"""

from __future__ import annotations

import email.utils
import itertools
import mimetypes
import re
from datetime import UTC
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesParser
from pathlib import Path, PurePosixPath
from typing import Any

from ingest.errors import ErrorCode, ExtractionError
from ingest.extractors import Attachment, Extracted
from ingest.extractors._common import (
    Progress,
    decode_text,
    read_limited,
    title_from_filename,
)
from ingest.extractors.archive import read_zip
from ingest.limits import Limits

__all__ = ["extract_email", "prescan_email"]

_MSG_ID = re.compile(r"<[^<>\s]+>")
_BOUNDARY = re.compile(
    rb'boundary\s*=\s*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))', re.I
)
_FIELD_START = re.compile(rb"^[^ \t\r\n]", re.M)
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_RAW_NAME = re.compile(r'(?:^|;)\s*(?:file)?name\s*=\s*"?([^";]+)', re.I)
# A header block may hold many fields; this bounds the parser's work on one part.
_HEADER_BLOCK_FIELDS = 16
_ZIP_TYPES = frozenset(
    {"application/zip", "application/x-zip-compressed", "application/x-zip"}
)


def extract_email(
    path: Path, *, filename: str, limits: Limits, progress: Progress
) -> Extracted:
    data = read_limited(path, limits.max_email_bytes, what="email")
    prescan_email(data, limits)
    try:
        msg = BytesParser(policy=policy.default).parsebytes(data)
    except (
        Exception
    ) as exc:  # the parser is lenient; anything raised means hostile input
        raise ExtractionError(
            ErrorCode.BAD_EMAIL, "This email is malformed and could not be read."
        ) from exc
    assert isinstance(msg, EmailMessage)
    metadata = _headers(msg)
    body_text, attachments, errors = _content(msg, limits)
    names = [a.filename for a in attachments] + [name for name, _ in errors]
    page = _render(metadata, names) + "\n\n" + body_text
    progress(1, 1)
    return Extracted(
        title=metadata.get("subject") or title_from_filename(filename),
        source_type="email",
        pages=[page],
        metadata=metadata,
        attachments=attachments,
        attachment_errors=errors,
    )


# -- limits before parsing ---------------------------------------------------


def prescan_email(data: bytes, limits: Limits) -> None:
    """Refuse (ExtractionError "bad_email") mail whose structure exceeds the limits.

    Walks MIME boundaries and embedded messages with byte searches only, so its
    cost is linear in size times depth whatever the input.
    """
    if len(data) > limits.max_email_bytes:
        raise ExtractionError(
            ErrorCode.TOO_LARGE,
            f"This email is larger than {limits.max_email_bytes // 2**20} MB.",
        )
    parts = [0]
    stack = [(0, len(data), 1)]
    while stack:
        start, end, depth = stack.pop()
        if depth > limits.max_email_depth:
            raise ExtractionError(
                ErrorCode.BAD_EMAIL,
                f"This email nests parts more than {limits.max_email_depth} levels deep and was refused.",
            )
        parts[0] += 1
        if parts[0] > limits.max_email_parts:
            raise ExtractionError(
                ErrorCode.BAD_EMAIL,
                f"This email has more than {limits.max_email_parts} parts and was refused.",
            )
        header_end, body_start = _header_span(data, start, end)
        content_type = _check_headers(data, start, header_end, limits)
        media_type = content_type.lower()
        if media_type.startswith(b"multipart/"):
            match = _BOUNDARY.search(content_type)
            if match:
                boundary = match.group(1) or match.group(2)
                stack.extend(
                    (s, e, depth + 1)
                    for s, e in _parts(data, body_start, end, boundary)
                )
        elif media_type.startswith((b"message/rfc822", b"message/global")):
            stack.append((body_start, end, depth + 1))


def _header_span(data: bytes, start: int, end: int) -> tuple[int, int]:
    if data.startswith((b"\n", b"\r\n"), start):
        return start, start + (1 if data[start] == 10 else 2)  # no headers at all
    match = _HEADER_END.search(data, start, end)
    return (match.start(), match.end()) if match else (end, end)


def _check_headers(data: bytes, start: int, end: int, limits: Limits) -> bytes:
    """Check field lengths; return the part's Content-Type value (unfolded; the
    boundary parameter is case-sensitive)."""
    if end - start > limits.max_email_header_bytes * _HEADER_BLOCK_FIELDS:
        raise _header_too_long(limits)
    starts = [m.start() for m in _FIELD_START.finditer(data, start, end)] + [end]
    content_type = b""
    for field_start, field_end in itertools.pairwise(starts):
        if field_end - field_start > limits.max_email_header_bytes:
            raise _header_too_long(limits)
        if data[field_start : field_start + 13].lower() == b"content-type:":
            content_type = b" ".join(data[field_start + 13 : field_end].split())
    return content_type


def _header_too_long(limits: Limits) -> ExtractionError:
    return ExtractionError(
        ErrorCode.BAD_EMAIL,
        f"This email has a header longer than {limits.max_email_header_bytes // 1024} KB and was refused.",
    )


def _parts(data: bytes, start: int, end: int, boundary: bytes) -> list[tuple[int, int]]:
    delimiter = b"--" + boundary
    spans: list[tuple[int, int]] = []
    # Delimiters start a line; the body itself starts a line, hence start - 1.
    pos = data.find(b"\n" + delimiter, max(0, start - 1), end)
    while pos != -1:
        after = pos + 1 + len(delimiter)
        if data.startswith(b"--", after):
            break  # the closing delimiter
        line_end = data.find(b"\n", after, end)
        if line_end == -1:
            break
        following = data.find(b"\n" + delimiter, line_end, end)
        spans.append((line_end + 1, following if following != -1 else end))
        pos = following
    return spans


# -- headers -----------------------------------------------------------------


def _headers(msg: EmailMessage) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    subject = _header(msg, "subject")
    if subject:
        meta["subject"] = subject
    sender = _addresses(msg, "from")
    if sender:
        meta["sender"] = sender[0]
        name, address = email.utils.parseaddr(sender[0])
        if address:
            meta["sender_email"] = address.lower()
        if name:
            meta["sender_name"] = name
    for key in ("to", "cc"):
        values = _addresses(msg, key)
        if values:
            meta[key] = values
    date = _header(msg, "date")
    if date:
        meta["date"] = date
        ts = _timestamp(date)
        if ts:
            meta["ts"] = ts
    message_id = _first_id(_header(msg, "message-id"))
    in_reply_to = _first_id(_header(msg, "in-reply-to"))
    references = _MSG_ID.findall(_header(msg, "references"))[:100]
    if message_id:
        meta["message_id"] = message_id
    if in_reply_to:
        meta["in_reply_to"] = in_reply_to
    if references:
        meta["references"] = references
    thread_id = references[0] if references else in_reply_to or message_id
    if thread_id:
        meta["thread_id"] = thread_id
    return meta


def _header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
        text = str(value) if value is not None else ""
    except Exception:
        # A header the policy cannot parse: fall back to its raw text.
        text = next((str(v) for k, v in msg.raw_items() if k.lower() == name), "")
    return " ".join(_CONTROL.sub(" ", text).split())[:2000]


def _addresses(msg: EmailMessage, name: str) -> list[str]:
    try:
        header = msg.get(name)
        if header is None:
            return []
        addresses = [str(a) for a in getattr(header, "addresses", ())]
        if addresses:
            return [" ".join(a.split()) for a in addresses][:500]
    except Exception:
        pass
    raw = _header(msg, name)
    return [" ".join(part.split()) for part in raw.split(",") if part.strip()][:500]


def _first_id(value: str) -> str | None:
    match = _MSG_ID.search(value)
    if match:
        return match.group(0)
    return value.strip()[:500] or None


def _timestamp(value: str) -> str | None:
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)  # "-0000": time zone unknown, read as UTC
    return parsed.isoformat()


def _render(meta: dict[str, Any], attachment_names: list[str]) -> str:
    lines = []
    if meta.get("sender"):
        lines.append(f"From: {meta['sender']}")
    for key, label in (("to", "To"), ("cc", "Cc")):
        if meta.get(key):
            lines.append(f"{label}: {', '.join(meta[key])}")
    if meta.get("date"):
        lines.append(f"Date: {meta['date']}")
    lines.append(f"Subject: {meta.get('subject', '')}")
    if attachment_names:
        lines.append(f"Attachments: {', '.join(attachment_names)}")
    return "\n".join(lines)


# -- body and attachments ----------------------------------------------------


def _content(
    msg: EmailMessage, limits: Limits
) -> tuple[str, list[Attachment], list[tuple[str, str]]]:
    try:
        body = msg.get_body(preferencelist=("plain", "html"))
    except Exception:
        body = None
    skip: set[int] = set()
    texts: list[str] = []
    attachments: list[Attachment] = []
    errors: list[tuple[str, str]] = []
    if body is not None:
        texts.append(_part_text(body))
        skip.add(id(body))
    # Walk without descending into attached emails: each becomes its own document.
    stack: list[tuple[Message, Message | None]] = [(msg, None)]
    while stack:
        part, parent = stack.pop()
        if id(part) in skip:
            continue
        if part.is_multipart() and part.get_content_maintype() == "multipart":
            children = part.get_payload()
            if isinstance(children, list):
                if part.get_content_subtype() == "alternative" and _contains(
                    part, body
                ):
                    continue  # the other renderings of the body
                stack.extend((child, part) for child in reversed(children))
            continue
        _leaf(part, parent, texts, attachments, errors, limits)
    return "\n\n".join(t for t in texts if t.strip()), attachments, errors


def _contains(part: Message, target: Message | None) -> bool:
    if target is None:
        return False
    stack = [part]
    while stack:
        current = stack.pop()
        if current is target:
            return True
        if current.get_content_maintype() == "multipart":
            payload = current.get_payload()
            if isinstance(payload, list):
                stack.extend(payload)
    return False


def _leaf(
    part: Message,
    parent: Message | None,
    texts: list[str],
    attachments: list[Attachment],
    errors: list[tuple[str, str]],
    limits: Limits,
) -> None:
    content_type = part.get_content_type()
    disposition = part.get_content_disposition()
    filename = _filename(part, len(attachments) + len(errors) + 1)
    if content_type in ("message/rfc822", "message/global"):
        try:
            inner = part.get_payload()
            inner_msg = inner[0] if isinstance(inner, list) else inner
            data = inner_msg.as_bytes(policy=policy.default)
        except Exception:
            errors.append(
                (filename, f"The attached email {filename} could not be read.")
            )
            return
        subject = _header(inner_msg, "subject")
        name = _given_name(part) or f"{_safe_name(subject) or 'attached message'}.eml"
        attachments.append(
            Attachment(
                filename=_safe_name(name), content_type="message/rfc822", data=data
            )
        )
        return
    named = bool(_given_name(part))
    if content_type.startswith("text/") and disposition != "attachment" and not named:
        texts.append(_part_text(part))  # further inline text of the message
        return
    if disposition != "attachment" and not named:
        return  # inline decoration (logos, tracking pixels) with no name
    if (
        parent is not None
        and parent.get_content_subtype() == "related"
        and disposition == "inline"
    ):
        return  # pictures referenced from the HTML body
    try:
        data = part.get_payload(decode=True) or b""
    except Exception:
        errors.append(
            (filename, f"The attachment {filename} is damaged and could not be read.")
        )
        return
    if _is_zip(filename, content_type, data):
        _unzip(filename, data, limits, attachments, errors)
        return
    attachments.append(
        Attachment(filename=filename, content_type=content_type, data=data)
    )


def _unzip(
    filename: str,
    data: bytes,
    limits: Limits,
    attachments: list[Attachment],
    errors: list[tuple[str, str]],
) -> None:
    try:
        members, member_errors = read_zip(data, limits, label=filename)
    except ExtractionError as exc:
        errors.append((filename, exc.message))
        return
    for path, message in member_errors:
        errors.append((_safe_name(PurePosixPath(path).name), message))
    for path, content in members:
        name = _safe_name(PurePosixPath(path).name) or "file"
        content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        attachments.append(
            Attachment(filename=name, content_type=content_type, data=content)
        )


def _is_zip(filename: str, content_type: str, data: bytes) -> bool:
    if not data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return False
    # OOXML documents (.docx) are ZIPs as well, and are attachments as they are.
    return filename.lower().endswith(".zip") or content_type in _ZIP_TYPES


def _part_text(part: Message) -> str:
    try:
        payload = part.get_payload(decode=True) or b""
    except Exception:
        return ""
    charset = part.get_content_charset()
    text = None
    if charset:
        try:
            text = payload.decode(charset, errors="replace")
        except (LookupError, ValueError):
            text = None
    if text is None:
        text, _ = decode_text(payload)
    if part.get_content_type() == "text/html":
        from ingest.extractors.html import html_to_text

        return html_to_text(text)
    return text


def _given_name(part: Message) -> str:
    """The attachment's own name, also when a mailer wrote an encoded word unquoted."""
    try:
        name = part.get_filename()
    except Exception:
        name = None
    if not name:
        raw = {k.lower(): str(v) for k, v in part.raw_items()}
        for header in ("content-disposition", "content-type"):
            match = _RAW_NAME.search(raw.get(header, ""))
            if match:
                name = match.group(1).strip()
                break
    if name and "=?" in name:
        try:
            name = str(make_header(decode_header(name)))
        except Exception:
            pass
    return _safe_name(name or "")


def _filename(part: Message, n: int) -> str:
    name = _given_name(part)
    if name:
        return name
    ext = mimetypes.guess_extension(part.get_content_type()) or ".bin"
    return f"attachment-{n}{ext}"


def _safe_name(name: str) -> str:
    name = _CONTROL.sub("", name.replace("\\", "/")).split("/")[-1].strip().strip(".")
    return name[:255]
