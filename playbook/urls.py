from __future__ import annotations

from django.urls import include, path

from playbook import views

app_name = "playbook"

# /playbook/<playbook_id>/
playbook_urls = [
    path("", views.playbook_detail, name="detail"),
    path("rename/", views.playbook_rename, name="rename"),
    path("replace/", views.playbook_replace_view, name="replace"),
    path("delete/", views.playbook_delete_view, name="delete"),
    path("export.<slug:fmt>", views.playbook_export, name="export"),
    path("positions/new/", views.position_form, name="position-new"),
    path("positions/<int:position_id>/", views.position_form, name="position-edit"),
    path(
        "positions/<int:position_id>/delete/",
        views.position_delete_view,
        name="position-delete",
    ),
    path(
        "positions/<int:position_id>/move/",
        views.position_move_view,
        name="position-move",
    ),
    path("run/", views.run_create_view, name="run-create"),
]

# /playbook/runs/<run_id>/
run_urls = [
    path("", views.run_detail, name="run"),
    path("progress/", views.run_progress, name="run-progress"),
    path("resume/", views.run_resume_view, name="run-resume"),
    path("cancel/", views.run_cancel_view, name="run-cancel"),
    path("export.docx", views.run_export, {"fmt": "docx"}, name="export-docx"),
    path("export.xlsx", views.run_export, {"fmt": "xlsx"}, name="export-xlsx"),
    path("contracts/<int:row_id>/", views.contract_report_view, name="report"),
    path(
        "findings/<int:finding_id>/<slug:action>/",
        views.finding_action_view,
        name="finding-action",
    ),
]

urlpatterns = [
    path("", views.playbook_list_view, name="list"),
    path("import/", views.playbook_import_view, name="import"),
    path("<uuid:playbook_id>/", include(playbook_urls)),
    path("runs/<uuid:run_id>/", include(run_urls)),
]
