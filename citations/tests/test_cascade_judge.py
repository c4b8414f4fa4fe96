"""Stages 3-4 with scripted judges (no network)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from citations.cascade import JudgeResult, verify_quote

TEXT = (
    "Article 7. Either party may end this Agreement by giving the other ninety (90) days' "
    "written notice. Termination does not release accrued payment obligations."
)
CHUNK = (0, len(TEXT))
SPAN = "Either party may end this Agreement by giving the other ninety (90) days' written notice"
PARAPHRASE = "each side may terminate the contract on ninety (90) days' notice"


@dataclass
class ScriptedJudge:
    name: str
    result: JudgeResult
    calls: int = 0

    def __call__(self, *, passage: str, quote: str) -> JudgeResult:
        self.calls += 1
        assert quote and passage
        return self.result


def _supporting(name: str = "judge-a", span: str = SPAN, confidence: float = 0.9):
    return ScriptedJudge(name, JudgeResult(True, span, confidence, "same meaning"))


def test_judge_is_not_called_when_the_quote_is_found():
    judge = _supporting()
    verdict = verify_quote(
        TEXT, "Termination does not release accrued payment obligations.", judge=judge
    )
    assert verdict.method == "exact_match" and judge.calls == 0


def test_a_supported_paraphrase_verifies_with_the_documents_span():
    verdict = verify_quote(TEXT, PARAPHRASE, within=CHUNK, judge=_supporting())
    assert verdict.verified
    assert (verdict.method, verdict.match_type, verdict.confidence) == (
        "llm_judge",
        "paraphrase",
        0.9,
    )
    assert verdict.source_text == SPAN == TEXT[verdict.start : verdict.end]
    assert verdict.judged_by == ("judge-a",)


def test_the_judges_span_may_be_tolerantly_matched():
    judge = _supporting(span=SPAN.replace("'", "’").replace(" ", "  "))
    verdict = verify_quote(TEXT, PARAPHRASE, within=CHUNK, judge=judge)
    assert verdict.verified and verdict.source_text == SPAN


def test_a_span_not_in_the_document_fails():
    judge = _supporting(
        span="Either party may end this Agreement at any time without notice"
    )
    verdict = verify_quote(TEXT, PARAPHRASE, within=CHUNK, judge=judge)
    assert not verdict.verified
    assert verdict.rule == "judge.judge", verdict.reason
    assert "not in the passage" in verdict.reason


def test_the_quotes_numbers_must_be_in_the_judged_span():
    verdict = verify_quote(
        TEXT,
        "each side can terminate on sixty (60) days' notice",
        within=CHUNK,
        judge=_supporting(),
    )
    assert not verdict.verified
    # No passage states sixty days: the entity guard refuses before a judge
    # is asked (entities.py), else the numbers guard refuses its span.
    assert verdict.rule in {"meaning.number", "entity.date"}, verdict.reason


def test_a_span_that_adds_a_negation_fails():
    judge = _supporting(span="Termination does not release accrued payment obligations")
    verdict = verify_quote(
        TEXT,
        "termination releases accrued payment obligations",
        within=CHUNK,
        judge=judge,
    )
    assert not verdict.verified
    assert verdict.rule == "meaning.negation", verdict.reason


def test_an_unsupported_or_unsure_judgment_fails():
    no = ScriptedJudge("judge-b", JudgeResult(False, None, 0.8, "different claim"))
    assert not verify_quote(TEXT, PARAPHRASE, within=CHUNK, judge=no).verified
    unsure = _supporting(confidence=0.2)
    assert not verify_quote(TEXT, PARAPHRASE, within=CHUNK, judge=unsure).verified


def test_garbage_from_a_judge_is_a_rejection_not_a_crash():
    class Garbage:
        name = "garbage"

        def __call__(self, *, passage, quote):
            return {"supported": "yes"}

    verdict = verify_quote(TEXT, PARAPHRASE, within=CHUNK, judge=Garbage())
    assert not verdict.verified


def test_judge_errors_propagate_so_the_task_can_retry():
    class Down:
        name = "down"

        def __call__(self, *, passage, quote):
            raise ConnectionError("model server unreachable")

    with pytest.raises(ConnectionError):
        verify_quote(TEXT, PARAPHRASE, within=CHUNK, judge=Down())


def test_ensemble_verifies_on_quorum_with_overlapping_spans():
    judges = [
        _supporting("a"),
        _supporting("b", confidence=0.8),
        ScriptedJudge("c", JudgeResult(False, None, 0.9, "no")),
    ]
    verdict = verify_quote(
        TEXT, PARAPHRASE, within=CHUNK, ensemble=judges, quorum=2, high_stakes=True
    )
    assert verdict.verified
    assert verdict.method == "ensemble" and verdict.match_type == "paraphrase"
    assert verdict.confidence == pytest.approx(2 / 3)
    assert set(verdict.judged_by) == {"a", "b"}


def test_each_ensemble_vote_is_kept_in_the_stage_record():
    judges = [
        _supporting("a"),
        _supporting("b", confidence=0.8),
        ScriptedJudge("c", JudgeResult(False, None, 0.9, "no")),
    ]
    for quorum, outcome in ((2, "verified"), (3, "rejected")):
        verdict = verify_quote(
            TEXT,
            PARAPHRASE,
            within=CHUNK,
            ensemble=judges,
            quorum=quorum,
            high_stakes=True,
        )
        stage = next(s for s in verdict.stages if s["stage"] == "ensemble")
        assert stage["outcome"] == outcome
        votes = {v["judge"]: v for v in stage["votes"]}
        assert set(votes) == {"a", "b", "c"}
        assert votes["a"]["supported"] and votes["b"]["confidence"] == 0.8
        assert not votes["c"]["supported"] and "no" in votes["c"]["reason"]


def test_ensemble_without_quorum_fails():
    judges = [_supporting("a"), ScriptedJudge("b", JudgeResult(False, None, 0.9, "no"))]
    verdict = verify_quote(
        TEXT, PARAPHRASE, within=CHUNK, ensemble=judges, quorum=2, high_stakes=True
    )
    assert not verdict.verified
    assert verdict.rule == "judge.ensemble", verdict.reason
    assert "1 of 2 judges agree" in verdict.reason


def test_ensemble_spans_must_overlap():
    other = "Termination does not release accrued payment obligations"
    judges = [_supporting("a"), _supporting("b", span=other)]
    verdict = verify_quote(
        TEXT,
        "ending the contract needs notice",
        within=CHUNK,
        ensemble=judges,
        quorum=2,
        high_stakes=True,
    )
    assert not verdict.verified


def test_ensemble_runs_only_for_high_stakes():
    single = _supporting("single")
    ensemble = [_supporting("a"), _supporting("b")]
    verdict = verify_quote(
        TEXT, PARAPHRASE, within=CHUNK, judge=single, ensemble=ensemble
    )
    assert verdict.method == "llm_judge" and single.calls == 1
    assert all(j.calls == 0 for j in ensemble)


def test_a_paraphrase_that_changes_the_modal_verb_fails():
    verdict = verify_quote(
        TEXT,
        "each side must terminate the contract on ninety (90) days' notice",
        within=CHUNK,
        judge=_supporting(),
    )
    assert not verdict.verified
    assert verdict.rule == "meaning.modal", verdict.reason


def test_a_paraphrase_that_changes_the_case_of_a_unit_fails():
    text = (
        "Schedule 2. The plant shall deliver 40 MWh of energy to the Buyer each month."
    )
    span = "The plant shall deliver 40 MWh of energy to the Buyer each month"
    judge = ScriptedJudge("judge-a", JudgeResult(True, span, 0.9, "same meaning"))
    verdict = verify_quote(
        text, "the facility supplies 40 mWh of power monthly", judge=judge
    )
    assert judge.calls == 1
    assert not verdict.verified
    assert verdict.rule == "post.letter_case", verdict.reason
    # The same paraphrase with the unit as written is the judge's to accept.
    verdict = verify_quote(
        text, "the facility supplies 40 MWh of power monthly", judge=judge
    )
    assert verdict.verified, verdict.reason
