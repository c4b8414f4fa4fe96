from __future__ import annotations

from django.urls import include, path

from tabular import views

app_name = "tabular"

# /tabular/<review_id>/cells/<cell_id>/
cell_urls = [
    path("", views.cell_detail, name="cell"),
    path("rerun/", views.cell_rerun_view, name="cell-rerun"),
    path("<slug:action>/", views.cell_action_view, name="cell-action"),
]

# /tabular/<review_id>/
review_urls = [
    path("", views.review_detail, name="review"),
    path("progress/", views.review_progress_view, name="progress"),
    path("run/", views.review_run_view, name="run"),
    path("cancel/", views.review_cancel_view, name="cancel"),
    path("export.csv", views.review_export_csv, name="export-csv"),
    path("export.xlsx", views.review_export_xlsx, name="export-xlsx"),
    path("cells/<int:cell_id>/", include(cell_urls)),
]

urlpatterns = [
    path("", views.review_list_view, name="list"),
    path("new/", views.review_create_view, name="create"),
    path("<uuid:review_id>/", include(review_urls)),
]
