"""Bad playbook input answers 400 and writes nothing (issue 34 item 4): a
50,000-deep YAML or JSON file, lone surrogates in a playbook's file, its
name or a position's name, sent as a file's text, as JSON fields, or as the
page's rename; and the same found by hypothesis over generated files."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.scoping import tenant_scope
from playbook.models import Playbook
from playbook.schema import PlaybookFileError, read_playbook

pytestmark = pytest.mark.django_db

GOOD = "name: Ours\npositions:\n  - title: Notice\n    question: q\n    standard: s\n"


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_login(alice)
    return client


def _count(tenant) -> int:
    with tenant_scope(tenant):
        return Playbook.objects.count()


@pytest.mark.parametrize(
    "text",
    [
        "[" * 50_000 + "]" * 50_000,
        "a:\n" + "".join(" " * i + "-\n" for i in range(1, 1200)),
        "{" + '"a": {' * 50_000 + "}" * 50_001,
    ],
    ids=["yaml-flow", "yaml-block", "json"],
)
def test_a_deeply_nested_file_answers_400(api, tenant_a, text):
    response = api.post("/api/playbooks/create", {"text": text}, format="json")
    assert response.status_code == 400, response.content[:300]
    assert "nested" in json.dumps(response.json())
    assert _count(tenant_a) == 0


SURROGATE = "Notice \ud800 period"


# Each a way in for a lone surrogate: a YAML or JSON file's escapes (the
# file itself is plain ASCII), and the REST body's JSON fields.
_ESCAPED = "Notice \\ud800 period"


@pytest.mark.parametrize(
    "body",
    [
        {"text": GOOD.replace("Ours", f'"{_ESCAPED}"')},
        {"text": GOOD.replace("title: Notice", f'title: "{_ESCAPED}"')},
        {
            "text": json.dumps(
                {
                    "name": "@",
                    "positions": [{"title": "a", "question": "q", "standard": "s"}],
                }
            ).replace("@", _ESCAPED),
            "format": "json",
        },
        {
            "playbook": {
                "name": SURROGATE,
                "positions": [{"title": "a", "question": "q", "standard": "s"}],
            }
        },
        {
            "playbook": {
                "name": "Ours",
                "positions": [{"title": SURROGATE, "question": "q", "standard": "s"}],
            }
        },
    ],
    ids=["yaml-name", "yaml-position", "json-file-name", "json-name", "json-position"],
)
def test_a_lone_surrogate_answers_400(api, tenant_a, body):
    # Sent as JSON, "\ud800" is an escape any client can write.
    payload = json.dumps(body, ensure_ascii=True)
    response = api.post(
        "/api/playbooks/create", payload, content_type="application/json"
    )
    assert response.status_code == 400, response.content[:300]
    assert "not text" in json.dumps(response.json())
    assert _count(tenant_a) == 0


_text = st.text(
    alphabet=st.characters(
        exclude_categories=("Cc",), include_characters="\ud800\udfff:-[]{}\n "
    ),
    max_size=200,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_text, st.builds(lambda s: GOOD.replace("Notice", s), _text)))
def test_any_text_reads_as_a_playbook_or_a_playbook_error(text):
    """read_playbook, the one reader of files: never another exception."""
    try:
        spec = read_playbook(text)
    except PlaybookFileError:
        return
    # What it accepts can be stored and shown: no lone surrogates.
    assert not any(
        "\ud800" <= c <= "\udfff"
        for c in json.dumps(spec.__dict__, default=str, ensure_ascii=False)
    )
