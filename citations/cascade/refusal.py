"""A refusal: the reason a rule gives, carrying the rule's id.

A stage runs its rules as a table of `Check`s through `first_refusal`, one
loop that says which rule stopped the quote, rather than as a chain of
`if`s. What it returns is a `Refusal`: the text reads as a reason (it is a
`str`), and the rule's id travels with it to `Near.rule`, `Match.rule`,
`Verdict.rule` and the stage records, so every refusal says which rule
decided. The few rules no table runs (rules.Rule.inline: how a search or a
judge's flow ended) return `refusal(id, text)` where the flow ends. The
rules themselves, with what they refuse and their examples, are the table
in rules.py; a test checks that every id used here is in it and every rule
in it is used.

Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

C = TypeVar("C")


class Refusal(str):
    """A reason, and the id of the rule that gave it (`rule`)."""

    rule: str

    def __new__(cls, rule: str, text: str) -> Refusal:
        made = super().__new__(cls, text)
        made.rule = rule
        return made

    def __reduce__(self) -> tuple[type[Refusal], tuple[str, str]]:
        return (Refusal, (self.rule, str(self)))


def refusal(rule: str, text: str) -> Refusal:
    """`text`, refused by the rule `rule` (an id of rules.RULES)."""
    return Refusal(rule, text)


def rule_of(reason: object) -> str | None:
    """The id of the rule a reason comes from, if it carries one."""
    return getattr(reason, "rule", None)


@dataclass(frozen=True)
class Check(Generic[C]):
    """A rule as a stage runs it: `run` reads the stage's case and returns
    the refusal's text, or None when the rule does not refuse. `rule` is the
    rule's id (rules.RULES); None for a check that decides between the rules
    of a family and returns a Refusal naming the one that refused."""

    rule: str | None
    run: Callable[[C], str | None]


def first_refusal(checks: Iterable[Check[C]], case: C) -> Refusal | None:
    """The stage's loop: the first of `checks`, in order, that refuses
    `case`, as a Refusal naming its rule; None when none refuses."""
    for check in checks:
        reason = check.run(case)
        if reason is None:
            continue
        if check.rule is None:
            if rule_of(reason) is None:
                raise ValueError(f"{check.run.__name__} refused without naming a rule")
            return reason  # type: ignore[return-value]
        return refusal(check.rule, reason)
    return None
