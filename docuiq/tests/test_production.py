"""The production profile and server (issue 27 item 4, SEC-01): under
DOCUIQ_PROFILE=production `check --deploy` is clean, the app refuses to start
on the development key, without ALLOWED_HOSTS or with DEBUG, and `make
serve`'s gunicorn serves pages and WhiteNoise's hashed static files. With no
environment the development settings still start (`make run`, `make test`)."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from docuiq.testing.processes import ROOT, GunicornServer

KEY = secrets.token_urlsafe(50)
PRODUCTION = {
    "DOCUIQ_PROFILE": "production",
    "SECRET_KEY": KEY,
    "ALLOWED_HOSTS": "docuiq.example.com,127.0.0.1",
}


def _manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        # Never the suite's own database or broker: SQLite under DOCUIQ_VAR_DIR.
        if k
        not in {
            "DOCUIQ_PROFILE",
            "SECRET_KEY",
            "ALLOWED_HOSTS",
            "DEBUG",
            "DATABASE_URL",
            "CELERY_BROKER_URL",
            # Set by the browser tests in this process; never in a deployment.
            "DJANGO_ALLOW_ASYNC_UNSAFE",
        }
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_sec01_check_deploy_is_clean_under_the_production_profile():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"SECRET_KEY": ""}, "needs SECRET_KEY"),
        (
            {"SECRET_KEY": "django-insecure-docuiq-local-development-key-only"},
            "needs SECRET_KEY",
        ),
        ({"SECRET_KEY": "short"}, "needs SECRET_KEY"),
        ({"ALLOWED_HOSTS": ""}, "needs ALLOWED_HOSTS"),
        ({"DEBUG": "true"}, "DEBUG is on"),
    ],
)
def test_the_production_profile_refuses_to_start_unsafe(change, says):
    env = {**PRODUCTION, **change}
    result = _manage("check", env={k: v for k, v in env.items() if v != ""})
    assert result.returncode != 0
    assert says in result.stderr


def test_the_development_settings_need_no_environment():
    result = _manage("check", env={})
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_make_serve_runs_gunicorn_with_whitenoise_static_files(tmp_path):
    var = tmp_path / "var"
    var.mkdir()
    env = {
        **PRODUCTION,
        "DOCUIQ_VAR_DIR": str(var),
        "SECURE_SSL_REDIRECT": "false",  # plain HTTP on loopback
        "WEB_CONCURRENCY": "2",
    }
    assert _manage("migrate", "--noinput", env=env).returncode == 0
    server = GunicornServer(env, tmp_path / "gunicorn.log")
    try:
        with urllib.request.urlopen(f"{server.url}/healthz", timeout=10) as r:
            assert r.status == 200 and b'"ok": true' in r.read()
        with urllib.request.urlopen(f"{server.url}/accounts/login/", timeout=10) as r:
            page = r.read().decode()
            assert r.status == 200
            assert r.headers["X-Content-Type-Options"] == "nosniff"
            assert "Secure" in r.headers["Set-Cookie"]  # the CSRF cookie
        css = re.search(r'href="(/static/[^"]+\.css)"', page)
        assert css and re.search(r"\.[0-9a-f]{12}\.css$", css.group(1)), css
        with urllib.request.urlopen(server.url + css.group(1), timeout=10) as r:
            assert r.status == 200
            assert "immutable" in r.headers["Cache-Control"]
        log = Path(server.log_path).read_text()
        assert "gthread" in log
    finally:
        server.stop()
