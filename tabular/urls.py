from __future__ import annotations

from django.urls import path

from tabular import views

app_name = "tabular"
urlpatterns = [
    path("", views.review_list_view, name="list"),
    path("new/", views.review_create_view, name="create"),
    path("<uuid:review_id>/", views.review_detail, name="review"),
    path("<uuid:review_id>/progress/", views.review_progress_view, name="progress"),
    path("<uuid:review_id>/run/", views.review_run_view, name="run"),
    path("<uuid:review_id>/cancel/", views.review_cancel_view, name="cancel"),
    path("<uuid:review_id>/export.csv", views.review_export_csv, name="export-csv"),
    path("<uuid:review_id>/export.xlsx", views.review_export_xlsx, name="export-xlsx"),
    path("<uuid:review_id>/cells/<int:cell_id>/", views.cell_detail, name="cell"),
    path(
        "<uuid:review_id>/cells/<int:cell_id>/rerun/",
        views.cell_rerun_view,
        name="cell-rerun",
    ),
    path(
        "<uuid:review_id>/cells/<int:cell_id>/<slug:action>/",
        views.cell_action_view,
        name="cell-action",
    ),
]
