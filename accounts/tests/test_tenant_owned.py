"""Every tenant-owned model is a TenantOwned: scoped, and its same-tenant
guards (accounts/dbguards.py) point at rows keyed by (tenant, id)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.db import models
from django_scopes import ScopeError

from accounts.models import Membership, Tenant, TenantOwned

# A membership is how a person's tenants are found, before any scope.
UNSCOPED = {Membership}

_GUARD = re.compile(r'same_tenant\(\s*"(\w+)",\s*"(\w+)",\s*"(\w+)"\s*\)')


def _tenant_keyed() -> list[type[models.Model]]:
    return [
        model
        for model in apps.get_models()
        if any(
            f.name == "tenant" and f.related_model is Tenant
            for f in model._meta.get_fields()
            if f.is_relation and f.many_to_one
        )
    ]


def _guards() -> list[tuple[str, str, str]]:
    root = Path(settings.BASE_DIR)
    return [
        guard
        for path in sorted(root.glob("*/migrations/*.py"))
        for guard in _GUARD.findall(path.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize("model", _tenant_keyed(), ids=lambda m: m._meta.label)
def test_a_model_with_a_tenant_key_is_tenant_owned(model) -> None:
    if model in UNSCOPED:
        return
    assert issubclass(model, TenantOwned)
    with pytest.raises(ScopeError):
        list(model.objects.all())


def test_every_guard_joins_two_tenant_owned_tables_keyed_by_tenant_and_id() -> None:
    by_table = {m._meta.db_table: m for m in apps.get_models()}
    guards = _guards()
    assert guards
    for child, column, parent in guards:
        assert issubclass(by_table[child], TenantOwned), child
        assert column in {f.column for f in by_table[child]._meta.concrete_fields}
        assert issubclass(by_table[parent], TenantOwned), parent
        assert any(
            isinstance(c, models.UniqueConstraint)
            and tuple(c.fields) == ("tenant", "id")
            for c in by_table[parent]._meta.constraints
        ), parent
