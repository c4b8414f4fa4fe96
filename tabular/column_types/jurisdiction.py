"""A jurisdiction column: a state, province or country by its canonical name."""

from __future__ import annotations

from citations.values import JURISDICTION
from citations.values import Jurisdiction as JurisdictionValue
from tabular.column_types.base import ColumnType


class Jurisdiction(ColumnType):
    def holds(self, value: object) -> bool:
        return isinstance(value, JurisdictionValue)

    def to_json(self, value: JurisdictionValue) -> dict:
        return {"kind": JURISDICTION, "name": value.name}

    def display(self, typed: dict) -> str:
        return typed["name"]


TYPE = Jurisdiction(
    "jurisdiction",
    "Jurisdiction",
    JURISDICTION,
    "text",
    'the state, province or country only, e.g. "New York", "England and Wales"',
    "New York",
    aliases=("law", "place", "governing law"),
    rule="member",
    rule_example="one of England and Wales; New York",
)
