from __future__ import annotations

import hmac
import time
from datetime import timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils import timezone

from accounts.models import API_KEY_PREFIX, ApiKey, Membership, Tenant, hash_api_key
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


# Keys found valid, per process, for API_KEY_CACHE_S seconds: most requests
# then spend no query on their key. A revoked key (or a disabled tenant)
# stops working within that time in every process (at once in this one).
_found: dict[str, tuple[float, ApiKey]] = {}
_FOUND_MAX = 10_000


def api_key_cache_clear() -> None:
    _found.clear()


def api_key_lookup(raw: str) -> ApiKey | None:
    """The active key matching `raw`, or None. Constant-time comparison."""
    parts = (raw or "").split("_", 2)  # the secret itself may contain "_"
    if len(parts) != 3 or parts[0] != API_KEY_PREFIX:
        return None
    digest = hash_api_key(raw)
    hit = _found.get(digest)
    if hit is not None and hit[0] > time.monotonic():
        key = hit[1]
    else:
        with unscoped():
            key = (
                ApiKey.objects.select_related("tenant").filter(prefix=parts[1]).first()
            )
        if (
            key is None
            or not hmac.compare_digest(key.hashed_key, digest)
            or not key.is_active
        ):
            _found.pop(digest, None)
            return None
        if settings.API_KEY_CACHE_S > 0:
            if len(_found) >= _FOUND_MAX:
                _found.clear()
            _found[digest] = (time.monotonic() + settings.API_KEY_CACHE_S, key)
    # At most one write a minute per key, not one per request.
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_EVERY:
        with unscoped():
            ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
    return key
