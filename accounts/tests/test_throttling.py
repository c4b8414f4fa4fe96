"""Throttles on the ways in (issue 27 item 3, issue 34 item 4): failed logins
lock an account from that address and an address (django-axes), never the
owner elsewhere; failed API keys are throttled per address with 429 and
Retry-After, never a valid key; a key's last_used_at is written at most once
a minute. LOAD-05: checking a key uses no password hasher."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.hashers import BasePasswordHasher
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiKey
from accounts.scoping import tenant_scope, unscoped
from accounts.selectors import api_key_lookup
from accounts.services import api_key_create

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


def _login(username: str, password: str, address: str = "10.0.0.1"):
    return Client(REMOTE_ADDR=address).post(
        LOGIN, {"username": username, "password": password}
    )


def test_a_correct_password_after_too_many_wrong_ones_is_refused(alice, settings):
    statuses = [
        _login("alice", "wrong").status_code for _ in range(settings.AXES_FAILURE_LIMIT)
    ]
    # The form again, until the failure that locks the account.
    assert statuses == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]
    locked = _login("alice", "pw-alice")
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    assert "Too many failed logins" in locked.content.decode()
    assert "_auth_user_id" not in locked.client.session
    # Locked from that address only: wrong passwords from one place never
    # lock the owner out everywhere (issue 34: 480 requests a day did).
    assert _login("alice", "pw-alice", address="10.9.9.9").status_code == 302


def test_wrong_passwords_from_many_addresses_never_lock_the_owner(alice, settings):
    limit = settings.AXES_FAILURE_LIMIT
    for n in range(4):
        statuses = [
            _login("alice", "wrong", address=f"10.5.5.{n}").status_code
            for _ in range(limit + 1)
        ]
        # Each address has its own budget, then waits.
        assert statuses[-2:] == [429, 429]
    assert _login("alice", "pw-alice", address="10.0.0.1").status_code == 302


def test_an_address_trying_many_accounts_is_locked(alice, bob, settings):
    for i in range(settings.AXES_FAILURE_LIMIT):
        _login(f"someone-{i}", "guess", address="10.0.0.7")
    assert _login("bob", "pw-bob", address="10.0.0.7").status_code == 429
    # Bob himself, elsewhere, is not.
    assert _login("bob", "pw-bob", address="10.0.0.8").status_code == 302


def test_a_locked_login_hashes_no_password(alice, settings, monkeypatch):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login("alice", "wrong")
    from django.contrib.auth import hashers

    def never(*args, **kwargs):
        raise AssertionError("a password was hashed for a locked login")

    monkeypatch.setattr(hashers, "check_password", never)
    assert _login("alice", "pw-alice").status_code == 429


def test_a_success_before_the_limit_resets_the_count(alice, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _login("alice", "wrong")
    assert _login("alice", "pw-alice").status_code == 302
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _login("alice", "wrong")
    assert _login("alice", "pw-alice").status_code == 302


def test_wrong_api_keys_are_throttled_per_address_with_retry_after(tenant_a, settings):
    settings.API_KEY_FAILURE_LIMIT = 5
    with tenant_scope(tenant_a):
        _, good = api_key_create(tenant=tenant_a)
    attacker = APIClient(REMOTE_ADDR="10.1.1.1")
    statuses = [
        attacker.get("/api/me", HTTP_X_API_KEY=f"dq_{i:08x}_wrong").status_code
        for i in range(8)
    ]
    assert statuses == [401] * 5 + [429] * 3
    throttled = attacker.get("/api/me", HTTP_X_API_KEY="dq_00000000_wrong")
    retry_after = int(throttled["Retry-After"])
    assert 1 <= retry_after <= settings.API_KEY_FAILURE_WINDOW_S
    assert "Try again in" in throttled.json()["detail"]
    # A valid key from the same address (a shared proxy) is never blocked
    # by the wrong ones, while wrong keys there still wait...
    assert attacker.get("/api/me", HTTP_X_API_KEY=good).status_code == 200
    assert attacker.get("/api/me", HTTP_X_API_KEY="dq_0_wrong").status_code == 429
    # ...and wrong keys elsewhere do not.
    other = APIClient(REMOTE_ADDR="10.1.1.2")
    assert other.get("/api/me", HTTP_X_API_KEY="dq_1_wrong").status_code == 401


def test_the_address_behind_trusted_proxies_is_the_one_they_saw(tenant_a, settings):
    settings.API_KEY_FAILURE_LIMIT = 2
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = APIClient(REMOTE_ADDR="127.0.0.1")

    def call(forwarded: str) -> int:
        return proxy.get(
            "/api/me",
            HTTP_X_API_KEY="dq_00000000_wrong",
            HTTP_X_FORWARDED_FOR=forwarded,
        ).status_code

    # The client may prepend anything; the proxy's own entry is the last one.
    assert [call(f"1.2.3.{i}, 10.2.2.2") for i in range(3)] == [401, 401, 429]
    assert call("10.2.2.3") == 401


def test_last_used_at_is_written_at_most_once_a_minute(
    tenant_a, settings, django_assert_num_queries
):
    settings.API_KEY_CACHE_S = 0  # every lookup reads the row
    with tenant_scope(tenant_a):
        key, raw = api_key_create(tenant=tenant_a)
    with django_assert_num_queries(2):  # the lookup, then the first write
        api_key_lookup(raw)
    first = _last_used(key)
    with django_assert_num_queries(1):  # the lookup only
        api_key_lookup(raw)
    assert _last_used(key) == first
    with unscoped():
        ApiKey.objects.filter(pk=key.pk).update(
            last_used_at=timezone.now() - timezone.timedelta(seconds=61)
        )
    api_key_lookup(raw)
    assert _last_used(key) > first


def _last_used(key):
    with unscoped():
        return ApiKey.objects.get(pk=key.pk).last_used_at


class _ForbiddenHasher(BasePasswordHasher):
    algorithm = "forbidden"

    def verify(self, password, encoded):
        raise AssertionError("an API key check used a password hasher")

    def encode(self, password, salt):
        raise AssertionError("an API key check used a password hasher")


def test_load05_an_api_key_check_uses_no_password_hasher_and_takes_under_1_ms(
    tenant_a, settings
):
    settings.PASSWORD_HASHERS = [f"{__name__}._ForbiddenHasher"]
    with tenant_scope(tenant_a):
        key, raw = api_key_create(tenant=tenant_a)
    assert APIClient().get("/api/me", HTTP_X_API_KEY=raw).status_code == 200
    started = time.perf_counter()
    for _ in range(1000):
        key.matches(raw)
    assert (time.perf_counter() - started) / 1000 < 0.001


def test_each_api_key_has_its_own_request_rate(tenant_a, tenant_b, monkeypatch):
    from accounts.api import CallerRateThrottle

    monkeypatch.setattr(CallerRateThrottle, "THROTTLE_RATES", {"user": "3/min"})
    with tenant_scope(tenant_a):
        _, first = api_key_create(tenant=tenant_a, name="one")
        _, second = api_key_create(tenant=tenant_a, name="two")
    with tenant_scope(tenant_b):
        _, other = api_key_create(tenant=tenant_b, name="b")
    client = APIClient()

    def me(key):
        return client.get("/api/me", HTTP_X_API_KEY=key).status_code

    assert [me(first) for _ in range(4)] == [200, 200, 200, 429]
    # Another key, of the same tenant or another, has its own count.
    assert me(second) == 200 and me(other) == 200


def test_a_key_found_valid_is_not_looked_up_again_for_a_while(
    tenant_a, settings, django_assert_num_queries
):
    settings.API_KEY_CACHE_S = 10
    with tenant_scope(tenant_a):
        key, raw = api_key_create(tenant=tenant_a)
    assert api_key_lookup(raw).pk == key.pk
    with django_assert_num_queries(0):
        assert api_key_lookup(raw).pk == key.pk
    # Revoked through the admin action: refused at once in this process.
    from accounts.selectors import api_key_cache_clear

    with unscoped():
        ApiKey.objects.filter(pk=key.pk).update(revoked_at=timezone.now())
    api_key_cache_clear()
    assert api_key_lookup(raw) is None
    # A wrong secret under a known prefix is never served from the cache.
    assert api_key_lookup(raw[:-1] + ("A" if raw[-1] != "A" else "B")) is None
