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
}


def _api_routes() -> set[tuple[str, str]]:
    """(namespaced name, method) for every pattern mounted under /api/."""
    found: set[tuple[str, str]] = set()
    for entry in get_resolver().url_patterns:
        if not (isinstance(entry, URLResolver) and str(entry.pattern) == "api/"):
            continue
        for pattern in entry.url_patterns:
            assert isinstance(pattern, URLPattern), (
                f"nested include under /api/: {pattern}"
            )
            assert pattern.name, f"unnamed API route {pattern.pattern}"
            view = pattern.callback.view_class
            methods = [
                m.upper()
                for m in ("get", "post", "put", "patch", "delete")
                if hasattr(view, m)
            ]
            assert methods, f"{pattern.name} handles no method"
            found.update((f"{entry.namespace}:{pattern.name}", m) for m in methods)
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
    if expected == 404:
        # No existence oracle: the same bytes as for ids that exist nowhere.
        ghost = row.call(client, Ids.ghost(world))
        assert ghost.status_code == 404
        assert ghost.content == response.content
    if route[0] in {
        "api:document-list",
        "api:chat-session-list",
        "api:search",
    } and identity.startswith("b_"):
        leaked = {str(world.document_a.pk), str(world.session_a.pk)}
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
