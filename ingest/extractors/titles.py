"""A document's title, as a lawyer says it (issue 26 item 4, issue 32 item 1).

The title names the document's kind: "Distributor Agreement" from its heading
(passing over the legends, stamps, logos, page furniture and filing labels
EDGAR exhibits print above it), else from the preamble ('THIS DISTRIBUTOR
AGREEMENT (the "Agreement")'), else from the file name's kind
("..._Reseller Agreement.pdf"); then the file's metadata Title, a plain
heading, and last the file name (`TITLE_SOURCES`, tried in order). Every
candidate passes one table of named rules (`HEADING_REJECTS`, with examples
the tests check), so no legend, stamp, logo placeholder, running header or
sentence becomes a title.

`document_title` returns a `TitleChoice`: the title, its kind, the parties
the opening names and which source chose it. When two documents would share
a title, `distinct_title` adds the parties ("Joint Venture Agreement —
BorrowMoney.com and JVLS"), else the file name. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from ingest.extractors._common import title_from_filename
from ingest.parties import companies, core_name, fold, words_of
from lib.months import MONTHS
from lib.textfold import fold_compat

MAX_TITLE = 300  # the rename form's limit too (ingest.services.TITLE_MAX)

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
    r"^[\[(]?(execution|conformed|final|signature|agreed|redacted|translated)\s+"
    r"(version|copy|form)[\])]?$|"
    r"^[\[(]?(draft|confidential|strictly confidential|privileged( and confidential)?|"
    r"execution copy|for discussion purposes only|translation|english translation|"
    r"confidential treatment requested|confidential treatment request|"
    r"confidential portions omitted|[*]+\s*confidential treatment requested)[\])]?$",
    re.I,
)
_PAGE_NUMBER = re.compile(r"^(page\s+)?[-–(]?\s*\d+\s*[-–)]?(\s+of\s+\d+)?$", re.I)
_CODE = re.compile(r"\bno\.\s*\S*\d|^cusip\b|https?://|www\.|@\S+\.", re.I)
# Confidential-treatment and redaction legends, securities-law boilerplate.
_LEGEND = re.compile(
    r"\b(confidential(ity)? treatment|omitted|redact(ed|ions?)|excluded|"
    r"filed separately|securities and exchange|exchange commission|securities act|"
    r"exchange act|rule \d+|regulation s-k|item 601|pursuant to|asterisks?|"
    r"\[\s*\*|competitive harm|publicly disclosed|certain (identified )?information|"
    r"confidential portions|has been|have been)\b",
    re.I,
)
_PLACEHOLDER = re.compile(
    r"^\s*[\[(][^\])]*[\])]\s*$|\b(logo|initials illegible|graphic omitted|"
    r"signature page follows)\b",
    re.I,
)
# A court docket or filing stamp: "Case 18-10248- MFW Doc 632-1 Filed 04/18/18".
_STAMP = re.compile(
    r"\bcase\s+\d|\bdoc\s+\d|\bfiled\s+\d|\bpage\s+\d+\s+of\s+\d+|"
    r"\b(8-K|10-K|10-Q|10-QA|S-1|S-4|20-F|N-\d+A?|EX-\d[\d.]*)\b",
    re.I,
)
_ADDRESS = re.compile(
    r"^\d+[\w-]*\s+(\w+\s+){0,4}(street|st\.|avenue|ave\.?|road|rd\.|boulevard|blvd|"
    r"drive|lane|suite|floor|way|place|plaza|parkway)\b|^\d+\s+(rue|via|avenida|calle)\b|"
    r"\b(corporate|mailing|registered) address\b|\bp\.?\s?o\.? box\b|"
    r"\b(tel|telephone|fax|facsimile|phone)\b\s*[:.]?\s*[+(\d]",
    re.I,
)
_DATE_LINE = re.compile(
    r"^(dated|date|last (updated|revised|modified)|effective( date)?|as of|revised)\b"
    rf"[\s:]|^({'|'.join(MONTHS)})\s+\d{{1,2}},?\s+\d{{4}}$|^\d{{1,2}}/\d{{1,2}}/\d{{2,4}}$",
    re.I,
)
_OPENS_TEXT = re.compile(
    r"^(this|these|whereas|now,? therefore|in witness|the undersigned|in accordance)\b",
    re.I,
)
# A running header's document management number: "... 11 083096".
_DOCUMENT_NUMBER = re.compile(r"(?<![\d,.])\d{6,}(?![\d,.])")
_SIGNATURE = re.compile(r"/s/|^by\s*:|^(name|title|signature)\s*:", re.I)
_SECTION = re.compile(
    r"^(\d+(\.\d+)*\.?|[ivx]+\.|[a-z]\.|\([a-z0-9]+\)|article\s+\w+|section\s+\d+)\s",
    re.I,
)
_CLAUSE_HEADINGS = re.compile(
    r"^(entire (agreement|contract)|governing law|term of (this )?agreement|termination|"
    r"recitals|witnesseth|background|definitions|the parties agree)\b",
    re.I,
)
# A line that is only a company's name: "WATCHGUARD TECHNOLOGIES, INC.".
_COMPANY_ONLY = re.compile(
    r"^[\w&.,' -]+,?\s+(inc|incorporated|corp|corporation|co|llc|l\.l\.c|ltd|limited|"
    r"lp|l\.p|llp|plc|gmbh|ag|s\.a|n\.v|b\.v|pte|pty)\.?$",
    re.I,
)
_SMALL_WORDS = {
    "a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with",
}  # fmt: skip
_CONTINUES = re.compile(
    r"(,|-|–|/|&|\b(between|and|of|for|by|with|the|among|to|on))\s*$", re.I
)
# The nouns that say what kind of document it is.
_KIND = re.compile(
    r"\b(agreements?|contracts?|licen[cs]e|lease|amendments?|addendum|statement|"
    r"power of attorney|memorandum|deed|indenture|guarant(y|ee)|undertaking|"
    r"terms and conditions|terms of service|letter|charter|protocol|"
    r"by-?laws|certificate|consent|waiver|policy|mou|term sheet|rider|"
    r"purchase order|work order|statement of work|sow)\b",
    re.I,
)
# Where a heading stops naming the kind: "Promotion Agreement Between ...".
_KIND_ENDS = re.compile(
    r"\s+(?:,\s*)?\b(between|by and between|among|by and among|dated|made|"
    r"entered|effective|of even date|as of|for the period)\b.*$",
    re.I,
)


def _words(line: str) -> list[str]:
    return line.split()


_ABBREVIATION_END = re.compile(
    r"\b(inc|corp|co|ltd|l\.l\.c|l\.p|n\.v|b\.v|s\.a|no|st|jr)\.$", re.I
)


def _ends_sentence(line: str) -> bool:
    """Ends as a sentence does ("Go Call, Inc." does not)."""
    line = line.rstrip()
    return line.endswith((".", ";", ":")) and not _ABBREVIATION_END.search(line)


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
        (
            "Execution Version",
            "EXECUTION COPY",
            "CONFIDENTIAL",
            "Draft",
            "REDACTED COPY",
            "(TRANSLATION)",
            "CONFIDENTIAL TREATMENT REQUEST",
        ),
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
        "a legend",
        lambda line: bool(_LEGEND.search(line)),
        (
            "Securities and Exchange Commission pursuant to Rule 406 of the "
            "Securities Act of 1933, as amended.",
            "CERTAIN CONFIDENTIAL PORTIONS OF THIS EXHIBIT HAVE BEEN OMITTED",
            "PROMULGATED UNDER THE SECURITIES EXCHANGE ACT OF 1934, AS AMENDED",
            "BEEN REDACTED.",
        ),
    ),
    TitleRule(
        "a logo or placeholder",
        lambda line: bool(_PLACEHOLDER.search(line)),
        ("[LOGO]", "I-on. (LOGO)", "[ABOUT LOGO]", "[INITIALS ILLEGIBLE]"),
    ),
    TitleRule(
        "a court or filing stamp",
        lambda line: bool(_STAMP.search(line)),
        (
            "Case 18-10248- MFW Doc 632-1 Filed 04/18/18 Page 2 of 60",
            "Vertex Energy, Inc. 8-K",
        ),
    ),
    TitleRule(
        "an address",
        lambda line: bool(_ADDRESS.search(line)),
        ("925 West Georgia Street", "6 rue Adolphe Fischer", "Corporate Address"),
    ),
    TitleRule(
        "a date line",
        lambda line: bool(_DATE_LINE.search(line)),
        ("Last Updated: April 6, 2007", "DATED: OCTOBER 15, 2009", "March 3, 2020"),
    ),
    TitleRule(
        "a signature line",
        lambda line: bool(_SIGNATURE.search(line)),
        ("By Client: /s/ Natalija Tunevic", "By: John Smith"),
    ),
    TitleRule(
        "a preamble's opening",
        lambda line: bool(_OPENS_TEXT.match(line)),
        ('This Promotion Agreement (herein "Agreement")', "WHEREAS, the Parties"),
    ),
    TitleRule(
        "a document number",
        lambda line: bool(_DOCUMENT_NUMBER.search(line)),
        ("Ingram Amendment 1 111296", "INGRAM NETGEAR Distributor Agreement 11 083096"),
    ),
    TitleRule(
        "a section heading",
        lambda line: bool(_SECTION.match(line) or _CLAUSE_HEADINGS.match(line)),
        ("19. ENTIRE AGREEMENT, GOVERNING LAW", "1. Definitions", "RECITALS"),
    ),
    TitleRule(
        "a company's name alone",
        lambda line: bool(_COMPANY_ONLY.match(line)) and not _KIND.search(line),
        ("WATCHGUARD TECHNOLOGIES, INC.", "NETZEE, INC.", "KIOSK CONCEPTS, INC."),
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
            "INFORMATION IN THIS EXHIBIT IDENTIFIED BY [ * * * ] IS CONFIDENTIAL AND "
            "HAS BEEN EXCLUDED BECAUSE IT IS BOTH (I) NOT",
        ),
    ),
    TitleRule(
        "a sentence",
        lambda line: (
            _ends_sentence(line)
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

# How far down page 1 a plain heading may be: filings print a few lines above it.
LINES_LOOKED_AT = 15
# How far into the opening a kind heading may be: legends can fill page 1.
KIND_LINES_LOOKED_AT = 80
PREAMBLE_CHARS = 8000
OPENING_CHARS = 12000


def heading_rejected_by(line: str) -> str:
    """The name of the first rule that passes over `line` as a title, or ""."""
    return next((r.name for r in HEADING_REJECTS if r.rejects(line)), "")


def metadata_title_rejected_by(title: str) -> str:
    return next((r.name for r in METADATA_REJECTS if r.rejects(title)), "")


def _lines(text: str, limit: int) -> list[str]:
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return [line for line in lines if line][:limit]


def _joined(lines: Sequence[str], i: int) -> str:
    """Line i, joined with the next when it plainly goes on ("Promotion
    Agreement Between" / "PageMaster Corporation and Go Call, Inc."; "FIRST
    AMENDMENT TO" / "MANAGEMENT AGREEMENT")."""
    line = lines[i]
    if _CONTINUES.search(line) and i + 1 < len(lines):
        following = lines[i + 1]
        if not heading_rejected_by(following) or _capitalised(following):
            joined = f"{line} {following}"
            if len(_words(joined)) <= 20:
                return joined.rstrip(" ,-–")
    return line.rstrip(" ,-–")


def first_heading(page_text: str) -> str:
    """The first heading-like line of a page (joined with the next line when
    it plainly goes on), or ""."""
    lines = _lines(page_text, LINES_LOOKED_AT)
    for i, line in enumerate(lines):
        if not heading_rejected_by(line):
            return _joined(lines, i)
    return ""


# "MUTUAL NONDISCLOSURE AGREEMENT (page 2.)": a page reference, not the name.
_PAGE_NOTE = re.compile(r"\s*\((?:page|p\.)\s*\d+\.?\)\s*$", re.I)


def _kind_of(line: str) -> str:
    """The part of a heading that names the kind ("Promotion Agreement" of
    "Promotion Agreement Between PageMaster ..."), or "" when it names none or
    is the bare word ("AGREEMENT")."""
    kind = _KIND_ENDS.sub("", line)
    kind = _PAGE_NOTE.sub("", kind).strip(" ,-–:")
    if not _KIND.search(kind):
        return ""
    if len(_words(kind)) < 2:
        return ""
    return kind


def kind_heading(opening: str) -> str:
    """The first heading of the opening that names a kind of document."""
    lines = _lines(opening, KIND_LINES_LOOKED_AT)
    for i, line in enumerate(lines):
        if heading_rejected_by(line) and not _CONTINUES.search(line):
            continue
        joined = _joined(lines, i)
        if heading_rejected_by(joined):
            continue
        # "AMENDMENT" / "TO THE DISTRIBUTOR AGREEMENT": the line goes on the one before.
        if i and joined.split()[0].lower() in _SMALL_WORDS:
            before = f"{lines[i - 1]} {joined}"
            if not heading_rejected_by(lines[i - 1]) and _kind_of(before):
                return _kind_of(before)
        kind = _kind_of(joined)
        if kind:
            return kind
    return ""


_PREAMBLE = re.compile(
    r"(?<![A-Za-z])(?:THIS|This|The|THE)\s+"
    r"((?:[A-Z][\w&/.'’-]*,?\s+|(?:and|of|for|to|on|the|AND|OF|FOR|TO|ON|THE|&)\s+)"
    r"{0,8}?(?:Agreement|AGREEMENT|Contract|CONTRACT|License|LICENSE|Licence|LICENCE|"
    r"Lease|LEASE|Amendment|AMENDMENT|Addendum|ADDENDUM))\b"
)


def preamble_kind(opening: str) -> str:
    """The kind the preamble gives: 'THIS DISTRIBUTOR AGREEMENT (the
    "Agreement")' gives "DISTRIBUTOR AGREEMENT"."""
    for m in _PREAMBLE.finditer(opening[:PREAMBLE_CHARS]):
        kind = " ".join(m.group(1).split()).strip(" ,")
        if len(_words(kind)) >= 2 and not heading_rejected_by(kind):
            return kind
    return ""


def filename_kind(filename: str) -> str:
    """The kind an EDGAR-style file name ends with: "..._EX-10.1_Reseller
    Agreement.pdf" gives "Reseller Agreement"."""
    stem = title_from_filename(filename)
    stem = re.sub(r"\s*\(\d+\)$|\d+$", "", stem).strip()
    last = re.split(r"_|\s-\s|-(?=[A-Z ]{4,}$)|(?<=\d)-", stem)[-1].strip(" -_")
    last = re.sub(r"^EX-[\d.()A-Z]+\s*-?\s*", "", last).strip(" -")
    if _KIND.search(last) and len(_words(last)) >= 2 and len(last) <= 120:
        return _kind_of(last) or ""
    return ""


_ACRONYM = re.compile(r"^[A-Z0-9&]{2,4}$")


def _capital_first(word: str) -> str:
    """ "(two" -> "(Two", "“cnda”" -> "“Cnda”"."""
    for i, char in enumerate(word):
        if char.isalpha():
            return word[:i] + char.upper() + word[i + 1 :]
    return word


def title_case(text: str) -> str:
    """A heading set in capitals as a lawyer writes it: "JOINT VENTURE
    AGREEMENT" -> "Joint Venture Agreement"; text already in mixed case, short
    acronyms ("ODM", "IP") and words with digits are kept."""
    letters = [c for c in text if c.isalpha()]
    if not letters or not all(c.isupper() for c in letters):
        return text
    out: list[str] = []
    for i, word in enumerate(text.split(" ")):
        bare = word.strip("()[],.;:'\"“”‘’")
        lower = word.lower()
        if i and bare.lower() in _SMALL_WORDS:
            out.append(lower)
        elif (
            _ACRONYM.match(bare) and not re.search(r"[AEIOUY]", bare)
        ) or bare.upper() in {"IP", "OEM", "ODM", "USA", "US", "UK", "EU", "LLC"}:
            out.append(word)
        elif word[:1] in '(“"' and len(bare) <= 5 and bare.isalpha():
            out.append(word)  # a defined short name: ("CNDA")
        else:
            # "NON-COMPETITION" -> "Non-Competition", "CO-BRANDING" -> "Co-Branding"
            out.append(re.sub(r"[^-/]+", lambda m: _capital_first(m.group()), lower))
    return " ".join(out)


# Where a contract starts naming its parties.
_BETWEEN = re.compile(r"\b(between|among|by and between|by and among)\b", re.I)
PARTIES_WINDOW = 1500
# Words a company's name holds that name nothing alone ("Technologies" of
# "mPhase Technologies, Inc." when the first word was cut).
_NOT_A_NAME_ALONE = frozenset(
    [
        "technologies",
        "technology",
        "systems",
        "solutions",
        "industries",
        "international",
        "energy",
        "services",
        "racing",
        "all",
        "golfers",
        "common",
        "stock",
        "holdings",
        "group",
        "partners",
        "capital",
        "management",
        "media",
        "pharma",
        "pharmaceuticals",
        "software",
        "communications",
        "resources",
        "products",
        "enterprises",
        "investments",
        "ventures",
        "global",
        "america",
        "american",
        "national",
        "united",
        "networks",
        "digital",
        "financial",
        "insurance",
        "bank",
        "trust",
        "fund",
    ]
)


def contract_parties(opening: str, limit: int = 2) -> tuple[str, ...]:
    """The first parties the opening names with their corporate form
    ("BorrowMoney.com", "JVLS"), two at most, without repeats or a name
    inside another."""
    found: list[str] = []
    cores: list[tuple[str, ...]] = []
    between = _BETWEEN.search(opening[:OPENING_CHARS])
    if between is None:
        return ()
    window = opening[between.start() : between.start() + PARTIES_WINDOW]
    for name, _end in companies(window):
        core = core_name([w.text for w in words_of(name)])
        if not core or not name[:1].isupper():
            continue
        if len(core) == 1 and (len(core[0]) < 3 or core[0] in _NOT_A_NAME_ALONE):
            continue
        if any(_within(core, c) or _within(c, core) for c in cores):
            continue
        cores.append(core)
        found.append(name.strip(" ,"))
        if len(found) == limit:
            break
    return tuple(found)


def _within(small: tuple[str, ...], big: tuple[str, ...]) -> bool:
    n = len(small)
    return any(big[i : i + n] == small for i in range(len(big) - n + 1))


@dataclass(frozen=True)
class TitleChoice:
    """A document's title, the kind it names ("" when none), the parties its
    opening names, and the source that chose it (`TITLE_SOURCES`)."""

    title: str
    source: str
    kind: str = ""
    parties: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class TitleSource:
    """Where a title may come from, in order; `find(metadata_title, opening,
    filename)` returns a candidate or ""."""

    name: str
    find: Callable[[str, str, str], str]
    names_kind: bool
    doc: str


def _metadata(metadata_title: str, opening: str, filename: str) -> str:
    title = " ".join((metadata_title or "").split())
    if not title or metadata_title_rejected_by(title) or heading_rejected_by(title):
        return ""
    return title


def _metadata_kind(metadata_title: str, opening: str, filename: str) -> str:
    title = _metadata(metadata_title, opening, filename)
    return title if _KIND.search(title) else ""


TITLE_SOURCES: tuple[TitleSource, ...] = (
    TitleSource(
        "metadata",
        _metadata_kind,
        True,
        "the file's metadata Title, when it names a kind of document",
    ),
    TitleSource(
        "heading",
        lambda m, opening, f: kind_heading(opening),
        True,
        "the first heading of the opening pages that names a kind of document",
    ),
    TitleSource(
        "preamble",
        lambda m, opening, f: preamble_kind(opening),
        True,
        "the preamble's 'This ___ Agreement'",
    ),
    TitleSource(
        "filename_kind",
        lambda m, o, filename: filename_kind(filename),
        True,
        "the kind an EDGAR-style file name ends with",
    ),
    TitleSource(
        "metadata_any",
        _metadata,
        False,
        "the file's metadata Title, whatever it names",
    ),
    TitleSource(
        "first_heading",
        lambda m, opening, f: first_heading(opening),
        False,
        "the first heading-like line of page 1",
    ),
)


def document_title(metadata_title: str, opening: str, filename: str) -> TitleChoice:
    """The title of a document whose opening pages are `opening` (see the
    module docstring); the file name when no source finds one. Ligatures
    read as their letters ("Conﬁdentiality Agreement")."""
    opening = fold_compat(opening)
    metadata_title = fold_compat(metadata_title or "")
    parties = contract_parties(opening)
    for source in TITLE_SOURCES:
        found = source.find(metadata_title, opening, filename)
        if found:
            title = title_case(found)[:MAX_TITLE]
            return TitleChoice(
                title=title,
                source=source.name.removesuffix("_any"),
                kind=title if source.names_kind else "",
                parties=parties,
            )
    return TitleChoice(
        title=title_from_filename(filename)[:MAX_TITLE],
        source="filename",
        parties=parties,
    )


def pdf_title(metadata_title: str, first_page: str, filename: str) -> tuple[str, str]:
    """(title, how it was chosen): `document_title` without the parties."""
    choice = document_title(metadata_title, first_page, filename)
    return choice.title, choice.source


def opening_of(pages: Sequence[str]) -> str:
    """The text a title is read from: the first two pages (a cover page or a
    page of legends can stand before the heading)."""
    return "\n\n".join(pages[:2])[:OPENING_CHARS]


def title_metadata(choice: TitleChoice) -> dict[str, Any]:
    """What a document's metadata keeps of its title choice: which source
    decided, the kind, the parties (ingest.services makes titles distinct
    with them)."""
    return {
        "title_from": choice.source,
        "title_kind": choice.kind,
        "title_parties": list(choice.parties),
    }


def with_parties(title: str, parties: Sequence[str]) -> str:
    """ "Joint Venture Agreement — BorrowMoney.com and JVLS"."""
    if not parties:
        return title
    return f"{title} — {' and '.join(parties)}"[:MAX_TITLE]


def distinct_title(choice: TitleChoice, filename: str, taken: set[str]) -> str:
    """The choice's title, or when another document already has it (`taken`,
    folded with `title_key`), the title with the parties, then with the file
    name, so two different documents never share a title."""
    candidates = [choice.title]
    if choice.parties:
        candidates.append(with_parties(choice.title, choice.parties))
    filename = unquote(filename)  # "Acme%20NDA.pdf" as the person named it
    filer = filename_filer(filename)
    if filer and fold(filer) != fold(choice.title):
        candidates.append(f"{candidates[-1]} ({filer})"[:MAX_TITLE])
    stem = title_from_filename(filename)
    if stem and fold(stem) != fold(choice.title):
        candidates.append(f"{candidates[-1]} ({stem})"[:MAX_TITLE])
    for candidate in candidates:
        if title_key(candidate) not in taken:
            return candidate
    return candidates[-1]


def filename_filer(filename: str) -> str:
    """Who filed an EDGAR-style file: "PRECIGEN,INC_01_22_2020-EX-99.1-..."
    gives "PRECIGEN, INC"; "" for a name without that shape."""
    stem = title_from_filename(filename)
    head = re.split(r"_(?=\d)|\s-\s|-EX-", stem)[0].strip(" _-")
    if head == stem or not head:
        return ""
    return re.sub(r",(?=\S)", ", ", head)


def title_key(title: str) -> str:
    """Titles compared as a reader would: case, accents and spacing aside."""
    return " ".join(fold(title).split())
