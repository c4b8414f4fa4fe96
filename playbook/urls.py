from __future__ import annotations

from django.urls import path

from playbook import views

app_name = "playbook"
urlpatterns = [
    path("", views.playbook_list_view, name="list"),
    path("import/", views.playbook_import_view, name="import"),
    path("<uuid:playbook_id>/", views.playbook_detail, name="detail"),
    path("<uuid:playbook_id>/rename/", views.playbook_rename, name="rename"),
    path("<uuid:playbook_id>/replace/", views.playbook_replace_view, name="replace"),
    path("<uuid:playbook_id>/delete/", views.playbook_delete_view, name="delete"),
    path("<uuid:playbook_id>/export.<slug:fmt>", views.playbook_export, name="export"),
    path("<uuid:playbook_id>/positions/new/", views.position_form, name="position-new"),
    path(
        "<uuid:playbook_id>/positions/<int:position_id>/",
        views.position_form,
        name="position-edit",
    ),
    path(
        "<uuid:playbook_id>/positions/<int:position_id>/delete/",
        views.position_delete_view,
        name="position-delete",
    ),
    path(
        "<uuid:playbook_id>/positions/<int:position_id>/move/",
        views.position_move_view,
        name="position-move",
    ),
    path("<uuid:playbook_id>/run/", views.run_create_view, name="run-create"),
    path("runs/<uuid:run_id>/", views.run_detail, name="run"),
    path("runs/<uuid:run_id>/progress/", views.run_progress, name="run-progress"),
    path("runs/<uuid:run_id>/resume/", views.run_resume_view, name="run-resume"),
    path("runs/<uuid:run_id>/cancel/", views.run_cancel_view, name="run-cancel"),
    path(
        "runs/<uuid:run_id>/export.docx",
        views.run_export,
        {"fmt": "docx"},
        name="export-docx",
    ),
    path(
        "runs/<uuid:run_id>/export.xlsx",
        views.run_export,
        {"fmt": "xlsx"},
        name="export-xlsx",
    ),
    path(
        "runs/<uuid:run_id>/contracts/<int:row_id>/",
        views.contract_report_view,
        name="report",
    ),
    path(
        "runs/<uuid:run_id>/findings/<int:finding_id>/<slug:action>/",
        views.finding_action_view,
        name="finding-action",
    ),
]
