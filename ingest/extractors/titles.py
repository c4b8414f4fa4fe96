"""A PDF's title, as a reader would give it (issue 26 item 4).

In order: the file's metadata Title, unless it reads as a file name or as the
program that wrote the file ("Microsoft Word - draft7.docx", "Document1");
else the first line of page 1 shaped like a heading ("MASTER SERVICES
AGREEMENT"), passing over the lines filings and drafts print above it
("Exhibit 10.1", "Execution Version", page numbers, redaction notices);
else the file name. `pdf_title` returns the title and the name of the rule
that chose it. Each rule is a row with examples the tests check. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ingest.extractors._common import title_from_filename

_FILE_EXTENSION = re.compile(
    r"\.(docx?|pdf|rtf|odt|wpd|txt|html?|xlsx?|pptx?|exe|tmp|tiff?|jpe?g|png)\s*$", re.I
)
_GENERATOR = re.compile(
    r"^\s*(microsoft\s+(word|excel|powerpoint)\b|powerpoint presentation|untitled|"
    r"document\s*\d*$|slide\s+\d+|adobe\b|acrobat\b|pdf\b|print\b|scan(ned)?\b|"
    r"img[_ ]?\d|image\s*\d|title$|none$|null$)",
    re.I,
)


@dataclass(frozen=True)
class TitleRule:
    """Why a candidate title is passed over; `examples` are candidates it rejects."""

    name: str
    rejects: Callable[[str], bool]
    examples: tuple[str, ...]


METADATA_REJECTS: tuple[TitleRule, ...] = (
    TitleRule(
        "written by a program",
        lambda t: bool(_GENERATOR.search(t)),
        (
            "Microsoft Word - draft7.docx",
            "Document1",
            "PowerPoint Presentation",
            "untitled",
        ),
    ),
    TitleRule(
        "a file name",
        lambda t: bool(_FILE_EXTENSION.search(t)) or "\\" in t or "/" in t,
        ("10811.exe", "contract_v3.pdf", "C:\\deals\\msa final"),
    ),
    TitleRule(
        "no words",
        lambda t: len(t.strip()) < 4 or " " not in t.strip(),
        ("MSA", "Agreement_2019_final", "x1"),
    ),
)

_LABEL = re.compile(
    r"^(exhibit|ex-|annex|appendix|schedule|attachment|form)\b[\s\d.\-–()a-z]{0,12}$",
    re.I,
)
_VERSION = re.compile(
    r"^(execution|conformed|final|signature|agreed)\s+(version|copy|form)$|"
    r"^(draft|confidential|strictly confidential|privileged( and confidential)?|"
    r"execution copy|for discussion purposes only)$",
    re.I,
)
_PAGE_NUMBER = re.compile(r"^(page\s+)?[-–(]?\s*\d+\s*[-–)]?(\s+of\s+\d+)?$", re.I)
_CODE = re.compile(r"\bno\.\s*\S*\d|^cusip\b|https?://|www\.|@\S+\.", re.I)
_SMALL_WORDS = {
    "a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with",
}  # fmt: skip
_CONTINUES = re.compile(
    r"(,|-|–|\b(between|and|of|for|by|with|the|among|to))\s*$", re.I
)


def _words(line: str) -> list[str]:
    return line.split()


def _capitalised(line: str) -> bool:
    """In capitals, or in title case (most words that count start with one)."""
    letters = [c for c in line if c.isalpha()]
    if letters and all(c.isupper() for c in letters):
        return True
    words = [
        w for w in _words(line) if w[:1].isalpha() and w.lower() not in _SMALL_WORDS
    ]
    if not words:
        return False
    return sum(w[0].isupper() for w in words) >= max(1, round(0.75 * len(words)))


HEADING_REJECTS: tuple[TitleRule, ...] = (
    TitleRule(
        "a filing's label",
        lambda line: bool(_LABEL.match(line)),
        ("Exhibit 10.1", "EXHIBIT 4.25", "EX-10.2", "Schedule 13 G", "Annex A"),
    ),
    TitleRule(
        "a version or confidentiality mark",
        lambda line: bool(_VERSION.match(line)),
        ("Execution Version", "EXECUTION COPY", "CONFIDENTIAL", "Draft"),
    ),
    TitleRule(
        "a page number",
        lambda line: bool(_PAGE_NUMBER.match(line)),
        ("- 1 -", "Page 1 of 12", "3"),
    ),
    TitleRule(
        "a code or an address",
        lambda line: bool(_CODE.search(line)),
        ("CUSIP No. 30734W208", "www.example.com", "Filed at https://sec.gov"),
    ),
    TitleRule(
        "no words",
        lambda line: sum(c.isalpha() for c in line) < 4,
        ("----------", "[***]", "(i)"),
    ),
    TitleRule(
        "too long for a heading",
        lambda line: len(_words(line)) > 14 or len(line) > 150,
        (
            "INFORMATION IN THIS EXHIBIT IDENTIFIED BY [ * * * ] IS CONFIDENTIAL AND HAS "
            "BEEN EXCLUDED BECAUSE IT IS BOTH (I) NOT",
        ),
    ),
    TitleRule(
        "a sentence",
        lambda line: (
            line.rstrip().endswith((".", ";", ":"))
            and (not line.rstrip(".").isupper() or len(_words(line)) > 6)
        ),
        (
            "Between Acme and Beta.",
            "Body text.",
            "The parties agree as follows:",
            "MATERIAL AND (II) WOULD LIKELY CAUSE COMPETITIVE HARM TO THE REGISTRANT.",
        ),
    ),
    TitleRule(
        "not set as a heading",
        lambda line: not _capitalised(line),
        ("This Agreement is made between", "the Supplier shall deliver the goods"),
    ),
)

# How far down page 1 a title may be: filings print a few lines above it.
LINES_LOOKED_AT = 15


def heading_rejected_by(line: str) -> str:
    """The name of the first rule that passes over `line` as a title, or ""."""
    return next((r.name for r in HEADING_REJECTS if r.rejects(line)), "")


def first_heading(page_text: str) -> str:
    """The first heading-like line of a page (joined with the next line when
    it plainly goes on: "Promotion Agreement Between" / "PageMaster
    Corporation and Go Call, Inc."), or ""."""
    lines = [" ".join(line.split()) for line in page_text.splitlines()]
    lines = [line for line in lines if line][:LINES_LOOKED_AT]
    for i, line in enumerate(lines):
        if heading_rejected_by(line):
            continue
        if _CONTINUES.search(line) and i + 1 < len(lines):
            following = lines[i + 1]
            if not heading_rejected_by(following) or _capitalised(following):
                joined = f"{line} {following}"
                if len(_words(joined)) <= 20:
                    return joined.rstrip(" ,-–")
        return line.rstrip(" ,-–")
    return ""


def metadata_title_rejected_by(title: str) -> str:
    return next((r.name for r in METADATA_REJECTS if r.rejects(title)), "")


def pdf_title(metadata_title: str, first_page: str, filename: str) -> tuple[str, str]:
    """(title, how it was chosen: "metadata" | "heading" | "filename")."""
    title = " ".join((metadata_title or "").split())
    if title and not metadata_title_rejected_by(title):
        return title, "metadata"
    heading = first_heading(first_page)
    if heading:
        return heading[:300], "heading"
    return title_from_filename(filename), "filename"
