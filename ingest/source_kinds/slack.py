"""A Slack workspace export (the standard zip; ingest.connectors.slack reads
it): one document per thread."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ingest.connectors.slack import ExportError, read_slack_export
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


class Slack(SourceKind):
    def recognises(self, head: Head) -> bool:
        tops = {
            name.rsplit("/", 1)[-1] for name in head.zip_names if name.count("/") <= 1
        }
        return "channels.json" in tops and ("users.json" in tops or len(tops) > 2)

    def plan(self, source: Source) -> Plan:
        data = export_bytes(source)
        try:
            export, items = read_slack_export(
                data, workspace=source.name, limits=export_limits()
            )
        except ExportError as exc:
            raise SourceError(exc.code, exc.message) from exc
        return export_plan(export, items)


KIND = Slack(
    "slack",
    "Slack export",
    name="Slack",
    export_label="Slack workspace export (.zip)",
    recognised_by="a ZIP with channels.json (and users.json) at its top",
)
