"""Elided and altered quotes: "The Supplier shall ... deliver", "[t]he".

A quote with an ellipsis ("...", "…", "[...]", "[…]") or a bracketed
insertion ("[the Company]") is split into parts. It verifies when every part
is found, in order, each starting at most MAX_GAP characters after the
previous one ends; the verified span runs from the first part's start to the
last part's end. A one-letter bracket ("[t]he") is a case change and is read
as the letter; "[sic]" and "[emphasis added]" are dropped.

Of several ways to place the parts, the one with the smallest total gap wins
(preferring the cited chunk), and no gap may contain a blank line: an
ellipsis that bridges paragraphs is far more often a frankenquote than a
quotation.

Frankenquotes (real words that are never contiguous) are held off by:
- at least one part of three or more words, and at least half of the quote's
  words in such parts;
- parts shorter than three words must start and end on word boundaries and
  may not carry a number, negation or modal verb (a floating "not" could
  attach to any verb within reach);
- only parts of three or more words may match approximately, and each such
  part passes the guard on its own.

An ellipsis over a negation ("The Supplier shall ... deliver" in "The
Supplier shall not deliver") reverses the source: such a placement is
rejected (context.py).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass

from citations.cascade.align import place_in_window
from citations.cascade.boundaries import disallowed_cut
from citations.cascade.context import (
    REVERSING_VERBS,
    Dropped,
    negation_elided,
    sentence_ends,
)
from citations.cascade.folding import fold_text, ocr_skeleton
from citations.cascade.guards import (
    CURRENCY,
    DATE,
    MODAL,
    NEGATION,
    NUMBER,
    PERCENT,
    Feature,
    counterpart,
    features,
)
from citations.cascade.numerals import CARDINALS, SCALES
from citations.cascade.prepared import PreparedText
from citations.cascade.refusal import Check, first_refusal, refusal
from citations.cascade.tolerant import (
    FoldedQuote,
    Found,
    Search,
    find_tolerant,
    folded_region,
    judge_span,
    source_span,
)
from lib.stemming import same_root, without_possessive

MAX_GAP = 300
LONG_PART_WORDS = 3
# Occurrences of the anchor part tried before giving up (repeated boilerplate).
MAX_ANCHORS = 50

_MARKER = re.compile(
    r"(?P<ellipsis>\[\s*(?:\.\s*){3,}\]|\[\s*…\s*\]|\.\s?\.\s?\.(?:\s?\.)?|…)"
    r"|\[(?P<bracket>[^\[\]\n]{0,80})\]"
)
_DROPPED = {
    "sic",
    "emphasis added",
    "emphasis omitted",
    "citation omitted",
    "footnote omitted",
}
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class QuoteParts:
    parts: tuple[str, ...]
    elided: bool  # had an ellipsis or a bracketed insertion
    altered: bool  # had a one-letter bracket or a dropped note
    opens_elided: bool = False  # starts with an ellipsis or an insertion
    # What stands between part i and part i + 1: an insertion's words, or
    # None for an ellipsis (len(parts) - 1 of them).
    between: tuple[str | None, ...] = ()
    # Insertions before the first part or after the last, which replace
    # source text the parts do not reach.
    outer_insertions: tuple[str, ...] = ()
    # How many of outer_insertions come before the first part.
    leading: int = 0
    # Has a bracket that is no ellipsis ("[t]he", "[the Buyer]", "[***]").
    bracketed: bool = False


def split_quote(quote: str, *, literal_brackets: bool = False) -> QuoteParts | None:
    """The quote's parts, or None when it has no elision or alteration.
    With `literal_brackets`, only ellipses split it: its brackets are read
    as text the source may hold ("[***]", "Section 1(c) [Confidentiality]")."""
    pieces: list[str] = []
    markers: list[str | None] = []  # the marker after each piece
    current: list[str] = []
    elided = altered = opens = bracketed = False
    position = 0
    for m in _MARKER.finditer(quote):
        inner = m.group("bracket")
        bracketed = bracketed or inner is not None
        if inner is not None and literal_brackets:
            continue
        current.append(quote[position : m.start()])
        position = m.end()
        if inner is not None:
            stripped = inner.strip()
            if len(stripped) == 1 and stripped.isalpha():
                current.append(stripped)
                altered = True
                continue
            if not stripped or stripped.lower().rstrip(".") in _DROPPED:
                altered = True
                continue
        elided = True
        opens = opens or not _WORD.search(quote[: m.start()])
        pieces.append("".join(current))
        markers.append(inner.strip() if inner is not None else None)
        current = []
    if not (elided or altered):
        return None
    current.append(quote[position:])
    pieces.append("".join(current))
    kept = [i for i, p in enumerate(pieces) if _WORD.search(p)]
    parts = tuple(pieces[i].strip() for i in kept)
    between: list[str | None] = []
    for a, b in itertools.pairwise(kept):
        # Markers between two kept pieces: their insertions' words, joined;
        # None where there are only ellipses.
        inserted = [x for x in markers[a:b] if x is not None]
        between.append(" ".join(inserted) or None)
    outer = [
        x
        for i, x in enumerate(markers)
        if x is not None and (not kept or i < kept[0] or i >= kept[-1])
    ]
    leading = sum(
        1 for i, x in enumerate(markers) if x is not None and kept and i < kept[0]
    )
    return QuoteParts(
        parts=parts,
        elided=elided,
        altered=altered,
        opens_elided=opens,
        between=tuple(between),
        outer_insertions=tuple(outer),
        leading=leading,
        bracketed=bracketed,
    )


@dataclass(frozen=True)
class _Part:
    quote: FoldedQuote
    words: int

    @property
    def short(self) -> bool:
        return self.words < LONG_PART_WORDS


@dataclass(frozen=True)
class _Hit:
    start: int  # folded offsets
    end: int
    fuzzy: bool
    similarity: float


def _whole(
    prepared: PreparedText, f_start: int, f_end: int, fuzzy: bool = False
) -> bool:
    """Does the part's place start and end on token edges (never "limited"
    of "unlimited", "500" of "1,500"), or, for an approximate match of OCR'd
    text, where OCR ran two words together?"""
    start, end = prepared.folded.source_span(f_start, f_end)
    return disallowed_cut(prepared.text, start, end, fuzzy=fuzzy) is None


def _find_part(
    prepared: PreparedText, part: _Part, lo: int, hi: int, backward: bool
) -> _Hit | None:
    folded = prepared.folded.text
    q = part.quote.folded
    lo = max(0, lo)
    hi = min(len(folded), hi)
    search_hi = hi
    search_lo = lo
    while True:
        at = (
            folded.rfind(q, lo, search_hi)
            if backward
            else folded.find(q, search_lo, hi)
        )
        if at < 0:
            break
        if _whole(prepared, at, at + len(q)):
            return _Hit(at, at + len(q), False, 1.0)
        if backward:
            search_hi = at + len(q) - 1
        else:
            search_lo = at + 1
    if part.short or not part.quote.fuzzy_eligible or len(q) > 600:
        return None
    start, end, _ = place_in_window(prepared.skeleton, part.quote.skeleton, lo, hi)
    if end <= start:
        return None
    judged = judge_span(prepared, part.quote, start, end, None)
    if isinstance(judged, Found) and _whole(prepared, start, end, fuzzy=True):
        return _Hit(start, end, True, judged.similarity)
    return None


@dataclass(frozen=True)
class Elided:
    found: Found | None
    reason: str
    parts: int
    largest_gap: int
    # Every part found in order, but a gap refused ("found, differs"): the
    # source span from the first part to the last, for display, and the
    # least similarity of its parts.
    refused: tuple[int, int] | None = None
    refused_similarity: float = 0.0


def _anchor_hits(
    prepared: PreparedText, anchor: _Part, raw: str, region: tuple[int, int] | None
) -> list[_Hit]:
    folded = prepared.folded.text
    q = anchor.quote.folded
    hits: list[_Hit] = []
    f_region = folded_region(prepared, region)
    scopes = [f_region] if f_region is not None else []
    scopes.append((0, len(folded)))
    seen: set[int] = set()
    for lo, hi in scopes:
        at = folded.find(q, lo, hi)
        while at >= 0 and len(hits) < MAX_ANCHORS:
            if at not in seen and _whole(prepared, at, at + len(q)):
                seen.add(at)
                hits.append(_Hit(at, at + len(q), False, 1.0))
            at = folded.find(q, at + 1, hi)
    if hits:
        return hits
    search: Search = find_tolerant(prepared, raw, region)
    found = search.found
    if found is None:
        return []
    fuzzy = found.match_type == "fuzzy"
    if disallowed_cut(prepared.text, found.start, found.end, fuzzy=fuzzy):
        return []
    # Back to folded offsets: the tolerant search reports source offsets.
    f = prepared.folded
    start = f.folded_offset(found.start)
    end = f.folded_offset(found.end)
    return [_Hit(start, end, True, found.similarity)]


def _no_words(parts: list[_Part]) -> str | None:
    return None if parts else "quote has no words outside its elisions"


def _fragments(parts: list[_Part]) -> str | None:
    total = sum(p.words for p in parts)
    long_words = sum(p.words for p in parts if not p.short)
    if long_words == 0:
        return "every elided part is shorter than three words"
    if 2 * long_words < total:
        return "too much of the elided quote is in fragments of one or two words"
    return None


def _guarded_fragment(parts: list[_Part]) -> str | None:
    for p in parts:
        if p.short and features(p.quote.folded):
            return (
                f"elided fragment '{p.quote.folded}' is too short to verify "
                "safely (it carries a number, negation or modal verb)"
            )
    return None


# The rules an elided quote's parts meet before any is searched, in order;
# the first to refuse decides.
PARTS_CHECKS: tuple[Check[list[_Part]], ...] = (
    Check("elision.no_words", _no_words),
    Check("elision.fragments", _fragments),
    Check("elision.guarded_fragment", _guarded_fragment),
)


def find_elided(
    prepared: PreparedText, split: QuoteParts, region: tuple[int, int] | None
) -> Elided:
    """Find every part in order (see module docstring). Insertions outside
    the parts are the caller's to check (`outer_insertion_difference`)."""
    parts = [_Part(FoldedQuote.of(p), 0) for p in split.parts]
    parts = [_Part(p.quote, p.quote.words) for p in parts if p.quote.folded]
    refused_parts = first_refusal(PARTS_CHECKS, parts)
    if refused_parts is not None:
        return Elided(None, refused_parts, len(parts), 0)
    anchor_index = max(range(len(parts)), key=lambda i: len(parts[i].quote.folded))
    anchors = _anchor_hits(
        prepared, parts[anchor_index], split.parts[anchor_index], region
    )
    # elision.part_not_found and elision.out_of_reach are decided here and
    # in _chain, inline rather than by a table's row: they name how the
    # search ended (a part with no place, or none in reach), when there is
    # no passage for a rule to read (docs/verification.md).
    if not anchors:
        return Elided(
            None,
            refusal(
                "elision.part_not_found",
                f"elided part '{split.parts[anchor_index][:80]}' not found",
            ),
            len(parts),
            0,
        )
    failure = ""
    refused: list[_Hit] | None = None
    refused_reason = ""
    f_region = folded_region(prepared, region)
    best: tuple[tuple[bool, int, int], list[_Hit]] | None = None
    # Every anchor occurrence is tried and the tightest chain wins: a chain
    # that jumps to a look-alike sentence nearby must not beat the real one.
    for anchor in anchors:
        chain, failure, gap_refused = _chain(
            prepared, parts, split, anchor_index, anchor, failure
        )
        if chain is None:
            if gap_refused is not None and refused is None:
                refused, refused_reason = gap_refused, failure
            continue
        inside = (
            f_region is not None
            and f_region[0] <= chain[0].start
            and chain[-1].end <= f_region[1]
        )
        key = (
            not inside,
            sum(b.start - a.end for a, b in itertools.pairwise(chain)),
            chain[0].start,
        )
        if best is None or key < best[0]:
            best = (key, chain)
    if best is None:
        if refused is not None:
            # Every part found, in order, and a gap refused: that is the
            # reason to give, with the passage.
            return Elided(
                None,
                refused_reason,
                len(parts),
                0,
                source_span(prepared, refused[0].start, refused[-1].end),
                min(h.similarity for h in refused),
            )
        return Elided(
            None,
            failure
            or refusal("elision.out_of_reach", "elided parts not found in order"),
            len(parts),
            0,
        )
    (outside, _, _), ordered = best
    span = source_span(prepared, ordered[0].start, ordered[-1].end)
    if span is None:
        return Elided(
            None,
            refusal("elision.out_of_reach", "elided parts not found in order"),
            len(parts),
            0,
        )
    gaps = [b.start - a.end for a, b in itertools.pairwise(ordered)]
    found = Found(
        span[0],
        span[1],
        "fuzzy" if any(h.fuzzy for h in ordered) else "normalized",
        min(h.similarity for h in ordered),
        not outside,
    )
    return Elided(found, "", len(parts), max(gaps, default=0))


def outer_insertion_difference(split: QuoteParts) -> str | None:
    """An insertion before the first part or after the last replaces source
    text no part reaches: it may not carry a number, negation or modal verb
    ("[No] Supplier shall deliver", "... to the Buyer [within 5 days]")."""
    for inserted in split.outer_insertions:
        refused = first_refusal(OUTER_MEANING_CHECKS, inserted)
        if refused is not None:
            return refused
    return None


def _outer_said(inserted: str) -> str | None:
    if not _said(inserted):
        return None
    return (
        f"the bracketed insertion “[{inserted}]” carries a number, "
        "negation or modal verb that no source text stands behind"
    )


# The rule an insertion outside the parts meets before any part is
# searched (a table of one: the rules that read the source's words beside
# the span are OUTER_INSERTION_CHECKS, after a passage is found).
OUTER_MEANING_CHECKS: tuple[Check[str], ...] = (
    Check("insertion.outer_meaning", _outer_said),
)


_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


def _crosses_paragraph(prepared: PreparedText, f_end: int, f_start: int) -> bool:
    """Does the elided gap between two parts contain a blank line?"""
    if f_start <= f_end:
        return False
    folded = prepared.folded
    gap = prepared.text[folded.source_end(f_end) : folded.source_start(f_start)]
    return bool(_BLANK_LINE.search(gap))


def _in_paragraphs(found: tuple[PreparedText, list[_Hit]]) -> str | None:
    prepared, chain = found
    if any(
        _crosses_paragraph(prepared, a.end, b.start)
        for a, b in itertools.pairwise(chain)
    ):
        return "elided parts are in different paragraphs"
    return None


# The rule a chain of parts found in order meets before its gaps are read
# (a table of one: each gap then meets context.ELIDED_CHECKS and
# GAP_CHECKS, or INSERTED_GAP_CHECKS).
CHAIN_CHECKS: tuple[Check[tuple[PreparedText, list[_Hit]]], ...] = (
    Check("elision.paragraphs", _in_paragraphs),
)


def _chain(
    prepared: PreparedText,
    parts: list[_Part],
    split: QuoteParts,
    anchor_index: int,
    anchor: _Hit,
    failure: str,
) -> tuple[list[_Hit] | None, str, list[_Hit] | None]:
    """The parts around one anchor occurrence, each the nearest in reach;
    when every part is found but a gap is refused, the parts' places as the
    third item."""
    hits: dict[int, _Hit] = {anchor_index: anchor}
    edge = anchor.start
    for i in range(anchor_index - 1, -1, -1):
        size = len(parts[i].quote.folded)
        hit = _find_part(prepared, parts[i], edge - MAX_GAP - size, edge, True)
        if hit is None:
            return (
                None,
                refusal(
                    "elision.out_of_reach",
                    f"elided part '{split.parts[i][:80]}' not found within "
                    f"{MAX_GAP} characters before the next part",
                ),
                None,
            )
        hits[i] = hit
        edge = hit.start
    edge = anchor.end
    for i in range(anchor_index + 1, len(parts)):
        size = len(parts[i].quote.folded)
        hit = _find_part(prepared, parts[i], edge, edge + MAX_GAP + size, False)
        if hit is None:
            return (
                None,
                refusal(
                    "elision.out_of_reach",
                    f"elided part '{split.parts[i][:80]}' not found within "
                    f"{MAX_GAP} characters after the previous part",
                ),
                None,
            )
        hits[i] = hit
        edge = hit.end
    chain = [hits[i] for i in range(len(parts))]
    refused = first_refusal(CHAIN_CHECKS, (prepared, chain))
    if refused is not None:
        return None, refused, None
    folded = prepared.folded
    for k, (a, b) in enumerate(itertools.pairwise(chain)):
        gap_start, gap_end = folded.source_end(a.end), folded.source_start(b.start)
        dropped = negation_elided(prepared.text, gap_start, gap_end)
        if dropped:
            return None, dropped.reason, chain
        inserted = split.between[k] if k < len(split.between) else None
        before = prepared.text[folded.source_start(a.start) : gap_start]
        after = prepared.text[gap_end : folded.source_end(b.end)]
        wrong = _gap_difference(
            prepared.text[gap_start:gap_end], inserted, before, after
        )
        if wrong:
            return None, wrong, chain
    return chain, failure, None


_NEGATED_WORD = (
    r"(?:un(?!less\b|til\b|der|it|ion|iform|ique|iversal|ivers|animous|ify)\w{4,}"
    r"|non-?\s?\w{4,})"
)
# Words that reverse, bound or narrow what follows them, beyond the guard's
# negations: an ellipsis over one drops it ("liable ... indirect damages"
# from "liable for all damages, excluding indirect damages"; "purchase ...
# 1,000 units" from "purchase at least 1,000 units").
REVERSING_NEAR_END = re.compile(
    r"\b(?:exclud\w*|other\s+than|save\s+for|apart\s+from"
    rf"|{REVERSING_VERBS}|unable\s+to"
    r"|at\s+(?:least|most)|up[\s-]+to|(?:maximum|minimum)(?:\s+of)?|prior\s+to"
    r"|only|solely|excl\.?|less|minus|net\s+of|in\s+excess\s+of|exclusive\s+of"
    r"|with\s+the\s+exception\s+of|instead\s+of|in\s+lieu\s+of|besides|barring"
    r"|deducting|after\s+deduction\s+of|reduced\s+by"
    r"|(?:cease|stop|avoid)(?:s|d|ed)?|disclaim\w*|waiv\w*|beyond"
    r"|(?:a\s+)?(?:portion|part|fraction)\s+of|partial\w*|partly|jointly"
    r"|save|subject\s+to|provided\s+that"
    # A word a negating prefix makes of another ("unreasonably",
    # "non-exclusive"): "shall not be ... withheld" over "unreasonably".
    rf"|{_NEGATED_WORD})"
    # Up to five words of its own may follow it in the gap, in its clause:
    # "excluding in all cases | any indirect damages".
    r"(?:[^\w.;:!?]+[\w'\u2019-]+){0,5}[^\w.;:!?]*\Z",
    re.IGNORECASE,
)


# Words that make a clause conditional, restrict it, or deny it: "may enter
# the premises only in an emergency", "if the Buyer defaults", "to the
# extent", "upon default", "denies". A bound (REVERSING_NEAR_END) narrows the
# few words right after it, which an ellipsis may drop with it; these
# govern the rest of their clause, so they count anywhere in the gap's last
# clause: the words the quote resumes with are still under them.
_CONDITIONING = re.compile(
    # Not "as if"; nor "whether" in an aside that covers every case
    # (_aside_either_way).
    r"\b(?:only|solely|(?<!\bas\s)if|whether|subject\s+to|to\s+the\s+extent"
    r"|(?:so|as)\s+long\s+as|in\s+the\s+event|on\s+condition"
    r"|(?:conditional|conditioned|contingent|dependent)\s+(?:up)?on"
    r"|to\s+(?:the\s+best\s+of\s+)?(?:its|his|her|their|our|my|the)\s+knowledge"
    # "provided" as a proviso, not "the services provided by".
    r"|provided(?=\s*[,(]|\s+(?:that|however|further|always)\b)"
    r"|(?<=[,;(])\s*provided|(?<=[,;(]\s)provided"
    # Verbs of denial: "The Seller ... any liability" over "denies"; not
    # in a defined term ("the Rejected Compounds").
    r"|(?:den(?:y|ies|ied)|refus(?:e|es|ed)|reject(?:s|ed)?|declin(?:e|es|ed))"
    r"(?!\s+(?-i:[A-Z]))"
    r"|object(?:s|ed)?\s+to|(?:may|shall|will|must|to|not)\s+dispute"
    r"|disputes?\s+that"
    r"|after(?!-)|upon"
    # Time conditions: "may, until the Closing, ...", "before", "prior to",
    # "following" (not "the following", a list). "where", "when" and "once"
    # open a condition after a mark ("shall, when invoiced, pay"); elsewhere
    # they are "the place where", "any sum when due", "an audit once a year".
    r"|until|unless|before|prior\s+to|(?<!\bthe\s)following"
    r"|(?:(?<=[,;(])|(?<=[,;(]\s)|^)\s*(?:where(?:ver)?|when(?:ever)?"
    r"|once(?!\s+(?:again|more)\b)))\b",
    re.IGNORECASE,
)
# "upon" after these is their preposition, not a condition: "agreed upon",
# "relied upon", "binding upon the parties".
_UPON_OF = frozenset(
    [
        "agree",
        "agreed",
        "relied",
        "rely",
        "relies",
        "relying",
        "based",
        "binding",
        "incumbent",
        "imposed",
        "impose",
        "imposes",
        "conferred",
        "confer",
        "confers",
        "served",
        "serve",
        "called",
        "call",
        "act",
        "acted",
        "acting",
        "draw",
        "drawn",
        "drew",
        "focus",
        "infringe",
        "infringes",
        "infringed",
        "encroach",
        "placed",
        "levied",
        "bestowed",
    ]
)
_LAST_CLAUSE = re.compile(r"[;:]")
_EITHER_WAY = re.compile(r"\bor\b", re.IGNORECASE)


def elided_condition(gap: str, before: str = "", after: str = "") -> str | None:
    """A word that conditions, restricts or denies its clause which an
    ellipsis over `gap` leaves out of the clause the quote goes on with, or
    None. `before`, `after`: the source text of the quote's parts either
    side (a proviso's comma may be the quote's, and so may the "or" of
    "whether ... or")."""
    clause = _LAST_CLAUSE.split(gap)[-1]
    mark = before.rstrip()[-1:]
    if len(clause) == len(gap) and mark in (",", ";", "("):
        clause = mark + clause
    # A list's lead-in governs every item: "may, solely for its own use: (i)
    # copy ..., and (ii) ... distribute".
    for part in (clause, _lead_in(gap)):
        condition = _condition_in(part, after)
        if condition:
            return condition
    return None


def _condition_in(clause: str, after: str) -> str | None:
    for m in _CONDITIONING.finditer(clause):
        word = m.group().lower()
        if word == "upon":
            ahead = _WORD.findall(clause[: m.start()])
            if ahead and ahead[-1].lower() in _UPON_OF:
                continue
        if word == "whether" and _aside_either_way(clause, m, after):
            continue
        return " ".join(m.group().lstrip(",;( ").split())
    return None


def _lead_in(gap: str) -> str:
    """What the gap says before its last colon: the lead-in of the list the
    quote goes on in ("" without a colon). An elision over a ";" joins two
    sentences and never gets here."""
    colon = gap.rfind(":")
    return gap[:colon] if colon >= 0 else ""


def _aside_either_way(clause: str, whether: re.Match[str], after: str) -> bool:
    """Is "whether" an aside that covers every case (", whether written or
    oral,")? Without its comma it asks which ("determine whether the Buyer
    or the Seller is liable"), and the quote's next words are the answer."""
    aside = clause[: whether.start()].rstrip().endswith(",")
    return aside and bool(_EITHER_WAY.search(clause[whether.end() :] + " " + after))


def outer_party_difference(
    text: str, start: int, end: int, split: QuoteParts
) -> Dropped | None:
    """An insertion before the first part or after the last names the other
    party than the words it replaces, just before or after the span, do
    ("[Licensor] shall bear" over "Licensee shall bear"): the first rule of
    OUTER_INSERTION_CHECKS to refuse an insertion decides."""
    for k, inserted in enumerate(split.outer_insertions):
        outer = _Outer(text, start, end, inserted, leading=k < split.leading)
        refused = first_refusal(OUTER_INSERTION_CHECKS, outer)
        if refused is not None:
            return Dropped(refused, outer.where)
    return None


class _Outer:
    """What the insertion rules read of one insertion outside the parts:
    the source's words just before and after the span; a rule that refuses
    sets `where`, the offset the refused passage is shown from."""

    def __init__(
        self, text: str, start: int, end: int, inserted: str, *, leading: bool
    ) -> None:
        self.text, self.start, self.end = text, start, end
        self.inserted, self.leading = inserted, leading
        self.before = text[max(0, start - 40) : start].split()[-3:]
        self.after = text[end : end + 40].split()[:3]
        self.where = start


def _antecedent(o: _Outer) -> str | None:
    if not o.leading:
        return None
    other = _other_than_antecedent(o.text, o.start, o.inserted)
    if not other:
        return None
    o.where = other.start
    return other.reason


def _other_party(o: _Outer) -> str | None:
    for nearby, where in ((o.before, o.start), (o.after, o.end)):
        if _names_other_party(o.inserted, " ".join(nearby)):
            o.where = where
            return (
                f"the bracketed insertion “[{o.inserted}]” names another "
                f"party than the source (source: “{' '.join(nearby)}”)"
            )
    return None


def _stands_for_nothing(o: _Outer) -> str | None:
    # The words next to the span on either side are what it may replace.
    # A longer bracket is an editor's note ("[Redacted - Commercially
    # Sensitive]", a heading), which replaces nothing the quote says.
    sides = (
        (" ".join(o.before), " ".join(o.before[-1:])),
        (" ".join(o.after), " ".join(o.after[:1])),
    )
    if len(_WORD.findall(o.inserted)) <= _REPLACING_WORDS and not any(
        _stands_for(o.inserted, words, next_to) for words, next_to in sides
    ):
        return (
            f"the bracketed insertion “[{o.inserted}]” stands for no words of "
            f"the source (source: “{' '.join(o.before)} … {' '.join(o.after)}”)"
        )
    return None


# The rules an insertion outside the parts meets, in order (a leading one
# first against the pronoun it may stand for); the first to refuse decides.
OUTER_INSERTION_CHECKS: tuple[Check[_Outer], ...] = (
    Check("insertion.antecedent", _antecedent),
    Check("insertion.other_party", _other_party),
    Check("insertion.stands_for_nothing", _stands_for_nothing),
)


_REPLACING_WORDS = 3
# Pronouns a leading bracket may stand for ("[the Buyer] shall" for "It
# shall"), and words after which a name is an object, not a subject.
_SUBJECT_PRONOUNS = frozenset(["it", "its", "he", "she", "his", "her", "they", "their"])
_PREPOSITIONS = frozenset(
    [
        "of",
        "to",
        "by",
        "from",
        "with",
        "for",
        "against",
        "on",
        "upon",
        "in",
        "at",
        "than",
        "between",
        "under",
        "over",
        "into",
        "onto",
        "towards",
        "toward",
        "after",
        "before",
    ]
)
_DETERMINERS = frozenset(
    ["the", "a", "an", "this", "that", "each", "such", "said", "either", "any"]
)
# Capitalised words that open a sentence, not name its subject ("If the
# Parties desire ..., they will").
_OPENERS = frozenset(
    [
        "if",
        "when",
        "then",
        "where",
        "while",
        "whereas",
        "unless",
        "although",
        "because",
        "once",
        "notwithstanding",
        "however",
        "further",
        "furthermore",
        "additionally",
        "also",
        "thereafter",
        "accordingly",
    ]
)
_NAME = re.compile(r"[\w'\u2019-]+")
# How far back the pronoun's sentence and the one before it may start.
_ANTECEDENT_REACH = 600


def _other_than_antecedent(text: str, start: int, inserted: str) -> Dropped | None:
    """A leading bracket that stands for a pronoun ("[the Seller] shall"
    over "It shall") but names another party than the one the pronoun
    refers to: the subject of its sentence before it, or else of the
    sentence before ("The Buyer shall pay the Seller's invoices. It shall
    also ..." : "It" is the Buyer). A bracket naming a party the context
    does not mention (a company's own name for "the Company") is let be."""
    words = list(_NAME.finditer(text, max(0, start - 40), start))
    if not words or words[-1].group().lower() not in _SUBJECT_PRONOUNS:
        return None
    pronoun = words[-1].start()
    lo = max(0, pronoun - _ANTECEDENT_REACH)
    ends = [m.end() for m in sentence_ends(text, lo, pronoun)]
    own = ends[-1] if ends else lo
    previous = ends[-2] if len(ends) > 1 else lo
    subject = _subject(text[own:pronoun]) or _subject(text[previous:own])
    named = {_stem(w) for w in _capitalised(inserted)}
    if not subject or not named or named & subject:
        return None
    mentioned = {_stem(w) for w in _capitalised(text[previous:pronoun])}
    rival = any(
        counterpart(ocr_skeleton(fold_text(n)), ocr_skeleton(fold_text(s)))
        for n in named
        for s in subject
    )
    if not (rival or named & mentioned):
        return None
    # The rule that refuses is the row of OUTER_INSERTION_CHECKS that
    # called this (_antecedent).
    return Dropped(
        f"the bracketed insertion “[{inserted}]” stands for "
        f"“{words[-1].group()}”, which refers to the "
        f"{' '.join(sorted(subject)).title()} in the source",
        pronoun,
    )


def _capitalised(text: str) -> list[str]:
    return [
        w
        for w in _WORD.findall(text)
        if w[:1].isupper()
        and w.lower() not in _FUNCTION_WORDS | _REFERRING | _DETERMINERS
    ]


def _subject(clause: str) -> set[str]:
    """The stems of a clause's subject, as a run of capitalised words: the
    last name before its first modal verb ("Notwithstanding the foregoing,
    the Buyer shall"), or without one its first name. A possessive ("the
    Seller's invoices") or a name after a preposition ("at the request of
    the Seller") is no subject."""
    tokens = [m.group() for m in _NAME.finditer(clause)]
    runs: list[tuple[int, list[str]]] = []  # (index of the run's end, words)
    for i, word in enumerate(tokens):
        if _has_modal(word):
            break
        if not _may_be_subject(tokens, i):
            continue
        if runs and runs[-1][0] == i - 1:
            runs[-1] = (i, [*runs[-1][1], word])
        else:
            runs.append((i, [word]))
    else:
        runs = runs[:1]
    return {_stem(w) for w in runs[-1][1]} if runs else set()


def _may_be_subject(tokens: list[str], i: int) -> bool:
    word = tokens[i]
    lower = word.lower()
    if not word[:1].isupper() or re.search(r"['\u2019]s?\Z", word):
        return False
    if lower in _FUNCTION_WORDS | _REFERRING | _DETERMINERS | _PREPOSITIONS | _OPENERS:
        return False
    back = [t.lower() for t in tokens[max(0, i - 2) : i]]
    if back and back[-1] in _DETERMINERS:
        back = back[:-1]
    return not (back and back[-1] in _PREPOSITIONS)


# Words an insertion may add or replace freely ("[t]he", "[the] Buyer",
# "[sic]"), and words it may replace by what they refer to ("[the Buyer]"
# for "it").
_FUNCTION_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "by",
        "with",
        "as",
        "at",
        "sic",
    ]
)
_REFERRING = frozenset(
    [
        "it",
        "its",
        "he",
        "she",
        "they",
        "them",
        "their",
        "his",
        "her",
        "him",
        "this",
        "that",
        "these",
        "those",
        "such",
        "which",
        "who",
        "whom",
        "we",
        "us",
        "our",
        "you",
        "your",
        "said",
        "same",
        "former",
        "latter",
    ]
)


def _stands_for(
    inserted: str,
    replaced: str,
    referring: str | None = None,
    context: str = "",
) -> bool:
    """Can `inserted` stand for the source's `replaced` words? Every word of
    substance in it must share a stem with one of them ("[delivered]" for
    "deliver", "[Buyer's]" for "Buyer"), unless they are words that refer
    to something it names ("[the Buyer]" for "it"): a name, and, where the
    quote's `context` before the bracket names another party it could refer
    to, no bracket ("[the Buyer's]" for "its" after "The Seller shall
    indemnify the Buyer" may be either). Words of no substance ("[or]",
    "[in]") may be added, or stand for themselves, never for other words
    ("[or]" for "and"). "[withhold]" for "pay", "[Seller]" for "Agent" and
    "[knowingly]" over nothing say what the source does not."""
    said = _WORD.findall(fold_text(inserted))
    there = _WORD.findall(fold_text(replaced))
    words = [w for w in said if w.isalpha() and len(w) > 1 and w not in _FUNCTION_WORDS]
    if not said:
        return True  # a redaction ("[***]") stands for whatever it hides
    if not words:
        small = [w for w in said if w not in _ARTICLES]
        return not there or small == [w for w in there if w not in _ARTICLES]
    # `referring`: the words that may refer (by default all it replaces).
    may_refer = there if referring is None else _WORD.findall(fold_text(referring))
    if may_refer and all(w in _REFERRING or w in _FUNCTION_WORDS for w in may_refer):
        names = [w for w in _WORD.findall(inserted) if w[:1].isupper()]
        if len(names) < len(words):
            return False
        named = {_stem(n) for n in names}
        nouns = [
            _stem(w)
            for w in _WORD.findall(context)
            if w[:1].isupper() and w.lower() not in _FUNCTION_WORDS | _REFERRING
        ]
        if nouns and may_refer in (["it"], ["them"], ["him"]) and context.strip():
            # An object ("deliver the goods to it") is not its clause's
            # subject, which would be "itself".
            nouns = nouns[1:]
        return not (set(nouns) - named)
    return all(any(same_root(w, g) for g in there) for w in words)


_ARTICLES = frozenset(["the", "a", "an", "sic"])


def _stem(word: str) -> str:
    """A name as the insertion rules compare it: folded, lower-cased, its
    possessive dropped and its plural kept (a plural name is another name)."""
    return without_possessive(fold_text(word).lower())


def _names_other_party(inserted: str, gap: str) -> bool:
    """ "The [Licensor] shall pay" over "Licensee"."""
    said = [ocr_skeleton(w) for w in _WORD.findall(fold_text(inserted))]
    there = [ocr_skeleton(w) for w in _WORD.findall(fold_text(gap))]
    return any(counterpart(w, g) for w in said for g in there)


def _said(text: str) -> Counter[tuple[str, str]]:
    return Counter((f.kind, f.value) for f in features(fold_text(text)))


_CLAUSE_START = re.compile(r"[.;:!?]\s")


def _has_modal(text: str) -> bool:
    return any(f.kind == MODAL for f in features(fold_text(text)))


_AMOUNT_KINDS = frozenset({NUMBER, PERCENT, CURRENCY, DATE})


def elided_amount(gap: str, before: str = "", after: str = "") -> str | None:
    """A number, amount, percentage or date an ellipsis over `gap` would drop
    that belongs to a phrase the quote keeps ("shall pay ... the costs" over
    "fifty percent of", "within ... days" over "thirty (30)", "December 31
    ... unless" over ", 2020,"), as written, or None. Leaving one out changes
    what the quote commits the party to. One inside an aside the gap holds
    whole, set off by commas or brackets, belongs to the aside, which the
    kept words do not depend on (", pursuant to Section 4.1 or 4.2 hereof,",
    "(beginning with pager # 1)", ", created or generated by the Agent or
    other Third Party,"); unless the aside goes on from a number the quote
    keeps (`before` ends in "31" or "thirty"): a date's year, a number's
    figures. `after`: the source text of the part after the gap (a mark it
    starts with sets the gap's last words off from it: "; and (ii)")."""
    segments = _segments(gap, before, after)
    said = [k for k, (piece, _) in enumerate(segments) if piece.strip()]
    for k, (segment, attached) in enumerate(segments):
        amount = _amount(features(fold_text(segment)))
        if amount is None:
            continue
        # The gap's first words, after a number the quote keeps, go on from
        # it or bound it ("31, | 2020", "50% (| or 60%)"), unless they are
        # all the gap and only say the number again ("thirty (| 30)").
        goes_on = k == said[0] and _ends_in_amount(before)
        if attached or (goes_on and not (said == [k] and _restates(before, segment))):
            return amount
    return None


def _amount(found: list[Feature]) -> str | None:
    return next((f.raw for f in found if f.kind in _AMOUNT_KINDS), None)


# What sets an aside off inside an elided gap.
_ASIDE_MARK = re.compile(r"[,()\[\]\u2013\u2014]")


def _segments(gap: str, before: str = "", after: str = "") -> list[tuple[str, bool]]:
    """The gap cut at the marks that set asides off, each piece with whether
    it touches a part the quote keeps: the first piece touches the part
    before, the last the part after, unless a mark of that part stands
    between them (an empty piece touches nothing)."""
    pieces = _ASIDE_MARK.split(gap)
    last = len(pieces) - 1
    first_touches = not _CLOSES_A_PHRASE.search(before)
    last_touches = not _OPENS_A_PHRASE.match(after)
    return [
        (
            piece,
            bool(piece.strip())
            and ((k == 0 and first_touches) or (k == last and last_touches)),
        )
        for k, piece in enumerate(pieces)
    ]


# A mark at the end of the part before a gap, or at the start of the part
# after it, that ends the gap's phrase.
_CLOSES_A_PHRASE = re.compile(r"[,;:(\[\u2013\u2014]\s*\Z")
_OPENS_A_PHRASE = re.compile(r"\s*[,;:)\]\u2013\u2014]")


def _restates(before: str, aside: str) -> bool:
    """Does the aside say the kept part's last amount again, in words or
    figures and nothing more ("50% (fifty percent)", "thirty (30)")?"""
    found = features(fold_text(aside))
    said = _amount_values(found)
    kept = _amount_values(features(fold_text(" ".join(before.split()[-6:]))))
    spoken = {f.raw for f in found}
    return (
        bool(said)
        and kept[-len(said) :] == said
        and all(w in spoken for w in _WORD.findall(fold_text(aside)))
    )


def _amount_values(found: list[Feature]) -> list[tuple[str, str]]:
    """Features as (kind, value) with numbers by value: "fifty" and "50"
    are both ("number", "50"), "one hundred" is ("number", "100")."""
    out: list[tuple[str, str]] = []
    words: list[str] = []
    for f in [*found, None]:
        if f is not None and f.kind == NUMBER and f.value in _SPOKEN:
            words.append(f.value)
            continue
        if words:
            out.append((NUMBER, str(_spoken_value(words))))
            words = []
        if f is not None:
            out.append((f.kind, f.value))
    return out


_SPOKEN = {**CARDINALS, **SCALES}


def _spoken_value(words: list[str]) -> int:
    total = current = 0
    for word in words:
        if word in SCALES:
            current = max(current, 1) * SCALES[word]
            if SCALES[word] >= 1000:
                total, current = total + current, 0
        else:
            current += CARDINALS[word]
    return total + current


def _ends_in_amount(before: str) -> bool:
    """Does the kept part end in a number, amount or date ("December 31",
    "thirty", "50%")? An aside right after it goes on from it ("December
    31, 2020", "thirty (30)", "50% (fifty percent)"), or bounds it."""
    words = before.rstrip(" ,;:([\u2013\u2014").split()
    last = features(fold_text(words[-1])) if words else []
    # The last word itself: "a third party (…)" ends in a noun.
    return bool(last) and last[-1].kind in _AMOUNT_KINDS


# Words that open an exception or condition to what comes before them: a
# quote that resumes with one after leaving out a negated word has moved the
# exception ("a policy, which is non-cancelable, except upon thirty days'
# notice").
_EXCEPTING = re.compile(
    r"\s*(?:except|unless|save|other\s+than|if|provided|exclud\w*|but)\b",
    re.IGNORECASE,
)
_NEGATED_NEAR_END = re.compile(
    rf"\b{_NEGATED_WORD}(?P<rest>(?:[^\w.;:!?]+[\w'\u2019-]+){{0,5}}[^\w.;:!?]*)\Z",
    re.IGNORECASE,
)
_PHRASE_END = re.compile(r"[,)\]]")
# How many kept words before a gap a negation may stand in and still
# govern a left-out un-/non- word's phrase.
_NEGATION_NEAR = 8


def _reversing_near_end(gap: str, before: str, after: str) -> str | None:
    """The first word near the gap's end that reverses, bounds or narrows
    the words after it (REVERSING_NEAR_END), with its own words, unless it
    is an un-/non- word set off from them."""
    at = 0
    while (found := REVERSING_NEAR_END.search(gap, at)) is not None:
        if not _negated_word_set_off(found, gap, before, after):
            return found.group().strip()
        at = found.start() + 1
    return None


def _negated_word_set_off(
    reversing: re.Match[str], gap: str, before: str, after: str
) -> bool:
    """Is the reversing word REVERSING_NEAR_END found near the gap's end an
    un-/non- word set off from the words after the gap? Its phrase ends
    inside the gap, at a comma or a closing bracket: a list's qualifier ("an
    irrevocable, non- transferable, | indivisible licence"), a noun it
    qualifies ("non-transferrable right to make, | have made, use"), an
    aside ("(the “Non-Solicit Period”)"); and the quote does not resume with
    an exception the word held ("non-cancelable, | except upon notice").
    Under a negation the quote keeps nearby, a left-out un-/non- word may
    flip the words after it ("shall not be ... withheld" over "unreasonably,
    or arbitrarily,"; "shall not unreasonably delay, or | withhold"): there
    only a word that qualifies another inside the gap, and is no adverb,
    is set off ("not to file a ... application (including a non-provisional
    application and PCT entry) | to maintain")."""
    found = _NEGATED_NEAR_END.match(gap, reversing.start())
    if found is None:
        return False
    rest = found.group("rest")
    end = _PHRASE_END.search(rest)
    if end is None or _EXCEPTING.match(after):
        return False
    # "not", "no", "never" ... among the kept words nearest the gap; other
    # "non-" words negate nothing of it.
    near = " ".join(_CLAUSE_START.split(before)[-1].split()[-_NEGATION_NEAR:])
    if not any(
        f.kind == NEGATION and f.value != "non" for f in features(fold_text(near))
    ):
        return True
    word = found.group()[: len(found.group()) - len(rest)]
    return not word.lower().endswith("ly") and bool(_WORD.search(rest[: end.start()]))


# Words that start a clause of another subject in a gap ("..., and the
# Buyer", "whereupon the Licensor").
_NEW_SUBJECT = re.compile(
    r"\b(?:and|but|or|whereupon|whereas|while|which|who|if|when|then)\s+"
    r"(?:the\s+|a\s+|an\s+|each\s+|either\s+|any\s+)?[A-Z]\w*|\b(?:it|he|she|they)\b",
)


def _gap_difference(
    gap: str, inserted: str | None, before: str, after: str = ""
) -> str | None:
    """Why the source text between two parts cannot stand behind what the
    quote puts there (an ellipsis, or a bracketed insertion), or None.

    An insertion stands for the words it replaces: it must say the same
    numbers, negations and modal verbs ("shall [not] deliver" over nothing,
    "within [30] days" over "60", fail). An ellipsis may drop words, but not
    a modal verb when the clause before it (`before`, the quote's part) has
    one of its own: the words after belong to another clause ("The Buyer
    shall ... deliver" over "pay the price. The Supplier shall"); nor a word
    that reverses what follows it ("liable ... indirect damages" over "for
    all damages, excluding")."""
    checks = GAP_CHECKS if inserted is None else INSERTED_GAP_CHECKS
    return first_refusal(checks, _Gap(gap, before, after, inserted))


class _Gap:
    """What the elision rules read: the source text an ellipsis leaves out
    (`gap`), the quote's part before it and the source's words after it;
    for a bracketed insertion, what the quote puts there (`inserted`)."""

    def __init__(
        self, gap: str, before: str, after: str, inserted: str | None = None
    ) -> None:
        self.gap, self.before, self.after = gap, before, after
        self.inserted = inserted
        self._said: list[Feature] | None = None

    @property
    def said(self) -> list[Feature]:
        """The gap's numbers, negations and modal verbs (read once)."""
        if self._said is None:
            self._said = features(fold_text(self.gap))
        return self._said

    @property
    def shown(self) -> str:
        return " ".join(self.gap.split())[:80]


def _says_otherwise(g: _Gap) -> str | None:
    inserted = g.inserted or ""
    if (
        _said(inserted) != _said(g.gap)
        or _names_other_party(inserted, g.gap)
        or not _stands_for(inserted, g.gap, context=_CLAUSE_START.split(g.before)[-1])
    ):
        return (
            f"the bracketed insertion “[{inserted}]” says what the source "
            f"does not (source: “{' '.join(g.gap.split()) or '(nothing)'}”)"
        )
    return None


def _joins_sentences(g: _Gap) -> str | None:
    if sentence_ends(g.gap, 0, len(g.gap)):
        return f"the elision joins two sentences (source: “{g.shown}”)"
    return None


def _leaves_out_amount(g: _Gap) -> str | None:
    amount = elided_amount(g.gap, g.before, g.after)
    return f"the elision leaves out “{amount}”" if amount else None


def _joins_subject(g: _Gap) -> str | None:
    subject = _NEW_SUBJECT.search(g.gap)
    if (
        _has_modal(" ".join(g.after.split()[:1]))
        and (subject or any(f.kind == MODAL for f in g.said))
    ) or (subject and _has_modal(g.gap[subject.end() :])):
        return (
            "the elision joins the quote's subject to another clause's verb "
            f"(source: “{g.shown}”)"
        )
    return None


def _joins_clauses(g: _Gap) -> str | None:
    if any(f.kind == MODAL for f in g.said) and _has_modal(
        _CLAUSE_START.split(g.before)[-1]
    ):
        return (
            "the elision joins two clauses: it leaves out the modal verb of "
            f"the second (source: “{g.shown}”)"
        )
    return None


def _leaves_out_reversing_word(g: _Gap) -> str | None:
    reversing = _reversing_near_end(g.gap, g.before, g.after)
    return f"the elision leaves out “{reversing}”" if reversing else None


def _leaves_out_condition(g: _Gap) -> str | None:
    condition = elided_condition(g.gap, g.before, g.after)
    if condition:
        return (
            f"the elision leaves out “{condition}”, which governs the words "
            f"after it (source: “{g.shown}”)"
        )
    return None


# The rules an ellipsis's gap meets, in order; the first to refuse decides
# (_gap_difference; an insertion's gap meets insertion.says_otherwise).
GAP_CHECKS: tuple[Check[_Gap], ...] = (
    Check("elision.joins_sentences", _joins_sentences),
    Check("elision.amount", _leaves_out_amount),
    Check("elision.joins_subject", _joins_subject),
    Check("elision.joins_clauses", _joins_clauses),
    Check("elision.reversing_word", _leaves_out_reversing_word),
    Check("elision.condition", _leaves_out_condition),
)
# The rule a bracketed insertion's gap meets instead: it stands for the
# words it replaces (a table of one: the gap's other rules are an
# ellipsis's, which may drop words an insertion must stand behind).
INSERTED_GAP_CHECKS: tuple[Check[_Gap], ...] = (
    Check("insertion.says_otherwise", _says_otherwise),
)
