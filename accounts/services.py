from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from accounts.models import ApiKey, Collection, Membership, Tenant, hash_api_key

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser


def tenant_create(*, slug: str, name: str | None = None) -> Tenant:
    tenant, _ = Tenant.objects.get_or_create(slug=slug, defaults={"name": name or slug})
    return tenant


def membership_add(
    *, user: AbstractBaseUser, tenant: Tenant, role: str = Membership.Role.MEMBER
) -> Membership:
    membership, _ = Membership.objects.get_or_create(
        user=user, tenant=tenant, defaults={"role": role}
    )
    return membership


@transaction.atomic
def api_key_create(*, tenant: Tenant, name: str = "default") -> tuple[ApiKey, str]:
    """Create a key; returns (row, raw key). The raw key is not stored anywhere."""
    prefix, raw = ApiKey.generate()
    key = ApiKey.objects.create(
        tenant=tenant, name=name, prefix=prefix, hashed_key=hash_api_key(raw)
    )
    return key, raw


def collection_get_or_create(*, tenant: Tenant, name: str) -> Collection:
    existing = Collection.objects.with_scope(tenant=tenant.pk).filter(name=name).first()
    return existing or Collection.objects.create(tenant=tenant, name=name)
