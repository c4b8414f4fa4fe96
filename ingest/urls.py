from __future__ import annotations

from django.urls import path
from django.views.generic import RedirectView

from ingest import source_views, views

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
        "documents/<uuid:pk>/rename/",
        views.document_rename_view,
        name="document-rename",
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
    path("sources/", source_views.source_list_view, name="source-list"),
    path("sources/rows/", source_views.source_rows_view, name="source-rows"),
    path("sources/export/", source_views.source_export_view, name="source-export"),
    path("sources/web/", source_views.source_web_view, name="source-web"),
    path(
        "sources/database/", source_views.source_database_view, name="source-database"
    ),
    path("sources/<uuid:pk>/sync/", source_views.source_sync_view, name="source-sync"),
    path("documents/<uuid:pk>/", views.document_detail, name="document-detail"),
    path(
        "documents/<uuid:pk>/pages/<int:page>.png",
        views.document_page_image,
        name="document-page-image",
    ),
]
