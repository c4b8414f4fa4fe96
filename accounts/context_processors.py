from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest

from accounts.selectors import tenants_for_user


def tenant(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    # Only people have memberships; an API-key principal is not a user row.
    is_person = isinstance(user, AbstractBaseUser)
    return {
        "tenant": getattr(request, "tenant", None),
        "user_tenants": tenants_for_user(user) if is_person else [],
    }
