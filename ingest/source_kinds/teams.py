"""A Microsoft Teams channel export (Graph chatMessage JSON, or a zip of
them; ingest.connectors.teams reads it): one document per thread."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ingest.connectors.slack import ExportError
from ingest.connectors.teams import read_teams_export
from ingest.source_kinds.base import (
    Plan,
    SourceError,
    SourceKind,
    export_bytes,
    export_limits,
    export_plan,
)

if TYPE_CHECKING:
    from ingest.exports import Head
    from ingest.models import Source

# Graph's chatMessage fields (Teams exports are that JSON).
_TEAMS_JSON = re.compile(
    rb'"messageType"\s*:\s*"message"|"@odata\.context"\s*:\s*"[^"]*chatMessage|'
    rb'"@odata\.type"\s*:\s*"#?microsoft\.graph\.chatMessage"'
)


class Teams(SourceKind):
    def recognises(self, head: Head) -> bool:
        if head.zip_names:
            return bool(_TEAMS_JSON.search(head.first_json))
        return head.filename.lower().endswith(".json") and bool(
            _TEAMS_JSON.search(head.head)
        )

    def plan(self, source: Source) -> Plan:
        data = export_bytes(source)
        assert source.file is not None  # export_bytes checked
        try:
            export, items = read_teams_export(
                data,
                filename=source.file.filename,
                workspace=source.name,
                limits=export_limits(),
            )
        except ExportError as exc:
            raise SourceError(exc.code, exc.message) from exc
        return export_plan(export, items)


KIND = Teams(
    "teams",
    "Teams export",
    name="Teams",
    export_label="Teams channel export (.json or .zip)",
    recognised_by="JSON (or a ZIP of JSON files) of Microsoft Graph chatMessage objects",
)
