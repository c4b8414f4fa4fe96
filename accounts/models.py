"""Tenants and who may act for them: memberships (people) and API keys (clients)."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.conf import settings
from django.db import models
from django_scopes import ScopedManager

API_KEY_PREFIX = "dq"


class Tenant(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        MEMBER = "member", "Member"
        REVIEWER = "reviewer", "Reviewer"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "tenant"], name="uniq_membership_user_tenant"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.tenant} ({self.role})"


def hash_api_key(raw: str) -> str:
    # SHA-512, not a password hasher: keys are long random secrets, and PBKDF2
    # would cost ~0.35 s per request (AUTH-01, LOAD-05).
    return hashlib.sha512(raw.encode()).hexdigest()


class ApiKey(models.Model):
    """A client credential for one tenant, sent as `X-API-Key`.

    Only the prefix (for lookup) and a SHA-512 hash are stored; the full key is
    shown once, when it is created.
    """

    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True)
    hashed_key = models.CharField(max_length=128)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ScopedManager(tenant="tenant")

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def generate(cls) -> tuple[str, str]:
        prefix = secrets.token_hex(4)
        raw = f"{API_KEY_PREFIX}_{prefix}_{secrets.token_urlsafe(32)}"
        return prefix, raw

    def matches(self, raw: str) -> bool:
        return hmac.compare_digest(self.hashed_key, hash_api_key(raw))

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and self.tenant.is_active


class Collection(models.Model):
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="collections"
    )
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ScopedManager(tenant="tenant")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "name"], name="uniq_collection_tenant_name"
            ),
            # Target of composite foreign keys from tenant-owned rows (TEN-06).
            models.UniqueConstraint(
                fields=["tenant", "id"], name="uniq_collection_tenant_id"
            ),
        ]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
