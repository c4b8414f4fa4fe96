"""Root fixtures: the cast (Alice and Bob in tenant A, Charlie in tenant B),
clients, a scripted model server, and test settings."""

from __future__ import annotations

import os
import shutil

import pytest
from django.db import connection
from hypothesis import settings as hypothesis_settings

from accounts.scoping import tenant_scope, unscoped

# Property tests assert what holds for every input, never how fast: the machines
# are shared and a loaded core turns hypothesis' 200 ms deadline into a flaky
# failure (seen on a merged run). Timing targets live in bench/.
hypothesis_settings.register_profile("docuiq", deadline=None)
hypothesis_settings.load_profile("docuiq")


def pytest_collection_modifyitems(config, items):
    on_pg = os.environ.get("DATABASE_URL", "").startswith(("postgres", "postgresql"))
    with_worker = bool(os.environ.get("CELERY_TEST_BROKER_URL"))
    have_chromium = shutil.which("chromium") is not None
    # The real_model tier is minutes of CPU: only when asked for (-m real_model,
    # `make test-model`); its fixture skips when the model is not built.
    want_real_model = "real_model" in (config.getoption("markexpr", "") or "")
    for item in items:
        if "real_model" in item.keywords and not want_real_model:
            item.add_marker(pytest.mark.skip(reason="real model tier: make test-model"))
        if "pg" in item.keywords and not on_pg:
            item.add_marker(pytest.mark.skip(reason="needs DATABASE_URL=postgres://…"))
        if "worker" in item.keywords and not with_worker:
            item.add_marker(
                pytest.mark.skip(reason="needs CELERY_TEST_BROKER_URL (Redis)")
            )
        if "browser" in item.keywords and not have_chromium:
            item.add_marker(pytest.mark.skip(reason="needs Debian's chromium"))
        if "browser" in item.keywords:
            # Under `make test`'s two processes (--dist loadgroup) the browser
            # tests run on one of them: one chromium and one live server at
            # a time, beside the other process's tests, never two browsers.
            item.add_marker(pytest.mark.xdist_group("browser"))


def pytest_pycollect_makemodule(module_path, parent):
    """schemathesis's pytest plugin, switched off in pyproject.toml
    (`-p no:schemathesis`: importing it and hypothesis costs every run a few
    seconds before its first test), is registered when a module that uses it
    is collected; its hooks then run as if loaded at start."""
    if b"import schemathesis" in module_path.read_bytes():
        from schemathesis.pytest import plugin

        manager = parent.config.pluginmanager
        if not manager.is_registered(plugin):
            manager.register(plugin, "schemathesis-when-used")


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix, django_db_createdb
):
    """pytest-django's hook just before the test databases are made: the
    SQLite one is loaded from the copy migrated by an earlier run, when the
    migrations have not changed since (docuiq/testing/dbcache.py)."""
    from django.conf import settings

    from docuiq.testing.dbcache import cached_migrations

    with cached_migrations(settings.VAR_DIR / "test-db", rebuild=django_db_createdb):
        yield


@pytest.fixture(autouse=True)
def _test_settings(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.LLM_BASE_URL = ""
    # The offline embedder, whatever the environment says.
    settings.EMBEDDINGS = ""
    settings.EMBEDDINGS_BASE_URL = ""
    from django.core.cache import cache

    from docuiq.celery import app
    from ingest.search import clear_vector_cache

    # Throttle counts (failed API keys) live in the cache, keys found valid in
    # the process: none carry over.
    cache.clear()
    from accounts.selectors import api_key_cache_clear

    api_key_cache_clear()

    # What the model client learnt about a server (its slots, its JSON mode):
    # a later test's scripted server may get the same port.
    from llm.servers import forget_servers

    forget_servers()

    # The vector cache's version is the highest row id, which SQLite reuses
    # after a test's rollback: start every test from the database.
    clear_vector_cache()

    app.conf.task_always_eager = True


@pytest.fixture
def broker_publishes(settings, monkeypatch):
    """Celery as with a broker: a task sent after a commit is published by
    `.delay()` (which the test replaces), not run in this process. The send
    (lib.worker.enqueue) asks Celery's own setting; the Django one is set too
    for the code that reads it."""
    from docuiq.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    monkeypatch.setitem(app.conf, "task_always_eager", False)


@pytest.fixture
def tenant_a(db):
    from accounts.services import tenant_create

    return tenant_create(slug="tenant-a", name="Tenant A")


@pytest.fixture
def tenant_b(db):
    from accounts.services import tenant_create

    return tenant_create(slug="tenant-b", name="Tenant B")


def _member(username, tenant, role="member", **extra):
    from django.contrib.auth import get_user_model

    from accounts.services import membership_add

    user = get_user_model().objects.create_user(
        username=username, password="pw-" + username, **extra
    )
    membership_add(user=user, tenant=tenant, role=role)
    return user


@pytest.fixture
def alice(tenant_a):
    """Owner of tenant A, staff (reviews citations)."""
    return _member("alice", tenant_a, role="owner", is_staff=True)


@pytest.fixture
def bob(tenant_a):
    """A plain member of tenant A."""
    return _member("bob", tenant_a)


@pytest.fixture
def charlie(tenant_b):
    """Tenant B's user: must never see anything of tenant A."""
    return _member("charlie", tenant_b, is_staff=True)


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def charlie_client(alice_client, charlie):
    from django.test import Client

    c = Client()
    c.force_login(charlie)
    return c


@pytest.fixture
def scope_a(tenant_a):
    with tenant_scope(tenant_a):
        yield tenant_a


@pytest.fixture
def no_scope():
    with unscoped():
        yield


@pytest.fixture
def is_postgres(db):
    return connection.vendor == "postgresql"


# ---------------------------------------------------------------- a real Celery worker


@pytest.fixture
def celery_worker_proc(settings, transactional_db, tmp_path):
    """A real `celery worker` subprocess on Redis, pointed at the test database.

    Tests using it need PostgreSQL (SQLite's test database lives in memory)
    and `django_db(transaction=True)` so the worker sees committed rows.
    """
    import signal
    import subprocess
    import sys
    import time

    from django.db import connection as conn

    from docuiq.celery import app

    broker = os.environ["CELERY_TEST_BROKER_URL"]
    if conn.vendor != "postgresql":
        pytest.skip("the worker needs PostgreSQL to share the test database")
    db = conn.settings_dict
    # Per test session: Celery caches its routing at first use.
    prefix = f"test-{os.getpid()}-"
    media = tmp_path / "media"
    settings.MEDIA_ROOT = media
    settings.CELERY_TASK_ALWAYS_EAGER = False
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "CELERY_BROKER_URL": broker,
        "MEDIA_ROOT": str(media),
        "CELERY_VISIBILITY_TIMEOUT": "8",
        # A redelivered message claims a document whose heartbeat stopped.
        "INGEST_HEARTBEAT_S": "1",
        "INGEST_STALE_AFTER_S": "4",
        # Queues of its own: a stray worker from another run can never take these tasks.
        "CELERY_QUEUE_PREFIX": prefix,
        "CELERY_LOG_LEVEL": "INFO",
        "LLM_BASE_URL": settings.LLM_BASE_URL or "",
    }
    settings.CELERY_QUEUE_PREFIX = prefix  # read by lib.worker.queues when sending
    old = (app.conf.broker_url, app.conf.task_always_eager, app.conf.task_default_queue)

    def reset_producer_state():
        # An eager .delay() earlier in the session caches the producer pool,
        # the queues and the router with the old broker and queue.
        app._pool = None
        for attr in ("queues", "router", "_producer_pool", "producer_pool"):
            app.amqp.__dict__.pop(attr, None)

    app.conf.broker_url = broker
    app.conf.task_always_eager = False
    app.conf.task_default_queue = prefix + "bulk"
    reset_producer_state()
    log = open(tmp_path / "worker.log", "wb")  # noqa: SIM115

    def start():
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "docuiq",
                "worker",
                "-l",
                "info",
                "--concurrency",
                "2",
                "--without-heartbeat",
                "--without-gossip",
                "--without-mingle",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if b"ready." in (tmp_path / "worker.log").read_bytes():
                return proc
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGKILL)  # never leave a half-started worker behind
        raise RuntimeError(
            "celery worker did not start:\n" + (tmp_path / "worker.log").read_text()
        )

    class Worker:
        def __init__(self):
            self.proc = start()
            self.log_path = tmp_path / "worker.log"

        def kill(self):
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

        def restart(self):
            self.proc = start()

    worker = Worker()
    try:
        yield worker
    finally:
        try:
            os.killpg(worker.proc.pid, signal.SIGTERM)
            worker.proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(worker.proc.pid, signal.SIGKILL)
        log.close()
        app.conf.broker_url, app.conf.task_always_eager, app.conf.task_default_queue = (
            old
        )
        reset_producer_state()


@pytest.fixture
def llm(settings):
    """A scripted OpenAI-compatible server on 127.0.0.1, configured as the model."""
    from docuiq.testing.llm_server import ScriptedLLMServer

    with ScriptedLLMServer(mode=None) as server:
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_MODEL = "scripted-model"
        settings.LLM_API_KEY = "test-key"
        settings.LLM_MAX_RETRIES = 1
        settings.LLM_TIMEOUT_S = 5
        settings.LLM_JUDGE_MODEL = ""
        yield server
