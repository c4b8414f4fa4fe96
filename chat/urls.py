from __future__ import annotations

from django.urls import path

from chat import views

app_name = "chat"
urlpatterns = [
    path("", views.chat_home, name="home"),
    path("new/", views.session_new, name="session-new"),
    path("<uuid:session_id>/", views.session_detail, name="session"),
    path("<uuid:session_id>/messages/", views.message_create, name="message-create"),
    path("<uuid:session_id>/scope/", views.session_scope, name="session-scope"),
    path("documents/suggest/", views.document_suggest, name="document-suggest"),
    path("documents/picker/", views.picker_options, name="picker-options"),
    path(
        "questions/<uuid:question_id>/stream/",
        views.message_stream_view,
        name="message-stream",
    ),
    path("messages/<uuid:message_id>/", views.message_fragment, name="message"),
    path(
        "messages/<uuid:message_id>/retry/",
        views.message_retry_view,
        name="message-retry",
    ),
    path("citations/<uuid:citation_id>/", views.citation_panel, name="citation"),
]
