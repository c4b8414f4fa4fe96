"""verify_quote: the cascade, stage by stage (SPEC §3).

1. exact_match    the quote verbatim, in the cited chunk first, then anywhere
2. tolerant_match after folding (normalized), or approximately (fuzzy), or
                  part by part for elided quotes; always guarded
3. llm_judge      a judge reads the passage (paraphrase); its span is checked
4. ensemble       several judges vote, for high-stakes operations

A stage runs only when the previous ones failed. A failure keeps the closest
rejected placement for display, never as the verified span.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citations.cascade.boundaries import disallowed_cut
from citations.cascade.context import Dropped, negation_after, negation_before
from citations.cascade.elision import (
    QuoteParts,
    find_elided,
    outer_insertion_difference,
    outer_party_difference,
    split_quote,
)
from citations.cascade.entities import entities_absent
from citations.cascade.folding import IGNORABLE, PUNCTUATION_FOLDS
from citations.cascade.furniture import (
    furniture_difference,
    furniture_inside,
    without_furniture,
)
from citations.cascade.judging import Judge, ensemble_vote, vote
from citations.cascade.lettercase import case_difference
from citations.cascade.prepared import PreparedText, cached, prepare
from citations.cascade.refusal import Check, first_refusal, rule_of
from citations.cascade.tolerant import (
    SIMILARITY_THRESHOLD,
    Found,
    Near,
    find_exact,
    find_tolerant,
)
from citations.cascade.verdict import (
    ENSEMBLE,
    EXACT_MATCH,
    LLM_JUDGE,
    TOLERANT_MATCH,
    Verdict,
    failed,
    verified,
)

# A judge that says "supported" with less confidence than this has not
# supported anything.
MIN_JUDGE_CONFIDENCE = 0.5
# Passage shown to a judge around a near miss when no chunk was cited, and the
# largest document shown whole when there is neither.
JUDGE_CONTEXT = 1_500
JUDGE_WHOLE_TEXT = 12_000


@dataclass(frozen=True)
class Match:
    """Outcome of stages 1-2."""

    found: Found | None
    near: Near | None
    reason: str
    stages: tuple[dict[str, Any], ...]
    rule: str | None = None  # the rule that refused, when nothing was found


def _region(within: tuple[int, int] | None, length: int) -> tuple[int, int] | None:
    if within is None:
        return None
    try:
        start, end = int(within[0]), int(within[1])
    except (TypeError, ValueError, IndexError):
        return None
    start = max(0, min(start, length))
    end = max(0, min(end, length))
    return (start, end) if start < end else None


def _stage(
    name: str,
    outcome: str,
    started: float,
    detail: str = "",
    rule: str | None = None,
    votes: Sequence[Any] = (),
) -> dict[str, Any]:
    """One stage's record for the audit trail; `rule`: the id of the rule
    that refused, when one did (rules.py); `votes`: each judge's vote of an
    ensemble, so every verdict can be audited judge by judge."""
    record: dict[str, Any] = {
        "stage": name,
        "outcome": outcome,
        "ms": round((time.perf_counter() - started) * 1000, 3),
    }
    if detail:
        record["detail"] = detail[:500]
    if rule:
        record["rule"] = rule
    if votes:
        record["votes"] = [
            {
                "judge": v.judge,
                "supported": v.supported,
                "confidence": round(v.confidence, 3),
                "start": v.start,
                "end": v.end,
                "reason": v.reason[:300],
            }
            for v in votes
        ]
    return record


def _letters(s: str) -> list[str]:
    return [c for c in s if c.isalpha()]


def _normalizations(quote: str, source: str) -> str:
    both = quote + source
    kinds = []
    if re.search(r"\s{2,}|[^\S ]", both):
        kinds.append("whitespace")
    if re.search(r"[-\u00ad\u2010\u2011\x02][^\S\r\n]*[\r\n]", both):
        kinds.append("line-break hyphenation")
    if any(c in PUNCTUATION_FOLDS for c in both):
        kinds.append("quotation marks and dashes")
    if any("\ufb00" <= c <= "\ufb06" for c in both):
        kinds.append("ligatures")
    if any(c in IGNORABLE for c in both):
        kinds.append("invisible characters")
    if _letters(quote) != _letters(source) and [c.lower() for c in _letters(quote)] == [
        c.lower() for c in _letters(source)
    ]:
        kinds.append("letter case")
    return ", ".join(kinds) or "compatibility characters"


def _where(found: Found, region: tuple[int, int] | None) -> str:
    if region is None:
        return ""
    return (
        " in the cited chunk" if found.in_region else "; found outside the cited chunk"
    )


def match_quote(
    text: str,
    quote: str,
    region: tuple[int, int] | None,
    page_starts: Sequence[int] | None = None,
) -> Match:
    """Stages 1-2 only: no model involved. No match may cut a word or number,
    start just after a negation that governs it (context.py), read a
    page's header or footer as text (furniture.py), nor differ in the case
    of a code, unit or label (lettercase.py)."""
    match = _match_quote(text, quote, region)
    if match.found is None and match.near is not None and page_starts:
        match = _past_furniture(text, quote, region, tuple(page_starts), match)
    if match.found is None:
        return match
    placed = Placed(text, quote, match.found, page_starts)
    # Exact matches were taken only where no negation governs them and no
    # token is cut (tolerant.find_exact): they meet the furniture rule only.
    checks = POST_CHECKS if match.found.match_type != "exact" else POST_CHECKS[:1]
    refused = first_refusal(checks, placed)
    if refused is not None:
        return _refused(match, refused, start=placed.shown_from)
    return match


class Placed:
    """What the post-check rules read: a quote found in `text`. A rule that
    refuses for a negation left out before the span sets `shown_from`, the
    offset the refused passage is shown from."""

    def __init__(
        self, text: str, quote: str, found: Found, page_starts: Sequence[int] | None
    ) -> None:
        self.text, self.quote, self.found = text, quote, found
        self.page_starts = page_starts
        self.shown_from: int | None = None
        self._split: QuoteParts | bool | None = False

    @property
    def split(self) -> QuoteParts | None:
        """The quote's parts, when it is elided or altered (read once)."""
        if self._split is False:
            self._split = split_quote(self.quote.strip())
        return self._split  # type: ignore[return-value]

    def shown(self, dropped: Dropped | None) -> str | None:
        if dropped is None:
            return None
        self.shown_from = dropped.start
        return dropped.reason


def _page_furniture(p: Placed) -> str | None:
    found = p.found
    difference = furniture_difference(
        p.text, found.start, found.end, p.quote, p.page_starts
    )
    return difference or None


def _negation_before(p: Placed) -> str | None:
    split = p.split
    # A bracket the source itself holds ("[**] or an order", a redaction)
    # opens no elision.
    opens = split is not None and split.opens_elided and p.text[p.found.start] != "["
    return p.shown(
        negation_before(p.text, p.found.start, p.found.end, opens_elided=opens)
    )


def _negation_after(p: Placed) -> str | None:
    return p.shown(negation_after(p.text, p.found.end))


def _outer_party(p: Placed) -> str | None:
    if p.split is None:
        return None
    return p.shown(outer_party_difference(p.text, p.found.start, p.found.end, p.split))


def _cut_token(p: Placed) -> str | None:
    found = p.found
    cut = disallowed_cut(
        p.text, found.start, found.end, fuzzy=found.match_type == "fuzzy"
    )
    return None if cut is None else f"the matching text {cut}: not a whole quotation"


def _letter_case(p: Placed) -> str | None:
    return case_difference(p.quote, p.text[p.found.start : p.found.end]) or None


# The post-check stage: the rules a found span meets, in order; the first to
# refuse decides. The page furniture rule comes first and is the only one an
# exact match meets. A check with no id decides between the rules of its
# family (context.py's negation.*, elision.py's insertion.*) and names one.
POST_CHECKS: tuple[Check[Placed], ...] = (
    Check("post.page_furniture", _page_furniture),
    Check(None, _negation_before),
    Check(None, _negation_after),
    Check(None, _outer_party),
    Check("post.cut_token", _cut_token),
    Check("post.letter_case", _letter_case),
)


def _past_furniture(
    text: str,
    quote: str,
    region: tuple[int, int] | None,
    page_starts: tuple[int, ...],
    match: Match,
) -> Match:
    """A quote refused where the passage it was placed at holds a page's
    header, footer or number inside the sentence ("war, 5 fire,"): found
    again in the text with its proven furniture blanked (offsets unchanged),
    it is the same quote skipping the page break. Only lines furniture.py
    proves are blanked, so a number of the body is never left out."""
    near = match.near
    assert near is not None
    if not furniture_inside(text, page_starts, near.start, near.end):
        return match
    blanked = without_furniture(text, page_starts)
    if blanked is None:
        return match
    again = _match_quote(blanked, quote, region)
    if again.found is None:
        return match
    record = {
        "stage": TOLERANT_MATCH,
        "outcome": "verified",
        "detail": "found once the page furniture inside the passage was skipped",
    }
    return Match(
        again.found,
        None,
        f"{again.reason}, skipping the page's furniture",
        (*match.stages, record),
    )


def _refused(match: Match, reason: str, start: int | None = None) -> Match:
    """The found span refused for `reason` (a Refusal, naming its rule),
    kept as the near match to show (from `start`: a negation left out before
    the span is shown with it); the refusal is a stage record of its own."""
    found = match.found
    assert found is not None
    rule = rule_of(reason)
    near = Near(
        found.start if start is None else start,
        found.end,
        found.similarity,
        reason,
        rule=rule,
    )
    record = {"stage": "post_check", "outcome": "rejected", "detail": reason[:500]}
    if rule:
        record["rule"] = rule
    return Match(None, near, reason, (*match.stages, record), rule)


def _match_quote(text: str, quote: str, region: tuple[int, int] | None) -> Match:
    stages: list[dict[str, Any]] = []
    started = time.perf_counter()
    stripped = quote.strip()
    warm = cached(text)
    exact = find_exact(text, quote, region, warm)
    if exact is None and stripped != quote:
        exact = find_exact(text, stripped, region, warm)
    if exact is not None:
        stages.append(_stage(EXACT_MATCH, "verified", started))
        return Match(exact, None, "exact match" + _where(exact, region), tuple(stages))
    stages.append(_stage(EXACT_MATCH, "not found", started))
    started = time.perf_counter()
    prepared = prepare(text)
    split = split_quote(stripped)
    if split is None:
        search = find_tolerant(prepared, stripped, region)
        reason = search.reason
        if search.found is not None:
            reason = _describe(search.found, stripped, text) + _where(
                search.found, region
            )
        stages.append(
            _stage(TOLERANT_MATCH, _outcome(search.found), started, reason, search.rule)
        )
        return Match(search.found, search.near, reason, tuple(stages), search.rule)
    # The document may itself contain "..." or brackets: try the quote as is.
    literal = find_tolerant(prepared, stripped, region, allow_fuzzy=False)
    if literal.found is not None:
        reason = _describe(literal.found, stripped, text) + _where(
            literal.found, region
        )
        stages.append(_stage(TOLERANT_MATCH, "verified", started, reason))
        return Match(literal.found, None, reason, tuple(stages))
    if split.elided and split.bracketed:
        # Brackets the source holds itself ("[***]", a heading in brackets),
        # beside an ellipsis: the quote's parts with its brackets as text,
        # each found as written (folded, never approximately: "[t]he" is no
        # OCR damage of "The").
        bracketed = split_quote(stripped, literal_brackets=True)
        if bracketed is not None and len(bracketed.parts) > 1:
            elided = find_elided(prepared, bracketed, region)
            if elided.found is not None and elided.found.match_type != "fuzzy":
                reason = (
                    f"elided quote: {elided.parts} parts found in order, its "
                    f"brackets as the source writes them (largest gap "
                    f"{elided.largest_gap} characters)" + _where(elided.found, region)
                )
                stages.append(_stage(TOLERANT_MATCH, "verified", started, reason))
                return Match(elided.found, None, reason, tuple(stages))
    unsupported = outer_insertion_difference(split)
    if unsupported:
        reason = f"altered quote: {unsupported}"
        rule = rule_of(unsupported)
        stages.append(_stage(TOLERANT_MATCH, _outcome(None), started, reason, rule))
        return Match(None, None, reason, tuple(stages), rule)
    if len(split.parts) == 1:
        search = find_tolerant(prepared, split.parts[0], region)
        what = "elided quote" if split.elided else "quote with a bracketed alteration"
        if search.found is not None:
            reason = f"{what} matched ({_describe(search.found, split.parts[0], text)})"
            reason += _where(search.found, region)
        else:
            reason = f"{what}: {search.reason}"
        stages.append(
            _stage(TOLERANT_MATCH, _outcome(search.found), started, reason, search.rule)
        )
        return Match(search.found, search.near, reason, tuple(stages), search.rule)
    elided = find_elided(prepared, split, region)
    if elided.found is not None:
        reason = (
            f"elided quote: {elided.parts} parts found in order "
            f"(largest gap {elided.largest_gap} characters)"
            + _where(elided.found, region)
        )
    else:
        reason = f"elided quote: {elided.reason}"
    rule = None if elided.found is not None else rule_of(elided.reason)
    stages.append(_stage(TOLERANT_MATCH, _outcome(elided.found), started, reason, rule))
    near = None
    if elided.refused is not None:
        near = Near(*elided.refused, elided.refused_similarity, reason, rule=rule)
    return Match(elided.found, near, reason, tuple(stages), rule)


def _outcome(found: Found | None) -> str:
    return "verified" if found is not None else "rejected"


def _describe(found: Found, quote: str, text: str) -> str:
    if found.match_type == "fuzzy":
        return (
            f"approximate match (similarity {found.similarity:.2f}, "
            f"{found.ocr_similarity:.2f} after folding OCR confusions)"
        )
    return f"matched after normalizing {_normalizations(quote, text[found.start : found.end])}"


def _passage(
    prepared: PreparedText, region: tuple[int, int] | None, near: Near | None
) -> tuple[int, int] | None:
    n = len(prepared.text)
    if region is not None:
        return region
    if near is not None:
        return max(0, near.start - JUDGE_CONTEXT), min(n, near.end + JUDGE_CONTEXT)
    if n <= JUDGE_WHOLE_TEXT:
        return 0, n
    return None


def _failed_from(
    text: str,
    match: Match,
    reason: str,
    stages: Sequence[dict[str, Any]],
    page_starts: Sequence[int] | None,
    rule: str | None = None,
) -> Verdict:
    """The failed verdict of a match; `rule`, when a later stage (a judge)
    decided, else the rule that refused the match."""
    near = match.near
    return failed(
        reason,
        stages=stages,
        text=text,
        candidate=(near.start, near.end) if near else None,
        score=near.similarity if near else None,
        located=near is not None and near.located,
        page_starts=page_starts,
        rule=rule or match.rule,
    )


def _not_text(given: tuple[object, object]) -> str | None:
    text, quote = given
    if isinstance(text, str) and isinstance(quote, str):
        return None
    return "quote and text must be strings"


def _empty(given: tuple[str, str]) -> str | None:
    return None if given[1].strip() else "quote is empty"


def _too_long(given: tuple[str, str]) -> str | None:
    text, quote = given
    if len(quote.strip()) * SIMILARITY_THRESHOLD > len(text):
        return "quote is longer than the source text"
    return None


# The input stage: what a quote and text must be before any is searched.
INPUT_CHECKS: tuple[Check[tuple[str, str]], ...] = (
    Check("input.not_text", _not_text),
    Check("input.empty", _empty),
    Check("input.too_long", _too_long),
)


def verify_quote(
    text: str,
    quote: str,
    *,
    within: tuple[int, int] | None = None,
    page_starts: Sequence[int] | None = None,
    judge: Judge | None = None,
    ensemble: Sequence[Judge] = (),
    quorum: int = 2,
    high_stakes: bool = False,
) -> Verdict:
    """Verify that `quote` is supported by `text` (see module docstring).

    `within` is the cited chunk's [start, end) in `text`, searched first;
    `page_starts` the sorted offsets where pages start (page_starts[0] == 0).
    Judges run only when stages 1-2 fail; with `high_stakes` and an
    `ensemble`, the ensemble decides instead of the single judge.
    """
    refused = first_refusal(INPUT_CHECKS, (text, quote))
    if refused is not None:
        return failed(str(refused), stages=(), rule=refused.rule)
    region = _region(within, len(text))
    match = match_quote(text, quote, region, page_starts)
    stages = list(match.stages)
    found = match.found
    if found is not None:
        method = EXACT_MATCH if found.match_type == "exact" else TOLERANT_MATCH
        return verified(
            text,
            found.start,
            found.end,
            method=method,
            match_type=found.match_type,
            confidence=found.similarity,
            page_starts=page_starts,
            reason=match.reason,
            stages=stages,
        )
    use_ensemble = bool(high_stakes and ensemble)
    if not use_ensemble and judge is None:
        return _failed_from(text, match, match.reason, stages, page_starts)
    prepared = prepare(text)
    passage = _passage(prepared, region, match.near)
    # judge.no_passage, judge.judge and judge.ensemble are decided in this
    # flow, not by a table's row: the first names a judge that had nothing
    # to read (no passage to show it), the others the model's own reply,
    # which is its decision, not a rule the engine evaluates. A guard that
    # refused the judge's span still names its own rule (entities, guards).
    if passage is None:
        reason = f"{match.reason}; no passage to show a judge (no cited chunk, no near match)"
        stages.append(
            {"stage": LLM_JUDGE, "outcome": "skipped", "rule": "judge.no_passage"}
        )
        return _failed_from(
            text, match, reason, stages, page_starts, rule="judge.no_passage"
        )
    started = time.perf_counter()
    quote = quote.strip()
    # Before any judge: a quote naming a party, role, place, law, forum or
    # period the passage never names has nothing a judge could support.
    absent = entities_absent(
        quote, prepared.text[passage[0] : passage[1]], prepared.text
    )
    if absent:
        name = ENSEMBLE if use_ensemble else LLM_JUDGE
        stages.append(_stage(name, "rejected", started, absent, absent.rule))
        return _failed_from(
            text,
            match,
            f"{match.reason}; not shown to a judge: {absent}",
            stages,
            page_starts,
            rule=absent.rule,
        )
    if use_ensemble:
        ballot = ensemble_vote(prepared, quote, passage, ensemble, quorum)
        confident = tuple(
            v for v in ballot.agreeing if v.confidence >= MIN_JUDGE_CONFIDENCE
        )
        agreeing = len(confident)
        summary = (
            f"{agreeing} of {len(ballot.votes)} judges agree (quorum {ballot.quorum})"
        )
        best = max(confident, key=lambda v: v.confidence, default=None)
        if agreeing >= ballot.quorum and best is not None:
            stages.append(
                _stage(ENSEMBLE, "verified", started, summary, votes=ballot.votes)
            )
            return verified(
                text,
                best.start,  # type: ignore[arg-type]
                best.end,  # type: ignore[arg-type]
                method=ENSEMBLE,
                match_type="paraphrase",
                confidence=agreeing / len(ballot.votes),
                page_starts=page_starts,
                reason=f"ensemble: {summary}; {best.reason}",
                stages=stages,
                judged_by=[v.judge for v in confident],
            )
        dissent = next((v.reason for v in ballot.votes if not v.supported), "")
        detail = f"ensemble: {summary}" + (f"; {dissent}" if dissent else "")
        # A guard that refused a judge's span is why the quorum failed.
        rule = next((v.rule for v in ballot.votes if v.rule), None) or "judge.ensemble"
        stages.append(
            _stage(ENSEMBLE, "rejected", started, detail, rule, votes=ballot.votes)
        )
        return _failed_from(
            text,
            match,
            f"{match.reason}; {detail}",
            stages,
            page_starts,
            rule=rule,
        )
    assert judge is not None
    result = vote(prepared, quote, passage, judge)
    if result.supported and result.confidence < MIN_JUDGE_CONFIDENCE:
        result = type(result)(
            result.judge,
            False,
            result.start,
            result.end,
            result.confidence,
            f"{result.judge} was not confident ({result.confidence:.2f})",
        )
    if result.supported:
        stages.append(_stage(LLM_JUDGE, "verified", started, result.reason))
        return verified(
            text,
            result.start,  # type: ignore[arg-type]
            result.end,  # type: ignore[arg-type]
            method=LLM_JUDGE,
            match_type="paraphrase",
            confidence=result.confidence,
            page_starts=page_starts,
            reason=f"paraphrase: {result.reason}",
            stages=stages,
            judged_by=[result.judge],
        )
    # A guard that refused the judge's span decided, not the judge.
    rule = result.rule or "judge.judge"
    stages.append(_stage(LLM_JUDGE, "rejected", started, result.reason, rule))
    return _failed_from(
        text,
        match,
        f"{match.reason}; {result.reason}",
        stages,
        page_starts,
        rule=rule,
    )
