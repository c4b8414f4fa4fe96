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
    reading: str = ""  # the offline reader's rule (tabular.reading)
    # A model's reading: whether it read every section (None offline), and
    # whether its answer contradicts itself (a "not found" that quotes).
    read_whole: bool | None = None
    contradiction: bool = False


@dataclass(frozen=True)
class ConfidenceRule:
    """A named rule: when it applies, the band it gives, and facts it decides
    (its examples; the tests check that this rule decides each of them)."""

    name: str
    band: str
    applies: Callable[[CellFacts], bool]
    doc: str
    examples: tuple[CellFacts, ...] = ()


_ANSWERED = {"found": True, "verified": True, "method": "exact_match"}


def _typed(f: CellFacts) -> bool:
    return f.kind not in (None, values.YES_NO)


CONFIDENCE_RULES: tuple[ConfidenceRule, ...] = (
    # Never high: what the product could not check.
    ConfidenceRule(
        "model_contradiction",
        LOW,
        lambda f: f.contradiction,
        "the model said it found nothing yet quoted or gave a value (or the "
        "reverse): flagged for review",
        examples=(CellFacts("model", False, values.YES_NO, contradiction=True),),
    ),
    ConfidenceRule(
        "not_found_in_part",
        LOW,
        lambda f: not f.found and f.read_whole is False,
        "not found in the sections the model read, and the document is longer "
        "than it could read: the rest was not read",
        examples=(CellFacts("model", False, values.DURATION, read_whole=False),),
    ),
    ConfidenceRule(
        "quote_not_verified",
        LOW,
        lambda f: f.found and not f.verified,
        "the quote is not in the document as written: nothing backs the value",
        examples=(CellFacts("model", True, None, verified=False, method="failed"),),
    ),
    ConfidenceRule(
        "value_not_supported",
        LOW,
        lambda f: f.found and f.support == "unsupported",
        "the verified quote does not state the value",
        examples=(
            CellFacts(
                "model",
                kind=values.DURATION,
                support="unsupported",
                model_confidence=HIGH,
                relevance="answers",
                **_ANSWERED,
            ),
        ),
    ),
    ConfidenceRule(
        "passage_does_not_answer",
        LOW,
        lambda f: f.found and f.relevance == "off_topic",
        "the quoted passage does not bear on the question",
        examples=(
            CellFacts(
                "model",
                kind=None,
                support="unchecked",
                relevance="off_topic",
                **_ANSWERED,
            ),
        ),
    ),
    # Measured on the tune contracts (bench/tabular_eval.py, docs/tabular.md).
    ConfidenceRule(
        "governing_law_clause",
        HIGH,
        lambda f: (
            f.found and f.kind == values.JURISDICTION and f.role == values.GOVERNING_LAW
        ),
        "a place read from a governing-law clause ('governed by the laws of'): "
        "10 of 10 right on the tune contracts",
        examples=(
            CellFacts(
                "offline",
                kind=values.JURISDICTION,
                role=values.GOVERNING_LAW,
                support="supported",
                relevance="answers",
                **_ANSWERED,
            ),
        ),
    ),
    ConfidenceRule(
        "date_not_found",
        LOW,
        lambda f: not f.found and f.kind == values.DATE_KIND,
        "a date not found: contracts nearly always state their dates, so this "
        "is more often a wording the reader missed (0 of 10 right on the tune "
        "contracts)",
        examples=(CellFacts("offline", False, values.DATE_KIND, relevance="related"),),
    ),
    # Word rules cannot prove an absence (issue 35): a clause worded
    # otherwise reads as none, so no "not found" is ever "high".
    ConfidenceRule(
        "absence_no_words",
        MEDIUM,
        lambda f: f.source == "offline" and not f.found and f.relevance == "off_topic",
        "not found, and no passage read holds any of the question's words: "
        "medium, never high (the clause may be worded otherwise)",
        examples=(CellFacts("offline", False, values.DURATION, relevance="off_topic"),),
    ),
    ConfidenceRule(
        "absence_unproven",
        LOW,
        lambda f: f.source == "offline" and not f.found,
        "not found by word rules, though passages read share the question's "
        "words: low (none holds the whole question; a model would have to read "
        "them)",
        examples=(
            CellFacts("offline", False, values.YES_NO, relevance="related"),
            CellFacts("offline", False, values.YES_NO, relevance="answers"),
        ),
    ),
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
        "the model was sure, its quote is verbatim, states the value and "
        "answers the question",
        examples=(
            CellFacts(
                "model",
                kind=values.MONEY,
                support="supported",
                model_confidence=HIGH,
                relevance="answers",
                **_ANSWERED,
            ),
        ),
    ),
    ConfidenceRule(
        "first_passage",
        LOW,
        lambda f: f.reading == "first_passage",
        "the question names nothing to look for: the best retrieved passage, unjudged",
        examples=(
            CellFacts(
                "offline",
                kind=None,
                support="unchecked",
                relevance="related",
                reading="first_passage",
                **_ANSWERED,
            ),
        ),
    ),
    ConfidenceRule(
        "closest_passage",
        LOW,
        lambda f: f.reading == "closest_passage",
        "no value stated: the closest passage read offline, unjudged",
        examples=(
            CellFacts(
                "offline",
                kind=values.YES_NO,
                support="unchecked",
                relevance="related",
                reading="closest_passage",
                **_ANSWERED,
            ),
        ),
    ),
    ConfidenceRule(
        "answering_sentence",
        MEDIUM,
        lambda f: f.source == "offline" and f.found and f.relevance in ("answers", ""),
        "a sentence that answers the question states the value, or a yes/no "
        "clause covers the whole question: 6 in 10 right on the tune contracts",
        examples=(
            CellFacts(
                "offline",
                kind=values.YES_NO,
                support="supported",
                relevance="answers",
                reading="answering_clause",
                **_ANSWERED,
            ),
        ),
    ),
    ConfidenceRule(
        "model_read_all_not_found",
        MEDIUM,
        lambda f: f.source == "model" and not f.found and f.read_whole is True,
        "the model read the whole document and found no answer (never high: "
        "nothing verified backs an absence)",
        examples=(CellFacts("model", False, values.MONEY, read_whole=True),),
    ),
    ConfidenceRule(
        "absence_near_miss",
        MEDIUM,
        lambda f: not f.found,
        "a model's 'not found' (offline ones are decided above)",
        examples=(CellFacts("model", False, values.DURATION),),
    ),
    ConfidenceRule(
        "model_plausible",
        MEDIUM,
        lambda f: (
            f.source == "model" and f.found and f.relevance in ("answers", "related")
        ),
        "a verified quote, not contradicting the value, from a passage that "
        "bears on the question",
        examples=(
            CellFacts(
                "model",
                kind=values.DURATION,
                support="supported",
                relevance="related",
                model_confidence=MEDIUM,
                **_ANSWERED,
            ),
        ),
    ),
    ConfidenceRule(
        "otherwise",
        LOW,
        lambda f: True,
        "anything else",
        examples=(
            CellFacts(
                "model", kind=None, support="unchecked", relevance="", **_ANSWERED
            ),
        ),
    ),
)


def calibrate(facts: CellFacts) -> tuple[str, str]:
    """(band, the deciding rule's name)."""
    rule = next(r for r in CONFIDENCE_RULES if r.applies(facts))
    return rule.band, rule.name
