"""A Slack workspace export (the standard zip; ingest.connectors.slack reads
it): one document per thread."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ingest.connectors.slack import read_slack_export
from ingest.source_kinds.base import ExportKind

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ingest.connectors.items import Item
    from ingest.connectors.slack import ExportLimits
    from ingest.exports import Head
    from ingest.models import Source


class Slack(ExportKind):
    def recognises(self, head: Head) -> bool:
        tops = {
            name.rsplit("/", 1)[-1] for name in head.zip_names if name.count("/") <= 1
        }
        return "channels.json" in tops and ("users.json" in tops or len(tops) > 2)

    def read(
        self, data: bytes, source: Source, limits: ExportLimits
    ) -> tuple[Any, Iterable[Item]]:
        return read_slack_export(data, workspace=source.name, limits=limits)


KIND = Slack(
    "slack",
    "Slack export",
    name="Slack",
    export_label="Slack workspace export (.zip)",
    recognised_by="a ZIP with channels.json (and users.json) at its top",
)
