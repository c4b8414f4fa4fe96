"""What a column type is: one row of `tabular.column_types.COLUMN_TYPES`.

A type with a typed value overrides the methods that concern it in its own
module (`tabular/column_types/money.py`, …); the defaults are a text column's:
no typed value, nothing to display, sorted as text, a text cell in XLSX. The
methods that read a stored form get the JSON `Cell.typed_value` holds; a
malformed one may raise KeyError, TypeError, ValueError or InvalidOperation,
which `tabular.column_types` turns into "no value". Pure: no database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citations import values


@dataclass(frozen=True)
class Support:
    """Whether a value is consistent with its verified quote."""

    state: str  # supported | unsupported | unchecked (tabular.models.Cell.Support)
    reason: str


@dataclass(frozen=True)
class ColumnType:
    key: str  # ReviewColumn.type
    label: str
    value_kind: str | None  # what citations.values reads; None for text
    provider_type: str  # the column type the model client knows
    answer_format: str  # told to the model with the question
    example: str
    aliases: tuple[str, ...] = ()
    # How a playbook position of this type is checked (playbook.rules): by
    # "order" (at least / at most), "member" (one of / none of) or "is"
    # (yes / no); "" for a position with no typed rule (text); None when no
    # position has this type (a party's name is no standard to hold a
    # contract to).
    rule: str | None = None
    # Such a rule in words, for the messages that say how to write one.
    rule_example: str = ""

    def holds(self, value: object) -> bool:
        """Whether `value` (what citations.values or `read` returned) is
        this type's typed value."""
        return False

    def to_json(self, value: Any) -> dict:
        """`value` as `Cell.typed_value` stores it (offsets dropped)."""
        raise TypeError(f"{self.key} columns hold no typed value")

    def display(self, typed: dict) -> str:
        """The short value a stored form reads as: "90 days", "Yes"."""
        return ""

    def sort(self, typed: dict) -> tuple[str, float] | None:
        """(group, quantity) a stored form sorts by within its column, or
        None to sort by the text shown."""
        return None

    def xlsx(self, typed: dict) -> tuple[Any, str | None]:
        """(cell value, number format) in a spreadsheet; (None, None) for a
        text cell."""
        return None, None

    def read(self, text: str, options: Sequence[str] = ()) -> Any:
        """The typed value a short value string states (what a model or a
        reviewer wrote), or None: by default the first value of the type's
        kind that citations.values finds."""
        if self.value_kind is None:
            return None
        found = values.find_values(text, self.value_kind)
        return min(found, key=lambda v: v.start) if found else None

    def support(self, value: str, quote: str, options: Sequence[str] = ()) -> Support:
        """Is `value` (stripped, not empty) consistent with `quote` (the
        verified passage's own text, not empty)? By default the value must
        read as this type, and be a value the quote states
        (`citations.values.value_supported`)."""
        typed = self.read(value)
        if typed is None:
            return Support(
                "unsupported", f"The value does not read as a {self.label.lower()}."
            )
        if values.value_supported(typed, quote):
            return Support("supported", f"The quote states {typed.display!r}.")
        return Support("unsupported", f"The quote does not state {typed.display!r}.")
