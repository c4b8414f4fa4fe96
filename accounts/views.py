from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from accounts.middleware import SESSION_TENANT_KEY
from accounts.selectors import tenants_for_user


@require_POST
@login_required
def tenant_switch(request: HttpRequest) -> HttpResponse:
    wanted = request.POST.get("tenant", "")
    for tenant in tenants_for_user(request.user):
        if tenant.slug == wanted:
            request.session[SESSION_TENANT_KEY] = tenant.pk
            break
    return redirect("ingest:document-list")
