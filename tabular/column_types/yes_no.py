"""A yes/no column: a boolean; "Yes" sorts before "No"."""

from __future__ import annotations

from collections.abc import Sequence

from citations.values import YES_NO
from tabular.column_types.base import ColumnType, Support


class YesNo(ColumnType):
    def holds(self, value: object) -> bool:
        return isinstance(value, bool)

    def to_json(self, value: bool) -> dict:
        return {"kind": YES_NO, "value": value}

    def display(self, typed: dict) -> str:
        return "Yes" if typed["value"] else "No"

    def sort(self, typed: dict) -> tuple[str, float]:
        return "", 0 if typed["value"] else 1

    def read(self, text: str, options: Sequence[str] = ()) -> bool | None:
        lowered = text.strip().lower()
        if lowered.startswith("yes") or lowered == "true":
            return True
        if lowered.startswith("no") or lowered == "false":
            return False
        return None

    def support(self, value: str, quote: str, options: Sequence[str] = ()) -> Support:
        # Whether a clause answers is the relevance signal's to say: any
        # quote is consistent with a well-formed answer.
        if self.read(value) is None:
            return Support("unsupported", 'A yes/no column answers "Yes" or "No".')
        return Support(
            "supported", "A yes/no answer; the quote is the clause it rests on."
        )


TYPE = YesNo(
    "yes_no",
    "Yes/No",
    YES_NO,
    "yes_no",
    'exactly "Yes" or "No"',
    "Yes",
    aliases=("yes/no", "yesno", "boolean", "bool"),
    rule="is",
    rule_example="yes",
)
