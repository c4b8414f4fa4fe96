"""A duration column: an amount and a unit, sorted in days."""

from __future__ import annotations

from typing import Any

from citations.values import DURATION
from citations.values import Duration as DurationValue
from tabular.column_types.base import ColumnType

# Days per unit, to sort "2 weeks" before "1 month".
_UNIT_DAYS = {"day": 1, "business_day": 1.4, "week": 7, "month": 30.44, "year": 365.25}


class Duration(ColumnType):
    def holds(self, value: object) -> bool:
        return isinstance(value, DurationValue)

    def to_json(self, value: DurationValue) -> dict:
        return {"kind": DURATION, "amount": value.amount, "unit": value.unit}

    def display(self, typed: dict) -> str:
        return DurationValue(int(typed["amount"]), typed["unit"], 0, 0).display

    def sort(self, typed: dict) -> tuple[str, float]:
        return "", float(typed["amount"]) * _UNIT_DAYS[typed["unit"]]

    def xlsx(self, typed: dict) -> tuple[Any, str | None]:
        unit = typed["unit"].replace("business_day", "business day")
        plural = unit if int(typed["amount"]) == 1 else unit + "s"
        return int(typed["amount"]), f'0 "{plural}"'


TYPE = Duration(
    "duration",
    "Duration",
    DURATION,
    "duration",
    'a period of time with its unit, e.g. "90 days", "1 year"',
    "90 days",
    aliases=("period", "term"),
    rule="order",
    rule_example="at least 60 days",
)
