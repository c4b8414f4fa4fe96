"""What a model reads for a review's cells, and what it answered.

With a model configured, a cell is answered by the model reading the
document, not four retrieved chunks: the whole document when it fits the
context budget (`LLM_CONTEXT_TOKENS` less the reply's tokens and the
prompt's), else its best sections whole (ranked by the cell's within-document
retrieval), and, while nothing is found, the next unread sections in further
calls, up to ``MAX_READS`` calls. Only a model that read every section can
say a clause is absent; a cell over budget that found nothing in the
sections read says so, and never reads as "missing".

A document that fits is asked several of the review's columns in one call
(``TABULAR_COLUMNS_PER_CALL``, a "row" call): the document is the prompt's
bulk, so sending it once per row instead of once per cell divides the prompt
tokens by the columns asked (measured in docs/tabular.md). A column the reply
leaves out, or a row call whose reply is malformed, is asked again alone.

Pure apart from the model call: sections come from ``ingest.sections``, the
caller verifies quotes and stores cells (tabular.executor).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ingest import file_types
from ingest.sections import Section, estimate_tokens
from llm import prompting
from llm.types import Completion, LLMConfig

# A reply's tokens per question asked: a quote of up to ~400 characters, a
# justification and the keys. The limit sent is at least LLM_MAX_TOKENS.
ANSWER_TOKENS = 400
# The chat template's tokens and the estimate's rounding.
PROMPT_MARGIN_TOKENS = 256
# A section's header line ("Section 3 - Location: Pages 3-4") and its fence.
SECTION_HEADER_TOKENS = 24
# Calls one cell may spend reading an over-budget document while the model
# finds nothing: each reads the next best unread sections.
MAX_READS = 3
CONFIDENCES = ("high", "medium", "low")


class ReplyProblem(Exception):
    """The model's reply cannot be read as answers; the message says why."""


@dataclass(frozen=True)
class Asked:
    """One column asked: its question's text as the model reads it, and its
    type as the prompt names it."""

    key: int  # the caller's id for the column
    question: str
    column_type: str


@dataclass(frozen=True)
class ModelAnswer:
    """One question's answer, validated (the quote is not verified yet)."""

    found: bool
    value: str
    quote: str
    section: Section | None  # the section the quote is cited from, if given
    quote_answers: bool
    confidence: str
    justification: str
    # A section number the model cited but was not given (kept, flagged).
    invalid_section: int | None = None

    @property
    def contradiction(self) -> str:
        """Why the answer contradicts itself ("" when it does not): a "not
        found" that quotes or states a value, or a "found" with nothing."""
        if not self.found and self.quote:
            return "The model said it found nothing, yet quoted the document."
        if not self.found and self.value:
            return "The model said it found nothing, yet gave a value."
        if self.found and not (self.value or self.quote):
            return "The model said it found an answer, but gave no value or quote."
        return ""


@dataclass
class Read:
    """What the model read for one cell, over one or more calls."""

    sections_total: int
    sections: dict[int, Section] = field(default_factory=dict)  # by index
    calls: int = 0
    completions: list[tuple[Completion, int]] = field(default_factory=list)

    def add(self, batch: Sequence[Section]) -> None:
        for section in batch:
            self.sections[section.index] = section
        self.calls += 1

    @property
    def whole(self) -> bool:
        return len(self.sections) >= self.sections_total

    @property
    def read(self) -> list[Section]:
        return [self.sections[i] for i in sorted(self.sections)]

    def summary(self) -> str:
        sections = self.read
        if self.whole:
            return (
                f"The model read the whole document ({self.sections_total} "
                f"section{'s' if self.sections_total != 1 else ''})."
            )
        labels = ", ".join(s.label for s in sections)
        return (
            f"The model read {len(sections)} of {self.sections_total} sections "
            f"({labels}); the document is longer than it can read at once, and "
            "the rest was not read."
        )

    def describe(self) -> dict[str, Any]:
        """For the cell's `searched` (the grid and the cell panel say it)."""
        sections = self.read
        return {
            "whole": self.whole,
            "sections_read": len(sections),
            "sections_total": self.sections_total,
            "pages": [[s.page_start, s.page_end] for s in sections],
            "labels": [s.label for s in sections],
            "calls": self.calls,
            # Per answered call, how many cells it asked (a row call shares
            # one call among them): a review's calls are the sum of 1/n.
            "shared": [parts for _, parts, _ in self.completions],
            "summary": self.summary(),
        }


# ---------------------------------------------------------------- budget


def reply_tokens(config: LLMConfig, questions: int) -> int:
    """The reply's token limit for a call asking `questions` columns."""
    return max(int(config.max_tokens or 0), ANSWER_TOKENS * max(1, questions))


def reading_budget(
    config: LLMConfig, *, title: str, source_type: str, asked: Sequence[Asked]
) -> int:
    """Tokens the document's sections may fill in one call asking `asked`:
    the context less the reply's limit, the prompt around the sections and a
    margin (estimates on the safe side: a reading that fits never overflows)."""
    empty = prompting.build_cell_read_messages(
        title=title,
        source_label=file_types.prompt_label(source_type),
        sections=[],
        sections_total=1,
        questions=_questions(asked),
    )
    prompt = estimate_tokens("".join(m.content for m in empty))
    return (
        int(config.context_tokens)
        - reply_tokens(config, len(asked))
        - prompt
        - PROMPT_MARGIN_TOKENS
    )


def section_tokens(sections: Sequence[Section]) -> int:
    return sum(s.tokens + SECTION_HEADER_TOKENS for s in sections)


def section_order(sections: Sequence[Section], ranked: Sequence[int]) -> list[Section]:
    """Every section once, best first: those holding the retrieval's ranked
    offsets in rank order, then the first section (parties, definitions),
    then the rest in document order."""
    starts = [s.start for s in sections]
    order: list[Section] = []
    seen: set[int] = set()

    def take(section: Section) -> None:
        if section.index not in seen:
            seen.add(section.index)
            order.append(section)

    for offset in ranked:
        take(sections[max(0, bisect.bisect_right(starts, offset) - 1)])
    for section in sections:
        take(section)
    return order


def next_batch(order: Sequence[Section], done: set[int], budget: int) -> list[Section]:
    """The best unread sections that fit `budget` together (at least one,
    so no section is ever skipped), in document order for the prompt."""
    batch: list[Section] = []
    spent = 0
    for section in order:
        if section.index in done:
            continue
        cost = section_tokens([section])
        if batch and spent + cost > budget:
            continue
        batch.append(section)
        spent += cost
    return sorted(batch, key=lambda s: s.index)


# ---------------------------------------------------------------- the call


def _questions(asked: Sequence[Asked]) -> list[prompting.CellQuestion]:
    return [
        prompting.CellQuestion(number=n, text=a.question, column_type=a.column_type)
        for n, a in enumerate(asked, start=1)
    ]


def ask(
    provider: Any,
    config: LLMConfig,
    *,
    title: str,
    source_type: str,
    sections: Sequence[Section],
    sections_total: int,
    asked: Sequence[Asked],
) -> tuple[dict[int, ModelAnswer], Completion]:
    """One call: `asked` of the document's `sections`. Returns the answers by
    the asked column's key (a column the reply leaves out is absent) and the
    completion. Raises LLMError (the call) or ReplyProblem (the reply)."""
    messages = prompting.build_cell_read_messages(
        title=title,
        source_label=file_types.prompt_label(source_type),
        sections=[
            prompting.ReadSection(index=s.index, location=s.label, text=s.text)
            for s in sections
        ],
        sections_total=sections_total,
        questions=_questions(asked),
    )
    reply, completion = provider.complete_json(
        messages,
        schema=prompting.CELL_READ_SCHEMA,
        name="tabular_read",
        max_tokens=reply_tokens(config, len(asked)),
    )
    return parse_answers(reply, asked, sections), completion


def parse_answers(
    reply: Any, asked: Sequence[Asked], sections: Sequence[Section]
) -> dict[int, ModelAnswer]:
    """The reply's answers by column key; the first answer to a question
    wins, answers to questions not asked are dropped."""
    if not isinstance(reply, dict) or not isinstance(reply.get("answers"), list):
        raise ReplyProblem("The model's reply has no list of answers.")
    by_number = dict(enumerate(asked, start=1))
    given = {s.index: s for s in sections}
    out: dict[int, ModelAnswer] = {}
    for item in reply["answers"]:
        if not isinstance(item, dict):
            continue
        number = item.get("question")
        if isinstance(number, bool) or not isinstance(number, int):
            continue
        column = by_number.get(number)
        if column is None or column.key in out:
            continue
        out[column.key] = _answer(item, given)
    return out


def _answer(item: dict[str, Any], given: dict[int, Section]) -> ModelAnswer:
    value, quote = item.get("value"), item.get("quote")
    if not isinstance(value, str) or not isinstance(quote, str):
        raise ReplyProblem("The model's answer has no text value.")
    confidence = item.get("confidence")
    if confidence not in CONFIDENCES:
        raise ReplyProblem(f"The model gave an unknown confidence {confidence!r}.")
    index = item.get("section_index")
    if isinstance(index, bool) or not isinstance(index, int):
        index = -1
    quote = quote.strip()
    section = given.get(index)
    return ModelAnswer(
        found=item.get("found") is True,
        value=value.strip(),
        quote=quote,
        section=section,
        quote_answers=item.get("quote_answers") is True,
        confidence=confidence,
        justification=str(item.get("justification") or "").strip(),
        invalid_section=index if quote and section is None and index >= 0 else None,
    )
