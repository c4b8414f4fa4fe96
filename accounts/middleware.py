"""Resolve the caller's tenant once per request and activate its scope.

People: the tenant chosen in the session (or their first membership).
Clients: the tenant of the `X-API-Key` they send; an address that sent too
many wrong keys gets 429 for every further wrong key, while a valid key from
it still works (accounts.throttling).
Without a tenant no scope is active, so any query on a tenant-owned model
raises instead of leaking rows.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django_scopes import scope

from accounts.selectors import api_key_lookup, tenants_for_user
from accounts.throttling import (
    api_key_failed,
    api_key_retry_after,
    api_key_throttled_response,
    client_address,
)

SESSION_TENANT_KEY = "tenant_id"


class TenantMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.tenant = None
        request.api_key = None
        request.api_key_invalid = False
        raw_key = request.headers.get("X-API-Key")
        if raw_key is not None:
            address = client_address(request) or "unknown"
            # The key is looked up first (one hash and an indexed read): a
            # valid key is never refused for the wrong keys others sent from
            # the same address (a shared proxy); only wrong keys wait.
            key = api_key_lookup(raw_key)
            if key is None:
                retry_after = api_key_retry_after(address)
                if retry_after is not None:
                    return api_key_throttled_response(retry_after)
                api_key_failed(address)
                request.api_key_invalid = True
            else:
                request.api_key = key
                request.tenant = key.tenant
        elif request.user.is_authenticated:
            tenants = tenants_for_user(request.user)
            chosen = request.session.get(SESSION_TENANT_KEY)
            request.tenant = next(
                (t for t in tenants if t.pk == chosen), tenants[0] if tenants else None
            )
        if request.tenant is None:
            return self.get_response(request)
        with scope(tenant=request.tenant.pk):
            return self.get_response(request)
