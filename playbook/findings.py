"""What a finished cell means for a position: one ordered table of rules.

A finding is computed, never asked for: the tabular cell says what the
contract states (a typed value, its verified quote, or "not found"), and the
position's rule says what is acceptable. `decide(cell, position)` runs
`FINDING_RULES` in order; the first rule that applies decides, and
`Decided.rule` names it. Every rule carries examples (the facts it must
decide, and the finding it gives) that the tests run.

The findings: **meets** the standard, acceptable **fallback**, **deviates**
(with the position's severity), **missing** (with the position's "if
absent" severity, none when absence is acceptable, and what was searched),
**needs review** (the contract could not be read, the quote is not
verified, the value is not supported by it, the passage does not bear on
the question, or the position has no typed rule and no model judged it).

Nothing "meets the standard" unless its quote is verified and states the
value: those rules come first.

Pure: no database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from playbook.rules import Holds, rule_display, rule_holds

MEETS = "meets"
FALLBACK = "fallback"
DEVIATES = "deviates"
MISSING = "missing"
NEEDS_REVIEW = "needs_review"
KINDS = (MEETS, FALLBACK, DEVIATES, MISSING, NEEDS_REVIEW)
KIND_LABELS = {
    MEETS: "Meets the standard",
    FALLBACK: "Acceptable fallback",
    DEVIATES: "Deviates",
    MISSING: "Missing",
    NEEDS_REVIEW: "Needs review",
}

# A position without a typed rule, asked of a model, becomes an options
# column with these choices (playbook.runs); its rule is the first.
VERDICT_MEETS = "Meets the standard"
VERDICT_FALLBACK = "Acceptable fallback"
VERDICT_DEVIATES = "Deviates from the standard"
VERDICTS = (VERDICT_MEETS, VERDICT_FALLBACK, VERDICT_DEVIATES)


@dataclass(frozen=True)
class PositionFacts:
    title: str
    type: str = "text"
    rule: dict | None = None
    fallback_rule: dict | None = None
    severity: str = "medium"
    if_absent: str = "medium"  # "acceptable" or a severity
    judged_by_model: bool = False


@dataclass(frozen=True)
class CellFacts:
    """What the finished cell says (tabular.models.Cell, its row and citation)."""

    status: str = "done"  # done | failed (pending/running cells have no finding)
    row_state: str = "ready"
    row_error: str = ""
    error: str = ""
    outcome: str = "answered"  # answered | not_found
    typed: dict | None = None
    value: str = ""
    quote_verified: bool = False
    citation_status: str = ""
    support: str = ""  # supported | unsupported | unchecked
    relevance: str = ""  # answers | related | off_topic
    offline: bool = True  # read by the built-in reader
    searched_terms: tuple[str, ...] = ()
    searched_pages: tuple[int, ...] = ()
    # A model's reading (tabular.model_reading): whether it read every
    # section (None: the offline reader, which reads passages), what it read,
    # and why its answer contradicts itself ("" when it does not).
    read_whole: bool | None = None
    read_summary: str = ""
    contradiction: str = ""


@dataclass(frozen=True)
class Decided:
    kind: str
    severity: str
    rule: str
    reason: str


@dataclass(frozen=True)
class Example:
    cell: CellFacts
    position: PositionFacts
    kind: str


@dataclass(frozen=True)
class FindingRule:
    name: str
    doc: str
    decide: Callable[[CellFacts, PositionFacts], Decided | None]
    examples: tuple[Example, ...] = field(default=())


UNREADABLE = ("missing", "deleted", "not_ready")


def _unreadable(c: CellFacts, p: PositionFacts) -> Decided | None:
    if c.row_state not in UNREADABLE:
        return None
    why = c.row_error or c.error or "it is not ready"
    return Decided(
        NEEDS_REVIEW, p.severity, "", f"The contract could not be read: {why}"
    )


def _failed(c: CellFacts, p: PositionFacts) -> Decided | None:
    if c.status != "failed":
        return None
    return Decided(
        NEEDS_REVIEW, p.severity, "", f"The check failed: {c.error or 'unknown error'}"
    )


def _no_model(c: CellFacts, p: PositionFacts) -> Decided | None:
    if not (p.judged_by_model and c.offline):
        return None
    return Decided(
        NEEDS_REVIEW,
        p.severity,
        "",
        "This position has no typed rule and no model judged it: read the clause "
        "against the standard.",
    )


def _contradiction(c: CellFacts, p: PositionFacts) -> Decided | None:
    if not c.contradiction:
        return None
    return Decided(NEEDS_REVIEW, p.severity, "", f"{c.contradiction} Check the clause.")


def _not_found_in_part(c: CellFacts, p: PositionFacts) -> Decided | None:
    if c.outcome != "not_found" or c.read_whole is not False:
        return None
    return Decided(
        NEEDS_REVIEW,
        p.severity,
        "",
        f"Not found in the sections read: {c.read_summary} "
        "Check the rest of the contract.",
    )


def _missing(c: CellFacts, p: PositionFacts) -> Decided | None:
    if c.outcome != "not_found":
        return None
    if c.read_whole:
        said = f"No such clause found. {c.read_summary}"
        if p.if_absent == "acceptable":
            return Decided(MISSING, "", "", f"{said} Its absence is acceptable.")
        return Decided(MISSING, p.if_absent, "", said)
    searched = (
        ", ".join(list(dict.fromkeys(c.searched_terms))[:12]) or "the question's words"
    )
    pages = sorted(set(c.searched_pages))
    where = (
        f" (passages read on page{'s' if len(pages) > 1 else ''} {', '.join(map(str, pages))})"
        if pages
        else ""
    )
    if p.if_absent == "acceptable":
        return Decided(
            MISSING,
            "",
            "",
            f"No such clause found; its absence is acceptable. Searched for: {searched}{where}.",
        )
    return Decided(
        MISSING,
        p.if_absent,
        "",
        f"No such clause found. Searched for: {searched}{where}.",
    )


def _not_verified(c: CellFacts, p: PositionFacts) -> Decided | None:
    if c.quote_verified:
        return None
    status = c.citation_status or "no quote"
    return Decided(
        NEEDS_REVIEW,
        p.severity,
        "",
        f"The quote could not be verified in the contract ({status}): check the clause.",
    )


def _unsupported(c: CellFacts, p: PositionFacts) -> Decided | None:
    if c.support != "unsupported":
        return None
    return Decided(
        NEEDS_REVIEW,
        p.severity,
        "",
        f"The verified quote does not state the value {c.value!r}: check the clause.",
    )


def _off_topic(c: CellFacts, p: PositionFacts) -> Decided | None:
    if c.relevance != "off_topic":
        return None
    return Decided(
        NEEDS_REVIEW,
        p.severity,
        "",
        "The quoted passage does not bear on the question.",
    )


def _unjudged(c: CellFacts, p: PositionFacts) -> Decided | None:
    # The built-in reader states no value where word rules prove none: the
    # closest passage is quoted (tabular.reading's closest_passage), neither
    # a clause found nor one missing.
    if not (c.offline and c.outcome == "answered" and not c.typed and not c.value):
        return None
    return Decided(
        NEEDS_REVIEW,
        p.severity,
        "",
        "No model read the contract, and no passage holds the whole question: "
        "the closest passage is quoted; read it against the standard.",
    )


def _no_rule(c: CellFacts, p: PositionFacts) -> Decided | None:
    if p.rule:
        return None
    return Decided(
        NEEDS_REVIEW,
        p.severity,
        "",
        "This position has no typed rule: read the quoted clause against the standard.",
    )


def _holds(c: CellFacts, p: PositionFacts) -> tuple[Holds, Holds | None]:
    standard = rule_holds(p.rule, c.typed)
    fallback = (
        rule_holds(p.fallback_rule, c.typed)
        if p.fallback_rule and standard.value is False
        else None
    )
    return standard, fallback


def _meets(c: CellFacts, p: PositionFacts) -> Decided | None:
    standard, _ = _holds(c, p)
    if standard.value is not True:
        return None
    return Decided(MEETS, "", "", standard.reason)


def _not_comparable(c: CellFacts, p: PositionFacts) -> Decided | None:
    standard, fallback = _holds(c, p)
    if standard.value is None:
        return Decided(NEEDS_REVIEW, p.severity, "", standard.reason)
    if fallback is not None and fallback.value is None:
        return Decided(NEEDS_REVIEW, p.severity, "", fallback.reason)
    return None


def _fallback(c: CellFacts, p: PositionFacts) -> Decided | None:
    _, fallback = _holds(c, p)
    if fallback is None or fallback.value is not True:
        return None
    return Decided(
        FALLBACK,
        "",
        "",
        f"{fallback.reason.rstrip('.')}: an acceptable fallback, not the standard ({rule_display(p.rule)}).",
    )


def _deviates(c: CellFacts, p: PositionFacts) -> Decided | None:
    standard, _ = _holds(c, p)
    tail = f"; fallback: {rule_display(p.fallback_rule)}" if p.fallback_rule else ""
    return Decided(
        DEVIATES,
        p.severity,
        "",
        f"{standard.reason.rstrip('.')} (standard: {rule_display(p.rule)}{tail}).",
    )


# ---------------------------------------------------------------- examples

_DAYS = PositionFacts(
    "Notice",
    "duration",
    rule={"at_least": {"kind": "duration", "amount": 60, "unit": "day"}},
    fallback_rule={"at_least": {"kind": "duration", "amount": 30, "unit": "day"}},
    severity="medium",
    if_absent="high",
)


def _days(n: int, **kw) -> CellFacts:
    base = CellFacts(
        typed={"kind": "duration", "amount": n, "unit": "day"},
        value=f"{n} days",
        quote_verified=True,
        citation_status="verified",
        support="supported",
        relevance="answers",
    )
    return replace(base, **kw)


FINDING_RULES: tuple[FindingRule, ...] = (
    FindingRule(
        "contract_unreadable",
        "The contract is missing, deleted or failed to ingest: its findings say so.",
        _unreadable,
        (
            Example(
                CellFacts(
                    status="failed", row_state="not_ready", row_error="encrypted PDF"
                ),
                _DAYS,
                NEEDS_REVIEW,
            ),
        ),
    ),
    FindingRule(
        "check_failed",
        "The cell failed (a model error, a timeout): nothing was read.",
        _failed,
        (Example(CellFacts(status="failed", error="timeout"), _DAYS, NEEDS_REVIEW),),
    ),
    FindingRule(
        "no_model_for_judgment",
        "A position without a typed rule was to be judged by a model, but the "
        "built-in reader answered.",
        _no_model,
        (
            Example(
                _days(0, offline=True),
                replace(_DAYS, judged_by_model=True),
                NEEDS_REVIEW,
            ),
        ),
    ),
    FindingRule(
        "model_contradiction",
        "The model's answer contradicts itself (a 'not found' that quotes the "
        "contract, or a 'found' with nothing): never missing, never a verdict.",
        _contradiction,
        (
            Example(
                CellFacts(
                    outcome="answered",
                    offline=False,
                    contradiction="The model said it found nothing, yet quoted it.",
                ),
                _DAYS,
                NEEDS_REVIEW,
            ),
        ),
    ),
    FindingRule(
        "not_found_in_part",
        "The model found nothing in the sections it read, but the contract is "
        "longer than it could read: not missing, for a reviewer to check.",
        _not_found_in_part,
        (
            Example(
                CellFacts(outcome="not_found", offline=False, read_whole=False),
                _DAYS,
                NEEDS_REVIEW,
            ),
        ),
    ),
    FindingRule(
        "clause_missing",
        "No passage answers the question (with a model: it read the whole "
        "contract): missing, with the position's 'if absent' severity (none "
        "when absence is acceptable) and what was searched or read. Offline "
        "that is only when no passage read shares the question's words "
        "(otherwise the closest one is quoted: offline_unjudged).",
        _missing,
        (
            Example(
                CellFacts(outcome="not_found", searched_terms=("notice",)),
                _DAYS,
                MISSING,
            ),
            Example(
                CellFacts(outcome="not_found"),
                replace(_DAYS, if_absent="acceptable"),
                MISSING,
            ),
            Example(
                CellFacts(outcome="not_found", offline=False, read_whole=True),
                _DAYS,
                MISSING,
            ),
        ),
    ),
    FindingRule(
        "quote_not_verified",
        "The quote is not in the contract as written (or is still pending).",
        _not_verified,
        (
            Example(
                _days(90, quote_verified=False, citation_status="failed"),
                _DAYS,
                NEEDS_REVIEW,
            ),
        ),
    ),
    FindingRule(
        "value_unsupported",
        "The verified quote does not state the value.",
        _unsupported,
        (Example(_days(90, support="unsupported"), _DAYS, NEEDS_REVIEW),),
    ),
    FindingRule(
        "passage_off_topic",
        "The quoted passage does not bear on the question.",
        _off_topic,
        (Example(_days(90, relevance="off_topic"), _DAYS, NEEDS_REVIEW),),
    ),
    FindingRule(
        "offline_unjudged",
        "Read offline, no passage holds the whole question, though one shares "
        "its words: the closest passage is quoted, neither found nor missing "
        "(word rules prove neither).",
        _unjudged,
        (
            Example(
                _days(0, typed=None, value="", offline=True),
                _DAYS,
                NEEDS_REVIEW,
            ),
        ),
    ),
    FindingRule(
        "no_typed_rule",
        "The position has no typed rule (a text position read offline): never "
        "meets or deviates; the clause is quoted for review.",
        _no_rule,
        (
            Example(
                _days(90, typed=None, value="Mutual"),
                PositionFacts("Data"),
                NEEDS_REVIEW,
            ),
        ),
    ),
    FindingRule(
        "meets_standard",
        "The value satisfies the position's rule.",
        _meets,
        (Example(_days(90), _DAYS, MEETS), Example(_days(60), _DAYS, MEETS)),
    ),
    FindingRule(
        "not_comparable",
        "The value cannot be compared with the rule (another currency or unit, "
        "another kind of value).",
        _not_comparable,
        (
            Example(
                _days(0, typed={"kind": "money", "currency": "EUR", "amount": "5"}),
                _DAYS,
                NEEDS_REVIEW,
            ),
        ),
    ),
    FindingRule(
        "acceptable_fallback",
        "The value misses the standard but satisfies the fallback rule.",
        _fallback,
        (Example(_days(45), _DAYS, FALLBACK),),
    ),
    FindingRule(
        "deviates",
        "The value satisfies neither the standard nor a fallback: deviates, "
        "with the position's severity.",
        _deviates,
        (
            Example(_days(10), _DAYS, DEVIATES),
            Example(_days(45), replace(_DAYS, fallback_rule=None), DEVIATES),
        ),
    ),
)


def decide(cell: CellFacts, position: PositionFacts) -> Decided:
    """The finding for a finished cell: the first rule of FINDING_RULES
    that applies (the last always does)."""
    for rule in FINDING_RULES:
        got = rule.decide(cell, position)
        if got is not None:
            return replace(got, rule=rule.name)
    raise AssertionError("the last finding rule always decides")  # pragma: no cover
