"""Extraction: find the citations in a model answer (SPEC §3).

Formats, all of which may appear in one answer:

- quote pairs: `"quote" (Source: [S1])`, `“quote” (Source: [1])`, `"quote" [S1]`,
  with straight, curly, low-9 or guillemet quotes, across line breaks;
- inline refs: `[S1]`, `[S1, S3]`, `[S1][S2]`, `[1]`, `[S1-S3]`;
- `<citations> S1 S3 </citations>` blocks;
- `<citations>` XML: `<citation ref="S1" chunk_id=".." revision_id=".."
  doc_name=".." page="3" section=".."><quote>...</quote></citation>`, with
  the fields as attributes or child elements;
- a JSON answer `{"answer": "...", "citations_used": ["S1", {"id": "S2",
  "quote": "..."}]}`, possibly fenced, possibly cut off mid-stream.

Model output is untrusted and often malformed (LLM-06): nothing here raises,
everything is bounded (answer size, quote length, number of candidates and
markers), and what could not be parsed is listed in `Extraction.problems`.
Pure: no Django.
"""

from __future__ import annotations

import html
import json
import re
from bisect import bisect_right
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

MAX_ANSWER_CHARS = 1_000_000
MAX_CANDIDATES = 200
MAX_MARKERS = 500
MAX_QUOTE_CHARS = 5_000
MAX_REF_CHARS = 64
# A range like [S1-S40] is expanded only when it is this short.
MAX_RANGE = 20

QUOTE_PAIR = "quote_pair"
INLINE_REF = "inline_ref"
CITATIONS_BLOCK = "citations_block"
CITATIONS_XML = "citations_xml"
JSON_KIND = "json"

PENDING = "pending"
UNVERIFIED = "unverified"
OUT_OF_PROVENANCE = "out_of_provenance"


@dataclass(frozen=True)
class CitationCandidate:
    """One citation the model emitted.

    ref:          normalized "S1" (a bare number N means S{N}); an id that is
                  not a number (a UUID, a title) is kept as written, so it
                  classifies as out of provenance.
    quote:        the quoted words, or None for a reference without a quote.
    answer_start/answer_end: where the quote or marker sits in
                  `Extraction.answer`; None for citations from a removed
                  <citations> block or a JSON list.
    kind:         quote_pair | inline_ref | citations_block | citations_xml | json;
                  resolve (an agent's resolve call) and cell (a tabular
                  cell's quote) for citations made outside an answer's text.
    extra:        chunk_id, revision_id, doc_name, page, section, match_type
                  from XML or JSON, when given.
    """

    ref: str
    quote: str | None
    answer_start: int | None
    answer_end: int | None
    kind: str
    extra: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Marker:
    """A place in the answer where a ref is cited (for inline badges)."""

    ref: str
    start: int
    end: int


@dataclass(frozen=True)
class Extraction:
    answer: str  # what the user reads: JSON wrapper and <citations> blocks removed
    candidates: list[
        CitationCandidate
    ]  # deduplicated (ref, quote), at most MAX_CANDIDATES
    truncated: bool = False  # more candidates or markers than allowed were emitted
    markers: list[Marker] = field(default_factory=list)  # at most MAX_MARKERS
    problems: list[str] = field(default_factory=list)  # what was dropped, and why


_NUMERIC_REF = re.compile(r"(?i)(?:s|source|src|ref)?\s*[#-]?\s*0*(\d{1,6})")


def normalize_ref(raw: object) -> str | None:
    """'S1', 's01', '1', '[S1]', 'Source 1' -> 'S1'; other ids kept as written."""
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, int):
        return f"S{raw}" if 0 <= raw < 10**6 else None
    if not isinstance(raw, str):
        return None
    text = raw.strip().strip("[]() \t\n").strip()
    if not text:
        return None
    m = _NUMERIC_REF.fullmatch(text)
    if m:
        return f"S{int(m.group(1))}"
    return text[:MAX_REF_CHARS]


def classify(candidate: CitationCandidate, known_refs: Collection[str] | None) -> str:
    """pending (quote and known ref), unverified (no quote), or
    out_of_provenance (the ref names no source given to the model)."""
    if known_refs is not None:
        known = {normalize_ref(r) for r in known_refs}
        if candidate.ref not in known:
            return OUT_OF_PROVENANCE
    if not candidate.quote or not candidate.quote.strip():
        return UNVERIFIED
    return PENDING


# --- refs inside markers -------------------------------------------------------

_REF_TOKEN = re.compile(r"(?i)^\s*(?:s\s?)?0*(\d{1,6})\s*$")
_RANGE = re.compile(
    r"(?i)^\s*s?\s?0*(\d{1,6})\s*[-\u2010-\u2014]\s*s?\s?0*(\d{1,6})\s*$"
)
_SEPARATORS = re.compile(r"\s*(?:[,;&]|\band\b)\s*|\s+", re.I)


def _ref_list(content: str) -> list[str] | None:
    """'S1, S3' / '1' / 'S1-S3' -> refs; None unless the whole content is refs."""
    content = content.strip()
    if not content or len(content) > 100:
        return None
    refs: list[str] = []
    for token in _SEPARATORS.split(content):
        if not token:
            continue
        token = token.strip("[]")
        m = _REF_TOKEN.match(token)
        if m:
            refs.append(f"S{int(m.group(1))}")
            continue
        r = _RANGE.match(token)
        if r and 0 <= int(r.group(2)) - int(r.group(1)) < MAX_RANGE:
            refs.extend(f"S{n}" for n in range(int(r.group(1)), int(r.group(2)) + 1))
            continue
        return None
    return refs or None


# --- quote pairs and inline refs ---------------------------------------------

# Quotation marks: what each opening mark may be closed by ("“" also closes
# a "„"). A straight mark opens or closes by the characters around it.
_CLOSERS = {'"': '"', "“": "”", "„": "“”", "«": "»"}
_QUOTE_MARK = re.compile(r'["“”„«»]|\n[ \t]*\n')
_BEFORE_OPENING = frozenset('([{\u2014\u2013-/:"“„«')
_AFTER_CLOSING = frozenset(".,;:!?)]}…\"”»'’-\u2013\u2014")


@dataclass(frozen=True)
class _Quoted:
    start: int  # the opening mark
    end: int  # just past the closing mark

    def body(self, answer: str) -> str:
        return answer[self.start + 1 : self.end - 1].strip()


def _quote_pairs(answer: str) -> list[_Quoted]:
    """Every quotation in the answer, nested ones included, in the order
    their closing marks come. Marks pair like brackets, so a quote keeps the
    quotation marks inside it: `"… (each, a "Renewal Term"), unless …"` is
    one quotation holding another, never the fragment `"), unless …"`.
    Paragraph breaks end every open quote (an unmatched inch mark must not
    swallow pages), and none is longer than MAX_QUOTE_CHARS."""
    pairs: list[_Quoted] = []
    opened: list[tuple[str, int]] = []  # (mark, offset), innermost last
    for m in _QUOTE_MARK.finditer(answer):
        mark, at = m.group(), m.start()
        if mark[0] == "\n":
            opened.clear()
            continue
        closes = [k for k, (o, _) in enumerate(opened) if mark in _CLOSERS[o]]
        if mark == '"':
            role = _straight_role(answer, at)
            if role == "open" or (role == "either" and not closes):
                opened.append((mark, at))
                continue
            if role is None:
                continue  # a mark between spaces, or an inch mark
        if closes:
            k = closes[-1]
            start = opened[k][1]
            del opened[k:]  # marks opened inside and never closed end here
            if at + 1 - start <= MAX_QUOTE_CHARS + 2:
                pairs.append(_Quoted(start, at + 1))
        elif mark in _CLOSERS:
            opened.append((mark, at))
    return pairs


def _straight_role(answer: str, at: int) -> str | None:
    """Does the straight mark at `at` open a quote (a space, bracket or
    opening mark before it, a visible character after it), close one (a
    visible character before it, a space or punctuation after it), either
    (`"a"b`), or neither (between spaces)?"""
    before = answer[at - 1] if at else " "
    after = answer[at + 1] if at + 1 < len(answer) else " "
    opens = (before.isspace() or before in _BEFORE_OPENING) and not after.isspace()
    closes = not before.isspace() and (after.isspace() or after in _AFTER_CLOSING)
    if opens and closes:
        return "either"
    return "open" if opens else "close" if closes else None


_SOURCE_AFTER = re.compile(
    r"[ \t]{0,3}[,.;:]?[ \t]{0,3}"
    r"(?:\((?P<paren>[^()\n]{1,200})\)|(?P<brackets>(?:\[[^\[\]\n]{1,100}\][ \t]{0,2}){1,10}))"
)
_SOURCE_WORD = re.compile(
    r"(?i)^\s*(?:sources?|src|refs?|references?|cited?|citations?|see)\s*[:\-]?\s*"
)
_BRACKET = re.compile(r"\[([^\[\]\n]{1,100})\]")


def _refs_after_quote(m: re.Match[str]) -> list[str] | None:
    paren = m.group("paren")
    if paren is not None:
        prefix = _SOURCE_WORD.match(paren)
        content = paren[prefix.end() :] if prefix else paren
        if (
            not prefix
            and "[" not in content
            and not re.search(r"(?i)\bs\s?\d", content)
        ):
            return None  # "(1)" or "(see above)" after a quote is not a citation
        return _ref_list(content.replace("[", " ").replace("]", " "))
    refs: list[str] = []
    for inner in _BRACKET.findall(m.group("brackets") or ""):
        parsed = _ref_list(inner)
        if parsed is None:
            return refs or None
        refs.extend(parsed)
    return refs or None


@dataclass
class _Collector:
    candidates: list[tuple[CitationCandidate, int]] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    truncated: bool = False
    order: int = 0
    # Citations from blocks and JSON lists sort after those placed in the
    # text, so a duplicate keeps the one with a position in the answer.
    late: bool = True

    def add(self, candidate: CitationCandidate) -> None:
        # Hard cap before dedup so a 10,000-citation answer stays cheap.
        if len(self.candidates) >= MAX_CANDIDATES * 5:
            self.truncated = True
            return
        self.candidates.append((candidate, self.order + (1 << 40 if self.late else 0)))
        self.order += 1

    def mark(self, ref: str, start: int, end: int) -> None:
        if len(self.markers) >= MAX_MARKERS:
            self.truncated = True
            return
        self.markers.append(Marker(ref, start, end))

    def problem(self, text: str) -> None:
        if len(self.problems) < 50:
            self.problems.append(text[:300])


def _scan_answer(answer: str, out: _Collector) -> None:
    consumed: list[tuple[int, int]] = []
    for q in _quote_pairs(answer):
        after = _SOURCE_AFTER.match(answer, q.end)
        if after is None:
            continue
        refs = _refs_after_quote(after)
        if not refs:
            continue
        body = q.body(answer)
        if not body:
            continue
        consumed.append((after.start(), after.end()))
        for ref in refs:
            out.add(CitationCandidate(ref, body, q.start, q.end, QUOTE_PAIR))
            out.mark(ref, after.start(), after.end())
    consumed.sort()
    starts = [a for a, _ in consumed]
    for b in _BRACKET.finditer(answer):
        k = bisect_right(starts, b.start()) - 1
        if k >= 0 and b.start() < consumed[k][1]:
            continue
        if answer.startswith("(", b.end()) or answer.startswith(":", b.end()):
            continue  # a markdown link or link definition
        refs = _ref_list(b.group(1))
        if refs is None:
            continue
        for ref in refs:
            out.add(CitationCandidate(ref, None, b.start(), b.end(), INLINE_REF))
            out.mark(ref, b.start(), b.end())


# --- <citations> blocks ----------------------------------------------------------

_BLOCK = re.compile(
    r"<citations\b[^>]{0,200}>(?P<body>.*?)(?:</citations\s*>|(?P<open>\Z))",
    re.I | re.S,
)
_STRAY_CLOSE = re.compile(r"</citations\s*>", re.I)
_CITATION = re.compile(
    r"<citation\b(?P<attrs>[^>]{0,2000}?)(?:/>|>(?P<body>.*?)(?:</citation\s*>|(?=<citation\b)|\Z))",
    re.I | re.S,
)
_ATTR = re.compile(
    r"""([A-Za-z_][\w\-.:]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>/]+))"""
)
_CHILD = re.compile(
    r"<(?P<tag>[A-Za-z_][\w\-]*)\b[^>]{0,200}>(?P<value>.*?)</(?P=tag)\s*>", re.S
)
_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.S)
_TAGS = re.compile(r"<[^>]{0,200}>")
_EXTRA_FIELDS = ("chunk_id", "revision_id", "doc_name", "page", "section", "match_type")
_REF_FIELDS = ("ref", "id", "source", "source_id", "citation_id")
_QUOTE_FIELDS = ("quote", "quoted_text", "quotation")


def _xml_value(raw: str) -> str:
    raw = _CDATA.sub(lambda m: m.group(1), raw)
    return html.unescape(raw).strip()


def _extra(fields: dict[str, str]) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    for name in _EXTRA_FIELDS:
        value = fields.get(name)
        if value is None or value == "":
            continue
        value = str(value)[:500]
        if name == "page":
            extra[name] = int(value) if value.isdigit() and len(value) < 7 else value
        else:
            extra[name] = value
    return extra


def _parse_xml_block(body: str, out: _Collector) -> None:
    for c in _CITATION.finditer(body):
        fields: dict[str, str] = {}
        for name, a, b, d in _ATTR.findall(c.group("attrs") or ""):
            fields.setdefault(name.lower(), _xml_value(a or b or d))
        inner = c.group("body") or ""
        children = list(_CHILD.finditer(inner))
        for child in children:
            fields.setdefault(
                child.group("tag").lower(), _xml_value(child.group("value"))
            )
        ref = next(
            (normalize_ref(fields[k]) for k in _REF_FIELDS if fields.get(k)), None
        )
        if ref is None:
            out.problem("<citation> without a ref dropped")
            continue
        quote = next((fields[k] for k in _QUOTE_FIELDS if fields.get(k)), None)
        if quote is None and not children:
            text = _xml_value(_TAGS.sub(" ", inner))
            quote = text or None
        if quote is not None:
            quote = quote[:MAX_QUOTE_CHARS] or None
        out.add(
            CitationCandidate(ref, quote, None, None, CITATIONS_XML, _extra(fields))
        )


def _parse_block(body: str, out: _Collector) -> None:
    if re.search(r"<citation\b", body, re.I):
        _parse_xml_block(body, out)
        return
    for token in re.split(r"[\s,;]+", _TAGS.sub(" ", body)):
        token = token.strip("[]()")
        if not token:
            continue
        refs = _ref_list(token)
        if refs is None:
            out.problem(f"unreadable ref in <citations> block: {token[:40]!r}")
            continue
        for ref in refs:
            out.add(CitationCandidate(ref, None, None, None, CITATIONS_BLOCK))


def _remove_blocks(answer: str, out: _Collector) -> str:
    pieces: list[str] = []
    position = 0
    for m in _BLOCK.finditer(answer):
        pieces.append(answer[position : m.start()])
        position = m.end()
        if m.group("open") is not None:
            out.problem("unterminated <citations> block (answer cut off?)")
        _parse_block(m.group("body"), out)
    pieces.append(answer[position:])
    cleaned = _STRAY_CLOSE.sub("", "".join(pieces))
    return cleaned.rstrip() if cleaned != answer else answer


# --- JSON answers ---------------------------------------------------------------

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(?P<body>.*?)(?:\n?```\s*)?$", re.S | re.I)
_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}


def _partial_json_string(text: str, start: int) -> str:
    """Decode a JSON string literal from `start` (just after its opening
    quote) up to its closing quote, or to the end when it was cut off."""
    out: list[str] = []
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            break
        if c == "\\" and i + 1 < n:
            e = text[i + 1]
            if (
                e == "u"
                and i + 5 < n
                and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6])
            ):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(e, e))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _json_entries(entries: Iterable[Any], out: _Collector) -> None:
    for entry in entries:
        if isinstance(entry, dict):
            fields = {str(k).lower(): v for k, v in entry.items()}
            raw_ref = next(
                (fields[k] for k in _REF_FIELDS if fields.get(k) is not None), None
            )
            ref = normalize_ref(raw_ref)
            quote = next(
                (fields[k] for k in _QUOTE_FIELDS if isinstance(fields.get(k), str)),
                None,
            )
            extra = _extra(
                {k: str(v) for k, v in fields.items() if isinstance(v, str | int)}
            )
        else:
            ref = normalize_ref(entry)
            quote = None
            extra = {}
        if ref is None:
            out.problem(f"unreadable entry in citations_used: {str(entry)[:60]!r}")
            continue
        quote = quote.strip()[:MAX_QUOTE_CHARS] if isinstance(quote, str) else None
        out.add(CitationCandidate(ref, quote or None, None, None, JSON_KIND, extra))


def _salvage_json(text: str, out: _Collector) -> str | None:
    """Best effort for JSON cut mid-stream: the answer string, and the
    citations_used entries that are complete."""
    m = re.search(r'"answer"\s*:\s*"', text)
    if m is None:
        return None
    answer = _partial_json_string(text, m.end())
    out.problem("answer JSON is malformed or cut off; salvaged what was complete")
    used = re.search(r'"citations_used"\s*:\s*\[', text)
    if used is not None:
        rest = text[used.end() :]
        close = rest.find("]")
        rest = rest if close < 0 else rest[:close]
        objects = []
        for o in re.finditer(r"\{[^{}]*\}", rest):
            try:
                objects.append(json.loads(o.group()))
            except ValueError:
                out.problem("incomplete citation object dropped")
        bare = re.sub(r"\{[^{}]*\}?", " ", rest)
        objects.extend(s for s in re.findall(r'"([^"\\]{1,64})"', bare))
        _json_entries(objects, out)
    return answer


def _unwrap_json(answer: str, out: _Collector) -> str:
    stripped = answer.strip()
    fence = _FENCE.match(stripped) if stripped.startswith("```") else None
    candidate = fence.group("body").strip() if fence else stripped
    if not candidate.startswith("{"):
        return answer
    try:
        data = json.loads(candidate)
    except ValueError:
        salvaged = _salvage_json(candidate, out)
        return answer if salvaged is None else salvaged
    except RecursionError:
        out.problem("answer JSON is nested too deeply")
        return answer
    if not isinstance(data, dict):
        return answer
    said = data.get("answer")
    if not isinstance(said, str):
        return answer
    used = data.get("citations_used", data.get("citations"))
    if isinstance(used, list):
        _json_entries(used[: MAX_CANDIDATES * 5], out)
    elif used is not None:
        out.problem("citations_used is not a list")
    return said


# --- putting it together --------------------------------------------------------


def _dedupe(
    found: list[tuple[CitationCandidate, int]], known: set[str] | None
) -> tuple[list[CitationCandidate], bool]:
    by_key: dict[tuple[str, str | None], int] = {}
    unique: list[CitationCandidate] = []
    for candidate, _ in sorted(found, key=lambda p: p[1]):
        key = (candidate.ref, candidate.quote)
        if key in by_key:
            index = by_key[key]
            kept = unique[index]
            merged = {**candidate.extra, **kept.extra}
            if kept.answer_start is None and candidate.answer_start is not None:
                kept = replace(
                    kept,
                    answer_start=candidate.answer_start,
                    answer_end=candidate.answer_end,
                )
            unique[index] = replace(kept, extra=merged)
            continue
        by_key[key] = len(unique)
        unique.append(candidate)
    if len(unique) <= MAX_CANDIDATES:
        return unique, False
    # Keep the citations of real sources first: a flood of invented refs must
    # not push them out.
    order = sorted(
        range(len(unique)),
        key=lambda i: (known is not None and unique[i].ref not in known, i),
    )
    chosen = sorted(order[:MAX_CANDIDATES])
    return [unique[i] for i in chosen], True


def extract_citations(
    answer: object, *, known_refs: Collection[str] | None = None
) -> Extraction:
    """Parse a model answer into citation candidates (see module docstring).
    `answer` is a model's output: anything but text is read as its str()
    (None as "")."""
    if not isinstance(answer, str):
        answer = "" if answer is None else str(answer)
    out = _Collector()
    try:
        if len(answer) > MAX_ANSWER_CHARS:
            out.problem(f"answer longer than {MAX_ANSWER_CHARS} characters was cut")
            out.truncated = True
            answer = answer[:MAX_ANSWER_CHARS]
        text = _unwrap_json(answer, out)
        text = _remove_blocks(text, out)
        out.late = False
        _scan_answer(text, out)
    except Exception as error:
        # Untrusted model output must never turn into a 500 (LLM-06); what
        # was parsed so far is kept and the failure is reported.
        out.problem(f"parser error: {type(error).__name__}")
        text = answer
    known = (
        {r for r in (normalize_ref(k) for k in known_refs) if r} if known_refs else None
    )
    candidates, cut = _dedupe(out.candidates, known)
    return Extraction(
        answer=text,
        candidates=candidates,
        truncated=out.truncated or cut,
        markers=out.markers,
        problems=out.problems,
    )
