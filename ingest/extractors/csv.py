"""CSV/TSV: one block of ``column: value`` lines per row.

Rendering each row with its column names makes a row findable by full-text
search and quotable on its own ("Amount: 1,200.00"). The metadata maps rows to
offsets, so a citation can name the row it came from.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path
from typing import Any

from ingest.errors import ErrorCode, ExtractionError
from ingest.extractors import Extracted
from ingest.extractors._common import (
    Progress,
    decode_text,
    read_limited,
    title_from_filename,
)
from ingest.limits import Limits
from ingest.normalize import normalize_page

__all__ = ["extract_csv"]

_SNIFF_CHARS = 64 * 1024
_MAX_ROW_SPANS = 100_000
_ROW_SEPARATOR = "\n\n"


def extract_csv(
    path: Path, *, filename: str, limits: Limits, progress: Progress
) -> Extracted:
    text, encoding = decode_text(read_limited(path, limits.max_file_bytes))
    dialect = _dialect(text, filename)
    # One huge quoted field is legitimate up to the document's own text limit.
    csv.field_size_limit(min(sys.maxsize, max(limits.max_total_chars, 131072)))
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    try:
        header = next(reader, None)
        if header is None:
            raise ExtractionError(ErrorCode.EMPTY, "This CSV file has no rows.")
        columns = _columns(header)
        blocks: list[str] = []
        spans: list[list[int]] = []
        offset = 0
        rows = 0
        for number, row in enumerate(reader, start=1):
            rows = number
            block = _render_row(columns, row)
            if not block:
                continue
            if blocks:
                offset += len(_ROW_SEPARATOR)
            if len(spans) < _MAX_ROW_SPANS:
                spans.append([number, offset, offset + len(block)])
            blocks.append(block)
            offset += len(block)
    except csv.Error as exc:
        raise ExtractionError(
            ErrorCode.CORRUPT, f"This CSV file is malformed: {exc}."
        ) from exc
    page = _ROW_SEPARATOR.join(blocks)
    metadata: dict[str, Any] = {
        "columns": columns,
        "rows": rows,
        "delimiter": dialect.delimiter,
        "encoding": encoding,
    }
    if normalize_page(page) == page:  # offsets are only useful if the text stays as is
        metadata["row_spans"] = spans  # [row number (1 = first data row), start, end]
        metadata["row_spans_truncated"] = len(blocks) > len(spans)
    progress(1, 1)
    return Extracted(
        title=title_from_filename(filename),
        source_type="csv",
        pages=[page],
        metadata=metadata,
    )


def _dialect(text: str, filename: str) -> type[csv.Dialect] | csv.Dialect:
    if filename.lower().endswith(".tsv"):
        return csv.excel_tab
    try:
        return csv.Sniffer().sniff(text[:_SNIFF_CHARS], delimiters=",;\t|")
    except csv.Error:
        return csv.excel


def _columns(header: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    columns = []
    for i, raw in enumerate(header):
        name = " ".join(normalize_page(raw).split()) or f"column {i + 1}"
        count = seen.get(name, 0) + 1
        seen[name] = count
        columns.append(name if count == 1 else f"{name} ({count})")
    return columns


def _render_row(columns: list[str], row: list[str]) -> str:
    lines = []
    for i, raw in enumerate(row):
        value = normalize_page(raw).strip()
        if not value:
            continue
        name = columns[i] if i < len(columns) else f"column {i + 1}"
        lines.append(f"{name}: {value}")
    return "\n".join(lines)
