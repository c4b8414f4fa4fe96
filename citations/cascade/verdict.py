"""The verdict: what every stage of the cascade returns (SPEC §3 row shape)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from citations.cascade.refusal import rule_of

EXACT_MATCH = "exact_match"
TOLERANT_MATCH = "tolerant_match"
LLM_JUDGE = "llm_judge"
ENSEMBLE = "ensemble"
FAILED = "failed"

NOT_FOUND = "not_found"

# Why a verdict failed (`Verdict.failure_kind`): the passage was located and
# says something else; no passage was located; the quote is in another
# source of the same answer. (A reference to a source the answer was never
# given, out_of_provenance, never reaches the cascade.)
DIFFERS = "differs"
MISATTRIBUTED = "misattributed"
OUT_OF_PROVENANCE = "out_of_provenance"
FAILURE_KINDS = (DIFFERS, NOT_FOUND, OUT_OF_PROVENANCE, MISATTRIBUTED)


@dataclass(frozen=True)
class Verdict:
    """One verification result.

    Invariant: when `start` is set, `source_text == text[start:end]` and
    0 <= start < end <= len(text), code-point offsets (Python slicing).

    verified:    the quote is supported by the text.
    method:      exact_match | tolerant_match | llm_judge | ensemble | failed
    match_type:  exact | normalized | fuzzy | paraphrase | not_found
    confidence:  1.0 exact, similarity for tolerant, judge-reported for
                 llm_judge, share of agreeing judges for ensemble, None failed.
    start/end:   the verified span; None when failed.
    page:        1-based page of `start` from page_starts, else None.
    source_text: text[start:end], the document's own characters.
    reason:      human-readable; a failure names the difference.
    score:       similarity of the best placement, also when failed (display).
    candidate_start/candidate_end/candidate_text: for a failure that came
                 close (a guarded fuzzy match, a mis-placed number), the
                 rejected span of the cited text, so the UI can show a diff;
                 candidate_text == text[candidate_start:candidate_end].
    candidate_page: 1-based page of candidate_start, when pages are known.
    failure_kind: None when verified; else differs (the candidate is the
                 quote's passage, located, and a rule named what differs),
                 not_found (no passage located; a candidate, if any, is only
                 the closest), or misattributed (see found_in).
    rule:        None when verified; else the id of the rule that decided
                 (rules.RULES: what it refuses, with examples).
    found_in:    label of another source where the quote was found when it is
                 mis-attributed (the verdict is then failed).
    judged_by:   names of the judges whose votes verified it.
    stages:      one JSON-ready dict per stage tried, for the audit trail.
    """

    verified: bool
    method: str
    match_type: str
    confidence: float | None
    start: int | None
    end: int | None
    page: int | None
    source_text: str | None
    reason: str
    score: float | None = None
    candidate_start: int | None = None
    candidate_end: int | None = None
    candidate_text: str | None = None
    found_in: str | None = None
    candidate_page: int | None = None
    failure_kind: str | None = None
    rule: str | None = None
    judged_by: tuple[str, ...] = ()
    stages: tuple[dict[str, Any], ...] = field(default=(), compare=False, hash=False)

    def as_dict(self) -> dict[str, Any]:
        """The `verify_quotes` JSON line fields (SPEC §3)."""
        return {
            "verified": self.verified,
            "method": self.method,
            "match_type": self.match_type,
            "confidence": self.confidence,
            "start": self.start,
            "end": self.end,
            "page": self.page,
            "source_text": self.source_text,
            "reason": self.reason,
            "candidate_start": self.candidate_start,
            "candidate_end": self.candidate_end,
            "candidate_page": self.candidate_page,
            "failure_kind": self.failure_kind,
            "rule": self.rule,
        }


def page_of(offset: int, page_starts: Sequence[int] | None) -> int | None:
    """1-based page holding `offset`, given the sorted offsets where pages start."""
    if not page_starts:
        return None
    return max(1, bisect_right(page_starts, offset))


def verified(
    text: str,
    start: int,
    end: int,
    *,
    method: str,
    match_type: str,
    confidence: float,
    page_starts: Sequence[int] | None,
    reason: str,
    stages: Sequence[dict[str, Any]],
    judged_by: Sequence[str] = (),
) -> Verdict:
    if not 0 <= start < end <= len(text):
        # A bug upstream must never become a verified row with bad offsets.
        raise ValueError(f"verified span [{start}, {end}) outside text of {len(text)}")
    return Verdict(
        verified=True,
        method=method,
        match_type=match_type,
        confidence=max(0.0, min(1.0, confidence)),
        start=start,
        end=end,
        page=page_of(start, page_starts),
        source_text=text[start:end],
        reason=reason,
        score=max(0.0, min(1.0, confidence)) if method != ENSEMBLE else None,
        judged_by=tuple(judged_by),
        stages=tuple(stages),
    )


def failed(
    reason: str,
    *,
    stages: Sequence[dict[str, Any]],
    text: str | None = None,
    candidate: tuple[int, int] | None = None,
    score: float | None = None,
    found_in: str | None = None,
    located: bool = False,
    page_starts: Sequence[int] | None = None,
    rule: str | None = None,
) -> Verdict:
    """A failed verdict. `candidate` is the closest rejected span of `text`;
    `located` says it is the quote's passage (a rule refused what it says),
    not merely the closest one."""
    candidate_start = candidate_end = candidate_text = None
    if (
        text is not None
        and candidate is not None
        and 0 <= candidate[0] < candidate[1] <= len(text)
    ):
        candidate_start, candidate_end = candidate
        candidate_text = text[candidate_start:candidate_end]
    if found_in:
        kind = MISATTRIBUTED
    elif located and candidate_start is not None:
        kind = DIFFERS
    else:
        kind = NOT_FOUND
    return Verdict(
        verified=False,
        method=FAILED,
        match_type=NOT_FOUND,
        confidence=None,
        start=None,
        end=None,
        page=None,
        source_text=None,
        reason=reason,
        score=score,
        candidate_start=candidate_start,
        candidate_end=candidate_end,
        candidate_text=candidate_text,
        found_in=found_in,
        candidate_page=page_of(candidate_start, page_starts)
        if candidate_start is not None
        else None,
        failure_kind=kind,
        rule=rule_of(reason) if rule is None else rule,
        stages=tuple(stages),
    )
