from __future__ import annotations
import pytest
from pathlib import Path
from e2e.test_review_tab import citations_a  # noqa
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SRC = Path(".venv/lib/python3.11/site-packages/django_htmx/static/django_htmx/htmx-2.js").read_text()

def test_dbg(live_server, page, login, alice, citations_a):
    page.route("**/htmx-2.min.js", lambda route: route.fulfill(body=SRC, content_type="application/javascript"))
    errs = []
    page.on("console", lambda m: errs.append((m.text[:60], m.location)) if m.type == "error" else None)
    login("alice", "pw-alice")
    page.goto(f"{live_server.url}/review/")
    print("after load", errs)
    page.fill("input[name=document]", "office LEASE")
    page.wait_for_timeout(1500)
    print("after fill", errs)
    page.select_option("select[name=status]", "failed")
    page.wait_for_timeout(1500)
    print("after select", errs)
