"""REST routes of playbooks, included under /api/playbooks/ (the list,
/api/playbooks, is mounted in docuiq/api_urls.py) (seed 003 style:
no trailing slash, a verb segment for each operation that is not a read;
fixed segments before the ids they would otherwise be captured by)."""

from __future__ import annotations

from django.urls import path

from playbook import api

urlpatterns = [
    path("schema", api.PlaybookSchemaApi.as_view(), name="playbook-schema"),
    path("create", api.PlaybookCreateApi.as_view(), name="playbook-create"),
    path("runs", api.RunListApi.as_view(), name="playbook-run-list"),
    path("runs/<str:run_id>", api.RunDetailApi.as_view(), name="playbook-run-detail"),
    path(
        "runs/<str:run_id>/resume",
        api.RunResumeApi.as_view(),
        name="playbook-run-resume",
    ),
    path(
        "runs/<str:run_id>/cancel",
        api.RunCancelApi.as_view(),
        name="playbook-run-cancel",
    ),
    path(
        "runs/<str:run_id>/report",
        api.RunReportApi.as_view(),
        name="playbook-run-report",
    ),
    path(
        "runs/<str:run_id>/export.docx",
        api.RunExportDocxApi.as_view(),
        name="playbook-run-export-docx",
    ),
    path(
        "runs/<str:run_id>/export.xlsx",
        api.RunExportXlsxApi.as_view(),
        name="playbook-run-export-xlsx",
    ),
    path(
        "runs/<str:run_id>/findings/<str:finding_id>/<str:action>",
        api.FindingActionApi.as_view(),
        name="playbook-finding-action",
    ),
    path("<str:playbook_id>", api.PlaybookDetailApi.as_view(), name="playbook-detail"),
    path(
        "<str:playbook_id>/update",
        api.PlaybookUpdateApi.as_view(),
        name="playbook-update",
    ),
    path(
        "<str:playbook_id>/delete",
        api.PlaybookDeleteApi.as_view(),
        name="playbook-delete",
    ),
    path(
        "<str:playbook_id>/export",
        api.PlaybookExportApi.as_view(),
        name="playbook-export",
    ),
    path("<str:playbook_id>/run", api.PlaybookRunApi.as_view(), name="playbook-run"),
]
