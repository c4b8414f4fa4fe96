"""Sentence splitting: `(start, end)` spans of verbatim sentences.

A span never holds a running header or footer line, and no sentence starts
right after a negating or conditioning word (`lib.negations.HOLDING_WORDS`).
The offline responder quotes these spans, relevance and tabular read passages
by them, and chat's coverage counts them. Pure Python, no Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lib.negations import HOLDING_WORDS

__all__ = ["MAX_SENTENCE_CHARS", "WINDOW_CHARS", "split_sentences"]

# A quote longer than this is cut at a word boundary (still a verbatim slice):
# tables and lists without full stops would otherwise become one huge "sentence".
MAX_SENTENCE_CHARS = 400
WINDOW_CHARS = 300

# Candidate boundary: sentence punctuation (plus closing quotes/brackets) then
# whitespace; a blank line; or a line break before a list bullet.
# A running header or footer line (issue 32): a page number, a
# confidential-treatment mark, an EDGAR "Source: FILER, FORM, DATE" line,
# a confidentiality legend set alone on its line. Never part of a sentence.
_FURNITURE_LINE = (
    r"(?:[Pp]age\s+\d+(?:\s+of\s+\d+)?|[-–]\s*\d+\s*[-–]|\d{1,4}"
    r"|\*{0,3}\s*(?i:confidential\s+treatment\s+requested)[^\n]{0,120}"
    r"|(?i:source):\s+[^\n]{0,160}?\d{1,2}/\d{1,2}/\d{2,4}"
    r"|(?i:(?:strictly\s+)?confidential(?:\s+(?:and|&)\s+proprietary)?)"
    r"|(?i:table\s+of\s+contents))"
)
_BOUNDARY_RE = re.compile(
    r"(?P<punct>(?<=[.!?])[\"'”’)\]]*\s+)"
    r"|\n[ \t]*\n\s*"
    rf"|(?P<furniture>(?:^|\n)[ \t]*{_FURNITURE_LINE}[ \t]*(?=\n|$))"
    r"|\n(?=[ \t]*(?:[-•*–]|\(?[0-9a-z]{1,3}[.)])\s)"
)
_PAGE_FURNITURE_RE = re.compile(_FURNITURE_LINE, re.IGNORECASE)
# A sentence never starts right after one of HOLDING_WORDS (lib.negations):
# "... shall not be liable unless" / "the Distributor ..." is one condition,
# and a quote of its second half reads as the opposite (the verifier refuses
# it: dropped_negation).
_LAST_WORD = re.compile(r"(\w+)\W*$")


def _holds(text: str, end: int) -> bool:
    """Does text[:end] end with a negating or conditioning word?"""
    match = _LAST_WORD.search(text, max(0, end - 30), end)
    return match is not None and match.group(1).lower() in HOLDING_WORDS


_ABBREVIATION_TEXT = (
    "e.g i.e mr mrs ms dr prof st no nos sec art arts inc ltd co corp vs cf fig "
    "approx jan feb mar apr jun jul aug sep sept oct nov dec para pp p"
)
_ABBREVIATIONS = frozenset(_ABBREVIATION_TEXT.split())
_LAST_WORD_RE = re.compile(r"([\w.]+)\.[\"'”’)\]]*\s*$")


def _is_abbreviation(text: str, boundary: int) -> bool:
    match = _LAST_WORD_RE.search(text, max(0, boundary - 20), boundary)
    if not match:
        return False
    word = match.group(1).lower()
    # "J. Smith", "U.S. law", "e.g. this": not the end of a sentence.
    dotted = "." in word and not word.replace(".", "").isdigit()
    return word in _ABBREVIATIONS or len(word) == 1 or dotted


def _split_long(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    # Over-long "sentences" (tables, lists, a long clause): break at line ends
    # or semicolons, then at word boundaries. A PDF breaks a long clause at
    # every line, so a line that goes on in lower case is joined to the one
    # before while they fit WINDOW_CHARS: a quote is a clause's worth of
    # words, not one printed line of it ("the Distributor nor the Company
    # shall have a liability for"). Table rows (a capital or a digit next)
    # stay apart.
    pieces: list[tuple[int, int]] = []
    for m in re.finditer(r"[^\n;]+;?", text[start:end]):
        s, e = start + m.start(), start + m.end()
        if pieces:
            ps, pe = pieces[-1]
            joins = (
                text[pe - 1] != ";"
                and (text[s:e].lstrip()[:1].islower() or _holds(text, pe))
                and e - ps <= WINDOW_CHARS
            )
            if joins:
                pieces[-1] = (ps, e)
                continue
        pieces.append((s, e))
    for s, e in pieces:
        while e - s > MAX_SENTENCE_CHARS:
            cut = text.rfind(" ", s, s + WINDOW_CHARS)
            # Never leave "not" / "unless" as the last word before a cut.
            while cut > s and _holds(text, cut):
                cut = text.rfind(" ", s, cut)
            cut = cut if cut > s else s + WINDOW_CHARS
            yield s, cut
            s = cut
        yield s, e


def split_sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` spans of the sentences of ``text``.

    Each span is stripped of surrounding whitespace, so ``text[start:end]`` is
    a clean verbatim quote; line breaks *inside* a sentence are kept as they are.
    Running headers and footers (page numbers, "*Confidential treatment
    requested", "Source: FILER, N-6, 7/1/2019") are no part of any sentence,
    and no sentence starts right after a negating or conditioning word
    (HOLDING_WORDS): the boundary is passed over, or, where a running footer
    cut the sentence, its second half is not offered as a quote.
    """
    spans: list[tuple[int, int]] = []
    # Pieces that go on a sentence cut by a running header or footer after a
    # negating word: never quoted alone.
    held: set[int] = set()
    start = 0
    for match in _BOUNDARY_RE.finditer(text):
        if match.lastgroup == "punct" and _is_abbreviation(text, match.start()):
            continue
        furniture = match.lastgroup == "furniture"
        cut_off = match.lastgroup is None  # a blank line or a bullet, no full stop
        if cut_off and _holds(text, match.start()):
            continue  # "... unless" / "the Distributor ...": one sentence
        if furniture and _holds(text, match.start()) and start < match.start():
            held.add(match.end())
        kept = 0 if furniture else len(match.group(0).rstrip())
        spans.append((start, match.start() + kept))
        start = match.end()
    spans.append((start, len(text)))
    result: list[tuple[int, int]] = []
    for s, e in spans:
        if s in held:
            continue
        pieces = _split_long(text, s, e) if e - s > MAX_SENTENCE_CHARS else [(s, e)]
        for ps, pe in pieces:
            ps, pe = _without_furniture_lines(text, ps, pe)
            segment = text[ps:pe]
            stripped = segment.strip()
            if not stripped or _PAGE_FURNITURE_RE.fullmatch(stripped):
                continue
            lead = len(segment) - len(segment.lstrip())
            result.append((ps + lead, ps + lead + len(stripped)))
    return result


def _without_furniture_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """The span less the running header and footer lines at its start and end
    (after a sentence's full stop the boundary took the line break the
    furniture rule looks for)."""
    while start < end:
        line_end = text.find("\n", start, end)
        if line_end < 0 or not _PAGE_FURNITURE_RE.fullmatch(
            text[start:line_end].strip()
        ):
            break
        start = line_end + 1
    while start < end:
        line_start = text.rfind("\n", start, end)
        if line_start < 0 or not _PAGE_FURNITURE_RE.fullmatch(
            text[line_start + 1 : end].strip()
        ):
            break
        end = line_start
    return start, end
