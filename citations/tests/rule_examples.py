"""Runs a rule's examples (citations/cascade/rules.py) through the cascade.

The rule table is data and imports no stage; this is where its examples
meet the engine, for test_rules.py and test_refusal_prose.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from citations.cascade.attribution import SourceText, verify_cited_quote
from citations.cascade.judging import JudgeResult
from citations.cascade.rules import Example
from citations.cascade.verdict import Verdict
from citations.cascade.verify import verify_quote


@dataclass(frozen=True)
class ScriptedJudge:
    """A judge that always gives the same answer (for the examples)."""

    name: str
    supported: bool
    span: str

    def __call__(self, *, passage: str, quote: str) -> JudgeResult:
        return JudgeResult(self.supported, self.span, 0.9, "scripted")


def check(example: Example) -> Verdict:
    """The verdict the cascade gives an example."""
    if example.others:
        return verify_cited_quote(
            example.quote,  # type: ignore[arg-type]
            cited=SourceText("S1", example.text),  # type: ignore[arg-type]
            others=[
                SourceText(f"S{i}", text) for i, text in enumerate(example.others, 2)
            ],
        )
    judges = [
        ScriptedJudge(f"judge {i}", supported, span)
        for i, (supported, span) in enumerate(example.judges, 1)
    ]
    return verify_quote(
        example.text,  # type: ignore[arg-type]
        example.quote,  # type: ignore[arg-type]
        page_starts=example.pages or None,
        judge=judges[0] if len(judges) == 1 else None,
        ensemble=judges if len(judges) > 1 else (),
        quorum=len(judges),
        high_stakes=len(judges) > 1,
    )
