"""A refusal: the reason a rule gives, carrying the rule's id.

Every place in the cascade that refuses a quote returns `refusal(id, text)`
instead of a bare string: the text reads as before (it is a `str`), and the
id travels with it to `Near.rule`, `Match.rule`, `Verdict.rule` and the stage
records, so every refusal can say which rule decided. The rules themselves,
with what they refuse and their examples, are the table in rules.py; a test
checks that every id used here is in it and every rule in it is used.

Pure: no Django.
"""

from __future__ import annotations


class Refusal(str):
    """A reason, and the id of the rule that gave it (`rule`)."""

    rule: str

    def __new__(cls, rule: str, text: str) -> Refusal:
        made = super().__new__(cls, text)
        made.rule = rule
        return made

    def __reduce__(self) -> tuple:
        return (Refusal, (self.rule, str(self)))


def refusal(rule: str, text: str) -> Refusal:
    """`text`, refused by the rule `rule` (an id of rules.RULES)."""
    return Refusal(rule, text)


def rule_of(reason: object) -> str | None:
    """The id of the rule a reason comes from, if it carries one."""
    return getattr(reason, "rule", None)
