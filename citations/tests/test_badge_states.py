"""The badge-state table: every row decides its own examples, in the order of
precedence the product promises, and every row can be drawn."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from citations.models import Method, Status
from citations.presentation import (
    BADGE_STATES,
    BadgeFacts,
    badge_for,
    badge_state,
)

KEYS = [s.key for s in BADGE_STATES]


def test_keys_are_unique_and_the_last_row_catches_everything():
    assert len(KEYS) == len(set(KEYS))
    assert BADGE_STATES[-1].applies(BadgeFacts(status="anything else"))


@pytest.mark.parametrize(
    ("state", "facts"),
    [(s, f) for s in BADGE_STATES for f in s.examples],
    ids=[f"{s.key}-{i}" for s in BADGE_STATES for i, _ in enumerate(s.examples)],
)
def test_each_row_decides_its_examples(state, facts):
    assert badge_for(facts).key == state.key


def test_every_row_has_examples_and_decides_at_least_one_of_them():
    for state in BADGE_STATES:
        assert state.examples, state.key
        assert any(badge_for(f).key == state.key for f in state.examples)


@pytest.mark.parametrize(
    ("stronger", "weaker"),
    [
        ("rejected", "stale"),
        ("stale", "differs"),
        ("differs", "not_found"),
        ("not_found", "accepted"),
        ("out_of_provenance", "accepted"),
        ("accepted", "exact"),
    ],
)
def test_precedence_follows_the_promised_order(stronger, weaker):
    assert KEYS.index(stronger) < KEYS.index(weaker)


@pytest.mark.parametrize(
    ("facts", "key"),
    [
        # A reviewer's rejection wins over a verified quote.
        (BadgeFacts(Status.VERIFIED, Method.EXACT, review="reject"), "rejected"),
        # Acceptance never hides a failure.
        (BadgeFacts(Status.FAILED, Method.FAILED, review="accept"), "not_found"),
        # Stale applies only to a failed re-verification.
        (BadgeFacts(Status.VERIFIED, Method.TOLERANT, stale=True), "tolerant"),
        (BadgeFacts(Status.FAILED, Method.FAILED, found_in="S3"), "elsewhere"),
    ],
)
def test_combinations_resolve_by_precedence(facts, key):
    assert badge_for(facts).key == key


def test_the_verdict_only_api_gives_the_same_badges_as_before():
    """badge_state(status, method, differs, found_in) as the pages call it."""
    expected = {
        (Status.VERIFIED, Method.EXACT): ("verified", "Verified: exact quote", "✓"),
        (Status.VERIFIED, Method.TOLERANT): (
            "tolerant",
            "Verified: tolerant match",
            "✓",
        ),
        (Status.VERIFIED, Method.LLM_JUDGE): (
            "judged",
            "Supported: judged by model",
            "≈",
        ),
        (Status.VERIFIED, Method.ENSEMBLE): (
            "judged",
            "Supported: judged by model",
            "≈",
        ),
        (Status.FAILED, Method.FAILED): (
            "failed",
            "Not verified: quote not found in the source",
            "✗",
        ),
        (Status.PENDING, None): ("pending", "Verifying…", "…"),
        (Status.OUT_OF_PROVENANCE, None): (
            "oop",
            "Not verified: cites a source that was not provided",
            "!",
        ),
        (Status.UNVERIFIED, None): ("unverified", "Unverified: no quote to check", "?"),
    }
    for (status, method), (css, label, icon) in expected.items():
        badge = badge_state(status, method)
        assert (badge.css, badge.label, badge.icon) == (css, label, icon)
    elsewhere = badge_state(Status.FAILED, Method.FAILED, differs=True, found_in="S2")
    assert elsewhere.label == "Not verified: the quote is in another source (S2)"
    assert "S2" in elsewhere.aria


def test_found_differs_is_amber_and_names_the_differences_not_found_is_red():
    differs = badge_state(
        Status.FAILED, Method.FAILED, differs=True, differences="35 → 36"
    )
    assert (differs.key, differs.css, differs.colour) == ("differs", "differs", "amber")
    assert differs.label == "Found, differs: 35 → 36"
    assert differs.aria.endswith(": 35 → 36")
    assert badge_state(Status.FAILED, Method.FAILED, differs=True).label == (
        "Found, differs"
    )
    missing = badge_state(Status.FAILED, Method.FAILED)
    assert (missing.key, missing.css, missing.colour) == ("not_found", "failed", "red")


def test_every_row_names_a_colour_an_aria_text_and_a_styled_class():
    css = (Path(settings.BASE_DIR) / "static" / "css" / "app.css").read_text()
    styled = set(re.findall(r"\.badge--([a-z_]+)\s*\{", css))
    for state in BADGE_STATES:
        assert state.css in styled, state.key
        assert state.colour and state.icon and state.label, state.key
        assert state.aria and state.aria != state.label, state.key
