"""REST routes of tabular review, included under /api/tabular/ (seed 003
style: no trailing slash, a verb segment for each operation that is not a read)."""

from __future__ import annotations

from django.urls import path

from tabular import api

urlpatterns = [
    path("reviews", api.ReviewListApi.as_view(), name="tabular-review-list"),
    path("reviews/create", api.ReviewCreateApi.as_view(), name="tabular-review-create"),
    path(
        "reviews/<str:review_id>",
        api.ReviewDetailApi.as_view(),
        name="tabular-review-detail",
    ),
    path(
        "reviews/<str:review_id>/run",
        api.ReviewRunApi.as_view(),
        name="tabular-review-run",
    ),
    path(
        "reviews/<str:review_id>/cancel",
        api.ReviewCancelApi.as_view(),
        name="tabular-review-cancel",
    ),
    path(
        "reviews/<str:review_id>/cells",
        api.ReviewCellListApi.as_view(),
        name="tabular-review-cells",
    ),
    path(
        "reviews/<str:review_id>/cells/<str:cell_id>/rerun",
        api.ReviewCellRerunApi.as_view(),
        name="tabular-cell-rerun",
    ),
    path(
        "reviews/<str:review_id>/cells/<str:cell_id>/<str:action>",
        api.ReviewCellActionApi.as_view(),
        name="tabular-cell-action",
    ),
    path(
        "reviews/<str:review_id>/export.csv",
        api.ReviewExportCsvApi.as_view(),
        name="tabular-review-export-csv",
    ),
    path(
        "reviews/<str:review_id>/export.xlsx",
        api.ReviewExportXlsxApi.as_view(),
        name="tabular-review-export-xlsx",
    ),
]
