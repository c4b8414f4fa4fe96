"""A text column: a short phrase, checked against its quote like any value
(its figures must be the quote's); no typed value."""

from __future__ import annotations

from collections.abc import Sequence

from citations import values
from tabular.column_types.base import ColumnType, Support

KEY = "text"

# The figures a text value may state, each of which must be the quote's.
_FIGURES = (values.DURATION, values.MONEY, values.DATE_KIND, values.NUMBER_KIND)


class Text(ColumnType):
    def support(self, value: str, quote: str, options: Sequence[str] = ()) -> Support:
        if not any(values.find_values(value, k) for k in _FIGURES):
            return Support("unchecked", "Text without a figure: read the quote.")
        if values.value_supported(value, quote):
            return Support("supported", "Its figures are the quote's.")
        return Support("unsupported", "A figure in the value is not in the quote.")


TYPE = Text(
    KEY,
    "Text",
    None,
    "text",
    "a short phrase copied or condensed from the passage",
    "Mutual; either party on 30 days' notice",
    aliases=("list", "string"),
    rule="",
)
