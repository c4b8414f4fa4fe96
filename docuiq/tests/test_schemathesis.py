"""FUZ-01 / DAT-04: the drf-spectacular schema, fuzzed in-process with
schemathesis against the WSGI app, authenticated with tenant A's X-API-Key.

Every operation in the schema is generated from (valid and invalid data);
path ids are sometimes replaced by real ids of tenant A's world so the found-
object code paths are fuzzed too, not only the 404s. Checks: no 5xx, every
status code and every response body as documented, JSON content types.
Bounded (MAX_EXAMPLES per operation) to keep CI fast.
"""

from __future__ import annotations

import json

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

MAX_EXAMPLES = int(__import__("os").environ.get("SCHEMATHESIS_MAX_EXAMPLES", "25"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _raw_schema() -> dict:
    """The schema exactly as /api/schema/ serves it (JSON-safe)."""
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated))


RAW_SCHEMA = _raw_schema()
schema = schemathesis.openapi.from_dict(RAW_SCHEMA)
schema.app = WSGIHandler()


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """The real WSGI handler closes the database connection when a request
    finishes (close_old_connections, CONN_MAX_AGE=0), and the test's
    transaction lives on that connection; Django's test client unhooks the
    same handlers. (SQLite's in-memory test database ignores close(), which
    hides this there; PostgreSQL does not.)"""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_the_schema_covers_every_api_route():
    from docuiq.tests.test_api_permissions import MATRIX

    documented = {
        (path, method.upper())
        for path, item in RAW_SCHEMA["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }
    undocumented_by_design = {"api:schema", "api:docs"}
    assert len(documented) == len(
        [r for r in MATRIX if r[0] not in undocumented_by_design]
    )
    assert all(p.startswith("/api/") for p, _ in documented)


def _real_ids(world) -> dict[str, str]:
    return {
        "document_id": str(world.document_a.pk),
        "session_id": str(world.session_a.pk),
        "citation_id": str(world.citation_a.pk),
        "chunk_id": str(world.citation_a.chunk_id),
        "revision_id": str(world.citation_a.revision_id),
    }


# Playbook files as a user might send them (issue 34 item 4): the sample's
# shape with drawn names, deep nesting (a RecursionError was a 500), and
# YAML/JSON escapes of lone surrogates (a UnicodeEncodeError was a 500).
_PLAYBOOK = (
    "name: {name}\npositions:\n  - title: {title}\n    question: q\n    standard: s\n"
)
PLAYBOOK_TEXTS = st.one_of(
    st.builds(
        lambda name, title: _PLAYBOOK.format(
            name=json.dumps(name), title=json.dumps(title)
        ),
        st.text(min_size=1, max_size=30),
        st.text(min_size=1, max_size=30),
    ),
    st.integers(1, 60_000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3_000).map(
        lambda n: "a:" + "\n" + "".join(" " * i + "-\n" for i in range(1, n))
    ),
    st.sampled_from(["\\ud800", "\\udfff", "x\\ud83dy"]).map(
        lambda escape: _PLAYBOOK.format(name=f'"{escape}"', title="t")
    ),
)


@schema.given(data=st.data())
@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=not __import__("os").environ.get("SCHEMATHESIS_RANDOM"),
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)
def test_api(case, data, world, key_a):
    real = _real_ids(world)
    for name in list(case.path_parameters or {}):
        if name in real and data.draw(st.booleans(), label=f"real {name}"):
            case.path_parameters[name] = real[name]
    if (
        isinstance(case.body, dict)
        and "chunk_id" in case.body
        and data.draw(st.booleans(), label="real chunk")
    ):
        case.body["chunk_id"] = real["chunk_id"]
    if (
        case.path.startswith("/api/playbooks")
        and case.method.upper() == "POST"
        and isinstance(case.body, dict)
        and data.draw(st.booleans(), label="playbook file")
    ):
        case.body = {"text": data.draw(PLAYBOOK_TEXTS, label="playbook text")}
    case.call_and_validate(headers={"X-API-Key": key_a}, checks=CHECKS)
