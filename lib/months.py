"""The months, one table for every reader of dates: the cascade's guards and
its date values (citations), title lines (ingest) and the offline responder's
cell values (llm). Pure Python, no Django."""

from __future__ import annotations

__all__ = ["MONTHS", "MONTH_ABBREVIATIONS"]

MONTHS: dict[str, int] = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
}

# Three letters of each, and "sept", in calendar order ("jan", ..., "sep",
# "sept", "oct", ...).
MONTH_ABBREVIATIONS: dict[str, int] = {}
for _name, _number in MONTHS.items():
    MONTH_ABBREVIATIONS[_name[:3]] = _number
    if _name == "september":
        MONTH_ABBREVIATIONS["sept"] = _number
