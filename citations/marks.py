"""How a citation's relevance is shown, beside its verification badge.

Verification says the quote is faithful; relevance says whether the passage
bears on the question. A lawyer reads a green tick as "this is the answer",
so a verified quote that does not answer keeps its badge and gets a mark,
and is listed apart ("Retrieved, does not answer the question"). The marks are
one ordered table, like the badge states (citations.presentation): the first
row whose rule holds decides, and each row carries the facts it decides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citations.models import Relevance

if TYPE_CHECKING:
    from citations.models import MessageCitation


@dataclass(frozen=True)
class RelevanceFacts:
    relevance: str | None  # answers | related | off_topic | None (not rated)
    other_document: bool = False
    method: str = ""  # who rated it: offline (word rules) | model | judge


@dataclass(frozen=True)
class Mark:
    """A row of the marks table; `supporting` says whether a citation with
    this mark may count as a source that supports the answer."""

    key: str
    applies: Callable[[RelevanceFacts], bool]
    css: str
    label: str
    icon: str
    aria: str
    supporting: bool
    examples: tuple[RelevanceFacts, ...] = ()


RELEVANCE_MARKS: tuple[Mark, ...] = (
    Mark(
        key="other_document",
        applies=lambda f: f.other_document,
        css="other-document",
        label="From another document than the one asked about",
        icon="⇄",
        aria="This passage is from a document the question did not ask about",
        supporting=False,
        examples=(
            RelevanceFacts(Relevance.ANSWERS, other_document=True),
            RelevanceFacts(None, other_document=True),
        ),
    ),
    Mark(
        key="off_topic",
        applies=lambda f: f.relevance == Relevance.OFF_TOPIC,
        css="off-topic",
        label="Does not answer the question",
        icon="∅",
        aria="This passage was retrieved but does not bear on the question",
        supporting=False,
        examples=(RelevanceFacts(Relevance.OFF_TOPIC),),
    ),
    # Word rules prove that a passage holds the question's words, never that
    # it does not answer (issue 35: the product must not disclaim its own
    # hits); only a model's "related" says "does not answer directly".
    Mark(
        key="matched",
        applies=lambda f: f.relevance == Relevance.RELATED and f.method == "offline",
        css="related",
        label="Holds your question's words",
        icon="~",
        aria="This passage holds the question's words; no model read it to judge "
        "whether it answers",
        supporting=True,
        examples=(RelevanceFacts(Relevance.RELATED, method="offline"),),
    ),
    Mark(
        key="related",
        applies=lambda f: f.relevance == Relevance.RELATED,
        css="related",
        label="Related; does not answer directly",
        icon="~",
        aria="This passage relates to the question without answering it directly",
        supporting=True,
        examples=(
            RelevanceFacts(Relevance.RELATED),
            RelevanceFacts(Relevance.RELATED, method="model"),
        ),
    ),
    Mark(
        key="answers",
        applies=lambda f: f.relevance == Relevance.ANSWERS,
        css="answers",
        label="Answers the question",
        icon="◎",
        aria="This passage answers the question",
        supporting=True,
        examples=(RelevanceFacts(Relevance.ANSWERS),),
    ),
    Mark(
        key="unrated",
        applies=lambda f: True,
        css="unrated",
        label="Relevance not rated",
        icon="",
        aria="Whether this passage answers the question was not rated",
        supporting=True,
        examples=(RelevanceFacts(None),),
    ),
)


def mark_for(facts: RelevanceFacts) -> Mark:
    return next(m for m in RELEVANCE_MARKS if m.applies(facts))


def citation_mark(citation: MessageCitation) -> Mark:
    return mark_for(
        RelevanceFacts(
            relevance=citation.relevance,
            other_document=citation.other_document,
            method=citation.relevance_method,
        )
    )
