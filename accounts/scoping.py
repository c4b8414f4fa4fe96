"""Tenant scoping: every tenant-owned model uses django-scopes' ScopedManager.

A query on a tenant-owned model raises ScopeError unless a tenant scope is
active (TEN-05). Requests get their scope from TenantMiddleware; tasks and
commands enter one explicitly with `tenant_scope(tenant)` once they know which
tenant a row belongs to, and look rows up by primary key with `unscoped()`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

from django.db.models import Model, QuerySet
from django_scopes import scope, scopes_disabled

if TYPE_CHECKING:
    from accounts.models import Tenant

M = TypeVar("M", bound=Model)


@contextmanager
def tenant_scope(tenant: Tenant) -> Iterator[None]:
    if tenant is None:
        # django-scopes treats None as "no filter": refuse it outright.
        raise ValueError("tenant_scope needs a tenant")
    with scope(tenant=tenant.pk):
        yield


unscoped = scopes_disabled


def first_by_pk(queryset: QuerySet[M], pk: object) -> M | None:
    """The row of `queryset` (already the tenant's) with this primary key, or
    None: also for a malformed key from a URL, which is then simply not found."""
    try:
        return queryset.filter(pk=pk).first()
    except (ValueError, TypeError):
        return None
