"""Request helpers shared by the apps' views."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import Http404, HttpRequest

if TYPE_CHECKING:
    from accounts.models import Tenant


def require_tenant(request: HttpRequest) -> Tenant:
    """The caller's tenant (set by TenantMiddleware), or 404 when there is none."""
    if getattr(request, "tenant", None) is None:
        raise Http404("You are not a member of any workspace.")
    return request.tenant
