"""A party column: one or more company names as the passage writes them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from citations import values
from citations.values import PARTY
from citations.values import Party as PartyValue
from tabular.column_types.base import ColumnType, Support


class Party(ColumnType):
    def holds(self, value: object) -> bool:
        if isinstance(value, PartyValue):
            return True
        return isinstance(value, Sequence) and all(
            isinstance(p, PartyValue) for p in value
        )

    def to_json(self, value: PartyValue | Sequence[PartyValue]) -> dict:
        if isinstance(value, PartyValue):
            return {"kind": PARTY, "names": [value.name]}
        return {"kind": PARTY, "names": [p.name for p in value]}

    def display(self, typed: dict) -> str:
        return "; ".join(typed["names"])

    def read(self, text: str, options: Sequence[str] = ()) -> list[PartyValue] | None:
        names = [n.strip() for n in text.replace("\n", ";").split(";") if n.strip()]
        return [PartyValue(" ".join(n.split()), 0, 0) for n in names] or None

    def support(self, value: str, quote: str, options: Sequence[str] = ()) -> Support:
        # A name's defined term ('Acme Ltd ("Supplier")') need not be quoted.
        missing = [
            p.name
            for p in self.read(value) or []
            if not values.value_supported(
                re.sub(r'\s*\("[^"]*"\)$', "", p.name), quote, kind=PARTY
            )
        ]
        if missing:
            return Support(
                "unsupported", f"The quote does not name {', '.join(missing)}."
            )
        return Support("supported", "The quote names the parties.")


TYPE = Party(
    "party",
    "Party",
    PARTY,
    "text",
    "the party's name as the passage writes it (several separated by '; ')",
    "Acme Tools Ltd",
    aliases=("parties", "entity"),
)
