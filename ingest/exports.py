"""Which uploads are chat exports (issue 32 item 6): a Slack workspace export
or a Microsoft Teams channel export given to the upload form or to
`manage.py ingest` is added as a source (ingest.sources), not refused as an
unknown file.

`export_kind` reads only what it must: a ZIP's directory (no member is
decompressed for Slack) or the first 64 KB of a JSON file or of a ZIP's first
JSON member (Teams), and leaves the stream where it found it. The rules are
a table (`EXPORT_RULES`), tried in order; the export's own reader
(ingest.connectors.slack / .teams) checks the whole file when it syncs.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

HEAD_BYTES = 64 * 1024
_ZIP = b"PK\x03\x04"
# Graph's chatMessage fields (Teams exports are that JSON).
_TEAMS_JSON = re.compile(
    rb'"messageType"\s*:\s*"message"|"@odata\.context"\s*:\s*"[^"]*chatMessage|'
    rb'"@odata\.type"\s*:\s*"#?microsoft\.graph\.chatMessage"'
)


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


def _slack(head: Head) -> bool:
    tops = {name.rsplit("/", 1)[-1] for name in head.zip_names if name.count("/") <= 1}
    return "channels.json" in tops and ("users.json" in tops or len(tops) > 2)


def _teams(head: Head) -> bool:
    if head.zip_names:
        return bool(_TEAMS_JSON.search(head.first_json))
    return head.filename.lower().endswith(".json") and bool(
        _TEAMS_JSON.search(head.head)
    )


EXPORT_RULES: tuple[ExportRule, ...] = (
    ExportRule("slack", _slack, "a ZIP with channels.json (and users.json) at its top"),
    ExportRule(
        "teams",
        _teams,
        "JSON (or a ZIP of JSON files) of Microsoft Graph chatMessage objects",
    ),
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
    return next((r.kind for r in EXPORT_RULES if r.matches(head)), "")
