"""Root fixtures: the cast (Alice and Bob in tenant A, Charlie in tenant B),
clients, a scripted model server, and test settings."""

from __future__ import annotations

import os
import shutil

import pytest
from django.db import connection

from accounts.scoping import tenant_scope, unscoped


def pytest_collection_modifyitems(config, items):
    on_pg = os.environ.get("DATABASE_URL", "").startswith(("postgres", "postgresql"))
    with_worker = bool(os.environ.get("CELERY_TEST_BROKER_URL"))
    have_chromium = shutil.which("chromium") is not None
    for item in items:
        if "pg" in item.keywords and not on_pg:
            item.add_marker(pytest.mark.skip(reason="needs DATABASE_URL=postgres://…"))
        if "worker" in item.keywords and not with_worker:
            item.add_marker(pytest.mark.skip(reason="needs CELERY_TEST_BROKER_URL (Redis)"))
        if "browser" in item.keywords and not have_chromium:
            item.add_marker(pytest.mark.skip(reason="needs Debian's chromium"))


@pytest.fixture(autouse=True)
def _test_settings(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.LLM_BASE_URL = ""
    from docuiq.celery import app

    app.conf.task_always_eager = True


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

    user = get_user_model().objects.create_user(username=username, password="pw-" + username, **extra)
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
