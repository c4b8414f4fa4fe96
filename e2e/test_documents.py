"""The documents page in a real browser at 390 and 1440 px: an upload shows a
row per file at once, the bytes sent, then the reading, then Ready (in the
default eager mode, where the request only returns once the file is read);
the button waits meanwhile; axe finds nothing serious mid-upload. Then a
collection is made, renamed and filled, a document deleted, undone, deleted
again and restored from Deleted. Screenshots: test-results/documents-*.png."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from docuiq.testing import pdfgen
from docuiq.testing.factories import make_document
from e2e.a11y import axe_violations, describe
from e2e.conftest import DESKTOP, PHONE, no_horizontal_scroll, shoot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Records every stage an upload row goes through (the page's own script sets them).
WATCH_STAGES = """() => {
  window.__stages = [];
  new MutationObserver((records) => {
    for (const r of records) {
      const li = r.target.closest && r.target.closest('[data-testid=upload-item]');
      if (li && li.dataset.stage && window.__stages.at(-1) !== li.dataset.stage)
        window.__stages.push(li.dataset.stage);
    }
  }).observe(document.getElementById('upload-queue'),
             {subtree: true, attributes: true, childList: true, characterData: true});
}"""


@pytest.fixture
def big_pdf(tmp_path):
    return pdfgen.prose_pdf(tmp_path / "annual-report-2023.pdf", pages=120)


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["390", "1440"])
def test_upload_shows_progress_then_documents_are_managed(
    page_at, live_server, alice, tenant_a, big_pdf, size, monkeypatch
):
    width = size["width"]
    # Storing the read text takes a second more than here, as on a slow disk:
    # the reading stage is then certain to be seen whatever the machine's load.
    from ingest import services

    store = services._store_revision

    def slow_store(*args, **kwargs):
        time.sleep(1.5)
        return store(*args, **kwargs)

    monkeypatch.setattr(services, "_store_revision", slow_store)
    make_document(tenant_a, "The Tenant shall pay the rent.", title="Office lease")
    make_document(tenant_a, "Invoices are due in 45 days.", title="Services agreement")
    page = page_at(**size)
    sign_in(page, live_server, "alice", "pw-alice")
    page.goto(f"{live_server.url}/documents/")
    page.evaluate(WATCH_STAGES)
    # A slow line (600 KB/s up), so the bytes can be seen going.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": 20,
            "downloadThroughput": -1,
            "uploadThroughput": 600_000,
        },
    )

    page.set_input_files("[data-testid=upload-input]", str(big_pdf))
    page.click("[data-testid=upload-button]")
    item = page.get_by_test_id("upload-item")
    expect(item).to_have_count(1, timeout=1_000)  # at once
    expect(item).to_contain_text("annual-report-2023.pdf")
    expect(page.get_by_test_id("upload-button")).to_be_disabled()
    expect(item).to_contain_text("Uploading")
    shoot(page, f"documents-01-uploading-{width}", full_page=False)
    violations = axe_violations(page)
    assert not violations, describe(violations)
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": 0,
            "downloadThroughput": -1,
            "uploadThroughput": -1,
        },
    )
    expect(item).to_contain_text("Ready · 120 pages", timeout=60_000)
    expect(page.get_by_test_id("upload-button")).to_be_enabled()
    stages = page.evaluate("() => window.__stages")
    assert stages[0] == "sending" and stages[-1] == "ready", stages
    assert stages.index("stored") < stages.index("ready"), stages
    # The reading was seen while the (eager) request ran.
    assert {"queued", "opening", "reading"} & set(stages), stages
    row = page.locator("tr[data-status=ready]", has_text="annual-report-2023")
    expect(row).to_have_count(1)
    assert no_horizontal_scroll(page)
    shoot(page, f"documents-02-uploaded-{width}")

    # A collection: made, filled from the ticks, renamed.
    page.get_by_test_id("new-collection").locator("summary").click()
    page.get_by_test_id("collection-name").fill("Leases")
    page.get_by_test_id("new-collection").get_by_role("button", name="Create").click()
    expect(page.get_by_test_id("collection-chip")).to_have_text("Leases 0")
    page.get_by_role("link", name="All documents").click()
    page.locator("tr", has_text="Office lease").get_by_test_id("choose").check()
    page.get_by_test_id("bulk-add").click()
    expect(page.get_by_test_id("rows-flash")).to_have_text(
        "Added 1 document to “Leases”."
    )
    page.get_by_test_id("collection-chip").click()
    expect(page.get_by_test_id("document-row")).to_have_count(1)
    page.get_by_test_id("rename-collection").locator("summary").click()
    page.get_by_test_id("collection-new-name").fill("Office leases")
    page.get_by_test_id("rename-collection").get_by_role(
        "button", name="Rename"
    ).click()
    expect(page.get_by_test_id("collection-chip")).to_have_text("Office leases 1")
    shoot(page, f"documents-03-collection-{width}")

    # Delete, undo; delete again, restore from Deleted.
    page.get_by_role("link", name="All documents").click()
    page.locator("tr", has_text="Services agreement").get_by_test_id("delete").click()
    expect(page.get_by_test_id("undo")).to_contain_text("Deleted “Services agreement”")
    expect(page.locator("tr", has_text="Services agreement")).to_have_count(0)
    page.get_by_test_id("undo-delete").click()
    expect(page.locator("tr", has_text="Services agreement")).to_have_count(1)
    page.locator("tr", has_text="Services agreement").get_by_test_id("delete").click()
    expect(page.locator("tr", has_text="Services agreement")).to_have_count(0)
    page.reload()
    page.get_by_test_id("deleted-chip").click()
    expect(page.get_by_test_id("document-row")).to_have_count(1)
    shoot(page, f"documents-04-deleted-{width}")
    page.get_by_test_id("restore").click()
    expect(page.get_by_test_id("rows-flash")).to_have_text(
        "Restored “Services agreement”."
    )
    page.get_by_role("link", name="All documents").click()
    expect(page.locator("tr", has_text="Services agreement")).to_have_count(1)
    violations = axe_violations(page)
    assert not violations, describe(violations)
    assert page.console_errors == []
