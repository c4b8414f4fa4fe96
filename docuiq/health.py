"""`/healthz`: the process answers (for a load balancer or `make serve`'s
callers); touches no database, so a database outage does not take every
server out of rotation at once."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"ok": True})
