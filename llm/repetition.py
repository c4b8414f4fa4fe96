"""Degenerate repetition: a model reply stuck repeating one sentence or phrase.

Small models at temperature 0 fall into loops ("The term is one year. The term
is one year. ...") until the token limit. Such a reply is not an answer: the
client retries once and then reports it (see :mod:`llm.openai_compat`).

Each way of repeating is a named rule in :data:`RULES`; :func:`find_repetition`
runs them in order and reports which one decided, so an error message can say
what was repeated. Pure Python, no Django.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["RULES", "Repetition", "find_repetition"]

# A unit repeated this many times is a loop, not emphasis or a list whose items
# share a prefix: real answers quote a clause once or twice.
MIN_REPEATS = 5
# Units shorter than this (after normalising) are words, not sentences:
# "No. No. No." is short enough to ignore and too rare to matter.
MIN_UNIT_CHARS = 12
# The repeated unit must cover at least this share of the reply.
MIN_SHARE = 0.5
# Longest phrase the periodic-tail rule looks for.
MAX_PERIOD_CHARS = 300

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
_SPACES = re.compile(r"\s+")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


@dataclass(frozen=True)
class Repetition:
    """Which rule found the loop, the unit repeated and how often."""

    rule: str
    unit: str
    count: int

    def describe(self) -> str:
        unit = self.unit if len(self.unit) <= 80 else self.unit[:77] + "..."
        return f"{unit!r} {self.count} times"


def _normalise(unit: str) -> str:
    return _SPACES.sub(" ", unit).strip().lower()


def _same_sentence(text: str) -> Repetition | None:
    """One sentence or line, word for word, many times over the reply."""
    units = [_normalise(u) for u in _SENTENCE_END.split(text)]
    units = [u for u in units if len(u) >= MIN_UNIT_CHARS and _LETTER.search(u)]
    if not units:
        return None
    unit, count = Counter(units).most_common(1)[0]
    covered = count * len(unit)
    if count >= MIN_REPEATS and covered >= MIN_SHARE * len(_normalise(text)):
        return Repetition("same sentence", unit, count)
    return None


def _periodic_tail(text: str) -> Repetition | None:
    """The reply ends in one phrase repeated back to back, with or without
    sentence punctuation ("and the party and the party and the party ...")."""
    flat = _normalise(text)
    for period in range(MIN_UNIT_CHARS, min(MAX_PERIOD_CHARS, len(flat) // 2) + 1):
        unit = flat[-period:]
        count = 1
        while flat[-(count + 1) * period : -count * period] == unit:
            count += 1
        if (
            count >= MIN_REPEATS
            and count * period >= MIN_SHARE * len(flat)
            and _LETTER.search(unit)
        ):
            return Repetition("periodic tail", unit.strip(), count)
    return None


RULES: tuple[tuple[str, Callable[[str], Repetition | None]], ...] = (
    ("same sentence", _same_sentence),
    ("periodic tail", _periodic_tail),
)


def find_repetition(text: str) -> Repetition | None:
    """The first rule that finds a loop in ``text``, or None for a normal reply."""
    for _name, rule in RULES:
        found = rule(text)
        if found is not None:
            return found
    return None
