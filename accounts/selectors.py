from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from django.utils import timezone

from accounts.models import API_KEY_PREFIX, ApiKey, Membership, Tenant
from accounts.scoping import unscoped

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

LAST_USED_EVERY = timedelta(minutes=1)


def tenants_for_user(user: AbstractBaseUser) -> list[Tenant]:
    if not user.is_authenticated:
        return []
    return [
        m.tenant
        for m in Membership.objects.filter(user=user, tenant__is_active=True)
        .select_related("tenant")
        .order_by("tenant__slug")
    ]


def membership_for(user: AbstractBaseUser, tenant: Tenant) -> Membership | None:
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(user=user, tenant=tenant).first()


def api_key_lookup(raw: str) -> ApiKey | None:
    """The active key matching `raw`, or None. Constant-time comparison."""
    parts = (raw or "").split("_", 2)  # the secret itself may contain "_"
    if len(parts) != 3 or parts[0] != API_KEY_PREFIX:
        return None
    with unscoped():
        key = ApiKey.objects.select_related("tenant").filter(prefix=parts[1]).first()
        if key is None or not key.matches(raw) or not key.is_active:
            return None
        # At most one write a minute per key, not one per request.
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at >= LAST_USED_EVERY:
            ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
            key.last_used_at = now
    return key
