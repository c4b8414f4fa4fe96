"""Tenant scoping fails closed (TEN-05); API keys are hashed and cheap to check (AUTH-01)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django_scopes import ScopeError

from accounts.models import ApiKey, Collection, hash_api_key
from accounts.scoping import tenant_scope, unscoped
from accounts.selectors import api_key_lookup
from accounts.services import api_key_create, collection_get_or_create

pytestmark = pytest.mark.django_db


def test_a_tenant_owned_query_outside_a_scope_raises(tenant_a):
    with pytest.raises(ScopeError):
        list(Collection.objects.all())


def test_a_scope_shows_only_its_tenants_rows(tenant_a, tenant_b):
    collection_get_or_create(tenant=tenant_a, name="A deals")
    collection_get_or_create(tenant=tenant_b, name="B deals")
    with tenant_scope(tenant_b):
        assert [c.name for c in Collection.objects.all()] == ["B deals"]


def test_tenant_scope_refuses_none():
    with pytest.raises(ValueError), tenant_scope(None):
        pass


def test_api_keys_are_stored_only_as_hashes(tenant_a):
    with tenant_scope(tenant_a):
        key, raw = api_key_create(tenant=tenant_a, name="ci")
    with unscoped():
        row = ApiKey.objects.get(pk=key.pk)
    assert raw not in {row.hashed_key, row.prefix, row.name}
    assert row.hashed_key == hash_api_key(raw)
    assert all(raw not in str(getattr(row, f.attname)) for f in ApiKey._meta.fields)


def test_a_key_is_found_by_its_raw_value_and_not_by_a_near_miss(tenant_a):
    with tenant_scope(tenant_a):
        _, raw = api_key_create(tenant=tenant_a)
    assert api_key_lookup(raw).tenant == tenant_a
    assert api_key_lookup(raw[:-1] + ("A" if raw[-1] != "A" else "B")) is None
    assert api_key_lookup("") is None
    assert api_key_lookup("not-a-key") is None


def test_a_revoked_key_or_a_disabled_tenant_does_not_authenticate(tenant_a):
    from django.utils import timezone

    with tenant_scope(tenant_a):
        key, raw = api_key_create(tenant=tenant_a)
        _, raw2 = api_key_create(tenant=tenant_a)
        ApiKey.objects.filter(pk=key.pk).update(revoked_at=timezone.now())
    assert api_key_lookup(raw) is None
    tenant_a.is_active = False
    tenant_a.save()
    assert api_key_lookup(raw2) is None


def test_create_tenant_prints_the_key_alone_on_the_last_line(capsys):
    call_command("create_tenant", "acme", "--name", "Acme LLP", "--api-key")
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("tenant acme")
    assert api_key_lookup(out[-1]) is not None
    call_command("create_tenant", "acme")  # idempotent
