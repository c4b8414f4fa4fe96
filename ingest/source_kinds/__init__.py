"""Connectors: one table of source kinds, one module per kind.

`SOURCE_KINDS` is the table the code runs: `Source.kind`'s choices, the
export form's and API's choices, and the sync (`ingest.sources` asks the
source's kind to plan or run it) are derived from it, never from an `if`
chain on the kind. Each kind's module holds what only it does: reading an
export, a table, a page (docs/how-to-add-a-connector.md).
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from ingest.source_kinds import database, slack, teams, web
from ingest.source_kinds.base import Plan, SourceError, SourceKind, Synced
from lib.tables import row_added

__all__ = [
    "EXPORT_CHOICES",
    "SOURCE_KINDS",
    "Plan",
    "SourceError",
    "SourceKind",
    "Synced",
    "choices",
    "export_choices",
    "export_names",
    "kind_of",
    "registered",
]

# The table, in the order pages and the API list it.
SOURCE_KINDS: tuple[SourceKind, ...] = (slack.KIND, teams.KIND, database.KIND, web.KIND)


def kind_of(key: str) -> SourceKind | None:
    for kind in SOURCE_KINDS:
        if kind.key == key:
            return kind
    return None


def choices() -> list[tuple[str, str]]:
    """(key, label) per kind: `Source.kind`'s choices."""
    return [(k.key, k.label) for k in SOURCE_KINDS]


def export_choices() -> list[tuple[str, str]]:
    """(key, option) per export kind: the export form's and API's choices."""
    return [(k.key, k.export_label) for k in SOURCE_KINDS if k.export_label]


def export_names(joiner: str = " or ") -> str:
    """The export kinds as messages name them: "Slack or Teams"."""
    return joiner.join(k.name or k.label for k in SOURCE_KINDS if k.export_label)


# For the API schema's enum name (SPECTACULAR_SETTINGS): the shipped export
# kinds.
EXPORT_CHOICES = export_choices()


def registered(kind: SourceKind) -> AbstractContextManager[SourceKind]:
    """`kind` is a row of the table while the block runs (tests add a fake
    connector this way; a real one is a row of `SOURCE_KINDS`)."""
    return row_added(__name__, "SOURCE_KINDS", kind)
