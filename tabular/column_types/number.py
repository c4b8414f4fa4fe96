"""A number column: a quantity or a percentage."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from citations.values import NUMBER_KIND
from citations.values import Number as NumberValue
from tabular.column_types.base import ColumnType


class Number(ColumnType):
    def holds(self, value: object) -> bool:
        return isinstance(value, NumberValue)

    def to_json(self, value: NumberValue) -> dict:
        return {
            "kind": NUMBER_KIND,
            "value": str(value.value),
            "percent": value.percent,
        }

    def display(self, typed: dict) -> str:
        return NumberValue(
            Decimal(typed["value"]), 0, 0, bool(typed["percent"])
        ).display

    def sort(self, typed: dict) -> tuple[str, float]:
        return "", float(Decimal(typed["value"]))

    def xlsx(self, typed: dict) -> tuple[Any, str | None]:
        if typed.get("percent"):
            return Decimal(typed["value"]) / 100, "0.##%"
        return Decimal(typed["value"]), "#,##0.######"


TYPE = Number(
    "number",
    "Number",
    NUMBER_KIND,
    "number",
    "a number only (digits; a percentage with %)",
    "1,500",
    aliases=("integer", "percentage"),
    rule="order",
    rule_example="at most 5%",
)
