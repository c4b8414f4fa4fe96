"""A money column: an amount with its currency; amounts sort within their
currency."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from citations.values import MONEY
from citations.values import Money as MoneyValue
from tabular.column_types.base import ColumnType


class Money(ColumnType):
    def holds(self, value: object) -> bool:
        return isinstance(value, MoneyValue)

    def to_json(self, value: MoneyValue) -> dict:
        return {"kind": MONEY, "currency": value.currency, "amount": str(value.amount)}

    def display(self, typed: dict) -> str:
        return MoneyValue(typed["currency"], Decimal(typed["amount"]), 0, 0).display

    def sort(self, typed: dict) -> tuple[str, float]:
        return typed["currency"], float(Decimal(typed["amount"]))

    def xlsx(self, typed: dict) -> tuple[Any, str | None]:
        return Decimal(typed["amount"]), f'"{typed["currency"]}" #,##0.##'


TYPE = Money(
    "money",
    "Money",
    MONEY,
    "currency",
    "an amount with its currency code, e.g. USD 5,000,000",
    "USD 5,000,000",
    aliases=("amount", "currency"),
    rule="order",
    rule_example="at most USD 1,000,000",
)
