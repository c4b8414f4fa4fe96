"""Word (.docx): body paragraphs and tables in document order.

The ZIP container is checked like any archive before python-docx opens it (a
DOCX can be a zip bomb too). python-docx opens the package and reads the core
properties; the body is walked directly in its XML because python-docx's
paragraph API skips text in content controls (``w:sdt``) and tracked insertions
(``w:ins``), which contracts are full of.
"""

from __future__ import annotations

import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any

from ingest.errors import ErrorCode, ExtractionError
from ingest.extractors import Extracted
from ingest.extractors._common import Progress, title_from_filename
from ingest.extractors.archive import ZipBudget, check_zip
from ingest.extractors.titles import (
    document_title,
    metadata_title_rejected_by,
    opening_of,
    title_metadata,
)
from ingest.limits import Limits

__all__ = ["extract_docx"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_P, _TBL, _TR, _TC, _SDT, _SDT_CONTENT = (
    f"{_W}{t}" for t in ("p", "tbl", "tr", "tc", "sdt", "sdtContent")
)
_CUSTOM_XML = f"{_W}customXml"
_INLINE = {
    f"{_W}t": None,
    f"{_W}tab": "\t",
    f"{_W}br": "\n",
    f"{_W}cr": "\n",
    f"{_W}noBreakHyphen": "\u2011",
    f"{_W}softHyphen": "\u00ad",
}
# Deleted text (w:delText), field codes (w:instrText) and the duplicate fallback
# rendering of text boxes are not part of what the reader sees.
_SKIP = {f"{_W}del", f"{_W}delText", f"{_W}instrText", _MC_FALLBACK}
_MAX_TABLE_DEPTH = 8
_TITLE_STYLES = {"title", "heading1", "heading 1"}


def extract_docx(
    path: Path, *, filename: str, limits: Limits, progress: Progress
) -> Extracted:
    try:
        with zipfile.ZipFile(path) as zf:
            check_zip(zf, limits, ZipBudget.from_limits(limits), label="This Word file")
            if "word/document.xml" not in zf.namelist():
                raise ExtractionError(
                    ErrorCode.CORRUPT,
                    "This file is named .docx but is not a Word document.",
                )
    except zipfile.BadZipFile as exc:
        raise ExtractionError(
            ErrorCode.CORRUPT, "This Word file is damaged (not a valid .docx)."
        ) from exc

    import docx  # python-docx; imported here so other extractors do not pay for it

    document = docx.Document(str(path))
    body = document.element.body
    blocks = [text for text in _blocks(body, 0) if text.strip()]
    progress(1, 1)
    metadata = _core_properties(document)
    metadata["paragraphs"] = sum(1 for _ in body.iter(_P))
    metadata["tables"] = sum(1 for _ in body.iter(_TBL))
    text = "\n\n".join(blocks)
    # A Word file's own Title (an author set it), else the kind a contract's
    # opening names ("Master Services Agreement"), else its first Heading 1.
    own = metadata.get("title") or ""
    choice = document_title("", opening_of([text]), filename)
    if own and not metadata_title_rejected_by(own):
        title = own
    elif choice.kind:
        title = choice.title
        metadata.update(title_metadata(choice))
    else:
        title = _first_heading(body) or title_from_filename(filename)
    return Extracted(title=title, source_type="docx", pages=[text], metadata=metadata)


def _blocks(container: Any, depth: int) -> list[str]:
    out: list[str] = []
    for child in container.iterchildren():
        tag = child.tag
        if tag == _P:
            out.append(_paragraph(child))
        elif tag == _TBL:
            out.append(_table(child, depth))
        elif tag == _SDT:
            content = child.find(_SDT_CONTENT)
            if content is not None:
                out.extend(_blocks(content, depth))
        elif tag == _CUSTOM_XML:
            out.extend(_blocks(child, depth))
    return out


def _paragraph(p: Any) -> str:
    parts: list[str] = []
    stack = [p]
    while stack:
        element = stack.pop()
        tag = element.tag
        if tag in _SKIP:
            continue
        if tag in _INLINE:
            written = _INLINE[tag]
            parts.append(element.text or "" if written is None else written)
            continue
        stack.extend(reversed(list(element)))
    return "".join(parts)


def _table(tbl: Any, depth: int) -> str:
    if depth >= _MAX_TABLE_DEPTH:
        return ""
    rows: list[str] = []
    for tr in tbl.iterchildren(_TR):
        cells = []
        for tc in tr.iterchildren(_TC):
            cell = " ".join(
                b.replace("\n", " ") for b in _blocks(tc, depth + 1) if b.strip()
            )
            cells.append(cell)
        if any(c.strip() for c in cells):
            rows.append("\t".join(cells))
    return "\n".join(rows)


def _first_heading(body: Any) -> str | None:
    for p in body.iterchildren(_P):
        style = p.find(f"{_W}pPr/{_W}pStyle")
        value = style.get(f"{_W}val", "") if style is not None else ""
        if value.lower() in _TITLE_STYLES:
            text = " ".join(_paragraph(p).split())
            if text:
                return text
    return None


def _core_properties(document: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    try:
        props = document.core_properties
        for key, attr in (
            ("title", "title"),
            ("author", "author"),
            ("last_modified_by", "last_modified_by"),
            ("subject", "subject"),
            ("keywords", "keywords"),
        ):
            value = getattr(props, attr, None)
            if isinstance(value, str) and value.strip():
                meta[key] = " ".join(value.split())[:1000]
        for key, attr in (("created", "created"), ("modified", "modified")):
            value = getattr(props, attr, None)
            if isinstance(value, datetime):
                meta[key] = value.isoformat()
    except Exception:
        pass  # broken docProps/core.xml: the document text is still good
    return meta
