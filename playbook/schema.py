"""The playbook file: YAML or JSON, read with line numbers, checked against
one table of fields, written back; and its JSON Schema.

A file is one playbook::

    name: Commercial contracts (sample)
    description: Our standard positions for supply and services agreements.
    positions:
      - title: Governing law
        question: Which law governs the agreement?
        type: jurisdiction
        standard: English law.
        rule: {in: [England and Wales]}
        fallbacks: [New York or Delaware law]
        fallback_rule: {in: [New York, Delaware]}
        severity: medium
        if_absent: medium
        guidance: Ask for English law; accept New York or Delaware.

The fields are the rows of `PLAYBOOK_FIELDS` and `POSITION_FIELDS` (name,
kind, required, limit, help). `read_playbook(text)` returns a
`PlaybookSpec` or raises `PlaybookFileError` listing every problem with its
line ("line 14: positions[2].rule: '60 dayz' is not a duration ..."):
unknown fields (with the nearest known name), a bad type or rule, a
duplicate title, more than `MAX_POSITIONS` positions, anchors and aliases
(refused: they can expand a small file into a huge one), a file over
`MAX_FILE_BYTES`. Nothing is stored by this module. `dump_playbook` writes
a spec back (YAML or JSON); reading what it writes gives the same spec.
`json_schema()` is the schema generated from the same tables.

Scalars are read as their text (YAML 1.1 would read `no` as false and
`1.10` as a number; a title "No" must stay "No"); rules and severities
interpret the words themselves.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from playbook.rules import (
    OPERATORS,
    POSITION_TYPES,
    RuleError,
    parse_rule,
    rule_file_form,
)
from tabular import column_types

MAX_POSITIONS = 200
MAX_FILE_BYTES = 1_000_000
MAX_OPTIONS = 20
SEVERITIES = ("low", "medium", "high")
IF_ABSENT = ("acceptable", *SEVERITIES)
FORMATS = ("yaml", "json")


@dataclass(frozen=True)
class Field:
    """One field of the file: `kind` is string, text, choice, strings or rule."""

    name: str
    kind: str
    help: str
    required: bool = False
    limit: int = 4000
    choices: tuple[str, ...] = ()
    default: Any = None


PLAYBOOK_FIELDS: tuple[Field, ...] = (
    Field("name", "string", "The playbook's name, unique in the workspace.", True, 200),
    Field("description", "text", "What the playbook is for."),
    Field("version", "string", "The file format's version (1).", limit=10),
    Field(
        "positions",
        "positions",
        f"The standard positions, 1 to {MAX_POSITIONS}, in the report's order.",
        True,
    ),
)

POSITION_FIELDS: tuple[Field, ...] = (
    Field(
        "title",
        "string",
        "A short name, unique in the playbook ('Governing law').",
        True,
        200,
    ),
    Field("question", "text", "The question asked of each contract.", True),
    Field(
        "type",
        "choice",
        "What the answer is: a typed value is checked against the rule; a text "
        "position (no rule) is read offline and never judged without a model.",
        choices=POSITION_TYPES,
        default="text",
    ),
    Field(
        "options",
        "strings",
        f"An options position's choices (2 to {MAX_OPTIONS}).",
        limit=200,
    ),
    Field("standard", "text", "The standard position, in words.", True),
    Field(
        "rule",
        "rule",
        "When a typed answer meets the standard: 'at least 60 days', "
        "'at most USD 1,000,000', 'one of England and Wales; New York', 'yes' "
        "(or a mapping: {at_least: 60 days}, {in: [...]}, {is: yes}).",
    ),
    Field(
        "fallbacks", "strings", "Acceptable fallback positions, in words.", limit=4000
    ),
    Field("fallback_rule", "rule", "When a typed answer is an acceptable fallback."),
    Field("deviation", "text", "What counts as a deviation, in words."),
    Field(
        "severity",
        "choice",
        "How bad a deviation is.",
        choices=SEVERITIES,
        default="medium",
    ),
    Field(
        "if_absent",
        "choice",
        "What a contract without the clause means: acceptable, or a deviation "
        "of this severity (default: the position's severity).",
        choices=IF_ABSENT,
    ),
    Field("guidance", "text", "Guidance for the negotiator."),
    Field(
        "search",
        "text",
        "Extra words the contract may use for this clause (widens the search).",
    ),
)


@dataclass(frozen=True)
class PositionSpec:
    title: str
    question: str
    standard: str
    type: str = "text"
    options: tuple[str, ...] = ()
    rule: dict | None = None
    fallbacks: tuple[str, ...] = ()
    fallback_rule: dict | None = None
    deviation: str = ""
    severity: str = "medium"
    if_absent: str = "medium"
    guidance: str = ""
    search: str = ""


@dataclass(frozen=True)
class PlaybookSpec:
    name: str
    positions: tuple[PositionSpec, ...]
    description: str = ""


@dataclass(frozen=True)
class Problem:
    line: int | None  # 1-based; None when the line is not known
    where: str  # "positions[2].rule", or "" for the file
    message: str

    def __str__(self) -> str:
        at = f"line {self.line}: " if self.line else ""
        return (
            f"{at}{self.where + ': ' if self.where else ''}{self.message.rstrip('.')}"
        )


class PlaybookFileError(ValueError):
    """A playbook file that cannot be used; `problems` lists each, by line."""

    code = "invalid_playbook"

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:10])
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        super().__init__(
            f"The playbook file has {_n(len(problems), 'problem')}: {shown}{more}"
        )

    @property
    def message(self) -> str:
        return str(self)


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# ------------------------------------------------------------------ parsing


class _Lines:
    """Where each value of the document was written: path -> 1-based line."""

    def __init__(self) -> None:
        self.at: dict[tuple, int] = {}

    def of(self, *path: Any) -> int | None:
        while path:
            if path in self.at:
                return self.at[path]
            path = path[:-1]
        return self.at.get((), None)


MAX_DEPTH = 8


def _plain(
    node: yaml.Node, path: tuple, lines: _Lines, seen: set[int], problems: list[Problem]
) -> Any:
    """The node as plain data: mappings as dicts, sequences as lists,
    scalars as their text (None for null); lines recorded per path."""
    lines.at[path] = node.start_mark.line + 1
    if id(node) in seen:
        raise _Stop(
            Problem(
                node.start_mark.line + 1,
                _where(path),
                "anchors and aliases are not allowed",
            )
        )
    seen.add(id(node))
    if len(path) > MAX_DEPTH:
        raise _Stop(
            Problem(node.start_mark.line + 1, _where(path), "nested too deeply")
        )
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                problems.append(
                    Problem(
                        key_node.start_mark.line + 1,
                        _where(path),
                        "a field name must be a word",
                    )
                )
                continue
            key = key_node.value
            if key == "<<":
                raise _Stop(
                    Problem(
                        key_node.start_mark.line + 1,
                        _where(path),
                        "merge keys ('<<') are not allowed",
                    )
                )
            if key in out:
                problems.append(
                    Problem(
                        key_node.start_mark.line + 1,
                        _where((*path, key)),
                        "this field is given twice",
                    )
                )
                continue
            out[key] = _plain(value_node, (*path, key), lines, seen, problems)
            lines.at[(*path, key)] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        return [
            _plain(item, (*path, i), lines, seen, problems)
            for i, item in enumerate(node.value)
        ]
    if node.tag.endswith(":null") and node.style is None:
        return None
    return node.value


class _Stop(Exception):
    def __init__(self, problem: Problem) -> None:
        self.problem = problem


def _where(path: Iterable[Any]) -> str:
    out = ""
    for part in path:
        out += (
            f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        )
    return out


def detect_format(text: str, filename: str = "") -> str:
    lowered = filename.lower()
    if lowered.endswith(".json"):
        return "json"
    if lowered.endswith((".yaml", ".yml")):
        return "yaml"
    return "json" if text.lstrip().startswith(("{", "[")) else "yaml"


_TOO_DEEP = Problem(None, "", f"nested too deeply (a playbook has {MAX_DEPTH} levels)")


def _load(text: str, fmt: str) -> tuple[Any, _Lines, list[Problem]]:
    problems: list[Problem] = []
    lines = _Lines()
    if fmt == "json":
        try:
            json.loads(text)
        except RecursionError:
            raise PlaybookFileError([_TOO_DEEP]) from None
        except json.JSONDecodeError as exc:
            raise PlaybookFileError(
                [
                    Problem(
                        exc.lineno,
                        "",
                        f"not valid JSON: {exc.msg} (column {exc.colno})",
                    )
                ]
            ) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:
        # The composer recurses once per level: a 50,000-deep file ends here,
        # long before MAX_DEPTH is checked on what it built.
        raise PlaybookFileError([_TOO_DEEP]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = exc.problem or exc.context or "unreadable"
        raise PlaybookFileError(
            [Problem(line, "", f"not valid {fmt.upper()}: {what}")]
        ) from None
    except yaml.YAMLError as exc:
        raise PlaybookFileError(
            [Problem(None, "", f"not valid {fmt.upper()}: {exc}")]
        ) from None
    if node is None:
        raise PlaybookFileError([Problem(None, "", "the file is empty")])
    try:
        data = _plain(node, (), lines, set(), problems)
    except _Stop as stop:
        raise PlaybookFileError([stop.problem]) from None
    except RecursionError:
        raise PlaybookFileError([Problem(None, "", "nested too deeply")]) from None
    return data, lines, problems


def _unknown(
    data: Mapping,
    fields: tuple[Field, ...],
    path: tuple,
    lines: _Lines,
    problems: list[Problem],
) -> None:
    known = [f.name for f in fields]
    for key in data:
        if key not in known:
            near = difflib.get_close_matches(key, known, n=1)
            hint = (
                f"did you mean {near[0]!r}?"
                if near
                else f"known fields: {', '.join(known)}"
            )
            problems.append(
                Problem(
                    lines.of(*path, key),
                    _where((*path, key)),
                    f"unknown field ({hint})",
                )
            )


_SURROGATE = re.compile("[\ud800-\udfff]")
NOT_TEXT = "holds a character that is not text (a lone surrogate, e.g. '\\ud800')"


def _not_text(value: str, path: tuple, lines: _Lines, problems: list[Problem]) -> str:
    """The value without lone surrogates (YAML and JSON escapes can write
    them; no database or page can hold them), each reported."""
    if _SURROGATE.search(value):
        problems.append(Problem(lines.of(*path), _where(path), NOT_TEXT))
        return _SURROGATE.sub("", value)
    return value


def _text(
    value: Any, f: Field, path: tuple, lines: _Lines, problems: list[Problem]
) -> str:
    if value is None:
        value = ""
    if isinstance(value, dict | list):
        problems.append(Problem(lines.of(*path), _where(path), "a text is expected"))
        return ""
    value = _not_text(str(value), path, lines, problems).strip()
    if f.kind == "string":
        value = " ".join(value.split())
    if f.required and not value:
        problems.append(Problem(lines.of(*path), _where(path), "is required"))
    if len(value) > f.limit:
        problems.append(
            Problem(lines.of(*path), _where(path), f"at most {f.limit} characters")
        )
        value = value[: f.limit]
    return value


def _strings(
    value: Any, f: Field, path: tuple, lines: _Lines, problems: list[Problem]
) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or any(isinstance(v, dict | list) for v in value):
        problems.append(
            Problem(lines.of(*path), _where(path), "a list of texts is expected")
        )
        return ()
    out = []
    for i, item in enumerate(value):
        item = _not_text(str(item or ""), (*path, i), lines, problems)
        item = " ".join(item.split())
        if len(item) > f.limit:
            problems.append(
                Problem(
                    lines.of(*path, i),
                    _where((*path, i)),
                    f"at most {f.limit} characters",
                )
            )
            item = item[: f.limit]
        if item and item.casefold() not in {o.casefold() for o in out}:
            out.append(item)
    return tuple(out)


def _choice(
    value: Any, f: Field, path: tuple, lines: _Lines, problems: list[Problem]
) -> str:
    if value is None or value == "":
        return f.default or ""
    word = " ".join(str(value).strip().lower().split())
    if f.name == "type":
        found = column_types.column_type(word)
        word = found.key if found is not None else word
    if word not in f.choices:
        problems.append(
            Problem(
                lines.of(*path),
                _where(path),
                f"{value!r} is not one of: {', '.join(f.choices)}",
            )
        )
        return f.default or ""
    return word


def _position(
    raw: Any, index: int, lines: _Lines, problems: list[Problem]
) -> PositionSpec | None:
    path = ("positions", index)
    if not isinstance(raw, dict):
        problems.append(
            Problem(lines.of(*path), _where(path), "a position is a mapping of fields")
        )
        return None
    _unknown(raw, POSITION_FIELDS, path, lines, problems)
    by = {f.name: f for f in POSITION_FIELDS}
    got: dict[str, Any] = {}
    for f in POSITION_FIELDS:
        where = (*path, f.name)
        value = raw.get(f.name)
        if f.kind in ("string", "text"):
            got[f.name] = _text(value, f, where, lines, problems)
        elif f.kind == "strings":
            got[f.name] = _strings(value, f, where, lines, problems)
        elif f.kind == "choice":
            got[f.name] = _choice(value, f, where, lines, problems)
    kind = got["type"]
    options = got["options"]
    if kind == "options":
        if not 2 <= len(options) <= MAX_OPTIONS:
            problems.append(
                Problem(
                    lines.of(*path, "options"),
                    _where((*path, "options")),
                    f"an options position lists 2 to {MAX_OPTIONS} options",
                )
            )
    elif options:
        problems.append(
            Problem(
                lines.of(*path, "options"),
                _where((*path, "options")),
                "only an options position lists options",
            )
        )
    rules: dict[str, dict | None] = {}
    for name in ("rule", "fallback_rule"):
        value = raw.get(name)
        try:
            rules[name] = parse_rule(value, kind, options)
        except RuleError as exc:
            problems.append(
                Problem(lines.of(*path, name), _where((*path, name)), str(exc))
            )
            rules[name] = None
    if rules["fallback_rule"] and raw.get("rule") in (None, ""):
        problems.append(
            Problem(
                lines.of(*path, "fallback_rule"),
                _where((*path, "fallback_rule")),
                "a fallback rule needs a rule for the standard too",
            )
        )
    if_absent = got["if_absent"] or got["severity"] or by["severity"].default
    return PositionSpec(
        title=got["title"],
        question=got["question"],
        standard=got["standard"],
        type=kind,
        options=options,
        rule=rules["rule"],
        fallbacks=got["fallbacks"],
        fallback_rule=rules["fallback_rule"],
        deviation=got["deviation"],
        severity=got["severity"],
        if_absent=if_absent,
        guidance=got["guidance"],
        search=got["search"],
    )


def read_playbook(
    text: str | bytes, *, filename: str = "", fmt: str | None = None
) -> PlaybookSpec:
    """A playbook from YAML or JSON text (the format from `fmt`, the file
    name, or the first character); PlaybookFileError lists what is wrong."""
    if isinstance(text, bytes):
        if len(text) > MAX_FILE_BYTES:
            raise PlaybookFileError(
                [Problem(None, "", f"the file is larger than {MAX_FILE_BYTES:,} bytes")]
            )
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise PlaybookFileError(
                [Problem(None, "", "the file is not UTF-8 text")]
            ) from None
    if _SURROGATE.search(text):
        raise PlaybookFileError([Problem(None, "", f"the file {NOT_TEXT}")])
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        raise PlaybookFileError(
            [Problem(None, "", f"the file is larger than {MAX_FILE_BYTES:,} bytes")]
        )
    fmt = fmt or detect_format(text, filename)
    if fmt not in FORMATS:
        raise PlaybookFileError(
            [Problem(None, "", f"unknown format {fmt!r}: use yaml or json")]
        )
    data, lines, problems = _load(text, fmt)
    return spec_from_data(data, lines=lines, problems=problems)


def spec_from_data(
    data: Any, *, lines: _Lines | None = None, problems: list[Problem] | None = None
) -> PlaybookSpec:
    """A playbook from already-parsed data (a REST body); lines unknown."""
    lines = lines or _Lines()
    problems = list(problems or [])
    if not isinstance(data, dict):
        raise PlaybookFileError(
            [
                Problem(
                    lines.of(),
                    "",
                    "a playbook is a mapping with 'name' and 'positions'",
                )
            ]
        )
    data = {k: _stringify(v) for k, v in data.items()}
    _unknown(data, PLAYBOOK_FIELDS, (), lines, problems)
    by = {f.name: f for f in PLAYBOOK_FIELDS}
    name = _text(data.get("name"), by["name"], ("name",), lines, problems)
    description = _text(
        data.get("description"), by["description"], ("description",), lines, problems
    )
    version = data.get("version")
    if version not in (None, "", "1"):
        problems.append(
            Problem(
                lines.of("version"),
                "version",
                f"{version!r}: this reader knows version 1",
            )
        )
    raw_positions = data.get("positions")
    positions: list[PositionSpec] = []
    if not isinstance(raw_positions, list) or not raw_positions:
        problems.append(
            Problem(
                lines.of("positions"), "positions", "at least one position is required"
            )
        )
        raw_positions = []
    if len(raw_positions) > MAX_POSITIONS:
        problems.append(
            Problem(
                lines.of("positions", MAX_POSITIONS),
                _where(("positions", MAX_POSITIONS)),
                f"a playbook has at most {MAX_POSITIONS} positions (this one has {len(raw_positions)})",
            )
        )
        raw_positions = raw_positions[:MAX_POSITIONS]
    titles: dict[str, int] = {}
    for index, raw in enumerate(raw_positions):
        spec = _position(raw, index, lines, problems)
        if spec is None:
            continue
        key = spec.title.casefold()
        if key and key in titles:
            problems.append(
                Problem(
                    lines.of("positions", index, "title"),
                    _where(("positions", index, "title")),
                    f"the title {spec.title!r} is already used by positions[{titles[key]}]",
                )
            )
        titles.setdefault(key, index)
        positions.append(spec)
    if problems:
        problems.sort(key=lambda p: p.line or 0)
        raise PlaybookFileError(problems)
    return PlaybookSpec(name=name, description=description, positions=tuple(positions))


def _stringify(value: Any) -> Any:
    """REST bodies carry JSON types; the tables read text like a file's."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return [_stringify(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _stringify(v) for k, v in value.items()}
    return value


# ------------------------------------------------------------------ writing


def spec_data(spec: PlaybookSpec) -> dict[str, Any]:
    """The file's data for a spec: fields left at their defaults are left out."""
    positions = []
    for p in spec.positions:
        item: dict[str, Any] = {"title": p.title, "question": p.question}
        if p.type != "text":
            item["type"] = p.type
        if p.options:
            item["options"] = list(p.options)
        item["standard"] = p.standard
        if p.rule:
            item["rule"] = rule_file_form(p.rule)
        if p.fallbacks:
            item["fallbacks"] = list(p.fallbacks)
        if p.fallback_rule:
            item["fallback_rule"] = rule_file_form(p.fallback_rule)
        if p.deviation:
            item["deviation"] = p.deviation
        item["severity"] = p.severity
        item["if_absent"] = p.if_absent
        if p.guidance:
            item["guidance"] = p.guidance
        if p.search:
            item["search"] = p.search
        positions.append(item)
    data: dict[str, Any] = {"name": spec.name, "version": "1"}
    if spec.description:
        data["description"] = spec.description
    data["positions"] = positions
    return data


def dump_playbook(spec: PlaybookSpec, fmt: str = "yaml") -> str:
    data = spec_data(spec)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=88)


# ------------------------------------------------------------------ JSON Schema


def _field_schema(f: Field) -> dict[str, Any]:
    if f.kind in ("string", "text"):
        out: dict[str, Any] = {"type": "string", "maxLength": f.limit}
        if f.required:
            out["minLength"] = 1
    elif f.kind == "choice":
        out = {"type": "string", "enum": list(f.choices)}
    elif f.kind == "strings":
        out = {
            "oneOf": [
                {"type": "string", "maxLength": f.limit},
                {"type": "array", "items": {"type": "string", "maxLength": f.limit}},
            ]
        }
    elif f.kind == "rule":
        ops = sorted({op for ops in OPERATORS.values() for op in ops})
        out = {
            "oneOf": [
                {"type": "string"},
                {"type": "boolean"},
                {
                    "type": "object",
                    "minProperties": 1,
                    "additionalProperties": False,
                    "properties": {
                        op: (
                            {
                                "type": "array",
                                "items": {"type": "string"},
                                "minItems": 1,
                            }
                            if op in ("in", "not_in")
                            else {"type": ["string", "boolean"]}
                        )
                        for op in ops
                    },
                },
            ]
        }
    else:  # positions
        out = {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_POSITIONS,
            "items": _object_schema(POSITION_FIELDS),
        }
    out["description"] = f.help
    return out


def _object_schema(fields: tuple[Field, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [f.name for f in fields if f.required],
        "properties": {f.name: _field_schema(f) for f in fields},
    }


def json_schema() -> dict[str, Any]:
    """The playbook file's JSON Schema (draft 2020-12), from the field tables.
    Rules and cross-field checks (a rule's type, duplicate titles) are the
    reader's: the schema says their shape."""
    schema = _object_schema(PLAYBOOK_FIELDS)
    schema["properties"]["version"] = {
        "type": ["string", "integer"],
        "description": "1",
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://docuiq.local/schemas/playbook-1.json",
        "title": "DocuIQ playbook",
        **schema,
    }


__all__ = [
    "FORMATS",
    "MAX_POSITIONS",
    "PlaybookFileError",
    "PlaybookSpec",
    "PositionSpec",
    "Problem",
    "detect_format",
    "dump_playbook",
    "json_schema",
    "read_playbook",
    "spec_data",
    "spec_from_data",
]
