"""Hypothesis strategies for spreadsheet text, shared by every export's tests."""

from __future__ import annotations

from hypothesis import strategies as st

from lib.spreadsheets import FORMULA_LEADS

# Text a document or a model could write: any printable character, and the
# white space a spreadsheet may skip before a formula.
TEXT = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\t\r\n"),
    max_size=40,
)
# Text a spreadsheet would run if it were written as it is.
HOSTILE = st.builds(
    lambda lead, rest: lead + rest, st.sampled_from(FORMULA_LEADS), TEXT
)
