"""Column types: one table saying, for each, what a cell holds.

A review column is typed (`ReviewColumn.Type`). Each type is a row of
`COLUMN_TYPES`, never an `if` chain: the names it is known by, the kind of
value `citations.values` reads for it from a quote, what the model is told to
answer and the name `llm.prompting` knows it by, and an example. The helpers
below turn a value into its stored form (`typed_json`), read a stored form
back for display and exports (`typed_display`, `xlsx_value`) and sort it
(`sort_key`). Pure: no database.

Former `list` columns are `text` (migration 0003): a list answer is a
sentence of names, and a text value is checked against its quote the way any
value is (its figures must be the quote's).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from citations import values
from citations.values import (
    DATE_KIND,
    DURATION,
    JURISDICTION,
    MONEY,
    NUMBER_KIND,
    PARTY,
    YES_NO,
    DateValue,
    Duration,
    Jurisdiction,
    Money,
    Number,
    OptionValue,
    Party,
)

OPTIONS = "options"
TEXT = "text"


@dataclass(frozen=True)
class ColumnType:
    key: str  # ReviewColumn.type
    label: str
    value_kind: str | None  # what citations.values reads; None for text
    provider_type: str  # the column type llm.prompting knows
    answer_format: str  # told to the model with the question
    example: str
    aliases: tuple[str, ...] = ()


COLUMN_TYPES: tuple[ColumnType, ...] = (
    ColumnType(
        TEXT,
        "Text",
        None,
        "text",
        "a short phrase copied or condensed from the passage",
        "Mutual; either party on 30 days' notice",
        aliases=("list", "string"),
    ),
    ColumnType(
        "date",
        "Date",
        DATE_KIND,
        "date",
        "a date as YYYY-MM-DD, as the passage states it",
        "2024-03-01",
    ),
    ColumnType(
        "duration",
        "Duration",
        DURATION,
        "duration",
        'a period of time with its unit, e.g. "90 days", "1 year"',
        "90 days",
        aliases=("period", "term"),
    ),
    ColumnType(
        "money",
        "Money",
        MONEY,
        "currency",
        "an amount with its currency code, e.g. USD 5,000,000",
        "USD 5,000,000",
        aliases=("amount", "currency"),
    ),
    ColumnType(
        "number",
        "Number",
        NUMBER_KIND,
        "number",
        "a number only (digits; a percentage with %)",
        "1,500",
        aliases=("integer", "percentage"),
    ),
    ColumnType(
        "yes_no",
        "Yes/No",
        YES_NO,
        "yes_no",
        'exactly "Yes" or "No"',
        "Yes",
        aliases=("yes/no", "yesno", "boolean", "bool"),
    ),
    ColumnType(
        "party",
        "Party",
        PARTY,
        "text",
        "the party's name as the passage writes it (several separated by '; ')",
        "Acme Tools Ltd",
        aliases=("parties", "entity"),
    ),
    ColumnType(
        "jurisdiction",
        "Jurisdiction",
        JURISDICTION,
        "text",
        'the state, province or country only, e.g. "New York", "England and Wales"',
        "New York",
        aliases=("law", "place", "governing law"),
    ),
    ColumnType(
        OPTIONS,
        "Options",
        OPTIONS,
        "text",
        "exactly one of the listed options",
        "Mutual",
        aliases=("option", "choice", "choices", "enum"),
    ),
)

BY_KEY = {t.key: t for t in COLUMN_TYPES}
_BY_NAME = {
    name: t for t in COLUMN_TYPES for name in (t.key, t.label.lower(), *t.aliases)
}


def column_type(name: str) -> ColumnType | None:
    """A column type by its key, label or an alias ("yes/no", "amount",
    "list"); None when unknown."""
    return _BY_NAME.get(" ".join(name.strip().lower().split()))


def type_of(key: str) -> ColumnType:
    return BY_KEY.get(key, BY_KEY[TEXT])


def names() -> str:
    """The type names, for error messages and the form's help."""
    return ", ".join(t.label.lower() for t in COLUMN_TYPES)


# --------------------------------------------------------------- typed values

Typed = Duration | Money | DateValue | Jurisdiction | Number | Party | OptionValue


def typed_json(value: Typed | bool | Sequence[Party] | None) -> dict | None:
    """A value as `Cell.typed_value` stores it (JSON, offsets dropped)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return {"kind": YES_NO, "value": value}
    if isinstance(value, Duration):
        return {"kind": DURATION, "amount": value.amount, "unit": value.unit}
    if isinstance(value, Money):
        return {"kind": MONEY, "currency": value.currency, "amount": str(value.amount)}
    if isinstance(value, DateValue):
        return {"kind": DATE_KIND, "value": value.value.isoformat()}
    if isinstance(value, Jurisdiction):
        return {"kind": JURISDICTION, "name": value.name}
    if isinstance(value, Number):
        return {
            "kind": NUMBER_KIND,
            "value": str(value.value),
            "percent": value.percent,
        }
    if isinstance(value, Party):
        return {"kind": PARTY, "names": [value.name]}
    if isinstance(value, OptionValue):
        return {"kind": OPTIONS, "value": value.name}
    if isinstance(value, Sequence) and all(isinstance(p, Party) for p in value):
        return {"kind": PARTY, "names": [p.name for p in value]}
    raise TypeError(f"not a typed value: {value!r}")


_UNIT_DAYS = {"day": 1, "business_day": 1.4, "week": 7, "month": 30.44, "year": 365.25}


def typed_display(typed: dict | None) -> str:
    """The short value a typed form reads as: "90 days", "USD 5,000,000",
    "2024-03-01", "Yes"."""
    if not typed:
        return ""
    kind = typed.get("kind")
    try:
        if kind == YES_NO:
            return "Yes" if typed["value"] else "No"
        if kind == DURATION:
            return Duration(int(typed["amount"]), typed["unit"], 0, 0).display
        if kind == MONEY:
            return Money(typed["currency"], Decimal(typed["amount"]), 0, 0).display
        if kind == DATE_KIND:
            return typed["value"]
        if kind == JURISDICTION:
            return typed["name"]
        if kind == NUMBER_KIND:
            return Number(Decimal(typed["value"]), 0, 0, bool(typed["percent"])).display
        if kind == PARTY:
            return "; ".join(typed["names"])
        if kind == OPTIONS:
            return typed["value"]
    except (KeyError, TypeError, ValueError, InvalidOperation):
        return ""
    return ""


def sort_key(typed: dict | None, shown: str) -> tuple:
    """Sorts a column's cells: by quantity (a duration in days, an amount
    within its currency, a date, a number), else by text; cells without a
    value last. Keys of one column compare with each other."""
    if typed:
        kind = typed.get("kind")
        try:
            if kind == DURATION:
                return (0, "", float(typed["amount"]) * _UNIT_DAYS[typed["unit"]])
            if kind == MONEY:
                return (0, typed["currency"], float(Decimal(typed["amount"])))
            if kind == DATE_KIND:
                return (0, "", dt.date.fromisoformat(typed["value"]).toordinal())
            if kind == NUMBER_KIND:
                return (0, "", float(Decimal(typed["value"])))
            if kind == YES_NO:
                return (0, "", 0 if typed["value"] else 1)
        except (KeyError, TypeError, ValueError, InvalidOperation):
            pass
    if shown:
        return (1, shown.casefold(), 0)
    return (2, "", 0)


def xlsx_value(typed: dict | None) -> tuple[Any, str | None]:
    """(cell value, number format) for a spreadsheet: amounts, numbers and
    durations as numbers with their unit in the format, dates as dates; None
    when the value is text."""
    if not typed:
        return None, None
    kind = typed.get("kind")
    try:
        if kind == MONEY:
            return Decimal(typed["amount"]), f'"{typed["currency"]}" #,##0.##'
        if kind == DATE_KIND:
            return dt.date.fromisoformat(typed["value"]), "yyyy-mm-dd"
        if kind == NUMBER_KIND:
            if typed.get("percent"):
                return Decimal(typed["value"]) / 100, "0.##%"
            return Decimal(typed["value"]), "#,##0.######"
        if kind == DURATION:
            unit = typed["unit"].replace("business_day", "business day")
            plural = unit if int(typed["amount"]) == 1 else unit + "s"
            return int(typed["amount"]), f'0 "{plural}"'
    except (KeyError, TypeError, ValueError, InvalidOperation):
        return None, None
    return None, None


def read_typed(
    text: str, key: str, options: Sequence[str] = ()
) -> Typed | bool | list[Party] | None:
    """The typed value a short value string states, for a column type (what
    a model or a reviewer wrote: "90 days", "USD 5m", "Yes"), or None."""
    kind = type_of(key).value_kind
    if kind is None:
        return None
    if kind == YES_NO:
        lowered = text.strip().lower()
        if lowered.startswith("yes") or lowered == "true":
            return True
        if lowered.startswith("no") or lowered == "false":
            return False
        return None
    if kind == OPTIONS:
        wanted = " ".join(text.split()).casefold()
        for option in options:
            if " ".join(option.split()).casefold() == wanted:
                return OptionValue(option, 0, len(text))
        return None
    if kind == PARTY:
        names = [n.strip() for n in text.replace("\n", ";").split(";") if n.strip()]
        return [Party(" ".join(n.split()), 0, 0) for n in names] or None
    found = values.find_values(text, kind)
    return min(found, key=lambda v: v.start) if found else None
