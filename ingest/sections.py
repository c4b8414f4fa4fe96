"""A document cut into sections a model reads whole.

Meaning (does this passage answer, is the clause absent, what is the value) is
a model's job, and a model can only say "absent" about what it has read. So a
question about one or a few documents sends them whole when they fit the
model's context budget, and otherwise their best sections whole, never a
silent cut: :class:`Reading` says what was read and whether it was all.

A section is a contiguous span of a revision's ``normalized_content``: a page
(or a run of short pages) for paged documents, else a run of paragraphs, cut
at a paragraph or line break near ``target_chars``. Sections of one revision
tile its text exactly (``text[s.start:s.end]`` concatenated is the text), so
every quote a model copies from them maps back to offsets and pages. Each
section is labelled with its pages ("Page 3", "Pages 3-4") or its place
("Part 2 of 9") for the prompt's Location line.

``cut_sections`` is pure; ``document_sections`` and ``read_documents`` read
the database (a document's current revision and its chunks).
"""

from __future__ import annotations

import bisect
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ingest import file_types

if TYPE_CHECKING:
    from ingest.models import Document, DocumentChunk

# About 1,500 tokens: big enough to hold a clause with its heading, small
# enough that a document over budget is read by its best parts, not by a few
# giant ones.
SECTION_CHARS = 6000
# Text tokenizes at about 4 characters a token in English; legal text with its
# numbers and punctuation runs denser. 3.5 keeps an estimate on the safe side,
# so a document "that fits" never overflows the model's context.
CHARS_PER_TOKEN = 3.5
# Source types whose page map is real (a PDF's pages, a DOCX's breaks).
PAGED = file_types.paged_types()


def estimate_tokens(text: str) -> int:
    """Tokens a model will count for `text`, estimated on the safe side."""
    return int(len(text) / CHARS_PER_TOKEN) + 1 if text else 0


@dataclass(frozen=True)
class Span:
    """Where a section lies in its revision's text, and its pages."""

    start: int
    end: int
    page_start: int
    page_end: int


def _page_of(page_starts: Sequence[int], offset: int) -> int:
    if not page_starts:
        return 1
    return max(1, bisect.bisect_right(page_starts, offset))


def _break_before(text: str, start: int, limit: int) -> int:
    """The best place to end a section that starts at `start` and may not
    pass `limit`: the last paragraph break, else line break, else space, in
    the second half of the window; else `limit` itself."""
    floor = start + (limit - start) // 2
    for mark in ("\n\n", "\n", " "):
        at = text.rfind(mark, floor, limit)
        if at > start:
            return at + len(mark)
    return limit


def cut_sections(
    text: str, page_starts: Sequence[int] = (), *, target_chars: int = SECTION_CHARS
) -> list[Span]:
    """Tile `text` with spans of about `target_chars` at most.

    With a page map, sections end at page boundaries: short pages run
    together up to the target, a long page is cut at breaks inside it. With
    none, sections end at paragraph (else line, else word) breaks."""
    if not text:
        return []
    target_chars = max(1, target_chars)
    bounds = sorted({0, *(p for p in page_starts if 0 < p < len(text)), len(text)})
    spans: list[Span] = []
    start = 0
    while start < len(text):
        limit = min(len(text), start + target_chars)
        # The furthest page boundary within the window, if any.
        at = bisect.bisect_right(bounds, limit) - 1
        end = bounds[at] if bounds[at] > start else 0
        if end <= start:
            end = limit if limit == len(text) else _break_before(text, start, limit)
        spans.append(
            Span(
                start=start,
                end=end,
                page_start=_page_of(page_starts, start),
                page_end=_page_of(page_starts, end - 1),
            )
        )
        start = end
    return spans


@dataclass(frozen=True)
class Section:
    """A span of a document's current revision, ready for a prompt."""

    document: Document
    revision_id: uuid.UUID
    file_id: uuid.UUID
    index: int  # 0-based, in document order
    count: int  # sections in the document
    start: int
    end: int
    page_start: int
    page_end: int
    text: str
    # The chunk holding the section's first character: a message source
    # points at a chunk (its id survives in the citation as chunk_id).
    chunk: DocumentChunk

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)

    @property
    def label(self) -> str:
        """The Location line: pages for a paged document, else its place."""
        if self.document.source_type in PAGED:
            if self.page_start == self.page_end:
                return f"Page {self.page_start}"
            return f"Pages {self.page_start}-{self.page_end}"
        if self.count == 1:
            return "Whole document"
        return f"Part {self.index + 1} of {self.count}"


def document_sections(
    document: Document, *, target_chars: int = SECTION_CHARS
) -> list[Section]:
    """The sections of a document's current revision, in order (none when it
    has no text). Loads the revision's text and its chunks' offsets once."""
    from ingest.models import DocumentChunk, DocumentRevision

    if document.current_revision_id is None:
        return []
    revision = (
        DocumentRevision.objects.filter(pk=document.current_revision_id)
        .only("id", "file_id", "normalized_content", "page_starts")
        .first()
    )
    if revision is None or not revision.normalized_content:
        return []
    chunks = list(
        DocumentChunk.objects.filter(revision_id=revision.pk).order_by("start_offset")
    )
    if not chunks:
        return []
    starts = [c.start_offset for c in chunks]
    text = revision.normalized_content
    spans = cut_sections(text, revision.page_starts or (), target_chars=target_chars)
    sections = []
    for index, span in enumerate(spans):
        holder = chunks[max(0, bisect.bisect_right(starts, span.start) - 1)]
        sections.append(
            Section(
                document=document,
                revision_id=revision.pk,
                file_id=revision.file_id,
                index=index,
                count=len(spans),
                start=span.start,
                end=span.end,
                page_start=span.page_start,
                page_end=span.page_end,
                text=text[span.start : span.end],
                chunk=holder,
            )
        )
    return sections


@dataclass(frozen=True)
class DocumentRead:
    """How much of one document a reading holds."""

    document_id: uuid.UUID
    title: str
    sections_read: int
    sections_total: int
    pages: list[tuple[int, int]] = field(default_factory=list)

    @property
    def whole(self) -> bool:
        return self.sections_read == self.sections_total

    def describe(self) -> dict:
        return {
            "document_id": str(self.document_id),
            "title": self.title,
            "whole": self.whole,
            "sections_read": self.sections_read,
            "sections_total": self.sections_total,
            "pages": [list(p) for p in self.pages],
        }


@dataclass(frozen=True)
class Reading:
    """What a model is given to read: sections in document order, and for
    each document whether it was read whole."""

    sections: list[Section]
    documents: list[DocumentRead]

    @property
    def whole(self) -> bool:
        """Every section of every document is in the reading: a "not found"
        from the model then covers the documents, not just a part."""
        return all(d.whole for d in self.documents)

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.sections)

    def describe(self) -> list[dict]:
        return [d.describe() for d in self.documents]


def read_documents(
    documents: Sequence[Document],
    *,
    budget_tokens: int,
    ranked: Sequence[tuple[uuid.UUID, int]] = (),
    target_chars: int = SECTION_CHARS,
) -> Reading:
    """The documents whole if they fit `budget_tokens`, else their best
    sections whole.

    `ranked` is a retrieval's best-first list of (document id, offset), for
    example the start offsets of the chunks a search found: over budget,
    the sections holding them are taken in that order until the budget is
    spent, then each document's first section (its parties and
    definitions) if there is room. The reading lists sections in document
    order, each document's in the order given."""
    per_document = [
        (d, document_sections(d, target_chars=target_chars)) for d in documents
    ]
    every = [s for _, sections in per_document for s in sections]
    if sum(s.tokens for s in every) <= budget_tokens:
        chosen = every
    else:
        by_place = {
            d.pk: ([s.start for s in sections], sections)
            for d, sections in per_document
        }
        picked: dict[tuple[uuid.UUID, int], Section] = {}
        spent = 0

        def take(section: Section) -> None:
            nonlocal spent
            key = (section.document.pk, section.index)
            if key in picked or spent + section.tokens > budget_tokens:
                return
            picked[key] = section
            spent += section.tokens

        for document_id, offset in ranked:
            place = by_place.get(document_id)
            if place is None or not place[1]:
                continue
            starts, sections = place
            take(sections[max(0, bisect.bisect_right(starts, offset) - 1)])
        for _, sections in per_document:
            if sections:
                take(sections[0])
        order = {d.pk: i for i, d in enumerate(documents)}
        chosen = sorted(picked.values(), key=lambda s: (order[s.document.pk], s.index))
    reads = []
    for document, sections in per_document:
        mine = [s for s in chosen if s.document.pk == document.pk]
        reads.append(
            DocumentRead(
                document_id=document.pk,
                title=document.title,
                sections_read=len(mine),
                sections_total=len(sections),
                pages=[(s.page_start, s.page_end) for s in mine],
            )
        )
    return Reading(sections=chosen, documents=reads)
