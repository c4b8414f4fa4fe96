"""docs/how-to-add-a-badge-state.md, walked: a fake badge state, one row of
`BADGE_STATES` in its place of precedence, decides the badge of the facts it
applies to (and no others), shows in the admin with its class, and is listed
by docs/answers.md; every shipped state is styled in both stylesheets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from chat import answers_doc
from citations import presentation
from citations.models import Method, Status
from citations.presentation import BADGE_STATES, BadgeFacts, DisplayState, badge_for

HELD = DisplayState(
    key="held",
    applies=lambda f: f.review == "hold",
    css="pending",  # an existing style; a new one is a rule in both stylesheets
    label="Held by a reviewer",
    icon="⏸",
    colour="grey",
    aria="Citation held by a reviewer until someone decides",
    examples=(BadgeFacts(Status.VERIFIED, Method.EXACT, review="hold"),),
)


@pytest.fixture
def held(monkeypatch):
    # Second in precedence: after a rejection, before everything else.
    table = (BADGE_STATES[0], HELD, *BADGE_STATES[1:])
    monkeypatch.setattr(presentation, "BADGE_STATES", table)
    monkeypatch.setattr(answers_doc, "BADGE_STATES", table)
    return HELD


def test_a_new_state_decides_its_examples_in_its_place_of_precedence(held):
    for facts in held.examples:
        assert badge_for(facts).key == "held"
    rejected = BadgeFacts(Status.VERIFIED, Method.EXACT, review="reject")
    assert badge_for(rejected).key == "rejected"  # stronger, still first
    assert badge_for(BadgeFacts(Status.VERIFIED, Method.EXACT)).key == "exact"


def test_the_answers_doc_lists_a_new_state(held):
    assert (
        "| `held` | Held by a reviewer | ⏸ | grey |" in answers_doc.answers_markdown()
    )


def test_the_admin_shows_a_new_states_badge(held, monkeypatch):
    from citations import admin

    monkeypatch.setattr(admin, "citation_badge", lambda c: badge_for(HELD.examples[0]))
    from types import SimpleNamespace

    html = admin._badge_html(SimpleNamespace(verification_status=Status.VERIFIED))
    assert 'class="dq-badge dq-badge--pending"' in html and "Held by a reviewer" in html


@pytest.mark.parametrize(
    ("sheet", "prefix"),
    [
        ("static/css/app.css", "badge"),
        ("citations/static/citations/admin.css", "dq-badge"),
    ],
)
def test_every_state_is_styled_in_each_stylesheet(sheet, prefix):
    css = (Path(settings.BASE_DIR) / sheet).read_text()
    styled = set(re.findall(rf"\.{prefix}--([a-z_]+)\s*\{{", css))
    assert {s.css for s in BADGE_STATES} <= styled


def test_the_how_to_names_the_table_and_this_test():
    how_to = (
        Path(settings.BASE_DIR) / "docs" / "how-to-add-a-badge-state.md"
    ).read_text()
    assert "citations/presentation.py" in how_to
    assert Path(__file__).name in how_to
