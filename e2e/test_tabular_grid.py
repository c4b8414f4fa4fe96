"""A lawyer in a real browser: create a tabular review of the demo documents
from the form, watch the grid fill in while the model answers (scripted
server, real HTTP), open a cell's cited passage, and export. Screenshots go
to test-results/tabular-*.png."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connections
from playwright.sync_api import expect

from accounts.scoping import tenant_scope
from docuiq.testing import llm_server as llm_server_module
from docuiq.testing.llm_server import ScriptedLLMServer
from e2e.conftest import RESULTS
from ingest.models import Document
from ingest.services import Upload, document_upload
from tabular.executor import review_run
from tabular.models import Review

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEMO = Path(django_settings.BASE_DIR) / "demo"
FILES = [
    "master-services-agreement.pdf",
    "data-processing-addendum.md",
    "q2-invoices-email.eml",
]
COLUMNS = (
    "Parties: Who are the parties to the agreement?\n"
    "Payment terms: When must invoices be paid?\n"
    "Governing law: Which law governs the agreement?"
)


@pytest.fixture
def shot(page):
    # caret="initial": hiding the caret writes style="" that htmx would copy (CSP).
    RESULTS.mkdir(exist_ok=True)

    def take(name: str) -> Path:
        path = RESULTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True, caret="initial")
        return path

    return take


@pytest.fixture(autouse=True)
def _fresh_celery_client():
    # Uploads below queue ingestion with an eager .delay(); leave no cached
    # Celery pool behind for a later real-worker test (see tabular.tests.conftest).
    from tabular.tests.conftest import reset_celery_client

    yield
    reset_celery_client()


@pytest.fixture
def model(settings, monkeypatch):
    """The scripted model server, 0.4 s per call, so the grid visibly fills in."""
    monkeypatch.setattr(llm_server_module._Handler, "disable_nagle_algorithm", True)
    with ScriptedLLMServer(latency_s=0.4) as server:
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_MODEL = server.model
        settings.LLM_API_KEY = "test"
        settings.LLM_MAX_RETRIES = 0
        settings.LLM_PRICES = {**settings.LLM_PRICES, server.model: (0.15, 0.60)}
        # The live server shares the test's in-memory database connection;
        # cells run one at a time on it.
        settings.TABULAR_CONCURRENCY = 1
        yield server


def _demo_documents(tenant):
    docs = []
    for name in FILES:
        with (DEMO / name).open("rb") as stream:
            doc = document_upload(
                tenant=tenant, upload=Upload(filename=name, stream=stream)
            )
        with tenant_scope(tenant):
            doc = Document.objects.get(pk=doc.pk)
        assert doc.status == Document.Status.READY, doc.error
        docs.append(doc)
    return docs


def test_the_grid_fills_in_and_a_cell_opens_its_cited_passage(
    page, live_server, login, shot, alice, tenant_a, model, monkeypatch
):
    documents = _demo_documents(tenant_a)
    # Create the review from the form but run it ourselves, in the background,
    # the way a worker would: the page must fill in by polling.
    started = threading.Event()
    monkeypatch.setattr("tabular.services._enqueue", lambda review: started.set())
    login("alice", "pw-alice")

    page.goto(f"{live_server.url}/tabular/")
    expect(page.get_by_role("link", name="Tabular")).to_be_visible()
    page.fill("[data-testid=review-name]", "Q2 supplier review")
    for doc in documents:
        page.check(f"[data-testid=review-document][value='{doc.pk}']")
    page.fill("[data-testid=review-columns]", COLUMNS)
    page.click("[data-testid=review-create]")
    page.wait_for_url("**/tabular/*/")
    assert started.is_set()

    with tenant_scope(tenant_a):
        review = Review.objects.get(name="Q2 supplier review")
    expect(page.locator("[data-testid=cell]")).to_have_count(9)
    expect(page.locator("[data-testid=review-status]")).to_have_text("Queued")

    connection = connections["default"]
    connection.inc_thread_sharing()
    errors: list[BaseException] = []

    def run() -> None:
        # The live server thread already shares the test's in-memory SQLite
        # connection; the "worker" shares it too.
        connections["default"] = connection
        try:
            review_run(review_id=review.pk)
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    # Cells fill in while the run goes on (the progress fragment polls).
    expect(page.locator("[data-testid=cell][data-status=done]").first).to_be_visible(
        timeout=15_000
    )
    shot("tabular-grid-filling")
    worker.join(timeout=60)
    connection.dec_thread_sharing()
    assert not errors, errors
    expect(page.locator("[data-testid=review-status]")).to_have_text(
        "Completed", timeout=15_000
    )
    expect(page.locator("[data-testid=cell][data-status=done]")).to_have_count(9)
    expect(page.locator("[data-testid=cell-badge]")).to_have_count(9)
    expect(page.locator("[data-testid=review-progress]")).to_contain_text("9 / 9 cells")

    # Open the Governing law cell of the contract: the panel shows the passage.
    contract_row = page.locator("[data-testid=grid-row]").filter(
        has=page.get_by_role("rowheader", name="Master Services Agreement", exact=True)
    )
    contract_row.locator("[data-testid=cell-badge]").nth(2).click()
    panel = page.locator("[data-testid=cell-panel]")
    expect(panel).to_be_visible()
    expect(panel.locator("[data-testid=cell-panel-badge]")).to_contain_text("Verified")
    expect(panel.locator("mark.span-highlight")).not_to_be_empty()
    expect(panel).to_contain_text("Governing law")
    expect(panel).to_contain_text("Master Services Agreement")
    panel.locator("mark.span-highlight").scroll_into_view_if_needed()
    shot("tabular-grid-cell")

    # Exports download with the grid.
    with page.expect_download() as download:
        page.click("[data-testid=export-csv]")
    csv_text = Path(download.value.path()).read_text(encoding="utf-8-sig")
    assert csv_text.splitlines()[0].startswith(
        "Document,Document ID,Document status,Parties"
    )
    assert "Master Services Agreement" in csv_text
    assert page.console_errors == []


TYPED_COLUMNS = (
    "Governing law (jurisdiction): Which law governs the agreement?\n"
    "Payment (duration): Within how many days must invoices be paid?\n"
    "Liability cap (money): What is the cap on liability?\n"
    "Non-compete (yes/no): Is there a non-compete?"
)


def test_a_typed_review_shows_values_not_found_and_is_reviewed_and_exported(
    page, page_at, live_server, login, shot, alice, tenant_a, settings
):
    """Offline (no model): typed columns give short values beside their
    quotes, a missing clause is "not found", a cell is flagged and another
    edited with its history, both exports carry the review; desktop and phone."""
    from openpyxl import load_workbook

    from docuiq.testing.factories import make_document
    from e2e.conftest import DESKTOP, PHONE, no_horizontal_scroll, shoot, sign_in
    from tabular.tests.conftest import LICENCE, SUPPLY

    settings.LLM_BASE_URL = ""
    settings.TABULAR_CONCURRENCY = 1  # the live server shares the in-memory DB
    acme = make_document(tenant_a, SUPPLY, title="Acme supply agreement")
    gamma = make_document(tenant_a, LICENCE, title="Gamma licence")
    login("alice", "pw-alice")

    page.goto(f"{live_server.url}/tabular/")
    page.fill("[data-testid=review-name]", "Typed review")
    page.check(f"[data-testid=review-document][value='{acme.pk}']")
    page.check(f"[data-testid=review-document][value='{gamma.pk}']")
    page.fill("[data-testid=review-columns]", TYPED_COLUMNS)
    page.click("[data-testid=review-create]")  # runs at once (eager, offline)
    page.wait_for_url("**/tabular/*/")
    expect(page.locator("[data-testid=review-status]")).to_have_text("Completed")

    grid = page.locator("[data-testid=grid]")
    expect(grid).to_contain_text("England and Wales")
    expect(grid).to_contain_text("New York")
    expect(grid).to_contain_text("30 days")
    expect(grid).to_contain_text("GBP 250,000")
    # Gamma has no liability cap; neither contract has a non-compete.
    expect(page.locator("[data-testid=cell-not-found]")).to_have_count(3)
    expect(page.locator("[data-testid=cell-quote]").first).to_be_visible()
    shot("tabular-typed-grid")

    def cell(row: str, n: int):
        return (
            page.locator("[data-testid=grid-row]")
            .filter(has=page.get_by_role("rowheader", name=row, exact=True))
            .locator("[data-testid=cell]")
            .nth(n)
        )

    # A not-found cell says what was searched.
    cell("Gamma licence", 2).locator("[data-testid=cell-not-found]").click()
    panel = page.locator("[data-testid=cell-panel]")
    expect(panel.locator("[data-testid=cell-panel-searched]")).to_contain_text(
        "liability"
    )

    # Flag Gamma's payment term.
    cell("Gamma licence", 1).locator("[data-testid=cell-open]").click()
    expect(panel.locator("[data-testid=cell-panel-value]")).to_contain_text("45 days")
    panel.locator("[data-testid=cell-flag-note]").fill("Check the invoice date")
    panel.locator("[data-testid=cell-flag]").click()
    expect(
        cell("Gamma licence", 1).locator("[data-testid=cell-flagged]")
    ).to_be_visible()
    expect(panel.locator("[data-testid=cell-panel-history]")).to_contain_text(
        "Check the invoice date"
    )
    expect(page.locator("[data-testid=filter-flagged]")).to_contain_text("1")

    # Edit Acme's payment term with a note: the original stays beside it.
    cell("Acme supply agreement", 1).locator("[data-testid=cell-open]").click()
    expect(panel.locator("[data-testid=cell-panel-value]")).to_contain_text("30 days")
    panel.locator("[data-testid=cell-edit-value]").fill("thirty days")
    panel.locator("[data-testid=cell-edit-note]").fill("House style")
    panel.locator("[data-testid=cell-edit-save]").click()
    expect(panel.locator("[data-testid=cell-panel-edited]")).to_contain_text(
        "edited by alice"
    )
    expect(panel.locator("[data-testid=cell-panel-original]")).to_have_text("30 days")
    expect(panel.locator("[data-testid=cell-panel-history]")).to_contain_text(
        "30 days → thirty days"
    )
    expect(cell("Acme supply agreement", 1)).to_contain_text("thirty days")
    expect(
        cell("Acme supply agreement", 1).locator("[data-testid=cell-edited]")
    ).to_contain_text("edited by alice")
    shot("tabular-typed-edited")

    # Only flagged rows, then every row sorted by payment term.
    page.click("[data-testid=filter-flagged]")
    expect(page.locator("[data-testid=grid-row]")).to_have_count(1)
    expect(page.locator("[data-testid=grid-row]")).to_contain_text("Gamma licence")
    page.click("[data-testid=filter-all]")
    page.click("[data-testid=sort-2]")
    expect(page.locator("[data-testid=grid-row]").first).to_contain_text(
        "Acme supply agreement"
    )

    with page.expect_download() as csv_download:
        page.click("[data-testid=export-csv]")
    text = Path(csv_download.value.path()).read_text(encoding="utf-8-sig")
    for expected in ("thirty days", "30 days", "flagged", "alice", "not found"):
        assert expected in text, expected
    with page.expect_download() as xlsx_download:
        page.click("[data-testid=export-xlsx]")
    workbook = load_workbook(io.BytesIO(Path(xlsx_download.value.path()).read_bytes()))
    sheet = workbook["Review"]
    head = [c.value for c in sheet[1]]
    values = [row[head.index("Payment")].value for row in sheet.iter_rows(min_row=2)]
    assert 45 in values  # Gamma's term, a number a spreadsheet sorts
    assert [r[4].value for r in workbook["History"].iter_rows(min_row=2)] == [
        "Flagged",
        "Edited the value",
    ]
    assert page.console_errors == []

    # The same grid on a phone and on a desktop.
    for name, size in (("phone", PHONE), ("desktop", DESKTOP)):
        other = page_at(**size)
        sign_in(other, live_server, "alice", "pw-alice")
        other.goto(page.url.split("?")[0])
        expect(other.locator("[data-testid=grid]")).to_contain_text("thirty days")
        other.locator(
            "[data-testid=cell][data-review=flagged] [data-testid=cell-open]"
        ).click()
        expect(other.locator("[data-testid=cell-panel]")).to_be_visible()
        shoot(other, f"tabular-typed-{name}")
        if name == "phone":
            # The grid scrolls inside its card; the page itself does not.
            assert no_horizontal_scroll(other)
        assert other.console_errors == []
