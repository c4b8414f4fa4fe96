"""TEN-01 permission matrix (pretix style) for every route under /api/.

Every URL pattern of the API is enumerated from the resolver; each
(route, method) needs a row below, or `test_every_api_route_has_a_row` fails.
Each row is tried as five identities against objects owned by tenant A:
anonymous, A's user (session), A's key, B's user (session), B's key.
Where B gets a 404, the body must equal the 404 for ids that exist nowhere,
and no row of either tenant may change (TEN-02). CSRF for session-authenticated
writes is checked at the end (SEC-03).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures
from docuiq.tests.api_fixtures import World, random_id, tenant_row_counts

pytestmark = pytest.mark.django_db

IDENTITIES = ("anon", "a_user", "a_key", "b_user", "b_key")


@dataclass(frozen=True)
class Ids:
    """The ids a request names: tenant A's real ones, or ghosts (exist nowhere)."""

    document: str
    chunk: str
    revision: str
    session: str
    citation: str
    collection: int
    tenant_slug: str
    review: str
    cell: int
    question: str
    playbook: str
    run: str
    finding: int
    source: str

    @classmethod
    def of(cls, w: World) -> Ids:
        return cls(
            document=str(w.document_a.pk),
            chunk=str(w.citation_a.chunk_id),
            revision=str(w.citation_a.revision_id),
            session=str(w.session_a.pk),
            citation=str(w.citation_a.pk),
            collection=w.collection_a.pk,
            tenant_slug=w.tenant_a.slug,
            review=str(w.review_a.pk),
            cell=w.cell_a.pk,
            question=str(w.answer_a.reply_to_id),
            playbook=str(w.playbook_a.pk),
            run=str(w.run_a.pk),
            finding=w.finding_a.pk,
            source=str(w.source_a.pk),
        )

    @classmethod
    def ghost(cls, w: World) -> Ids:
        return cls(
            document=random_id(),
            chunk=random_id(),
            revision=random_id(),
            session=random_id(),
            citation=random_id(),
            collection=2_000_000_000,
            tenant_slug="no-such-tenant",
            review=random_id(),
            cell=2_000_000_000,
            question=random_id(),
            playbook=random_id(),
            run=random_id(),
            finding=2_000_000_000,
            source=random_id(),
        )


@dataclass(frozen=True)
class Row:
    """One (route, method): how to call it, and the status per identity."""

    call: Callable[[APIClient, Ids], object]
    expect: dict[str, int]
    # Identities whose call writes nothing (checked by counting rows).
    writes_nothing: tuple[str, ...] = field(default=("anon", "b_user", "b_key"))


def _get(path: Callable[[Ids], str], params: Callable[[Ids], dict] | None = None):
    return lambda c, i: c.get(path(i), params(i) if params else None)


def _post(
    path: Callable[[Ids], str],
    body: Callable[[Ids], dict] | None = None,
    fmt: str = "json",
):
    return lambda c, i: c.post(path(i), body(i) if body else None, format=fmt)


def _expect(anon=401, a_user=200, a_key=200, b_user=200, b_key=200) -> dict[str, int]:
    return {
        "anon": anon,
        "a_user": a_user,
        "a_key": a_key,
        "b_user": b_user,
        "b_key": b_key,
    }


PUBLIC = _expect(anon=200)
READ_OWN = _expect()  # lists: B gets 200 with only its own rows (checked elsewhere)
A_ONLY = _expect(b_user=404, b_key=404)


def _upload(c: APIClient, i: Ids):
    file = SimpleUploadedFile("matrix.txt", b"matrix upload", content_type="text/plain")
    return c.post(
        "/api/documents/upload",
        {"files": [file], "collection_id": i.collection},
        format="multipart",
    )


def _teams_export(c: APIClient, i: Ids):
    from docuiq.testing.exports import BASE, teams_export

    data = teams_export(
        [{"id": "1", "from": "Ana", "at": BASE, "text": "<p>Matrix post.</p>"}]
    )
    file = SimpleUploadedFile("general.json", data, content_type="application/json")
    return c.post(
        "/api/sources/exports",
        {"kind": "teams", "file": file, "collection_id": i.collection},
        format="multipart",
    )


MATRIX_PLAYBOOK = {
    "name": "Matrix playbook",
    "positions": [{"title": "Law", "question": "Which law?", "standard": "English"}],
}

MATRIX: dict[tuple[str, str], Row] = {
    ("api:schema", "GET"): Row(
        _get(lambda i: "/api/schema/"), PUBLIC, writes_nothing=IDENTITIES
    ),
    ("api:docs", "GET"): Row(
        _get(lambda i: "/api/docs/"), PUBLIC, writes_nothing=IDENTITIES
    ),
    ("api:me", "GET"): Row(_get(lambda i: "/api/me"), READ_OWN),
    # documents
    ("api:document-list", "GET"): Row(_get(lambda i: "/api/documents"), READ_OWN),
    # A's collection id in the body: B's upload is refused (TEN-04).
    ("api:document-upload", "POST"): Row(
        _upload, _expect(a_user=201, a_key=201, b_user=400, b_key=400)
    ),
    ("api:document-detail", "GET"): Row(
        _get(lambda i: f"/api/documents/{i.document}"), A_ONLY
    ),
    ("api:document-delete", "POST"): Row(
        _post(lambda i: f"/api/documents/{i.document}/delete"),
        _expect(a_user=204, a_key=204, b_user=404, b_key=404),
    ),
    ("api:document-restore", "POST"): Row(
        _post(lambda i: f"/api/documents/{i.document}/restore"),
        _expect(a_user=200, a_key=200, b_user=404, b_key=404),
    ),
    ("api:document-rename", "POST"): Row(
        _post(
            lambda i: f"/api/documents/{i.document}/rename",
            lambda i: {"title": "Renamed by the matrix"},
        ),
        _expect(a_user=200, a_key=200, b_user=404, b_key=404),
    ),
    ("api:search", "GET"): Row(
        _get(
            lambda i: "/api/search",
            lambda i: {"q": "Supplier deliver goods", "document_id": i.document},
        ),
        READ_OWN,
    ),
    # chat
    ("api:chat-session-list", "GET"): Row(
        _get(lambda i: "/api/chat/sessions"), READ_OWN
    ),
    ("api:chat-session-create", "POST"): Row(
        _post(
            lambda i: "/api/chat/sessions/create",
            lambda i: {"document_ids": [i.document]},
        ),
        _expect(a_user=201, a_key=201, b_user=400, b_key=400),
    ),
    ("api:chat-session-detail", "GET"): Row(
        _get(lambda i: f"/api/chat/sessions/{i.session}"), A_ONLY
    ),
    ("api:chat-message-list", "GET"): Row(
        _get(lambda i: f"/api/chat/sessions/{i.session}/messages"), A_ONLY
    ),
    ("api:chat-message-ask", "POST"): Row(
        _post(
            lambda i: f"/api/chat/sessions/{i.session}/ask",
            lambda i: {"question": "What is the payment term?"},
        ),
        _expect(a_user=201, a_key=201, b_user=404, b_key=404),
    ),
    ("api:chat-message-ask-async", "POST"): Row(
        _post(
            lambda i: f"/api/chat/sessions/{i.session}/ask/async",
            lambda i: {"question": "What is the payment term?"},
        ),
        _expect(a_user=202, a_key=202, b_user=404, b_key=404),
    ),
    ("api:chat-question", "GET"): Row(
        _get(lambda i: f"/api/chat/sessions/{i.session}/questions/{i.question}"),
        A_ONLY,
    ),
    # X-API-Key only: a session cookie is no credential here (SEC-04).
    ("api:chat-citation-status", "GET"): Row(
        _get(lambda i: f"/api/chat/{i.session}/citation/{i.chunk}/{i.revision}/status"),
        _expect(a_user=401, b_user=401, b_key=404),
    ),
    # citations
    ("api:citation-list", "GET"): Row(
        _get(lambda i: "/api/citations", lambda i: {"tenant_id": i.tenant_slug}),
        _expect(b_user=403, b_key=403),
    ),
    ("api:citation-stats", "GET"): Row(
        _get(lambda i: "/api/citations/stats", lambda i: {"tenant_id": i.tenant_slug}),
        _expect(b_user=403, b_key=403),
    ),
    ("api:citation-resolve", "POST"): Row(
        _post(
            lambda i: "/api/citations/resolve",
            lambda i: {"chunk_id": i.chunk, "quoted_text": "within 30 days"},
        ),
        _expect(a_user=201, a_key=201, b_user=404, b_key=404),
    ),
    ("api:citation-detail", "GET"): Row(
        _get(lambda i: f"/api/citations/{i.citation}"), A_ONLY
    ),
    ("api:citation-verify", "POST"): Row(
        _post(lambda i: f"/api/citations/{i.citation}/verify"), A_ONLY
    ),
    # tabular review (tabular/api_urls.py, included under /api/tabular/)
    ("api:tabular-review-list", "GET"): Row(
        _get(lambda i: "/api/tabular/reviews"), READ_OWN
    ),
    # B naming A's document gets a review of its own whose row is "missing",
    # exactly as for an id that exists nowhere: nothing of A's is read or written.
    ("api:tabular-review-create", "POST"): Row(
        _post(
            lambda i: "/api/tabular/reviews/create",
            lambda i: {
                "name": "Matrix",
                "document_ids": [i.document],
                "columns": [{"name": "Term", "question": "What is the term?"}],
                "run": False,
            },
        ),
        _expect(a_user=201, a_key=201, b_user=201, b_key=201),
        writes_nothing=("anon",),
    ),
    ("api:tabular-review-detail", "GET"): Row(
        _get(lambda i: f"/api/tabular/reviews/{i.review}"), A_ONLY
    ),
    ("api:tabular-review-run", "POST"): Row(
        _post(lambda i: f"/api/tabular/reviews/{i.review}/run"),
        _expect(a_user=202, a_key=202, b_user=404, b_key=404),
    ),
    ("api:tabular-review-cancel", "POST"): Row(
        _post(lambda i: f"/api/tabular/reviews/{i.review}/cancel"), A_ONLY
    ),
    ("api:tabular-review-cells", "GET"): Row(
        _get(lambda i: f"/api/tabular/reviews/{i.review}/cells"), A_ONLY
    ),
    ("api:tabular-cell-rerun", "POST"): Row(
        _post(lambda i: f"/api/tabular/reviews/{i.review}/cells/{i.cell}/rerun"),
        _expect(a_user=202, a_key=202, b_user=404, b_key=404),
    ),
    ("api:tabular-cell-action", "POST"): Row(
        # The world's cell has not run: its own tenant gets the clear error.
        _post(lambda i: f"/api/tabular/reviews/{i.review}/cells/{i.cell}/flag"),
        _expect(a_user=400, a_key=400, b_user=404, b_key=404),
    ),
    ("api:tabular-review-export-csv", "GET"): Row(
        _get(lambda i: f"/api/tabular/reviews/{i.review}/export.csv"), A_ONLY
    ),
    ("api:tabular-review-export-xlsx", "GET"): Row(
        _get(lambda i: f"/api/tabular/reviews/{i.review}/export.xlsx"), A_ONLY
    ),
    # playbooks (playbook/api_urls.py, included under /api/playbooks/)
    ("api:playbook-list", "GET"): Row(_get(lambda i: "/api/playbooks"), READ_OWN),
    ("api:playbook-schema", "GET"): Row(
        _get(lambda i: "/api/playbooks/schema"), PUBLIC, writes_nothing=IDENTITIES
    ),
    ("api:playbook-create", "POST"): Row(
        _post(
            lambda i: "/api/playbooks/create", lambda i: {"playbook": MATRIX_PLAYBOOK}
        ),
        _expect(a_user=201, a_key=201, b_user=201, b_key=201),
        writes_nothing=("anon",),
    ),
    ("api:playbook-detail", "GET"): Row(
        _get(lambda i: f"/api/playbooks/{i.playbook}"), A_ONLY
    ),
    ("api:playbook-update", "POST"): Row(
        _post(
            lambda i: f"/api/playbooks/{i.playbook}/update",
            lambda i: {"playbook": MATRIX_PLAYBOOK},
        ),
        A_ONLY,
    ),
    ("api:playbook-delete", "POST"): Row(
        _post(lambda i: f"/api/playbooks/{i.playbook}/delete"),
        _expect(a_user=204, a_key=204, b_user=404, b_key=404),
    ),
    ("api:playbook-export", "GET"): Row(
        _get(lambda i: f"/api/playbooks/{i.playbook}/export"), A_ONLY
    ),
    ("api:playbook-run", "POST"): Row(
        _post(
            lambda i: f"/api/playbooks/{i.playbook}/run",
            lambda i: {"document_ids": [i.document]},
        ),
        _expect(a_user=202, a_key=202, b_user=404, b_key=404),
    ),
    ("api:playbook-run-list", "GET"): Row(
        _get(lambda i: "/api/playbooks/runs"), READ_OWN
    ),
    ("api:playbook-run-detail", "GET"): Row(
        _get(lambda i: f"/api/playbooks/runs/{i.run}"), A_ONLY
    ),
    ("api:playbook-run-resume", "POST"): Row(
        _post(lambda i: f"/api/playbooks/runs/{i.run}/resume"),
        _expect(a_user=202, a_key=202, b_user=404, b_key=404),
    ),
    ("api:playbook-run-cancel", "POST"): Row(
        _post(lambda i: f"/api/playbooks/runs/{i.run}/cancel"), A_ONLY
    ),
    ("api:playbook-run-report", "GET"): Row(
        _get(lambda i: f"/api/playbooks/runs/{i.run}/report"), A_ONLY
    ),
    ("api:playbook-finding-action", "POST"): Row(
        _post(
            lambda i: f"/api/playbooks/runs/{i.run}/findings/{i.finding}/accept",
            lambda i: {"note": "ok"},
        ),
        A_ONLY,
    ),
    ("api:playbook-run-export-docx", "GET"): Row(
        _get(lambda i: f"/api/playbooks/runs/{i.run}/export.docx"), A_ONLY
    ),
    ("api:playbook-run-export-xlsx", "GET"): Row(
        _get(lambda i: f"/api/playbooks/runs/{i.run}/export.xlsx"), A_ONLY
    ),
    # connector sources (issue 29)
    ("api:source-list", "GET"): Row(_get(lambda i: "/api/sources"), READ_OWN),
    ("api:source-detail", "GET"): Row(
        _get(lambda i: f"/api/sources/{i.source}"), A_ONLY
    ),
    ("api:source-sync", "POST"): Row(
        _post(lambda i: f"/api/sources/{i.source}/sync"),
        _expect(a_user=202, a_key=202, b_user=404, b_key=404),
    ),
    # A's collection in the body: B's is refused (TEN-04).
    ("api:source-export-create", "POST"): Row(
        _teams_export, _expect(a_user=201, a_key=201, b_user=400, b_key=400)
    ),
    # Loopback is refused (SSRF) for everyone.
    ("api:source-web-create", "POST"): Row(
        _post(
            lambda i: "/api/sources/web",
            lambda i: {"url": "http://127.0.0.1:9/", "collection_id": i.collection},
        ),
        _expect(a_user=400, a_key=400, b_user=400, b_key=400),
        writes_nothing=IDENTITIES,
    ),
    # Owners and keys only (B's user is a member); a SQLite file outside
    # the allowed folders is refused.
    ("api:source-database-create", "POST"): Row(
        _post(
            lambda i: "/api/sources/databases",
            lambda i: {
                "name": "CRM",
                "connection_url": "sqlite:////nonexistent/crm.db",
                "table": "contracts",
                "key_column": "id",
                "text_columns": ["body"],
                "collection_id": i.collection,
            },
        ),
        _expect(a_user=400, a_key=400, b_user=403, b_key=400),
        writes_nothing=IDENTITIES,
    ),
}


def _patterns(resolver: URLResolver, namespace: str) -> list[tuple[str, URLPattern]]:
    """Every URLPattern below `resolver`, through nested includes (an app's
    own API urls included under /api/ count too), with its namespace."""
    found = []
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}:{entry.namespace}" if entry.namespace else namespace
            found += _patterns(entry, inner)
        else:
            found.append((namespace, entry))
    return found


def _api_routes() -> set[tuple[str, str]]:
    """(namespaced name, method) for every pattern mounted under /api/."""
    found: set[tuple[str, str]] = set()
    for entry in get_resolver().url_patterns:
        if not (isinstance(entry, URLResolver) and str(entry.pattern) == "api/"):
            continue
        for namespace, pattern in _patterns(entry, entry.namespace):
            assert pattern.name, f"unnamed API route {pattern.pattern}"
            view = pattern.callback.view_class
            methods = [
                m.upper()
                for m in ("get", "post", "put", "patch", "delete")
                if hasattr(view, m)
            ]
            assert methods, f"{pattern.name} handles no method"
            found.update((f"{namespace}:{pattern.name}", m) for m in methods)
    return found


def test_every_api_route_has_a_row():
    routes = _api_routes()
    assert routes, "no /api/ routes found"
    assert routes - MATRIX.keys() == set(), "API routes without a permission-matrix row"
    assert MATRIX.keys() - routes == set(), (
        "matrix rows for routes that no longer exist"
    )


@pytest.fixture
def clients(
    anon_api, a_user_api, a_key_api, b_user_api, b_key_api
) -> dict[str, APIClient]:
    return {
        "anon": anon_api,
        "a_user": a_user_api,
        "a_key": a_key_api,
        "b_user": b_user_api,
        "b_key": b_key_api,
    }


@pytest.mark.parametrize("identity", IDENTITIES)
@pytest.mark.parametrize("route", sorted(MATRIX), ids=lambda r: f"{r[1]} {r[0]}")
def test_matrix(route, identity, world, clients):
    row = MATRIX[route]
    client = clients[identity]
    ids = Ids.of(world)
    before = tenant_row_counts(world.tenant_a), tenant_row_counts(world.tenant_b)
    response = row.call(client, ids)
    expected = row.expect[identity]
    assert response.status_code == expected, (route, identity, response.content[:300])
    if identity in row.writes_nothing:
        assert (
            tenant_row_counts(world.tenant_a),
            tenant_row_counts(world.tenant_b),
        ) == before
    if identity.startswith("b_"):
        assert tenant_row_counts(world.tenant_a) == before[0]  # B never writes into A
    if expected == 404:
        # No existence oracle: the same bytes as for ids that exist nowhere.
        ghost = row.call(client, Ids.ghost(world))
        assert ghost.status_code == 404
        assert ghost.content == response.content
    if route[0] in {
        "api:document-list",
        "api:chat-session-list",
        "api:search",
        "api:tabular-review-list",
        "api:playbook-list",
        "api:playbook-run-list",
    } and identity.startswith("b_"):
        leaked = {
            str(world.document_a.pk),
            str(world.session_a.pk),
            str(world.review_a.pk),
            str(world.playbook_a.pk),
            str(world.run_a.pk),
        }
        assert not leaked & {
            item.get("id") or item.get("document_id")
            for item in response.json()["items"]
        }


# ---------------------------------------------------------------- CSRF (SEC-03)


@pytest.mark.parametrize(
    "route",
    [r for r in sorted(MATRIX) if r[1] != "GET"],
    ids=lambda r: f"{r[1]} {r[0]}",
)
def test_session_writes_need_a_csrf_token_key_writes_do_not(route, world, alice, key_a):
    row = MATRIX[route]
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(alice)
    before = tenant_row_counts(world.tenant_a)
    refused = row.call(browser, Ids.of(world))
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    assert tenant_row_counts(world.tenant_a) == before
    # An X-API-Key is not ambient authority (no cookie), so no token is needed.
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_X_API_KEY=key_a)
    assert row.call(client, Ids.of(world)).status_code == row.expect["a_key"]


def test_token_auth_acts_for_the_persons_tenant(world, alice, charlie):
    from rest_framework.authtoken.models import Token

    a = APIClient()
    a.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    assert a.get("/api/me").json()["tenant"]["slug"] == world.tenant_a.slug
    assert a.get(f"/api/documents/{world.document_a.pk}").status_code == 200
    b = APIClient()
    b.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=charlie).key}")
    assert b.get(f"/api/documents/{world.document_a.pk}").status_code == 404
    assert (
        b.get("/api/citations", {"tenant_id": world.tenant_a.slug}).status_code == 403
    )


def test_a_person_without_a_tenant_is_refused(db):
    from django.contrib.auth import get_user_model

    loner = get_user_model().objects.create_user(username="loner", password="pw")
    client = APIClient()
    client.force_login(loner)
    assert client.get("/api/documents").status_code == 403


def test_me_describes_the_caller(a_user_api, a_key_api, world):
    person = a_user_api.get("/api/me").json()
    assert (person["auth"], person["username"], person["role"]) == (
        "session",
        "alice",
        "owner",
    )
    assert [t["slug"] for t in person["tenants"]] == [world.tenant_a.slug]
    key = a_key_api.get("/api/me").json()
    assert (key["auth"], key["username"], key["api_key_name"]) == (
        "api_key",
        None,
        "test",
    )
    assert key["tenant"]["slug"] == world.tenant_a.slug


def test_docs_page_loads_its_assets_from_our_origin_only(anon_api):
    page = anon_api.get("/api/docs/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "cdn.jsdelivr.net" not in html and "https://" not in html
    csp = page["Content-Security-Policy"]
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    style_src = next(d for d in csp.split(";") if d.strip().startswith("style-src"))
    assert "'sha256-" in style_src  # the template's one inline <style>, by hash
    assert "<script>" not in html  # the init script is a separate request (?script)
    init = anon_api.get("/api/docs/", {"script": ""})
    assert init.status_code == 200 and b"SwaggerUIBundle" in init.content


def _serializers_of(view: type) -> list[type]:
    """Serializer classes a view declares (nested Input/Filter/Output...)."""
    from rest_framework import serializers

    return [
        value
        for klass in view.__mro__
        for value in vars(klass).values()
        if isinstance(value, type) and issubclass(value, serializers.BaseSerializer)
    ]


def _fields(serializer_class: type, seen: set[type]) -> list:
    from rest_framework import serializers

    if serializer_class in seen:
        return []
    seen.add(serializer_class)
    found = []
    for drf_field in serializer_class().fields.values():
        found.append(drf_field)
        child = getattr(drf_field, "child", None)
        nested = child if child is not None else drf_field
        if isinstance(nested, serializers.Serializer):
            found += _fields(type(nested), seen)
        elif child is not None:
            found.append(child)
    return found


def test_no_api_serializer_takes_a_foreign_key_from_the_client():
    """TEN-04 meta-test: ids in requests are plain values that views resolve
    inside the caller's tenant (see tenant_collection, _tenant_documents, the
    selectors); a RelatedField (whose queryset could miss the tenant filter)
    or a ModelSerializer has no place in the API."""
    from rest_framework import relations, serializers

    views = {
        pattern.callback.view_class
        for entry in get_resolver().url_patterns
        if isinstance(entry, URLResolver) and str(entry.pattern) == "api/"
        for _, pattern in _patterns(entry, entry.namespace)
    }
    checked = 0
    for view in views:
        for serializer_class in _serializers_of(view):
            assert not issubclass(serializer_class, serializers.ModelSerializer), (
                serializer_class
            )
            for drf_field in _fields(serializer_class, set()):
                checked += 1
                assert not isinstance(
                    drf_field, relations.RelatedField | relations.ManyRelatedField
                ), (
                    view.__name__,
                    serializer_class.__name__,
                    drf_field,
                )
    assert checked > 50
