"""A model's structured answer (llm.prompting.ANSWER_SCHEMA) and its rendering
into the stored answer text. Pure: no Django.

The stored text keeps the project's canonical citation form,
``"verbatim words" (Source: [S3])``, so inline refs, the page, the payload and
replay read it as they read any answer. The citations themselves are built
here from the model's own list (with their offsets in the rendered text), not
parsed back out of it: a quote holding quotation marks, or a source id that is
not one of ours, stays the citation the model made (the second is then out of
provenance), and each keeps the model's own rating of it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from citations.extraction import (
    INLINE_REF,
    MAX_ANSWER_CHARS,
    MAX_CANDIDATES,
    MAX_QUOTE_CHARS,
    QUOTE_PAIR,
    CitationCandidate,
    Extraction,
    extract_citations,
    normalize_ref,
)
from llm.prompting import NO_ANSWER

ANSWERS, RELATED = "answers", "related"
ANSWERS_LEAD = "The documents say:"
RELATED_LEAD = "Related passages:"
UNQUOTED_LEAD = "Cited without a quote:"
# Quotation marks for a quote, the first pair it does not itself contain.
QUOTE_MARKS = (('"', '"'), ("“", "”"), ("«", "»"))


@dataclass(frozen=True)
class ModelCitation:
    ref: str  # normalized ("S3"), or the model's id as written
    quote: str
    relevance: str  # answers | related


@dataclass(frozen=True)
class StructuredAnswer:
    answer: str
    citations: list[ModelCitation]
    not_found: bool

    @classmethod
    def of(cls, data: dict[str, Any]) -> StructuredAnswer:
        """From JSON already validated against ANSWER_SCHEMA; bounded as any
        model output is (citations.extraction's limits)."""
        citations = []
        for row in (data.get("citations") or [])[:MAX_CANDIDATES]:
            ref = normalize_ref(row.get("source"))
            if ref is None:
                continue  # no id at all: nothing to point the quote at
            relevance = row.get("relevance")
            citations.append(
                ModelCitation(
                    ref=ref.replace("]", ")"),
                    quote=" ".join(str(row.get("quote") or "").split())[
                        :MAX_QUOTE_CHARS
                    ],
                    relevance=relevance if relevance in (ANSWERS, RELATED) else RELATED,
                )
            )
        return cls(
            answer=str(data.get("answer") or "").strip()[:MAX_ANSWER_CHARS],
            citations=citations,
            not_found=bool(data.get("not_found")),
        )

    @property
    def quoted(self) -> list[ModelCitation]:
        return [c for c in self.citations if c.quote]

    @property
    def contradiction(self) -> bool:
        """ "Not found", yet quoting the documents: flagged for review, never
        shown as a plain "not found" nor as a plain answer."""
        return self.not_found and bool(self.quoted)

    @property
    def empty(self) -> bool:
        """Says nothing at all: a reply to show as an error, not an answer."""
        return not self.answer and not self.citations and not self.not_found

    @property
    def silent(self) -> bool:
        """The model says the documents hold no answer, and quotes nothing."""
        return self.not_found and not self.quoted


@dataclass(frozen=True)
class Rendered:
    extraction: Extraction
    # (ref, quote) -> the model's relevance, for the citation rows.
    relevance: dict[tuple[str, str], str]
    # ref -> the best relevance the model gave any quote of that source (for
    # a ref or a quote the answer's text itself carries).
    by_ref: dict[str, str]

    def relevance_of(self, ref: str, quote: str | None) -> str | None:
        return self.relevance.get((ref, quote or "")) or self.by_ref.get(ref)


def _marks(quote: str) -> tuple[str, str]:
    for opening, closing in QUOTE_MARKS:
        if opening not in quote and closing not in quote:
            return opening, closing
    return QUOTE_MARKS[-1]


def _refs_at(text: str, refs: list[str]) -> list[tuple[int, str]]:
    """Where each of the last line's "[ref]" markers stands in `text`."""
    out = []
    at = text.rfind("\n") + 1
    for ref in refs:
        at = text.index(f"[{ref}]", at)
        out.append((at, ref))
        at += len(ref) + 2
    return out


def render(structured: StructuredAnswer, *, known_refs: list[str]) -> Rendered:
    """The answer, its refs, then the quotes: those that answer under "The
    documents say:", the related ones under "Related passages:"."""
    answer = structured.answer or (NO_ANSWER if structured.not_found else "")
    # The answer's sentences cite what the model marked them with, nothing
    # more: a sentence it left unmarked shows as uncited, never as backed by
    # a quote given for another.
    head = extract_citations(answer, known_refs=known_refs)
    text = answer
    candidates = list(head.candidates)
    relevance: dict[tuple[str, str], str] = {}
    for lead, label in ((ANSWERS_LEAD, ANSWERS), (RELATED_LEAD, RELATED)):
        group = [c for c in structured.quoted if c.relevance == label]
        if not group:
            continue
        text += f"\n\n{lead}"
        for c in group:
            opening, closing = _marks(c.quote)
            start = len(text) + 1
            text += f"\n{opening}{c.quote}{closing} (Source: [{c.ref}])"
            candidates.append(
                CitationCandidate(
                    ref=c.ref,
                    quote=c.quote,
                    answer_start=start,
                    answer_end=start + len(c.quote) + 2,
                    kind=QUOTE_PAIR,
                )
            )
            relevance.setdefault((c.ref, c.quote), label)
    unquoted = list(dict.fromkeys(c.ref for c in structured.citations if not c.quote))
    if unquoted:  # listed, so each is stored (unverified: nothing to check)
        text += f"\n\n{UNQUOTED_LEAD} " + "".join(f"[{ref}]" for ref in unquoted)
        for at, ref in _refs_at(text, unquoted):
            candidates.append(
                CitationCandidate(ref, None, at, at + len(ref) + 2, INLINE_REF)
            )
    by_ref: dict[str, str] = {}
    for c in structured.citations:
        if not c.quote:  # cited without a quote: rated as the model said
            relevance.setdefault((c.ref, ""), c.relevance)
        if by_ref.get(c.ref) != ANSWERS:
            by_ref[c.ref] = c.relevance
    full = extract_citations(text, known_refs=known_refs)
    return Rendered(
        extraction=replace(full, answer=text, candidates=candidates),
        relevance=relevance,
        by_ref=by_ref,
    )
