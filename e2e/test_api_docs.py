"""The API docs page (Swagger UI from drf-spectacular-sidecar) renders under
the real CSP in Chromium: assets from our origin, no CSP violation."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_swagger_ui_renders_every_operation_without_csp_violations(page, live_server):
    violations: list[str] = []
    page.on(
        "console",
        lambda msg: (
            violations.append(msg.text)
            if "Content Security Policy" in msg.text
            else None
        ),
    )
    outside: list[str] = []
    page.on(
        "request",
        lambda req: (
            outside.append(req.url) if not req.url.startswith(live_server.url) else None
        ),
    )
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".opblock-summary-path", timeout=15_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/api/citations/stats" in p for p in paths)
    assert any(
        "/api/chat/{session_id}/citation/{chunk_id}/{revision_id}/status"
        in p.replace("\u200b", "")
        for p in paths
    )
    assert violations == []
    assert outside == []
    assert page.console_errors == []
