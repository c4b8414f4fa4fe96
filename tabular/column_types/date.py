"""A date column: stored as ISO, a date in spreadsheets."""

from __future__ import annotations

import datetime as dt
from typing import Any

from citations.values import DATE_KIND, DateValue
from tabular.column_types.base import ColumnType


class Date(ColumnType):
    def holds(self, value: object) -> bool:
        return isinstance(value, DateValue)

    def to_json(self, value: DateValue) -> dict:
        return {"kind": DATE_KIND, "value": value.value.isoformat()}

    def display(self, typed: dict) -> str:
        return typed["value"]

    def sort(self, typed: dict) -> tuple[str, float]:
        return "", dt.date.fromisoformat(typed["value"]).toordinal()

    def xlsx(self, typed: dict) -> tuple[Any, str | None]:
        return dt.date.fromisoformat(typed["value"]), "yyyy-mm-dd"


TYPE = Date(
    "date",
    "Date",
    DATE_KIND,
    "date",
    "a date as YYYY-MM-DD, as the passage states it",
    "2024-03-01",
    rule="order",
    rule_example="at least 2025-01-01",
)
