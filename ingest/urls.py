from __future__ import annotations

from django.urls import path
from django.views.generic import RedirectView

from ingest import views

app_name = "ingest"
urlpatterns = [
    path("", RedirectView.as_view(pattern_name="ingest:document-list"), name="home"),
    path("documents/", views.document_list_view, name="document-list"),
    path("documents/rows/", views.document_rows, name="document-rows"),
    path("documents/upload/", views.document_upload_view, name="document-upload"),
    path("documents/<uuid:pk>/", views.document_detail, name="document-detail"),
    path(
        "documents/<uuid:pk>/pages/<int:page>.png",
        views.document_page_image,
        name="document-page-image",
    ),
]
