"""docs/playbook.md says what the code does: its tables of finding rules and
file fields are the code's (a change to either fails here until the page follows)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from playbook.findings import FINDING_RULES
from playbook.rules import POSITION_TYPES
from playbook.schema import MAX_POSITIONS, PLAYBOOK_FIELDS, POSITION_FIELDS

DOC = (Path(settings.BASE_DIR) / "docs" / "playbook.md").read_text(encoding="utf-8")


def test_every_finding_rule_is_documented_in_order_with_its_meaning():
    rows = [f"| `{r.name}` | {r.doc} |" for r in FINDING_RULES]
    for row in rows:
        assert row in DOC, row
    positions = [DOC.index(row) for row in rows]
    assert positions == sorted(positions)


def test_every_file_field_is_documented_with_its_kind():
    for f in (*PLAYBOOK_FIELDS, *POSITION_FIELDS):
        kind = f.kind + (f": {', '.join(f.choices)}" if f.choices else "")
        assert f"| `{f.name}` | {'yes' if f.required else ''} | {kind} |" in DOC, f.name


def test_the_limits_and_types_are_the_codes():
    assert f"1 to {MAX_POSITIONS}" in DOC
    assert ", ".join(POSITION_TYPES) in DOC
