from __future__ import annotations

from django.http import HttpRequest

from accounts.selectors import tenants_for_user


def tenant(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    return {
        "tenant": getattr(request, "tenant", None),
        "user_tenants": tenants_for_user(user) if user is not None else [],
    }
