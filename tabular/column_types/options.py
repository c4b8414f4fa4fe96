"""An options column: exactly one of the column's own options (listed in the
operator's order on `ReviewColumn.options`)."""

from __future__ import annotations

from collections.abc import Sequence

from citations.values import OptionValue
from tabular.column_types.base import ColumnType, Support

KEY = "options"


class Options(ColumnType):
    def holds(self, value: object) -> bool:
        return isinstance(value, OptionValue)

    def to_json(self, value: OptionValue) -> dict:
        return {"kind": KEY, "value": value.name}

    def display(self, typed: dict) -> str:
        return typed["value"]

    def read(self, text: str, options: Sequence[str] = ()) -> OptionValue | None:
        wanted = " ".join(text.split()).casefold()
        for option in options:
            if " ".join(option.split()).casefold() == wanted:
                return OptionValue(option, 0, len(text))
        return None

    def support(self, value: str, quote: str, options: Sequence[str] = ()) -> Support:
        if self.read(value, options) is None:
            return Support(
                "unsupported", "The value is not one of the column's options."
            )
        return Support("supported", "One of the column's options.")


TYPE = Options(
    KEY,
    "Options",
    KEY,
    "text",
    "exactly one of the listed options",
    "Mutual",
    aliases=("option", "choice", "choices", "enum"),
    rule="member",
    rule_example="one of Mutual",
)
