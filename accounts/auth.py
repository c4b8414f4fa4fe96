"""DRF authentication for integrations: the `X-API-Key` header (SPEC §5)."""

from __future__ import annotations

from dataclasses import dataclass

from rest_framework import authentication, exceptions, permissions
from rest_framework.request import Request


@dataclass
class ApiKeyUser:
    """The principal behind an API key: authenticated, never staff."""

    key_name: str
    tenant_id: int
    is_authenticated: bool = True
    is_active: bool = True
    is_staff: bool = False
    is_superuser: bool = False
    is_anonymous: bool = False
    pk: None = None
    id: None = None

    def __str__(self) -> str:
        return f"api-key:{self.key_name}"


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """The middleware looked the key up (it needs the tenant for scoping); this
    only turns its finding into a DRF principal or a 401."""

    def authenticate(self, request: Request) -> tuple[ApiKeyUser, object] | None:
        django_request = request._request
        if getattr(django_request, "api_key_invalid", False):
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        key = getattr(django_request, "api_key", None)
        if key is None:
            return None
        return ApiKeyUser(key_name=key.name, tenant_id=key.tenant_id), key

    def authenticate_header(self, request: Request) -> str:
        return "X-API-Key"


class HasTenant(permissions.BasePermission):
    """The caller acts for a tenant (a member, or a valid key)."""

    message = "You are not a member of any active tenant."

    def has_permission(self, request: Request, view: object) -> bool:
        return bool(request.user and request.user.is_authenticated) and (
            getattr(request._request, "tenant", None) is not None
        )


class ApiKeyOnly(permissions.BasePermission):
    """Key-only endpoints: a session cookie never authenticates them (SEC-04),
    so they cannot become a CSRF target."""

    message = "This endpoint requires an X-API-Key header."

    def has_permission(self, request: Request, view: object) -> bool:
        return getattr(request._request, "api_key", None) is not None
