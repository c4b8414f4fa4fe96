"""Request helpers shared by the apps' views."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from django.http import Http404, HttpRequest

if TYPE_CHECKING:
    from accounts.models import Tenant


def require_tenant(request: HttpRequest) -> Tenant:
    """The caller's tenant (set by TenantMiddleware), or 404 when there is none."""
    if getattr(request, "tenant", None) is None:
        raise Http404("You are not a member of any workspace.")
    return request.tenant


Found = TypeVar("Found")


def found_or_404(obj: Found | None, message: str) -> Found:
    """`obj`, or a 404 saying what was not found (a page's lookups: another
    tenant's object is not found, like an unknown one)."""
    if obj is None:
        raise Http404(message)
    return obj
