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


class TenantOwned(models.Model):
    """A row one tenant owns: its tenant key, and a manager that raises on a
    query outside an active tenant scope (django-scopes) instead of returning
    other tenants' rows. Every tenant-owned model of the apps above accounts
    inherits it. API keys and collections inherit it too but write their key
    out, for the tenant's reverse names (`tenant.api_keys`); a membership is
    not scoped (it is how a person's tenants are found, before any scope).

    Abstract: each model keeps its own table and columns (the key is
    `tenant_id`, as before), so inheriting it changes no schema. Django lists
    an inherited field first, so `tenant` comes before `id` in `_meta.fields`
    and in a query's column list; nothing reads a field by its position."""

    tenant = models.ForeignKey(
        "accounts.Tenant", on_delete=models.CASCADE, related_name="+"
    )

    objects = ScopedManager(tenant="tenant")

    class Meta:
        abstract = True


def tenant_id_unique(name: str = "uniq_%(class)s_tenant_id") -> models.UniqueConstraint:
    """UNIQUE (tenant, id): the target of the composite foreign keys that keep
    a reference between tenant-owned rows inside one tenant
    (accounts/dbguards.py, TEN-06). Named after the model unless the name
    already in the database says otherwise ("uniq_revision_tenant_id")."""
    return models.UniqueConstraint(fields=["tenant", "id"], name=name)


def optional_link(
    to: str | type[models.Model], *, related_name: str = "+", **options: object
) -> models.ForeignKey:
    """A reference that may be empty and is cleared, not cascaded, when its
    target goes: who did something, or what a row was made from."""
    return models.ForeignKey(
        to,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name=related_name,
        **options,
    )


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


class ApiKey(TenantOwned):
    """A client credential for one tenant, sent as `X-API-Key`.

    Only the prefix (for lookup) and a SHA-512 hash are stored; the full key is
    shown once, when it is created.
    """

    # The tenant's keys are `tenant.api_keys`: the key is written out for its
    # reverse name; the scoped manager is TenantOwned's.
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True)
    hashed_key = models.CharField(max_length=128)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

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


class Collection(TenantOwned):
    # `tenant.collections`: written out for its reverse name (as ApiKey's).
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="collections"
    )
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "name"], name="uniq_collection_tenant_name"
            ),
            # Target of composite foreign keys from tenant-owned rows (TEN-06).
            tenant_id_unique(),
        ]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
