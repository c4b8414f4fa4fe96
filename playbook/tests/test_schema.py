"""The playbook file: YAML and JSON read with line-numbered errors, written back."""

from __future__ import annotations

import json

import pytest

from playbook.schema import (
    MAX_POSITIONS,
    PlaybookFileError,
    dump_playbook,
    json_schema,
    read_playbook,
    spec_from_data,
)
from playbook.services import SAMPLE

GOOD = """\
name: Supply
positions:
  - title: Notice
    question: How much notice is needed to terminate?
    type: duration
    standard: 60 days
    rule: at least 60 days
    fallback_rule: {at_least: 30 days}
    severity: high
    if_absent: acceptable
"""


def problems(text: str, **kw) -> list[str]:
    with pytest.raises(PlaybookFileError) as caught:
        read_playbook(text, **kw)
    return [str(p) for p in caught.value.problems]


def test_the_sample_has_ten_positions_and_round_trips_through_yaml_and_json():
    spec = read_playbook(SAMPLE.read_text())
    assert len(spec.positions) == 10
    assert read_playbook(dump_playbook(spec, "yaml")) == spec
    assert read_playbook(dump_playbook(spec, "json"), filename="x.json") == spec


def test_a_position_reads_its_typed_rules_and_defaults():
    p = read_playbook(GOOD).positions[0]
    assert p.rule == {"at_least": {"kind": "duration", "amount": 60, "unit": "day"}}
    assert p.fallback_rule == {
        "at_least": {"kind": "duration", "amount": 30, "unit": "day"}
    }
    assert (p.severity, p.if_absent) == ("high", "acceptable")
    defaulted = read_playbook(
        GOOD.replace("    if_absent: acceptable\n", "")
    ).positions[0]
    assert defaulted.if_absent == "high"  # a missing clause is as bad as a deviation


def test_an_unknown_field_is_named_with_its_line_and_the_nearest_known_one():
    text = GOOD.replace("    severity: high\n", "    severty: high\n")
    assert problems(text) == [
        "line 9: positions[0].severty: unknown field (did you mean 'severity'?)"
    ]


def test_a_bad_rule_names_its_line_and_what_was_expected():
    got = problems(GOOD.replace("at least 60 days", "at least 60 dayz"))
    assert got == [
        "line 7: positions[0].rule: '60 dayz' is not a duration (write it like '60 days')"
    ]
    got = problems(GOOD.replace("rule: at least 60 days", "rule: one of Texas"))
    assert got == [
        "line 7: positions[0].rule: 'in' is not a rule for a duration position (use at_least, at_most)"
    ]


def test_a_duplicate_title_is_refused_at_the_second():
    text = GOOD + "  - title: notice\n    question: q\n    standard: s\n"
    assert problems(text) == [
        "line 11: positions[1].title: the title 'notice' is already used by positions[0]"
    ]


def test_more_than_200_positions_is_refused_naming_the_first_one_over():
    items = "".join(
        f"  - title: P{i}\n    question: q\n    standard: s\n"
        for i in range(MAX_POSITIONS + 1)
    )
    got = problems("name: Big\npositions:\n" + items)
    assert got == [
        f"line {3 + 3 * MAX_POSITIONS}: positions[{MAX_POSITIONS}]: a playbook has at most "
        f"{MAX_POSITIONS} positions (this one has {MAX_POSITIONS + 1})"
    ]


def test_every_problem_is_listed_in_line_order():
    text = """\
name: ""
colour: red
positions:
  - title: A
    question: q
    standard: s
    type: money
    rule: at most 5 days
  - question: q
    standard: s
    type: text
    rule: yes
"""
    got = problems(text)
    assert got[0] == "line 1: name: is required"
    assert got[1].startswith("line 2: colour: unknown field")
    assert got[2].startswith("line 8: positions[0].rule: '5 days' is not a money")
    assert "positions[1].title: is required" in got[3]
    assert got[4].startswith(
        "line 12: positions[1].rule: A text position has no typed rule"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name: x\npositions: [\n", "line 3: not valid YAML"),
        ('{"name": "x",\n "positions": [}', "line 2: not valid JSON"),
        ("", "the file is empty"),
        ("a: &a [1]\nb: *a\n", "anchors and aliases are not allowed"),
        ("- just\n- a list\n", "a playbook is a mapping"),
        ("name: x\npositions: []\n", "at least one position is required"),
        (
            "name: x\nname: y\npositions: []\n",
            "line 2: name: this field is given twice",
        ),
    ],
)
def test_unreadable_files_say_why(text, expected):
    assert any(expected in p for p in problems(text))


def test_a_yaml_scalar_is_its_text_so_a_title_no_stays_no():
    text = GOOD.replace("title: Notice", "title: No").replace(
        "standard: 60 days", "standard: 1.10"
    )
    p = read_playbook(text).positions[0]
    assert (p.title, p.standard) == ("No", "1.10")


def test_options_positions_list_their_options_and_rules_name_them():
    text = """\
name: x
positions:
  - title: Who may terminate
    question: Who may terminate for convenience?
    type: options
    options: [Either party, Customer only, Nobody]
    standard: Customer only
    rule: one of customer only
"""
    p = read_playbook(text).positions[0]
    assert p.rule == {"in": ["Customer only"]}
    assert (
        "lists 2 to 20 options"
        in problems(text.replace("[Either party, Customer only, Nobody]", "[Nobody]"))[
            0
        ]
    )


def test_rest_bodies_read_json_types_like_a_files_text():
    spec = spec_from_data(
        {
            "name": "x",
            "positions": [
                {
                    "title": "Exclusive",
                    "question": "q",
                    "standard": "none",
                    "type": "yes_no",
                    "rule": False,
                }
            ],
        }
    )
    assert spec.positions[0].rule == {"is": False}


def test_the_json_schema_accepts_the_sample_and_refuses_unknown_fields():
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    data = yaml.safe_load(SAMPLE.read_text())
    jsonschema.validate(data, schema)
    data["positions"][0]["colour"] = "red"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)
    assert schema["properties"]["positions"]["maxItems"] == MAX_POSITIONS
    json.dumps(schema)  # serialisable as served
