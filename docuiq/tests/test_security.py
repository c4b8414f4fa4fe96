"""Deployment checks, response headers and CSRF on every unsafe HTML route
(SEC-01, SEC-02, SEC-03)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_check_deploy_passes_with_production_settings():
    """SEC-01: nothing silenced; production sets these variables."""
    env = {
        **os.environ,
        "SECRET_KEY": secrets.token_urlsafe(64),
        "DEBUG": "false",
        "ALLOWED_HOSTS": "docuiq.example",
        "SECURE_SSL_REDIRECT": "true",
        "SECURE_HSTS_SECONDS": "31536000",
        "SECURE_COOKIES": "true",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set for the browser tests only
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_development_secret_key_fails_the_deploy_check():
    env = {**os.environ, "DEBUG": "false"}
    env.pop("SECRET_KEY", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0 and "W009" in result.stdout + result.stderr


def _assert_security_headers(response):
    csp = response["Content-Security-Policy"]
    directives = dict(
        part.strip().split(" ", 1) for part in csp.split(";") if " " in part.strip()
    )
    # No page has an inline script, so no nonce is ever issued: scripts come
    # from our origin only (stricter than 'self' plus a nonce).
    assert directives["script-src"].split()[0] == "'self'"
    assert all(
        src == "'self'" or src.startswith("'nonce-")
        for src in directives["script-src"].split()
    )
    assert "unsafe-inline" not in directives["script-src"] and "unsafe-eval" not in csp
    assert directives["img-src"].split() == ["'self'", "data:"]
    assert directives["frame-ancestors"] == "'none'"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"


def test_pages_fragments_and_api_responses_carry_the_security_headers(alice_client):
    _assert_security_headers(alice_client.get("/documents/"))
    _assert_security_headers(
        alice_client.get("/documents/rows/", HTTP_HX_REQUEST="true")
    )
    _assert_security_headers(alice_client.get("/api/me"))


def test_no_page_has_an_inline_script(alice_client):
    import html5lib

    for url in ("/documents/", "/chat/?new=1", "/accounts/login/"):
        tree = html5lib.parse(
            alice_client.get(url).content, namespaceHTMLElements=False
        )
        for script in tree.iter("script"):
            assert script.get("src"), (url, (script.text or "")[:80])


def _unsafe_html_routes():
    """Every non-admin, non-API URL pattern, with placeholder arguments."""
    found = []

    def walk(patterns, prefix=""):
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                if route.startswith(("admin/", "api/")):
                    continue
                walk(p.url_patterns, route)
            elif isinstance(p, URLPattern):
                found.append((route, p))

    walk(get_resolver().url_patterns)
    return found


def _fill(route: str) -> str:
    import re

    route = re.sub(r"<uuid:\w+>", str(uuid.uuid4()), route)
    route = re.sub(r"<int:\w+>", "1", route)
    route = re.sub(r"<(str|slug):\w+>", "x", route)
    route = re.sub(r"<\w+>", "x", route)
    return "/" + route.replace("^", "").replace("$", "")


def test_every_unsafe_html_route_needs_the_csrf_token(alice, settings):
    """SEC-03, enumerated from the URL resolver: a new route is covered by default."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get("/documents/")  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    checked = 0
    for route, _ in _unsafe_html_routes():
        url = _fill(route)
        if url.startswith("/static"):
            continue
        without = client.post(url, {})
        if without.status_code == 405:
            continue  # GET-only route
        checked += 1
        assert without.status_code == 403, (url, without.status_code)
        with_token = client.post(url, {}, HTTP_X_CSRFTOKEN=token)
        assert with_token.status_code != 403, (url, with_token.status_code)
    assert checked >= 6
