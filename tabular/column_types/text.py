"""A text column: a short phrase, checked against its quote like any value
(its figures must be the quote's); no typed value."""

from __future__ import annotations

from tabular.column_types.base import ColumnType

KEY = "text"

TYPE = ColumnType(
    KEY,
    "Text",
    None,
    "text",
    "a short phrase copied or condensed from the passage",
    "Mutual; either party on 30 days' notice",
    aliases=("list", "string"),
)
