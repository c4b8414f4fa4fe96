"""Every page a lawyer works in, at a phone's width (390 px) and a desktop's
(1440 px), and a tablet's (820 px): axe-core reports no serious or critical violation, nothing scrolls
sideways, and a screenshot of each is kept in test-results/a11y-<page>-<width>.png.

Pages: log in; documents (with an upload in progress); the viewer; chat with
the citation panel open; review with the slide-over open; a tabular grid
with a cell open."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.scoping import tenant_scope
from chat.services import message_ask, session_create
from citations.tests.review_helpers import CONTRACT, make_citation
from docuiq.testing.factories import make_document
from e2e.a11y import axe_violations, describe
from e2e.conftest import DESKTOP, PHONE, TABLET, no_horizontal_scroll, shoot, sign_in
from tabular.executor import review_run
from tabular.models import Review
from tabular.services import ColumnSpec, review_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LEASE = [
    "OFFICE LEASE\nThis Lease is made between Acme Properties LLC (Landlord) and "
    "Beta Legal LLP (Tenant).",
    "Rent. The Tenant shall pay the monthly rent of USD 12,500 on the first day of "
    "each month.\n\nTermination. Either party may terminate this Lease upon ninety "
    "(90) days prior written notice to the other party.",
]


@pytest.fixture
def workspace(tenant_a, alice, settings):
    # The test's in-memory SQLite connection is shared: cells run one at a time.
    settings.TABULAR_CONCURRENCY = 1
    lease = make_document(tenant_a, LEASE, title="Office lease, Acme Properties")
    contract = make_document(tenant_a, CONTRACT, title="Master Services Agreement")
    make_citation(tenant_a, contract, quote="Payment is due within 45 days")
    make_citation(tenant_a, contract, quote="The lease ends in 2040.", status="failed")
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
        message_ask(session=session, question="How much is the monthly rent?")
    review = review_create(
        tenant=tenant_a,
        name="Leases and contracts",
        document_ids=[lease.pk, contract.pk],
        columns=[
            ColumnSpec(name="Payment", question="When must payment be made?"),
            ColumnSpec(name="Termination", question="How can the agreement end?"),
        ],
    )
    review_run(review_id=review.pk)  # offline: the extractive reader answers
    with tenant_scope(tenant_a):
        review = Review.objects.get(pk=review.pk)
    return {"lease": lease, "contract": contract, "session": session, "review": review}


def _check(page, name: str, width: int, found: dict) -> None:
    page.wait_for_load_state("networkidle")
    shoot(page, f"a11y-{name}-{width}")
    violations = axe_violations(page)
    if violations:
        found[name] = describe(violations)
    if not no_horizontal_scroll(page):
        found[f"{name} (scrolls sideways)"] = page.evaluate(
            "() => document.documentElement.scrollWidth"
        )


@pytest.mark.parametrize("size", [PHONE, TABLET, DESKTOP], ids=["390", "820", "1440"])
def test_pages_have_no_serious_accessibility_violation(
    page_at, live_server, workspace, size
):
    width = size["width"]
    page = page_at(**size)
    found: dict = {}

    page.goto(f"{live_server.url}/accounts/login/")
    _check(page, "login", width, found)
    sign_in(page, live_server, "alice", "pw-alice")

    page.goto(f"{live_server.url}/documents/")
    _check(page, "documents", width, found)

    lease = workspace["lease"]
    text = lease.current_revision.normalized_content
    start = text.index("The Tenant shall pay")
    page.goto(f"{live_server.url}/documents/{lease.pk}/?at={start}&end={start + 60}#at")
    _check(page, "viewer", width, found)

    page.goto(f"{live_server.url}/chat/{workspace['session'].pk}/")
    page.locator("a.badge").first.click()
    expect(page.locator("[data-testid=citation-panel]")).to_be_focused()
    _check(page, "chat-panel", width, found)

    page.goto(f"{live_server.url}/review/")
    page.get_by_test_id("open-citation").first.click()
    expect(page.get_by_test_id("review-detail")).to_be_visible()
    _check(page, "review-slideover", width, found)
    if width >= 1200:  # the slide-over leaves the export link uncovered
        export = page.get_by_test_id("export-csv").bounding_box()
        slide = page.locator("#citation-panel").bounding_box()
        assert export["x"] + export["width"] <= slide["x"], (export, slide)

    page.goto(f"{live_server.url}/tabular/{workspace['review'].pk}/")
    page.locator("[data-testid=cell] a").first.click()
    expect(page.locator("[data-testid=cell-panel]")).to_be_visible()
    _check(page, "tabular-grid", width, found)

    assert not found, "\n".join(f"== {k}\n{v}" for k, v in found.items())
    assert page.console_errors == []
