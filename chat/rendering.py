"""Pure: turn an answer into segments the template escapes one by one.

No HTML is built here: the template loops over Text and Badge segments, so a
quote or answer containing `<script>` is only ever shown as text (SPEC §7).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# "(Source: [S1])", "(Source: [1][S2])", "[S1]", "[S1, S3]"
_MARKER = re.compile(
    r"[ \t]*\(\s*Sources?\s*:\s*((?:\[\s*S?\d+(?:\s*,\s*S?\d+)*\s*\]\s*,?\s*)+)\)"
    r"|[ \t]*((?:\[\s*S\d+(?:\s*,\s*S?\d+)*\s*\])+)",
    re.IGNORECASE,
)
_REF = re.compile(r"S?(\d+)", re.IGNORECASE)


@dataclass(frozen=True)
class Text:
    text: str
    kind: str = "text"
    uncited: bool = False  # a claim no verified, relevant citation supports
    start: int = 0  # where the text stands in the answer


@dataclass
class Badge:
    number: int
    ref: str
    item: Any = None
    kind: str = "badge"


@dataclass
class BadgeGroup:
    badges: list[Badge] = field(default_factory=list)
    kind: str = "badges"


@dataclass(frozen=True)
class CitedItem:
    """What the renderer needs of a citation: its ref, where the extraction
    placed it in the answer, and the object to show."""

    ref: str
    answer_start: int | None
    answer_end: int | None
    obj: Any


def reading_order(
    answer_start: int | None, answer_end: int | None, ref: str, quote: str = ""
) -> tuple[bool, int, bool, int, int, str, str]:
    """Sort key of a citation in its answer: where the answer places it, then
    (two refs at one place, "[S1, S3]", or refs the answer places nowhere)
    the source's number, then the quote. A total order on purpose: citations
    come from the database, which returns the rows of one insert in no
    promised order (PostgreSQL's changes as verification updates them), and
    the footer must read the same on every visit and every re-run."""
    number = _REF.fullmatch(ref or "")
    return (
        answer_start is None,
        answer_start or 0,
        answer_end is None,
        answer_end or 0,
        int(number.group(1)) if number else 1 << 30,
        ref or "",
        quote or "",
    )


def _refs(group: str) -> list[str]:
    return [f"S{m.group(1)}" for m in _REF.finditer(group)]


def marker_refs(text: str) -> list[str]:
    """The refs of the citation markers in `text`, in order ("S1", "S3")."""
    refs: list[str] = []
    for match in _MARKER.finditer(text):
        refs.extend(_refs(match.group(1) or match.group(2) or ""))
    return refs


def without_markers(text: str) -> str:
    return _MARKER.sub("", text)


def leading_markers(text: str) -> tuple[list[str], int]:
    """The refs of the markers `text` starts with, and how many characters
    they take: '(Source: [S1]) The other...' starts with S1's marker."""
    refs: list[str] = []
    end = 0
    while True:
        match = _MARKER.match(text, end)
        if not match:
            break
        refs.extend(_refs(match.group(1) or match.group(2) or ""))
        end = match.end()
    stripped = len(text[end:]) - len(text[end:].lstrip())
    return refs, end + stripped if refs else 0


def answer_segments(
    answer: str, items: Sequence[CitedItem]
) -> tuple[list, list[Badge]]:
    """Segments for the answer, and the footnote badges in order of appearance."""
    unused = list(items)
    footnotes: list[Badge] = []
    segments: list = []
    cursor = 0

    def take(ref: str, position: int) -> Badge:
        candidates = [i for i in unused if i.ref == ref]
        if candidates:
            chosen = min(
                candidates,
                key=lambda i: abs(
                    (i.answer_end if i.answer_end is not None else 10**9) - position
                ),
            )
            unused.remove(chosen)
            badge = Badge(number=len(footnotes) + 1, ref=ref, item=chosen.obj)
            footnotes.append(badge)
            return badge
        shown = next((b for b in footnotes if b.ref == ref), None)
        if shown is not None:  # the same source cited again: repeat its number
            return Badge(number=shown.number, ref=ref, item=shown.item)
        return Badge(number=0, ref=ref, item=None)

    for match in _MARKER.finditer(answer):
        group = match.group(1) or match.group(2) or ""
        refs = _refs(group)
        if not refs:
            continue
        if match.start() > cursor:
            segments.append(Text(answer[cursor : match.start()], start=cursor))
        segments.append(BadgeGroup([take(ref, match.end()) for ref in refs]))
        cursor = match.end()
    if cursor < len(answer):
        segments.append(Text(answer[cursor:], start=cursor))
    if unused:  # cited only in a trailing <citations> block or JSON list
        leftovers = BadgeGroup([take(i.ref, len(answer)) for i in list(unused)])
        segments.append(leftovers)
    return segments, footnotes


def mark_uncited(segments: Sequence, spans: Sequence[tuple[int, int]]) -> list:
    """Split the answer's text segments so the parts inside `spans` (offsets
    into the answer) are marked uncited; badges stay as they are."""
    if not spans:
        return list(segments)
    out: list = []
    for seg in segments:
        if not isinstance(seg, Text):
            out.append(seg)
            continue
        start, end = seg.start, seg.start + len(seg.text)
        cuts = sorted(
            {start, end} | {p for s, e in spans for p in (s, e) if start < p < end}
        )
        for a, b in itertools.pairwise(cuts):
            inside = any(s <= a and b <= e for s, e in spans)
            out.append(Text(seg.text[a - start : b - start], uncited=inside, start=a))
    return out


def answer_with_footnotes(
    segments: Sequence, footnotes: Sequence[Badge], describe
) -> str:
    """Plain text of an answer with its citations as numbered footnotes."""
    body = []
    for seg in segments:
        if isinstance(seg, Text):
            body.append(seg.text)
        else:
            body.append(
                "".join(
                    f"[{b.number}]" if b.number else f"[{b.ref}]" for b in seg.badges
                )
            )
    notes = [f"[{b.number}] {describe(b)}" for b in footnotes]
    return "".join(body).strip() + ("\n\n" + "\n".join(notes) if notes else "")
