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
    path(
        "documents/upload/progress/",
        views.upload_progress_view,
        name="document-upload-progress",
    ),
    path(
        "documents/<uuid:pk>/delete/",
        views.document_delete_view,
        name="document-delete",
    ),
    path(
        "documents/<uuid:pk>/restore/",
        views.document_restore_view,
        name="document-restore",
    ),
    path("collections/", views.collection_create_view, name="collection-create"),
    path(
        "collections/<int:pk>/rename/",
        views.collection_rename_view,
        name="collection-rename",
    ),
    path(
        "collections/documents/",
        views.collection_documents_view,
        name="collection-documents",
    ),
    path("documents/<uuid:pk>/", views.document_detail, name="document-detail"),
    path(
        "documents/<uuid:pk>/pages/<int:page>.png",
        views.document_page_image,
        name="document-page-image",
    ),
]
