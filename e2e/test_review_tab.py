"""A reviewer in a real browser: open the review tab, filter, open a
citation in the slide-over, reject it with a note, and see the review
recorded (SPEC §5, seed 003). Screenshots go to test-results/review-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.scoping import unscoped
from citations.models import CitationReview, MessageCitation
from citations.tests.review_helpers import CONTRACT, make_citation, make_unsourced
from docuiq.testing.factories import make_document
from e2e.conftest import RESULTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NOTE = "The lease ends in 2030, not 2040: the model changed the year."


@pytest.fixture
def shot(page):
    """Like the `screenshot` fixture, but leaves the caret alone: hiding it
    makes Playwright write `style=""` on inputs, which htmx then copies during
    a swap and the CSP (style-src 'self') reports as a violation."""
    RESULTS.mkdir(exist_ok=True)

    def take(name: str) -> None:
        page.screenshot(
            path=str(RESULTS / f"{name}.png"), full_page=True, caret="initial"
        )

    return take


@pytest.fixture
def citations_a(tenant_a, tenant_b):
    contract = make_document(tenant_a, CONTRACT, title="Master Services Agreement")
    lease = make_document(
        tenant_a,
        [
            "Office Lease between Acme and Beta.",
            "The Tenant shall pay rent monthly. The lease ends in 2030.",
        ],
        title="Office Lease 2024",
    )
    make_citation(
        tenant_a, contract, quote="The Supplier shall deliver the goods within 30 days"
    )
    make_citation(
        tenant_a,
        contract,
        quote="Payment is due within 45 days",
        method="tolerant_match",
        score=0.93,
    )
    make_citation(
        tenant_a, contract, quote="terminate this agreement with 90 days written notice"
    )
    make_citation(tenant_a, lease, quote="The Tenant shall pay rent monthly.")
    failed = make_citation(
        tenant_a, lease, quote="The lease ends in 2040.", status="failed"
    )
    make_citation(tenant_a, contract, quote="Liability is capped", status="pending")
    make_unsourced(tenant_a, quote="Clause 99 allows early exit.")
    other = make_document(
        tenant_b, "Tenant B's secret: expand to Mars.", title="B Secret Plan"
    )
    make_citation(tenant_b, other, quote="expand to Mars")
    return failed


def test_a_reviewer_filters_opens_and_rejects_a_citation(
    live_server, page, login, shot, alice, citations_a
):
    console_errors: list[str] = []
    page.on(
        "console",
        lambda m: (
            console_errors.append(f"{m.text} @ {m.location.get('url')}")
            if m.type == "error"
            else None
        ),
    )
    login("alice", "pw-alice")

    page.goto(f"{live_server.url}/review/")
    expect(page.get_by_role("link", name="Review", exact=True)).to_be_visible()
    expect(page.get_by_test_id("stat-total-count")).to_have_text("7")
    expect(page.get_by_test_id("stat-verified-pct")).to_have_text("57.1%")
    rows = page.get_by_test_id("review-row")
    expect(rows).to_have_count(7)
    expect(page.get_by_text("B Secret Plan")).to_have_count(0)
    shot("review-01-page")

    # Filter: document name (typed, debounced), then status.
    page.fill("input[name=document]", "office LEASE")
    expect(rows).to_have_count(2)
    page.select_option("select[name=status]", "failed")
    expect(rows).to_have_count(1)
    expect(page).to_have_url(re.compile(r"status=failed"))
    expect(page.get_by_test_id("stat-total-count")).to_have_text("1")
    shot("review-02-filtered")

    # Open the slide-over detail.
    page.get_by_test_id("open-citation").first.click()
    detail = page.get_by_test_id("review-detail")
    expect(detail).to_be_visible()
    expect(
        detail.get_by_text("Not verified: quote not found in the source")
    ).to_be_visible()
    expect(detail.locator("mark.span-highlight")).to_have_count(1)
    expect(detail.get_by_text("No review yet.", exact=False)).to_be_visible()
    shot("review-03-detail")

    # Rejecting needs a note; then it is recorded and shown.
    page.get_by_test_id("review-reject").click()
    expect(detail.get_by_text("Say why the citation is rejected.")).to_be_visible()
    page.get_by_test_id("review-note").fill(NOTE)
    page.get_by_test_id("review-reject").click()
    reviews = page.get_by_test_id("reviews")
    expect(reviews).to_contain_text("Rejected")
    expect(reviews).to_contain_text(NOTE)
    expect(reviews).to_contain_text("alice")
    # The table behind refreshes itself and shows the decision.
    expect(rows.first).to_contain_text("Rejected")
    expect(rows.first.get_by_test_id("row-badge")).to_have_text("⊘ Rejected")
    expect(detail.get_by_test_id("panel-review")).to_contain_text("Rejected by alice")
    expect(page.get_by_test_id("reviewed-reject-count")).to_have_text("1")
    shot("review-04-rejected")
    # Filter by review state: the rejected one, then those not reviewed.
    page.keyboard.press("Escape")
    page.get_by_test_id("reviewed-reject").click()
    expect(rows).to_have_count(1)
    expect(page).to_have_url(re.compile(r"review=reject"))
    page.get_by_test_id("reviewed-unreviewed").click()
    expect(page).to_have_url(re.compile(r"review=unreviewed"))
    expect(rows).to_have_count(0)  # the status filter (failed) still holds
    page.select_option("select[name=status]", "")
    expect(rows).to_have_count(1)  # the lease's other citation
    shot("review-04b-unreviewed")
    page.goto(f"{live_server.url}/review/?status=failed")
    rows.first.get_by_test_id("open-citation").click()
    expect(detail).to_be_visible()

    with unscoped():
        review = CitationReview.objects.get()
        citation = MessageCitation.objects.get(pk=citations_a.pk)
    assert (review.decision, review.reviewer_id, review.note) == (
        "reject",
        alice.pk,
        NOTE,
    )
    assert citation.verification_status == "failed"  # the machine verdict is untouched

    # Escape closes the slide-over.
    page.keyboard.press("Escape")
    expect(detail).to_have_count(0)

    # The document page shows its citations summary.
    page.goto(f"{live_server.url}/documents/{citation.document_id}/")
    summary = page.get_by_test_id("document-citations")
    expect(summary).to_contain_text("2 total")
    expect(summary).to_contain_text("Rejected")
    shot("review-05-document-summary")

    assert page.console_errors == []
    # No CSP violation or script error; the only tolerated error is the
    # browser asking for a /favicon.ico that the app does not serve.
    assert [e for e in console_errors if not e.endswith("/favicon.ico")] == []


def test_the_admin_citations_list_shows_stats_badges_and_only_the_tenants_rows(
    live_server, page, login, shot, alice, citations_a
):
    console_errors: list[str] = []
    page.on(
        "console",
        lambda m: (
            console_errors.append(f"{m.text} @ {m.location.get('url')}")
            if m.type == "error"
            else None
        ),
    )
    login("alice", "pw-alice")
    page.goto(f"{live_server.url}/admin/citations/messagecitation/")
    expect(page.get_by_test_id("admin-stat-cards")).to_contain_text("57.1%")
    expect(page.locator("#result_list tbody tr")).to_have_count(6)
    expect(page.locator(".dq-badge--verified").first).to_be_visible()
    expect(page.get_by_text("B Secret Plan")).to_have_count(0)
    shot("review-06-admin-changelist")
    page.locator("#result_list tbody tr").filter(has_text="2040").locator(
        "a"
    ).first.click()
    expect(page.locator(".dq-passage mark")).to_have_count(1)
    shot("review-07-admin-detail")
    assert [e for e in console_errors if not e.endswith("/favicon.ico")] == []
