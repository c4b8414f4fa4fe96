"""Stages 3 and 4: a model judges a paraphrase; several models vote.

The cascade only defines the interface. A judge is any callable with a `name`
that reads a passage and a quote and answers with a `JudgeResult`; the
OpenAI-compatible judge lives with the chat providers. A judge's word is never
taken for the span: the span it names must be found in the passage (verbatim
or tolerantly), and the quote's numbers, negations and modal verbs must appear
in it (guards.paraphrase_difference), written in the same case where case
is meaning (lettercase.py), with the quote's parties, roles, places, law,
forum and periods (entities.entity_difference). A judge adds support; it
never overrides a guard.

Exceptions raised by a judge propagate: a model server that is down is a
reason to retry the task, not a verdict about the quote.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol, runtime_checkable

from citations.cascade.entities import entity_difference
from citations.cascade.folding import fold_text
from citations.cascade.guards import paraphrase_difference
from citations.cascade.lettercase import case_difference
from citations.cascade.prepared import PreparedText
from citations.cascade.refusal import Check, first_refusal
from citations.cascade.tolerant import find_exact, find_tolerant


@dataclass(frozen=True)
class JudgeResult:
    supported: bool
    span: str | None  # the passage's own words that support the quote
    confidence: float  # 0..1, as reported by the judge
    explanation: str


@runtime_checkable
class Judge(Protocol):
    name: str

    def __call__(self, *, passage: str, quote: str) -> JudgeResult: ...


@dataclass(frozen=True)
class Vote:
    judge: str
    supported: bool
    start: int | None
    end: int | None
    confidence: float
    reason: str
    # The guard's rule that refused the judge's span (rules.py), if one did.
    rule: str | None = None


def _confidence(value: object) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    if math.isnan(number):
        return 0.0
    return max(0.0, min(1.0, number))


def judge_name(judge: object) -> str:
    return str(getattr(judge, "name", "") or type(judge).__name__)[:100]


def vote(
    prepared: PreparedText, quote: str, passage: tuple[int, int], judge: Judge
) -> Vote:
    """Ask one judge about text[passage] and check what it answers."""
    name = judge_name(judge)
    ps, pe = passage
    result = judge(passage=prepared.text[ps:pe], quote=quote)
    supported = getattr(result, "supported", None)
    span = getattr(result, "span", None)
    explanation = str(getattr(result, "explanation", "") or "")[:300]
    confidence = _confidence(getattr(result, "confidence", 0.0))
    if supported is not True:
        detail = f": {explanation}" if explanation else ""
        return Vote(
            name, False, None, None, confidence, f"{name} found no support{detail}"
        )
    if not isinstance(span, str) or not span.strip():
        return Vote(
            name, False, None, None, confidence, f"{name} named no supporting span"
        )
    exact = find_exact(prepared.text, span.strip(), passage)
    if exact is not None and exact.in_region:
        start, end = exact.start, exact.end
    else:
        search = find_tolerant(prepared, span.strip(), passage, region_only=True)
        if search.found is None:
            return Vote(
                name,
                False,
                None,
                None,
                confidence,
                f"{name}'s span is not in the passage",
            )
        start, end = search.found.start, search.found.end
    span = prepared.text[start:end]
    difference = first_refusal(
        JUDGED_SPAN_CHECKS, _JudgedSpan(quote, span, prepared.text)
    )
    if difference is not None:
        return Vote(
            name,
            False,
            start,
            end,
            confidence,
            f"{name}'s span rejected: {difference}",
            difference.rule,
        )
    detail = f": {explanation}" if explanation else ""
    return Vote(
        name, True, start, end, confidence, f"{name} judged it supported{detail}"
    )


class _JudgedSpan(NamedTuple):
    """What the guards of a judged span read: the quote, the span the judge
    named (found in its passage) and the whole text, whose names tell a
    name from a word (entities)."""

    quote: str
    span: str
    text: str


def _paraphrase(j: _JudgedSpan) -> str | None:
    return paraphrase_difference(fold_text(j.quote), fold_text(j.span))


def _letter_case(j: _JudgedSpan) -> str | None:
    return case_difference(j.quote, j.span)


def _entities(j: _JudgedSpan) -> str | None:
    return entity_difference(j.quote, j.span, j.text)


# The guards hold whatever a judge says, in order, and the first to refuse
# its span decides (the vote then names that rule, not the judge): numbers,
# negations and modal verbs (guards.PARAPHRASE_CHECKS), case where case is
# meaning, and who, where and when (entities.ENTITY_RULES, WHOLE_SPAN_RULES).
JUDGED_SPAN_CHECKS: tuple[Check[_JudgedSpan], ...] = (
    Check(None, _paraphrase),
    Check("post.letter_case", _letter_case),
    Check(None, _entities),
)


@dataclass(frozen=True)
class Ballot:
    agreeing: tuple[Vote, ...]
    votes: tuple[Vote, ...]
    quorum: int

    @property
    def passed(self) -> bool:
        return len(self.agreeing) >= self.quorum

    @property
    def confidence(self) -> float:
        return len(self.agreeing) / len(self.votes) if self.votes else 0.0

    @property
    def best(self) -> Vote | None:
        return max(self.agreeing, key=lambda v: v.confidence, default=None)


def ensemble_vote(
    prepared: PreparedText,
    quote: str,
    passage: tuple[int, int],
    judges: Sequence[Judge],
    quorum: int,
) -> Ballot:
    """Every judge votes; agreement means supported with overlapping spans."""
    votes = tuple(vote(prepared, quote, passage, j) for j in judges)
    supporting = [v for v in votes if v.supported and v.start is not None]
    best: tuple[Vote, ...] = ()
    # The largest group of spans sharing a point: some group's shared point is
    # the start of one of its spans.
    for v in supporting:
        point = v.start
        group = tuple(w for w in supporting if w.start <= point < w.end)  # type: ignore[operator]
        if len(group) > len(best):
            best = group
    return Ballot(agreeing=best, votes=votes, quorum=max(1, quorum))
