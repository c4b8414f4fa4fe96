"""A Microsoft Teams channel export (Graph chatMessage JSON, or a zip of
them; ingest.connectors.teams reads it): one document per thread."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ingest.connectors.teams import read_teams_export
from ingest.source_kinds.base import ExportKind

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ingest.connectors.items import Item
    from ingest.connectors.slack import ExportLimits
    from ingest.exports import Head
    from ingest.models import Source

# Graph's chatMessage fields (Teams exports are that JSON).
_TEAMS_JSON = re.compile(
    rb'"messageType"\s*:\s*"message"|"@odata\.context"\s*:\s*"[^"]*chatMessage|'
    rb'"@odata\.type"\s*:\s*"#?microsoft\.graph\.chatMessage"'
)


class Teams(ExportKind):
    def recognises(self, head: Head) -> bool:
        if head.zip_names:
            return bool(_TEAMS_JSON.search(head.first_json))
        return head.filename.lower().endswith(".json") and bool(
            _TEAMS_JSON.search(head.head)
        )

    def read(
        self, data: bytes, source: Source, limits: ExportLimits
    ) -> tuple[Any, Iterable[Item]]:
        assert source.file is not None  # export_bytes checked
        return read_teams_export(
            data, filename=source.file.filename, workspace=source.name, limits=limits
        )


KIND = Teams(
    "teams",
    "Teams export",
    name="Teams",
    export_label="Teams channel export (.json or .zip)",
    recognised_by="JSON (or a ZIP of JSON files) of Microsoft Graph chatMessage objects",
)
