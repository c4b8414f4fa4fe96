"""Quoted text as a reader sees it: where the PDF broke a line, a space.

A PDF's text keeps the printed lines, so a quote read from it carries a line
break wherever the page wrapped ("within thirty\\n(30) days"). Shown as is,
an answer or a panel breaks mid-sentence. This module decides, for each line
break, whether it is the page's wrapping (shown as a space) or the text's own
(a paragraph, a list item, a heading in capitals: kept). Rendering only: the
stored text and every offset into it are unchanged.

Pure: no Django. A rule is a row of `LINE_RULES`; the first whose test holds
for the lines around a break decides (`line_break_rule` names it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_LIST_MARKER = re.compile(
    r"^\s*(?:[-–•*▪●·]\s|\(?[0-9]{1,3}[.)]\s|\(?[a-z]\)\s|\([ivxlc]{1,6}\)\s|"
    r"\([A-Z]\)\s|[A-Z][.)]\s|Section\s+\d|Article\s+[0-9IVXLC]|§)"
)
# A list's previous item (or its lead-in) ends so; "within thirty\n(30) days"
# does not, and its "(30)" is no list marker.
_ITEM_ENDS = re.compile(r"(?:[:;.,]|\b(?:and|or))\s*$")
_BREAK = re.compile(r"[ \t]*\n(?:[ \t]*\n)*[ \t]*")
# Quotation marks that open and close a quote in an answer.
_QUOTED = re.compile(r"“[^“”]*”|\"[^\"]*\"")


@dataclass(frozen=True)
class LineRule:
    """What a line break between `before` (the line it ends) and `after`
    (the line it starts) becomes. `blank`: the break holds an empty line."""

    name: str
    applies: Callable[[str, str, bool], bool]
    joiner: str
    examples: tuple[tuple[str, str], ...] = ()  # (text, as shown)


def _capitals(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


LINE_RULES: tuple[LineRule, ...] = (
    LineRule(
        "paragraph",
        lambda before, after, blank: blank,
        "\n\n",
        (("Delivery.\n\nPayment.", "Delivery.\n\nPayment."),),
    ),
    LineRule(
        "list item",
        lambda before, after, blank: (
            bool(_LIST_MARKER.match(after)) and bool(_ITEM_ENDS.search(before))
        ),
        "\n",
        (
            ("shall not:\n(a) sell;\n(b) lease", "shall not:\n(a) sell;\n(b) lease"),
            ("as follows:\n1. Rent", "as follows:\n1. Rent"),
        ),
    ),
    LineRule(
        "heading in capitals",
        lambda before, after, blank: _capitals(before),
        "\n",
        (("OFFICE LEASE\nThis Lease", "OFFICE LEASE\nThis Lease"),),
    ),
    LineRule(
        "hyphen at the line's end",
        lambda before, after, blank: (
            len(before) > 1
            and before.endswith("-")
            and before[-2].isalpha()
            and after[:1].islower()
        ),
        "",
        (("a non-\nexclusive licence", "a non-exclusive licence"),),
    ),
    LineRule(
        "wrapped by the page",
        lambda before, after, blank: True,
        " ",
        (("within thirty\n(30) days", "within thirty (30) days"),),
    ),
)


def line_break_rule(before: str, after: str, *, blank: bool = False) -> LineRule:
    """The rule that decides a break between two lines (the last always does)."""
    return next(r for r in LINE_RULES if r.applies(before, after, blank))


def reflow(text: str) -> str:
    """`text` with each line break shown as its rule says."""
    if "\n" not in text:
        return text
    out: list[str] = []
    last = 0
    for match in _BREAK.finditer(text):
        start, end = match.span()
        line_start = text.rfind("\n", 0, start) + 1
        before = text[line_start:start]
        line_end = text.find("\n", end)
        after = text[end : len(text) if line_end < 0 else line_end]
        blank = match.group().count("\n") > 1
        if not before.strip() or not after.strip():
            out.append(text[last:end])  # a break at either end of the text: kept
        else:
            out.append(
                text[last:start] + line_break_rule(before, after, blank=blank).joiner
            )
        last = end
    out.append(text[last:])
    return "".join(out)


def reflow_quoted(text: str) -> str:
    """`text` with only the quotations in it reflowed: an answer's own line
    breaks (its lists, its paragraphs) are the writer's, a quote's are the
    PDF's."""
    if "\n" not in text:
        return text
    return _QUOTED.sub(lambda m: reflow(m.group()), text)
