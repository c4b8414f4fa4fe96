"""A cell's confidence, calibrated: high, medium or low by what was measured.

A model's own "high" says little (issue 25: 2 of 4 "medium" cells were
wrong, 7 of 12 "low" ones right), so a cell's confidence is decided from
facts the product checks itself: the quote verified, the value supported by
it, the passage rated as answering the question, several passages stating the
same value, the place named by a governing-law clause. The model's word is
one fact among them (kept as `Cell.model_confidence`).

The bands are an ordered table of named rules (`CONFIDENCE_RULES`): the
first that applies decides, and `Cell.confidence_rule` records it. The rules
were set on the 10 'tune' CUAD development contracts and their accuracy is
reported on the other 10 (`bench/tabular_eval.py`; docs/tabular.md shows
the measured accuracy of each band). Pure: no database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from citations import values

HIGH = "high"
MEDIUM = "medium"
LOW = "low"


@dataclass(frozen=True)
class CellFacts:
    """What the calibration reads of a finished cell."""

    source: str  # "offline" (the reader) | "model"
    found: bool
    kind: str | None  # citations.values kind of the column; None for text
    verified: bool = False  # the quote verified by the cascade
    method: str = ""  # exact_match | tolerant_match | llm_judge | ensemble | failed
    support: str = ""  # supported | unsupported | unchecked
    relevance: str = ""  # answers | related | off_topic (the quoted passage)
    relevance_score: float = 0.0
    sentence_score: float = 0.0
    model_confidence: str = ""  # what the model said: high | medium | low
    rank: int | None = None  # the quoted passage's retrieval rank (0 best)
    agree: int = 0  # answering passages stating the same value
    rivals: int = 0  # other values of the kind among answering sentences
    role: str = ""  # a jurisdiction's role


@dataclass(frozen=True)
class ConfidenceRule:
    name: str
    band: str
    applies: Callable[[CellFacts], bool]
    doc: str


def _typed(f: CellFacts) -> bool:
    return f.kind not in (None, values.YES_NO)


CONFIDENCE_RULES: tuple[ConfidenceRule, ...] = (
    # Never high: what the product could not check.
    ConfidenceRule(
        "quote_not_verified",
        LOW,
        lambda f: f.found and not f.verified,
        "the quote is not in the document as written: nothing backs the value",
    ),
    ConfidenceRule(
        "value_not_supported",
        LOW,
        lambda f: f.found and f.support == "unsupported",
        "the verified quote does not state the value",
    ),
    ConfidenceRule(
        "passage_does_not_answer",
        LOW,
        lambda f: f.found and f.relevance == "off_topic",
        "the quoted passage does not bear on the question",
    ),
    # Offline reader.
    ConfidenceRule(
        "governing_law_clause",
        HIGH,
        lambda f: (
            f.source == "offline"
            and f.found
            and f.kind == values.JURISDICTION
            and f.role == values.GOVERNING_LAW
        ),
        "a place read from a governing-law clause ('governed by the laws of')",
    ),
    ConfidenceRule(
        "value_stated_twice",
        HIGH,
        lambda f: (
            f.source == "offline"
            and f.found
            and _typed(f)
            and f.agree >= 2
            and f.rivals == 0
        ),
        "two answering passages state the same value and no other",
    ),
    ConfidenceRule(
        "typed_value_alone",
        MEDIUM,
        lambda f: f.source == "offline" and f.found and _typed(f) and f.rivals == 0,
        "one answering passage states the value, none another",
    ),
    ConfidenceRule(
        "clear_absence",
        MEDIUM,
        lambda f: not f.found and f.relevance != "related",
        "not found, and no passage read even relates to the question",
    ),
    # A model's answer, checked.
    ConfidenceRule(
        "model_checked",
        HIGH,
        lambda f: (
            f.source == "model"
            and f.found
            and f.model_confidence == HIGH
            and f.method == "exact_match"
            and f.support == "supported"
            and f.relevance == "answers"
        ),
        "the model was sure, its quote is verbatim, states the value and answers",
    ),
    ConfidenceRule(
        "model_plausible",
        MEDIUM,
        lambda f: (
            f.source == "model"
            and f.found
            and f.support != "unsupported"
            and f.relevance in ("answers", "related")
        ),
        "a verified, consistent quote from a passage that bears on the question",
    ),
    ConfidenceRule("otherwise", LOW, lambda f: True, "anything else"),
)


def calibrate(facts: CellFacts) -> tuple[str, str]:
    """(band, the deciding rule's name)."""
    rule = next(r for r in CONFIDENCE_RULES if r.applies(facts))
    return rule.band, rule.name
