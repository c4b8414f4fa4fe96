from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from docuiq.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/", include("docuiq.api_urls")),
    path("accounts/", include("accounts.urls")),
    path("chat/", include("chat.urls")),
    path("review/", include("citations.urls")),
    path("tabular/", include("tabular.urls")),
    path("playbook/", include("playbook.urls")),
    path("", include("ingest.urls")),
]
