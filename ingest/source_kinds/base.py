"""What a connector is: one row of `ingest.source_kinds.SOURCE_KINDS`.

A kind says what `Source.kind` stores for it and how its sources are synced:
`plan` reads the source's items (the sync stores new and changed ones and
soft-deletes the gone ones it covers, ingest.sources), or `sync` does the
whole sync itself (a web page is captured, then ingested like an upload).
An export kind (`export_label` set) is offered by the export form and API:
an uploaded file, read again by every sync.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings

from ingest.connectors.items import Item, LazyItem, Warning_
from ingest.connectors.netpolicy import AddressPolicy
from ingest.connectors.slack import ExportError, ExportLimits
from lib.exceptions import DocuIQError

if TYPE_CHECKING:
    from ingest.exports import Head
    from ingest.models import Source

# (stats, warnings) of a finished sync: created, updated, unchanged, deleted
# and items counted.
Synced = tuple[dict[str, int], list[Warning_]]


class SourceError(DocuIQError):
    """A source that cannot be registered or read: `code` and a message for
    the person who set it up (the API answers 400 with both)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


@dataclass
class Plan:
    """What a connector read: its items (an iterator), and which keys a
    missing item may be deleted for."""

    items: Iterator[Item | LazyItem]
    covers: Any  # (key) -> bool
    warnings: list[Warning_]
    total: int = 0


def address_policy() -> AddressPolicy:
    return AddressPolicy(
        allow_loopback=settings.CONNECTORS_ALLOW_LOOPBACK,
        allow_private=settings.CONNECTORS_ALLOW_PRIVATE_NETWORKS,
    )


def export_limits() -> ExportLimits:
    return ExportLimits(max_channel_messages=settings.CONNECTORS_MAX_CHANNEL_MESSAGES)


@dataclass(frozen=True)
class SourceKind:
    key: str  # Source.kind (at most 8 characters)
    label: str  # Source.get_kind_display()
    # What messages call it ("Choose Slack or Teams …"); "" for the label.
    name: str = ""
    # The export form's option for an uploaded export; "" when the kind is
    # registered otherwise (a URL, a connection).
    export_label: str = ""
    # What an upload recognised as this kind's export looks like (the upload
    # form and `manage.py ingest` make it a source); "" when none is.
    recognised_by: str = ""

    def recognises(self, head: Head) -> bool:
        """Whether an upload (its head, ingest.exports) is this kind's export."""
        return False

    def plan(self, source: Source) -> Plan:
        raise SourceError("bad_kind", f"Unknown source kind {source.kind!r}.")

    def sync(self, source: Source, store: Callable[[Source, Plan], Synced]) -> Synced:
        """The whole sync: by default `store` writes what `plan` read."""
        return store(source, self.plan(source))


@dataclass(frozen=True)
class ExportKind(SourceKind):
    """An uploaded export, read again by every sync: a kind says only how
    its bytes `read` into (export, items); a reader's ExportError is the
    source's error."""

    def read(
        self, data: bytes, source: Source, limits: ExportLimits
    ) -> tuple[Any, Iterable[Item]]:
        raise NotImplementedError

    def plan(self, source: Source) -> Plan:
        data = export_bytes(source)
        try:
            export, items = self.read(data, source, export_limits())
        except ExportError as exc:
            raise SourceError(exc.code, exc.message) from exc
        return export_plan(export, items)


def export_plan(export: Any, items: Iterable[Item]) -> Plan:
    """The plan of an export: its items, deleting only what the export
    says it still covers (an export of other dates deletes nothing)."""

    def checked() -> Iterator[Item]:
        try:
            yield from items
        except ExportError as exc:
            raise SourceError(exc.code, exc.message) from exc

    return Plan(items=checked(), covers=export.covers, warnings=export.warnings)


def export_bytes(source: Source) -> bytes:
    """The export file an export source was given."""
    if source.file is None:
        raise SourceError("no_export", "This source has no export file.")
    return source.file.blob.open("rb").read()
