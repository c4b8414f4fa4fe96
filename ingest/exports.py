"""Which uploads are chat exports (issue 32 item 6): a Slack workspace export
or a Microsoft Teams channel export given to the upload form or to
`manage.py ingest` is added as a source (ingest.sources), not refused as an
unknown file.

`export_kind` reads only what it must: a ZIP's directory (no member is
decompressed for Slack) or the first 64 KB of a JSON file or of a ZIP's first
JSON member (Teams), and leaves the stream where it found it. Each export
kind of the connector table (ingest.source_kinds) says what it recognises
(`SourceKind.recognises`), tried in the table's order (`export_rules`); the
export's own reader (ingest.connectors.slack / .teams) checks the whole file
when it syncs.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

HEAD_BYTES = 64 * 1024
_ZIP = b"PK\x03\x04"


@dataclass(frozen=True)
class Head:
    """What the rules read of an upload."""

    filename: str
    head: bytes
    zip_names: tuple[str, ...]
    first_json: bytes  # the head of a ZIP's first .json member


@dataclass(frozen=True)
class ExportRule:
    kind: str  # Source.Kind value
    matches: Callable[[Head], bool]
    doc: str


def export_rules() -> tuple[ExportRule, ...]:
    """The export kinds that recognise an upload, in the table's order."""
    from ingest import source_kinds  # the table's kinds import Head from here

    return tuple(
        ExportRule(k.key, k.recognises, k.recognised_by)
        for k in source_kinds.SOURCE_KINDS
        if k.recognised_by
    )


def _read_head(stream: IO[bytes], filename: str) -> Head:
    head = stream.read(HEAD_BYTES)
    names: tuple[str, ...] = ()
    first_json = b""
    if head[:4] == _ZIP:
        stream.seek(0)
        try:
            with zipfile.ZipFile(stream) as zf:
                infos = zf.infolist()[:5000]
                names = tuple(i.filename for i in infos if not i.is_dir())
                member = next(
                    (i for i in infos if i.filename.lower().endswith(".json")), None
                )
                if member is not None:
                    with zf.open(member) as fh:
                        first_json = fh.read(HEAD_BYTES)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
            names = ()
    return Head(filename=filename, head=head, zip_names=names, first_json=first_json)


def export_kind(stream: IO[bytes], filename: str) -> str:
    """ "slack", "teams", or "" when the upload is no chat export."""
    position = stream.tell()
    try:
        head = _read_head(stream, filename)
    finally:
        stream.seek(position)
    return next((r.kind for r in export_rules() if r.matches(head)), "")
