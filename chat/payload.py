"""The answer payload in seed 004's universal citation model.

`build_payload` is what gets stored (unchanged, for replay);
`payload_with_verdicts` overlays the current verification of each citation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict
from typing import TYPE_CHECKING

from chat.coverage import (
    PENDING,
    SUPPORTED,
    UNSUPPORTED,
    Sentence,
    answer_sentences,
    coverage,
)
from chat.rendering import reading_order
from citations.models import Relevance, Status
from ingest import file_types
from ingest.links import document_span_url
from ingest.selectors import Span, chunk_location, span_locations

if TYPE_CHECKING:
    from chat.models import Message, MessageSource
    from citations.extraction import Extraction
    from citations.models import MessageCitation, UnsourcedCitation

SNIPPET_CHARS = 280


# Source types whose location is per passage (a message, a column): a
# citation's own offsets choose it (ingest.locations).
SEGMENTED_TYPES = file_types.segmented_types()


def _location(
    source: MessageSource, start: int | None = None, end: int | None = None
) -> dict | None:
    """The location of content[start:end] (or of the chunk) in its source's
    own words, from the chunk and document loaded with the source."""
    chunk = source.chunk if source.chunk_id else None
    if chunk is None or "document" not in chunk._state.fields_cache:
        return None
    return chunk_location(chunk, start, end).as_dict()


def _location_fields(location: dict | None, metadata: dict) -> dict:
    """Seed 004's location fields, from the location (email and others keep
    reading the document's metadata)."""
    location = location or {}

    def pick(key: str, *fallbacks: str):
        if key in location:
            return location[key]
        return next(
            (metadata.get(k) for k in (key, *fallbacks) if metadata.get(k)), None
        )

    return {
        "message_id": pick("message_id"),
        "thread_id": pick("thread_id"),
        "ts": metadata.get("date") or location.get("ts") or metadata.get("ts"),
        "table": pick("table"),
        "row_id": pick("row_id"),
        "column": pick("column"),
        "location": location.get("label") or None,
        "original_url": location.get("original_url") or None,
    }


def _source_entry(source: MessageSource, chunk_text: str, metadata: dict) -> dict:
    url = ""
    if source.document_id:
        url = document_span_url(
            source.document_id, source.start_offset, source.end_offset
        )
    location = _location(source)
    return {
        "id": source.ref_label,
        "citation_id": source.ref_label,
        "source_type": source.source_type,
        "doc_id": str(source.document_id) if source.document_id else None,
        "doc_title": source.document_title,
        "snippet": chunk_text[:SNIPPET_CHARS],
        "score": round(source.score, 4),
        "page": source.page_start
        if source.source_type in file_types.paged_types()
        else None,
        "url": url,
        **_location_fields(location, metadata),
        "chunk_id": str(source.chunk_uid),
        "chunk_index": source.chunk_index,
        "revision_id": str(source.revision_id),
        "extra": {
            **{k: v for k, v in metadata.items() if k in {"sender", "to", "subject"}},
            **((location or {}).get("extra") or {}),
        },
    }


def _cited_location(source: MessageSource, chunk_text: str, quote: str) -> dict:
    """Where the quote is, before verification has placed it: its first
    occurrence in the cited chunk (verification's own offsets replace it:
    `payload_with_verdicts`)."""
    if source.source_type not in SEGMENTED_TYPES or not quote:
        return {}
    at = chunk_text.find(quote.strip()[:200])
    if at < 0:
        return {}
    start = source.start_offset + at
    location = _location(source, start, start + len(quote))
    if location is None:
        return {}
    return _location_fields(location, {}) | {"extra": location.get("extra") or {}}


def citation_fields(citation: MessageCitation) -> dict:
    return {
        "citation_uuid": str(citation.pk),
        "status": citation.verification_status,
        "method": citation.verification_method,
        "match_type": citation.match_type,
        "confidence": float(citation.verification_confidence)
        if citation.verification_confidence is not None
        else None,
        "match_score": citation.match_score,
        "start": citation.source_offset_start,
        "end": citation.source_offset_end,
        "page": citation.source_page,
        "source_text": citation.source_text,
        "quoted_text": citation.quoted_text,
        "reason": citation.reason,
        "answer_start": citation.answer_start,
        "answer_end": citation.answer_end,
        "failure_kind": citation.failure_kind or None,
        "candidate_start": citation.candidate_start,
        "candidate_end": citation.candidate_end,
        "candidate_page": citation.candidate_page,
        "relevance": citation.relevance,
        "relevance_score": citation.relevance_score,
        "other_document": citation.other_document,
        "stale": citation.is_stale,
    }


def supports(citation: MessageCitation) -> bool:
    """Does the citation support the sentence that cites it: verified, not
    stale, bearing on the question, from the document asked about."""
    return (
        citation.verification_status == Status.VERIFIED
        and not citation.is_stale
        and citation.relevance in {Relevance.ANSWERS, Relevance.RELATED}
        and not citation.other_document
    )


def support_of(citations: Iterable[MessageCitation]) -> Callable[[str], str]:
    """`coverage`'s judge of a ref, from the message's citations."""
    by_ref: dict[str, list[MessageCitation]] = {}
    for c in citations:
        by_ref.setdefault(c.ref_label, []).append(c)

    def support(ref: str) -> str:
        rows = by_ref.get(ref, [])
        if any(supports(c) for c in rows):
            return SUPPORTED
        if any(c.verification_status == Status.PENDING for c in rows):
            return PENDING
        return UNSUPPORTED

    return support


def sentence_marks(payload: dict, citations: Iterable[MessageCitation]) -> list[dict]:
    """The live coverage marks of a stored answer's sentences."""
    sentences = [Sentence(**s) for s in payload.get("sentences", [])]
    return coverage(sentences, support_of(citations))


def unsourced_fields(row: UnsourcedCitation) -> dict:
    return {
        "id": row.ref_label,
        "citation_id": row.ref_label,
        "citation_uuid": str(row.pk),
        "status": "out_of_provenance",
        "method": None,
        "match_type": None,
        "confidence": None,
        "quoted_text": row.quoted_text,
        "reason": row.reason,
        "doc_id": None,
        "doc_title": None,
        "answer_start": row.answer_start,
        "answer_end": row.answer_end,
    }


def build_payload(
    *,
    question: str,
    extraction: Extraction,
    sources: list[MessageSource],
    chunk_texts: dict[str, str],
    metadata: dict[str, dict],
    citations: list[MessageCitation],
    unsourced: list[UnsourcedCitation],
    model: str,
    searched: dict | None = None,
    not_found: bool = False,
    contradiction: bool = False,
) -> dict:
    """The stored answer. `contradiction`: the model said "not found" yet
    quoted the documents, so the answer is flagged for review."""
    entries = {
        s.ref_label: _source_entry(
            s, chunk_texts.get(s.ref_label, ""), metadata.get(s.ref_label, {})
        )
        for s in sources
    }
    by_ref = {s.ref_label: s for s in sources}
    cited = [
        {
            **entries[c.ref_label],
            **citation_fields(c),
            **_cited_location(
                by_ref[c.ref_label],
                chunk_texts.get(c.ref_label, ""),
                c.quoted_text or "",
            ),
        }
        for c in citations
        if c.ref_label in entries
    ]
    cited.extend(unsourced_fields(u) for u in unsourced)
    cited.sort(
        key=lambda c: reading_order(
            c["answer_start"], c["answer_end"], c["id"], c["quoted_text"] or ""
        )
    )
    inline_refs: dict[str, list[dict]] = {}
    for candidate in extraction.candidates:
        if candidate.answer_start is not None:
            inline_refs.setdefault(candidate.ref, []).append(
                {"start": candidate.answer_start, "end": candidate.answer_end}
            )
    return {
        "question": question,
        "answer": extraction.answer,
        "citations": cited,
        "all_citations": list(entries.values()),
        "inline_refs": inline_refs,
        "model": model,
        "searched": searched or {},
        "not_found": not_found,
        "contradiction": contradiction,
        "sentences": [asdict(s) for s in answer_sentences(extraction.answer)],
    }


def payload_with_verdicts(message: Message) -> dict:
    """The stored payload with each citation's current verification."""
    payload = dict(message.payload or {})
    live = {str(c.pk): c for c in message.citations.all()}
    located = _live_locations(message, payload, live)
    merged = []
    for entry in payload.get("citations", []):
        row = live.get(entry.get("citation_uuid", ""))
        merged.append(
            {
                **entry,
                **citation_fields(row),
                **located.get(entry.get("citation_uuid", ""), {}),
            }
            if row is not None
            else dict(entry)
        )
    payload["citations"] = merged
    payload["coverage"] = sentence_marks(payload, live.values())
    return payload


def _live_locations(message: Message, payload: dict, live: dict) -> dict[str, dict]:
    """The location of each placed citation of a message or a database row
    (the message or column its verified offsets fall in), in one query."""
    wanted = {
        e.get("citation_uuid"): live[e["citation_uuid"]]
        for e in payload.get("citations", [])
        if e.get("source_type") in SEGMENTED_TYPES and e.get("citation_uuid") in live
    }
    spans = {}
    for key, row in wanted.items():
        start = row.source_offset_start if row.verified else row.candidate_start
        end = row.source_offset_end if row.verified else row.candidate_end
        if row.chunk_id and start is not None:
            spans[key] = Span(row.chunk_id, start, end)
    if not spans:
        return {}
    found = span_locations(tenant_id=message.tenant_id, spans=list(spans.values()))
    out = {}
    for key, span in spans.items():
        if span in found:
            location = found[span].as_dict()
            out[key] = _location_fields(location, {}) | {
                "extra": location.get("extra") or {}
            }
    return out
