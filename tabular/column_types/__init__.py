"""Column types: one table saying, for each, what a cell holds.

A review column is typed (`ReviewColumn.type`). Each type is a row of
`COLUMN_TYPES`, never an `if` chain, and its own module in this folder: the
names it is known by, the kind of value `citations.values` reads for it from
a quote, what the model is told to answer (the one per-type instruction: the
prompt names the type, the question carries `answer_format`), an example, how
its value is stored, shown, sorted and exported, and whether a value is
consistent with its verified quote (`support`). The model field's choices
and check constraint, the form's help and the docs are derived from the table
(docs/how-to-add-a-column-type.md). The helpers below find the row for a name,
a stored form or a value and ask it. Pure: no database.

Former `list` columns are `text` (migration 0003): a list answer is a
sentence of names, and a text value is checked against its quote the way any
value is (its figures must be the quote's).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from decimal import InvalidOperation
from typing import Any

# citations.values and citations.cascade import each other and only load
# cascade first; tabular.models imports this table before anything else of
# citations, so it loads the cascade here.
import citations.cascade  # noqa: F401
from citations.values import (
    DateValue,
    Duration,
    Jurisdiction,
    Money,
    Number,
    OptionValue,
    Party,
)
from lib.tables import row_added
from tabular.column_types import (
    date,
    duration,
    jurisdiction,
    money,
    number,
    options,
    party,
    text,
    yes_no,
)
from tabular.column_types.base import ColumnType, Support

__all__ = [
    "COLUMN_TYPES",
    "OPTIONS",
    "TEXT",
    "ColumnType",
    "Support",
    "Typed",
    "choices",
    "column_type",
    "keys",
    "names",
    "read_typed",
    "registered",
    "sort_key",
    "type_of",
    "typed_display",
    "typed_json",
    "xlsx_value",
]

OPTIONS = options.KEY
TEXT = text.KEY

# The table, in the order forms and docs list it.
COLUMN_TYPES: tuple[ColumnType, ...] = (
    text.TYPE,
    date.TYPE,
    duration.TYPE,
    money.TYPE,
    number.TYPE,
    yes_no.TYPE,
    party.TYPE,
    jurisdiction.TYPE,
    options.TYPE,
)

# A stored form malformed by hand or by an old release reads as "no value".
_MALFORMED = (KeyError, TypeError, ValueError, InvalidOperation)


def _fold(name: str) -> str:
    return " ".join(name.strip().lower().split())


def _by_key() -> dict[str, ColumnType]:
    return {t.key: t for t in COLUMN_TYPES}


def column_type(name: str) -> ColumnType | None:
    """A column type by its key, label or an alias ("yes/no", "amount",
    "list"); None when unknown."""
    wanted = _fold(name)
    for kind in COLUMN_TYPES:
        if wanted in (kind.key, kind.label.lower(), *kind.aliases):
            return kind
    return None


def type_of(key: str) -> ColumnType:
    by_key = _by_key()
    return by_key.get(key, by_key[TEXT])


def keys() -> list[str]:
    """The stored values, for the model's check constraint."""
    return [t.key for t in COLUMN_TYPES]


def choices() -> list[tuple[str, str]]:
    """(key, label) per type: the model field's, the form's and the API's
    choices."""
    return [(t.key, t.label) for t in COLUMN_TYPES]


def names() -> str:
    """The type names, for error messages and the form's help."""
    return ", ".join(t.label.lower() for t in COLUMN_TYPES)


def registered(kind: ColumnType) -> AbstractContextManager[ColumnType]:
    """`kind` is a row of the table while the block runs (tests add a fake
    type this way; a real one is a row of `COLUMN_TYPES`)."""
    return row_added(__name__, "COLUMN_TYPES", kind)


# --------------------------------------------------------------- typed values

Typed = Duration | Money | DateValue | Jurisdiction | Number | Party | OptionValue


def _stored_type(typed: dict) -> ColumnType | None:
    wanted = typed.get("kind")
    for kind in COLUMN_TYPES:
        if kind.value_kind is not None and kind.value_kind == wanted:
            return kind
    return None


def typed_json(value: Any) -> dict | None:
    """A value as `Cell.typed_value` stores it (JSON, offsets dropped)."""
    if value is None:
        return None
    for kind in COLUMN_TYPES:
        if kind.holds(value):
            return kind.to_json(value)
    raise TypeError(f"not a typed value: {value!r}")


def typed_display(typed: dict | None) -> str:
    """The short value a typed form reads as: "90 days", "USD 5,000,000",
    "2024-03-01", "Yes"."""
    kind = _stored_type(typed) if typed else None
    if kind is None:
        return ""
    try:
        return kind.display(typed)
    except _MALFORMED:
        return ""


def sort_key(typed: dict | None, shown: str) -> tuple:
    """Sorts a column's cells: by quantity (a duration in days, an amount
    within its currency, a date, a number), else by text; cells without a
    value last. Keys of one column compare with each other."""
    kind = _stored_type(typed) if typed else None
    if kind is not None:
        try:
            quantity = kind.sort(typed)
        except _MALFORMED:
            quantity = None
        if quantity is not None:
            return (0, *quantity)
    if shown:
        return (1, shown.casefold(), 0)
    return (2, "", 0)


def xlsx_value(typed: dict | None) -> tuple[Any, str | None]:
    """(cell value, number format) for a spreadsheet: amounts, numbers and
    durations as numbers with their unit in the format, dates as dates; None
    when the value is text."""
    kind = _stored_type(typed) if typed else None
    if kind is None:
        return None, None
    try:
        return kind.xlsx(typed)
    except _MALFORMED:
        return None, None


def read_typed(text: str, key: str, options: Sequence[str] = ()) -> Any:
    """The typed value a short value string states, for a column type (what
    a model or a reviewer wrote: "90 days", "USD 5m", "Yes"), or None."""
    return type_of(key).read(text, options)
