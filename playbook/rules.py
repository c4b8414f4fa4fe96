"""Typed rules: what a position accepts, read from a playbook and checked
against a cell's typed value.

A rule is stored as JSON (`Position.rule`, `Position.fallback_rule`):

| type | rule | written as |
|---|---|---|
| duration, money, number, date | `{"at_least": v}`, `{"at_most": v}`, or both | `at least 60 days`, `at most USD 1,000,000`, `>= 30 days and <= 90 days` |
| jurisdiction, options | `{"in": [...]}` or `{"not_in": [...]}` | `one of England and Wales; New York`, `none of Texas` (a colon after "of" is allowed, but YAML needs the value quoted then) |
| yes_no | `{"is": true}` | `yes`, `no` |

`v` is a typed value as tabular stores it (`tabular.column_types.typed_json`:
`{"kind": "duration", "amount": 60, "unit": "day"}`), so a rule compares
with a cell's `typed_value` directly. A text position has no rule.

`parse_rule` reads a rule from a playbook file (a mapping such as
`{at_least: 60 days}`, or the sentence form) or from the form's text, and
raises `RuleError` with a message that says what was expected.
`rule_display` writes the sentence form back (the form, the report, the
YAML export round-trip). `rule_holds(rule, typed)` is True, False, or None
when the two cannot be compared (an amount in another currency, a value of
another kind), with the reason.

Pure: no database.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from citations import values
from tabular import column_types

# The operators of each way a type's values are checked (ColumnType.rule).
_OPERATORS_OF_RULE: dict[str, tuple[str, ...]] = {
    "order": ("at_least", "at_most"),
    "member": ("in", "not_in"),
    "is": ("is",),
    "": (),
}
# Types a position may have, in the column-type table's order, and the rule
# operators each takes: derived from the table when this module loads (the
# playbook file's schema lists them).
OPERATORS: dict[str, tuple[str, ...]] = {
    kind.key: _OPERATORS_OF_RULE[kind.rule]
    for kind in column_types.COLUMN_TYPES
    if kind.rule is not None
}
POSITION_TYPES = tuple(OPERATORS)
ORDERED = tuple(key for key, ops in OPERATORS.items() if "at_least" in ops)
# How each operator is written in the sentence form.
_WORDS = {
    "at_least": "at least",
    "at_most": "at most",
    "in": "one of",
    "not_in": "none of",
}


class RuleError(ValueError):
    """A rule that cannot be read; the message says what was expected."""


@dataclass(frozen=True)
class Holds:
    """Whether a value satisfies a rule: True, False, or None (cannot tell)."""

    value: bool | None
    reason: str


# ------------------------------------------------------------------ reading


def _typed(text: str, kind: str, options: Sequence[str]) -> dict:
    """A typed value (JSON form) from the words of a rule; RuleError if the
    words are not a value of the position's type."""
    text = str(text).strip()
    if kind == "jurisdiction":
        found = values.find_jurisdictions(text)
        if not found:
            raise RuleError(
                f"{text!r} is not a jurisdiction this reader knows "
                "(a US state, a Canadian province or a country, e.g. 'New York')."
            )
        return {"kind": "jurisdiction", "name": found[0].name}
    if kind == "options":
        wanted = " ".join(text.split()).casefold()
        for option in options:
            if " ".join(option.split()).casefold() == wanted:
                return {"kind": "options", "value": option}
        raise RuleError(
            f"{text!r} is not one of the position's options ({'; '.join(options)})."
        )
    read = column_types.read_typed(text, kind, options)
    typed = None
    if read is not None and not isinstance(read, bool | list):
        typed = column_types.typed_json(read)
        # The whole text must be the value: "60 days or more" is not a value.
        if read.end - read.start < len(text.strip(" .")) - 1:
            typed = None
    if typed is None:
        # The value of the type's rule example: "at least 60 days" -> "60 days".
        example = _example(kind)
        written = _SENTENCE.match(example)
        if written:
            example = written.group("rest")
        raise RuleError(f"{text!r} is not a {kind} (write it like {example!r}).")
    return typed


def _names(raw: Any, kind: str, options: Sequence[str]) -> list[str]:
    items = raw if isinstance(raw, list) else re.split(r"[;\n]", str(raw))
    names = []
    for item in items:
        if isinstance(item, Mapping | list):
            raise RuleError("A list of names is expected, one name per item.")
        item = str(item).strip()
        if not item:
            continue
        typed = _typed(item, kind, options)
        name = typed["name"] if kind == "jurisdiction" else typed["value"]
        if name not in names:
            names.append(name)
    if not names:
        raise RuleError("The list is empty.")
    return names


_SENTENCE = re.compile(
    r"^\s*(?P<op>at\s+least|at\s+most|>=|<=|≥|≤|one\s+of:?|none\s+of:?|in:?|not\s+in:?)\s*(?P<rest>.*)$",
    re.I | re.S,
)
_OP_OF = {
    "at least": "at_least",
    ">=": "at_least",
    "≥": "at_least",
    "at most": "at_most",
    "<=": "at_most",
    "≤": "at_most",
    "one of": "in",
    "in": "in",
    "none of": "not_in",
    "not in": "not_in",
}


def _from_sentence(text: str, kind: str) -> dict[str, Any]:
    """ "at least 30 days and at most 90 days" -> {"at_least": "30 days", ...}
    (values still as words)."""
    text = text.strip()
    if kind == "yes_no":
        return {"is": text}
    parts = (
        re.split(r"\s+and\s+(?=at\s+|>=|<=|≥|≤)", text, flags=re.I)
        if kind in ORDERED
        else [text]
    )
    out: dict[str, Any] = {}
    for part in parts:
        m = _SENTENCE.match(part)
        if not m:
            ops = " / ".join(_WORDS[o] for o in OPERATORS[kind])
            raise RuleError(
                f"{part.strip()!r}: a {kind} rule starts with {ops} "
                f"(e.g. {_example(kind)!r})."
            )
        op = _OP_OF[" ".join(m.group("op").lower().rstrip(":").split())]
        if op in out:
            raise RuleError(f"{_WORDS[op]!r} is given twice.")
        out[op] = m.group("rest").strip()
    return out


def _example(kind: str) -> str:
    return column_types.type_of(kind).rule_example


def _yes_no(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    word = str(raw).strip().lower()
    if word in {"yes", "true", "y"}:
        return True
    if word in {"no", "false", "n"}:
        return False
    raise RuleError(f"{raw!r}: a yes/no rule is 'yes' or 'no'.")


def parse_rule(raw: Any, kind: str, options: Sequence[str] = ()) -> dict | None:
    """A rule in its stored form, from a playbook file or a form; None when
    `raw` is empty. RuleError says what is wrong."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if kind not in OPERATORS:
        raise RuleError(f"Unknown position type {kind!r}.")
    if kind == "text":
        raise RuleError(
            "A text position has no typed rule: give the position a type "
            f"({', '.join(t for t in POSITION_TYPES if t != 'text')}) or leave the rule out."
        )
    if isinstance(raw, bool) and kind == "yes_no":
        return {"is": raw}
    if isinstance(raw, str):
        raw = _from_sentence(raw, kind)
    if not isinstance(raw, Mapping) or not raw:
        raise RuleError(
            f"A rule is a mapping such as {{{OPERATORS[kind][0]}: ...}} or a "
            f"sentence such as {_example(kind)!r}."
        )
    allowed = OPERATORS[kind]
    rule: dict[str, Any] = {}
    for op, value in raw.items():
        op = str(op)
        if op not in allowed:
            raise RuleError(
                f"{op!r} is not a rule for a {kind} position (use {', '.join(allowed)})."
            )
        if op == "is":
            rule["is"] = _yes_no(value)
        elif op in ("in", "not_in"):
            rule[op] = _names(value, kind, options)
        else:
            if isinstance(value, Mapping | list):
                raise RuleError(f"{op}: one {kind} is expected.")
            rule[op] = _typed(str(value), kind, options)
    if "in" in rule and "not_in" in rule:
        raise RuleError("Give either 'in' or 'not_in', not both.")
    low, high = rule.get("at_least"), rule.get("at_most")
    if low and high and (_compare(low, high) or 0) > 0:
        raise RuleError("'at least' is more than 'at most': nothing can meet it.")
    return rule


# ------------------------------------------------------------------ writing


def value_display(typed: dict) -> str:
    return column_types.typed_display(typed)


def rule_display(rule: dict | None) -> str:
    """The sentence form: 'at least 60 days', 'one of New York; Delaware', 'yes'."""
    if not rule:
        return ""
    if "is" in rule:
        return "yes" if rule["is"] else "no"
    parts = []
    for op in ("at_least", "at_most"):
        if op in rule:
            parts.append(f"{_WORDS[op]} {value_display(rule[op])}")
    for op in ("in", "not_in"):
        if op in rule:
            parts.append(f"{_WORDS[op]} {'; '.join(rule[op])}")
    return " and ".join(parts)


def rule_file_form(rule: dict | None) -> dict | None:
    """The mapping a playbook file writes: {at_least: 60 days}, {in: [...]}."""
    if not rule:
        return None
    out: dict[str, Any] = {}
    for op, value in rule.items():
        if op == "is":
            out[op] = "yes" if value else "no"
        elif op in ("in", "not_in"):
            out[op] = list(value)
        else:
            out[op] = value_display(value)
    return out


# ------------------------------------------------------------------ checking

# A month and a year in days, for comparing durations of different units;
# within the same family (days/weeks, months/years) the comparison is exact.
_DAYS = {"day": 1, "business_day": 1.4, "week": 7, "month": 30.4375, "year": 365.25}
_MONTHS = {"month": 1, "year": 12}
# Durations of different families closer than this (in days) are the same
# ("365 days" and "1 year", "30 days" and "1 month").
_SAME_DAYS = 0.5


def _quantity(typed: dict) -> tuple[str, Any] | None:
    """(what it is comparable within, the amount), or None."""
    kind = typed.get("kind")
    try:
        if kind == "duration":
            return ("duration", typed)
        if kind == "money":
            return (f"money:{typed['currency']}", Decimal(typed["amount"]))
        if kind == "number":
            unit = "percent" if typed.get("percent") else "number"
            return (unit, Decimal(typed["value"]))
        if kind == "date":
            return ("date", dt.date.fromisoformat(typed["value"]))
    except (KeyError, TypeError, ValueError, InvalidOperation):
        return None
    return None


def _compare_durations(a: dict, b: dict) -> int:
    """-1, 0, 1: a shorter than, the same as, longer than b."""
    ua, ub = a["unit"], b["unit"]
    na, nb = int(a["amount"]), int(b["amount"])
    if ua in _MONTHS and ub in _MONTHS:
        x, y = na * _MONTHS[ua], nb * _MONTHS[ub]
        return (x > y) - (x < y)
    if ua == ub:
        return (na > nb) - (na < nb)
    x, y = na * _DAYS[ua], nb * _DAYS[ub]
    if abs(x - y) < _SAME_DAYS:
        return 0
    return (x > y) - (x < y)


def _compare(value: dict, bound: dict) -> int | None:
    qv, qb = _quantity(value), _quantity(bound)
    if qv is None or qb is None or qv[0] != qb[0]:
        return None
    if qv[0] == "duration":
        return _compare_durations(qv[1], qb[1])
    return (qv[1] > qb[1]) - (qv[1] < qb[1])


# Jurisdictions a contract may name for one listed in a rule.
_SAME_PLACE = {"England": "England and Wales", "Wales": "England and Wales"}


def _place(name: str) -> str:
    return _SAME_PLACE.get(name, name)


def rule_holds(rule: dict | None, typed: dict | None) -> Holds:
    """Does the cell's typed value satisfy the rule? (see module docstring)"""
    if not rule:
        return Holds(None, "The position has no typed rule.")
    if not typed:
        return Holds(None, "The contract's value could not be read as a typed value.")
    kind = typed.get("kind")
    shown = value_display(typed) or "the value"
    if "is" in rule:
        if kind != "yes_no":
            return Holds(None, f"{shown} is not a yes/no answer.")
        ok = bool(typed.get("value")) == bool(rule["is"])
        return Holds(ok, f"{shown}; the standard is {rule_display(rule)}.")
    if "in" in rule or "not_in" in rule:
        if kind == "jurisdiction":
            name = _place(typed.get("name", ""))
            listed = {_place(n) for n in rule.get("in", rule.get("not_in", []))}
        elif kind == "options":
            name = str(typed.get("value", "")).casefold()
            listed = {n.casefold() for n in rule.get("in", rule.get("not_in", []))}
        else:
            return Holds(None, f"{shown} is not a place or an option.")
        inside = name in listed
        ok = inside if "in" in rule else not inside
        return Holds(ok, f"{shown}; the rule is {rule_display(rule)}.")
    for op, want in (("at_least", (0, 1)), ("at_most", (-1, 0))):
        if op not in rule:
            continue
        order = _compare(typed, rule[op])
        if order is None:
            return Holds(
                None,
                f"{shown} cannot be compared with {value_display(rule[op])} "
                "(another unit or currency).",
            )
        if order not in want:
            return Holds(False, f"{shown} is not {rule_display({op: rule[op]})}.")
    return Holds(True, f"{shown} is {rule_display(rule)}.")
