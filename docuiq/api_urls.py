"""URLs of the REST API, mounted at /api/ (SPEC §5, seed 003).

Paths follow seed 003 (no trailing slash: `/api/citations`,
`/api/citations/stats`, …); operations that are not reads get their own
path with a verb (`/documents/upload`, `/citations/{id}/verify`), one view
per operation (HackSoft). Ids in paths are taken as strings so a malformed id
gets the same JSON 404 as an unknown one; fixed segments come before the
`<id>` patterns they would otherwise be captured by.

Every route here needs a row in docuiq/tests/test_api_permissions.py (a new
route without one fails that test).
"""

from __future__ import annotations

import base64
import hashlib
import re

from csp.decorators import csp_update
from django.template.loader import get_template
from django.urls import include, path
from django.utils.decorators import method_decorator
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

import docuiq.api_auth_schema  # noqa: F401 - registers the X-API-Key scheme
from accounts.api import MeApi
from chat.api import (
    ChatCitationStatusApi,
    ChatMessageAskApi,
    ChatMessageAskAsyncApi,
    ChatMessageListApi,
    ChatQuestionApi,
    ChatSessionCreateApi,
    ChatSessionDetailApi,
    ChatSessionListApi,
    CitationResolveApi,
)
from citations.api import (
    CitationDetailApi,
    CitationListApi,
    CitationStatsApi,
    CitationVerifyApi,
)
from ingest.api import (
    ChunkSearchApi,
    DocumentDeleteApi,
    DocumentDetailApi,
    DocumentListApi,
    DocumentRenameApi,
    DocumentRestoreApi,
    DocumentUploadApi,
)
from ingest.source_api import (
    SourceDatabaseCreateApi,
    SourceDetailApi,
    SourceExportCreateApi,
    SourceListApi,
    SourceSyncApi,
    SourceWebCreateApi,
)
from playbook.api import PlaybookListApi


def _inline_style_hashes(template_name: str) -> list[str]:
    """CSP hashes of the template's literal <style> blocks (they contain no
    template tags, so the source is exactly what the page carries)."""
    source = get_template(template_name).template.source
    return [
        f"'sha256-{base64.b64encode(hashlib.sha256(block.encode()).digest()).decode()}'"
        for block in re.findall(r"<style>(.*?)</style>", source, flags=re.DOTALL)
    ]


@method_decorator(
    # The split view serves Swagger UI's init script from this same URL
    # (?script), so script-src 'self' suffices and no inline script runs. The
    # page template still has one small inline <style> block (page background,
    # box-sizing): allowed by its hash, on this page only, never 'unsafe-inline'.
    csp_update(
        {"style-src": _inline_style_hashes(SpectacularSwaggerSplitView.template_name)}
    ),
    name="dispatch",
)
class ApiDocsView(SpectacularSwaggerSplitView):
    """Swagger UI, served from drf-spectacular-sidecar (no CDN: the CSP
    forbids other origins and the machines have no internet).

    Public, and it authenticates nobody: the page is a template, and the
    template context processors expect a person, not an API-key principal.
    """

    authentication_classes: list = []


app_name = "api"
urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", ApiDocsView.as_view(url_name="api:schema"), name="docs"),
    path("me", MeApi.as_view(), name="me"),
    # documents and search
    path("documents", DocumentListApi.as_view(), name="document-list"),
    path("documents/upload", DocumentUploadApi.as_view(), name="document-upload"),
    path(
        "documents/<str:document_id>",
        DocumentDetailApi.as_view(),
        name="document-detail",
    ),
    path(
        "documents/<str:document_id>/delete",
        DocumentDeleteApi.as_view(),
        name="document-delete",
    ),
    path(
        "documents/<str:document_id>/restore",
        DocumentRestoreApi.as_view(),
        name="document-restore",
    ),
    path(
        "documents/<str:document_id>/rename",
        DocumentRenameApi.as_view(),
        name="document-rename",
    ),
    path("search", ChunkSearchApi.as_view(), name="search"),
    # connector sources (issue 29)
    path("sources", SourceListApi.as_view(), name="source-list"),
    path(
        "sources/exports", SourceExportCreateApi.as_view(), name="source-export-create"
    ),
    path("sources/web", SourceWebCreateApi.as_view(), name="source-web-create"),
    path(
        "sources/databases",
        SourceDatabaseCreateApi.as_view(),
        name="source-database-create",
    ),
    path("sources/<str:source_id>", SourceDetailApi.as_view(), name="source-detail"),
    path("sources/<str:source_id>/sync", SourceSyncApi.as_view(), name="source-sync"),
    # chat
    path("chat/sessions", ChatSessionListApi.as_view(), name="chat-session-list"),
    path(
        "chat/sessions/create",
        ChatSessionCreateApi.as_view(),
        name="chat-session-create",
    ),
    path(
        "chat/sessions/<str:session_id>",
        ChatSessionDetailApi.as_view(),
        name="chat-session-detail",
    ),
    path(
        "chat/sessions/<str:session_id>/messages",
        ChatMessageListApi.as_view(),
        name="chat-message-list",
    ),
    path(
        "chat/sessions/<str:session_id>/ask",
        ChatMessageAskApi.as_view(),
        name="chat-message-ask",
    ),
    path(
        "chat/sessions/<str:session_id>/ask/async",
        ChatMessageAskAsyncApi.as_view(),
        name="chat-message-ask-async",
    ),
    path(
        "chat/sessions/<str:session_id>/questions/<str:question_id>",
        ChatQuestionApi.as_view(),
        name="chat-question",
    ),
    path(
        "chat/<str:session_id>/citation/<str:chunk_id>/<str:revision_id>/status",
        ChatCitationStatusApi.as_view(),
        name="chat-citation-status",
    ),
    # citations
    path("citations", CitationListApi.as_view(), name="citation-list"),
    path("citations/stats", CitationStatsApi.as_view(), name="citation-stats"),
    path("citations/resolve", CitationResolveApi.as_view(), name="citation-resolve"),
    path(
        "citations/<str:citation_id>",
        CitationDetailApi.as_view(),
        name="citation-detail",
    ),
    path(
        "citations/<str:citation_id>/verify",
        CitationVerifyApi.as_view(),
        name="citation-verify",
    ),
    path("tabular/", include("tabular.api_urls")),
    # playbooks: the list here, every other route in playbook/api_urls.py
    path("playbooks", PlaybookListApi.as_view(), name="playbook-list"),
    path("playbooks/", include("playbook.api_urls")),
]
