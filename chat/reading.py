"""What a model reads for a question, within its context budget.

With a model configured, meaning is the model's to decide, and it can only
say "not found" about what it has read. So a question about documents
(chosen, @-mentioned, named, or the chat's own) gives the model those
documents whole, one section (`ingest.sections`) a source, when they fit the
budget; over budget, the sections holding what a generous retrieval found,
whole, and the answer says which were read: never a silent cut. Other
questions keep hybrid retrieval, with as many chunks as the budget holds.

The budget is the model's context (`LLM_CONTEXT_TOKENS`) less the answer's
tokens, the instructions, the history and question, and a margin; source
headers are counted too (the prompt is measured as built).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings

from chat.retrieval import Retrieved, retrieve
from chat.sources import SourceChunk
from ingest import file_types
from ingest.sections import (
    PAGED,
    Reading,
    Section,
    Span,
    document_sections,
    estimate_tokens,
    read_documents,
)
from llm.prompting import PromptSource, build_answer_messages, format_sources

if TYPE_CHECKING:
    from chat.models import ChatSession
    from chat.scope import Scope
    from llm.types import ChatMessage, LLMConfig

# Scopes whose documents are read whole (within the budget).
READ_KINDS = frozenset({"chosen", "mentioned", "named", "session"})
# The answer's own tokens when LLM_MAX_TOKENS leaves it unset: one answer and
# a few verbatim quotes.
ANSWER_MAX_TOKENS = 1024
# Chat templates, role markers and the estimate's own error.
MARGIN_FRACTION = 0.05
MIN_MARGIN_TOKENS = 256
# A source's header (ref, type, title, location, snippet, fence) in tokens.
SOURCE_HEADER_TOKENS = 80
# Chunks an unscoped question is given at most, whatever the budget holds.
MAX_CHUNKS = 100
# Measure-and-shrink passes before a reading is taken as it is.
FIT_PASSES = 4


@dataclass(frozen=True)
class ReadSection:
    """A section a model reads whole, under its ref label."""

    ref: str
    section: Section

    @property
    def document(self):
        return self.section.document

    @property
    def text(self) -> str:
        return self.section.text

    def prompt_source(self) -> PromptSource:
        s = self.section
        return PromptSource(
            ref=self.ref,
            source_label=file_types.prompt_label(s.document.source_type),
            title=s.document.title,
            page=None,  # the label says the pages
            text=s.text,
            location=s.label,
            chunk_id=str(s.chunk.uid),
        )

    def source_chunk(self) -> SourceChunk:
        s = self.section
        return SourceChunk(
            chunk=s.chunk,
            document=s.document,
            file_id=s.file_id,
            span=Span(s.start, s.end, s.page_start, s.page_end),
        )


def answer_tokens(config: LLMConfig) -> int:
    return config.max_tokens or ANSWER_MAX_TOKENS


def prompt_budget(
    config: LLMConfig, *, question: str, history: Sequence[ChatMessage]
) -> int:
    """Tokens the sources may take in the answer's prompt."""
    fixed = sum(
        estimate_tokens(m.content)
        for m in build_answer_messages(question, [], history, note=" " * 300)
    )
    margin = max(MIN_MARGIN_TOKENS, int(config.context_tokens * MARGIN_FRACTION))
    return max(0, config.context_tokens - answer_tokens(config) - fixed - margin)


def sources_tokens(sources: Sequence) -> int:
    return estimate_tokens(format_sources([s.prompt_source() for s in sources]))


def chunks_k(budget: int) -> int:
    """How many chunks of the usual size fit `budget` (at least the
    configured top k, at most MAX_CHUNKS)."""
    per_chunk = estimate_tokens("x" * settings.CHUNK_TARGET_CHARS) + (
        SOURCE_HEADER_TOKENS
    )
    return max(settings.RETRIEVAL_TOP_K, min(MAX_CHUNKS, budget // per_chunk))


def chunks_fit(retrieved: list[Retrieved], budget: int) -> list[Retrieved]:
    """The best-ranked chunks whose prompt fits `budget`."""
    kept = list(retrieved)
    while kept and sources_tokens(kept) > budget:
        kept.pop()
    return kept


def scope_read(
    *, session: ChatSession, scope: Scope, budget: int
) -> tuple[Reading, list[ReadSection]]:
    """The scope's documents whole if their prompt fits `budget`, else the
    sections holding the chunks a retrieval ranks best, whole, then the
    others in document order while the budget lasts."""
    ranked: list[tuple] | None = None
    allowed = budget
    for _ in range(FIT_PASSES):
        reading = read_documents(
            scope.documents, budget_tokens=allowed, ranked=ranked or ()
        )
        if not reading.whole and ranked is None:
            found = retrieve(session=session, scope=scope, k=chunks_k(budget))
            ranked = [
                (r.hit.chunk.document_id, r.hit.chunk.start_offset) for r in found
            ]
            # Then the rest in document order, as far as the budget goes: a
            # model reads as much as it can of what it may say is absent.
            ranked += [
                (d.pk, section.start)
                for d in scope.documents
                for section in document_sections(d)
            ]
            reading = read_documents(
                scope.documents, budget_tokens=allowed, ranked=ranked
            )
        sections = [
            ReadSection(ref=f"S{i}", section=s)
            for i, s in enumerate(reading.sections, start=1)
        ]
        over = sources_tokens(sections) - budget
        if over <= 0:
            break
        allowed -= over  # the headers did not fit: fewer sections
    return reading, sections


def nothing_fits(reading: Reading) -> bool:
    """The documents have text, yet not one section fits the budget."""
    return not reading.sections and any(d.sections_total for d in reading.documents)


def _runs(numbers: Sequence[int]) -> str:
    """[1, 2, 3, 7] -> "1-3, 7"."""
    out: list[str] = []
    ordered = sorted(set(numbers))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ", ".join(out)


def reading_line(reading: Reading | None) -> str:
    """What was read of each document read in part, "" when all was read:
    'Read pages 1-3, 7 of "X" (the document is longer than the model's
    budget).'"""
    if reading is None or reading.whole:
        return ""
    said = []
    for read in reading.documents:
        if read.whole:
            continue
        mine = [s for s in reading.sections if s.document.pk == read.document_id]
        if not mine:
            what = "nothing"
        elif mine[0].document.source_type in PAGED:
            pages = [p for s in mine for p in range(s.page_start, s.page_end + 1)]
            what = ("page " if len(set(pages)) == 1 else "pages ") + _runs(pages)
        else:
            what = (
                f"parts {_runs([s.index + 1 for s in mine])} of {read.sections_total}"
            )
        said.append(f'{what} of "{read.title}"')
    plural = "documents are" if len(said) > 1 else "document is"
    return f"Read {'; '.join(said)} (the {plural} longer than the model's budget)."
