"""`manage.py evaluate` on its built-in fixture (a contract and an NDA): it
runs every part on both corpora, prints one row per corpus and writes the
figures, the experts' clause found where the fixture puts it."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

ROOT = Path(__file__).resolve().parents[2]


def test_evaluate_quick_runs_both_corpora_and_writes_the_figures(tmp_path):
    out = StringIO()
    target = tmp_path / "evaluate.json"
    call_command("evaluate", "--quick", "--out", str(target), stdout=out)
    table = out.getvalue()
    assert table.splitlines()[0].split()[:3] == ["corpus", "model", "right"]
    assert {line.split()[0] for line in table.splitlines()[1:]} == {"cuad", "nda"}
    result = json.loads(target.read_text())
    for corpus in ("cuad", "nda"):
        row = result["corpora"][corpus]["rows"]["offline"]
        assert set(row) == {"answers", "tabular", "playbook"}
        answers = row["answers"]
        # The fixture's questions: two with the clause, one without.
        assert answers["false_not_found"]["n"] == 2
        assert answers["not_found_when_absent"]["n"] == 1
        assert answers["right_document"]["share"] == 1.0
        assert answers["tokens_per_answer"] == 0  # the offline responder
    # The governing-law clause is quoted.
    cuad = result["corpora"]["cuad"]["records"]["offline"]["answers"]
    law = next(r for r in cuad if r["key"] == "Governing Law")
    assert any(c["verified"] and c["overlaps"] for c in law["citations"])


def test_evaluate_parts_and_corpus_choose_what_runs(tmp_path):
    target = tmp_path / "evaluate.json"
    call_command(
        "evaluate",
        "--quick",
        "--corpus",
        "nda",
        "--parts",
        "answers",
        "--questions",
        "2",
        "--out",
        str(target),
        stdout=StringIO(),
    )
    result = json.loads(target.read_text())
    assert list(result["corpora"]) == ["nda"]
    assert set(result["corpora"]["nda"]["rows"]["offline"]) == {"answers"}
    # The NDA has two clauses and one absent: the sample takes one of each.
    asked = result["corpora"]["nda"]["records"]["offline"]["answers"]
    assert sorted(r["answerable"] for r in asked) == [False, True]


def test_questions_samples_each_document_present_and_absent_in_turn():
    sys.path.insert(0, str(ROOT / "bench"))
    import evaluate
    from _answers import Ask

    @dataclass(frozen=True)
    class Doc:
        title: str

    asks = [
        Ask(Doc(title), f"{title}-{i}", "?", answerable=i < present)
        for title, present, total in (("a", 3, 5), ("b", 0, 2), ("c", 4, 4))
        for i in range(total)
    ]
    assert evaluate.sample(asks, None) == asks
    for n in range(6):
        got = evaluate.sample(asks, n)
        for title in "abc":
            mine = [a for a in asks if a.contract.title == title]
            taken = [a for a in got if a.contract.title == title]
            assert len(taken) == min(n, len(mine))
            assert set(taken) <= set(mine)
            # Alternating: neither kind is left out while the other is taken twice.
            kinds = [a.answerable for a in taken]
            available = {a.answerable for a in mine}
            if len(taken) >= 2:
                assert set(kinds) == available


def test_with_a_model_configured_every_part_runs_for_both_rows(tmp_path, monkeypatch):
    from docuiq.testing.llm_server import ScriptedLLMServer

    target = tmp_path / "evaluate.json"
    server = ScriptedLLMServer().start()
    try:
        # The evaluation's child process reads the model from the environment.
        monkeypatch.setenv("LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("LLM_MODEL", server.model)
        monkeypatch.setenv("LLM_API_KEY", "test")
        call_command(
            "evaluate",
            "--quick",
            "--corpus",
            "nda",
            "--parts",
            "playbook",
            "--out",
            str(target),
            stdout=StringIO(),
        )
    finally:
        server.stop()
    rows = json.loads(target.read_text())["corpora"]["nda"]["rows"]
    assert set(rows) == {"offline", server.model}
    for row in rows.values():
        assert row["playbook"]["findings"] > 0


def test_evaluate_refuses_an_unknown_part(tmp_path):
    with pytest.raises(CommandError):
        call_command(
            "evaluate", "--quick", "--parts", "answers,vibes", stdout=StringIO()
        )


def test_answer_figures_count_what_they_say():
    sys.path.insert(0, str(ROOT / "bench"))
    import _answers

    def record(answerable, not_found, citations):
        return {
            "answerable": answerable,
            "not_found": not_found,
            "failed": False,
            "tokens": 10,
            "seconds": 1.0,
            "citations": citations,
        }

    def cite(relevance, overlaps, verified=True, own=True):
        return {
            "relevance": relevance,
            "overlaps": overlaps,
            "holds": overlaps,
            "verified": verified,
            "own_document": own,
        }

    figures = _answers.answer_figures(
        [
            record(True, False, [cite("answers", True), cite("related", False)]),
            record(True, False, [cite("related", False, own=False)]),
            record(True, True, []),
            record(False, True, []),
            record(False, False, [cite("answers", False)]),
        ]
    )
    assert figures["cites_clause"] == {"share": 0.333, "n": 3}
    assert figures["presented_as_answer"] == {"share": 0.333, "n": 3}
    assert figures["false_not_found"] == {"share": 0.333, "n": 3}
    assert figures["not_found_when_absent"] == {"share": 0.5, "n": 2}
    assert figures["answers_mark_holds_clause"] == {"share": 0.5, "n": 2}
    assert figures["answers_marked"] == {"share": 0.667, "n": 3}
    assert figures["right_document"] == {"share": 0.75, "n": 4}
    assert figures["tokens_per_answer"] == 10
