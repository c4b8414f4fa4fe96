"""A lawyer in a real browser (issue 28's "done when"): create a playbook from
the sample, tighten one position in the edit page, run it on two contracts,
open a deviation's highlighted clause, override a finding with a note, and
download the DOCX report, opened here with python-docx and checked for the
citations. Offline (the built-in reader); desktop and phone screenshots go
to test-results/playbook-*.png."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from docx import Document as Docx
from playwright.sync_api import expect

from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from e2e.conftest import DESKTOP, PHONE, no_horizontal_scroll, shoot, sign_in
from playbook.models import Finding, PlaybookRun
from tabular.tests.conftest import LICENCE, SUPPLY

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _fresh_celery_client():
    from tabular.tests.conftest import reset_celery_client

    yield
    reset_celery_client()


def test_a_playbook_from_the_sample_runs_on_two_contracts_and_is_reviewed(
    page, page_at, live_server, alice, tenant_a, settings
):
    settings.LLM_BASE_URL = ""
    settings.TABULAR_CONCURRENCY = 1  # the live server shares the in-memory DB
    acme = make_document(tenant_a, SUPPLY, title="Acme supply agreement")
    gamma = make_document(tenant_a, LICENCE, title="Gamma licence")
    sign_in(page, live_server, "alice", "pw-alice")

    # 1. A playbook from the sample.
    page.goto(f"{live_server.url}/playbook/")
    expect(page.get_by_role("link", name="Playbooks")).to_be_visible()
    page.fill("[data-testid=sample-name]", "Buyer positions")
    page.click("[data-testid=create-from-sample]")
    expect(page.get_by_test_id("playbook-name")).to_have_text("Buyer positions")
    expect(page.get_by_test_id("position-row")).to_have_count(10)
    shoot(page, "playbook-01-positions")
    _no_serious_violations(page)

    # 2. Edit a position: payment within 45 days, 40 as the fallback.
    payment = page.get_by_test_id("position-row").filter(has_text="Payment terms")
    payment.get_by_test_id("position-edit").click()
    page.fill("[data-testid=position-rule]", "at least 45 dayz")
    page.click("[data-testid=position-save]")
    expect(page.get_by_test_id("position-errors")).to_contain_text(
        "'45 dayz' is not a duration"
    )
    page.fill("[data-testid=position-rule]", "at least 45 days")
    page.fill("input[name=fallback_rule]", "at least 40 days")
    page.click("[data-testid=position-save]")
    expect(
        page.get_by_test_id("position-row").filter(has_text="Payment terms")
    ).to_contain_text("at least 45 days")

    # 3. Run it on the two contracts (eager Celery: the run finishes in the request).
    page.check(f"[data-testid=run-document][value='{acme.pk}']")
    page.check(f"[data-testid=run-document][value='{gamma.pk}']")
    page.click("[data-testid=run-create]")
    page.wait_for_url("**/playbook/runs/*/")
    expect(page.get_by_test_id("run-status")).to_have_text("Completed", timeout=30_000)
    expect(page.get_by_test_id("run-contract")).to_have_count(2)
    acme_line = page.get_by_test_id("run-contract").filter(
        has_text="Acme supply agreement"
    )
    expect(acme_line.get_by_test_id("contract-summary")).to_contain_text("1 deviate")
    shoot(page, "playbook-02-run")
    _no_serious_violations(page)

    # 4. The report: grouped by severity, the deviation with its verified quote.
    acme_line.get_by_test_id("open-report").click()
    expect(page.get_by_test_id("report-summary")).to_contain_text("1 deviate")
    groups = page.get_by_test_id("severity-group")
    expect(groups.first).to_have_attribute("data-severity", "high")
    deviation = page.locator("[data-testid=finding][data-kind=deviates]")
    expect(deviation).to_have_count(1)
    expect(deviation).to_have_attribute("data-position", "Payment terms")
    expect(deviation.get_by_test_id("finding-value")).to_have_text("30 days")
    expect(deviation.get_by_test_id("finding-verification")).to_contain_text("verified")
    expect(deviation.get_by_test_id("finding-reason")).to_contain_text(
        "30 days is not at least 45 days"
    )
    shoot(page, "playbook-03-report")
    report_url = page.url
    _no_serious_violations(page)

    # 5. The deviation's clause, highlighted in the document viewer.
    deviation.get_by_test_id("finding-open-clause").click()
    page.wait_for_url("**/documents/**")
    expect(page.locator("mark#at")).to_contain_text("within 30 days of receipt")
    shoot(page, "playbook-04-clause", full_page=False)

    # 6. Override a finding with a note (htmx swaps the card), recorded.
    page.goto(report_url)
    cap = page.locator("[data-testid=finding][data-position='Limitation of liability']")
    expect(cap).to_have_attribute("data-kind", "needs_review")
    cap.get_by_test_id("override-kind").select_option("deviates")
    cap.get_by_test_id("override-severity").select_option("high")
    cap.get_by_test_id("finding-override").click()
    expect(
        page.locator(
            "[data-testid=finding][data-position='Limitation of liability']"
        ).get_by_test_id("finding-error")
    ).to_contain_text("Say why")
    cap = page.locator("[data-testid=finding][data-position='Limitation of liability']")
    cap.get_by_test_id("finding-note").fill("GBP 250,000 is below our USD 1m floor")
    cap.get_by_test_id("finding-override").click()
    cap = page.locator("[data-testid=finding][data-position='Limitation of liability']")
    expect(cap.get_by_test_id("finding-kind")).to_contain_text("Deviates · high")
    expect(cap.get_by_test_id("finding-decision")).to_contain_text(
        "Overridden by alice"
    )
    expect(cap.get_by_test_id("finding-engine")).to_contain_text("Needs review")
    with tenant_scope(tenant_a):
        finding = Finding.objects.get(
            position__title="Limitation of liability",
            row__title="Acme supply agreement",
        )
        assert (finding.decision, finding.override_kind, finding.decided_by_id) == (
            "overridden",
            "deviates",
            alice.pk,
        )
        assert finding.events.get().note == "GBP 250,000 is below our USD 1m floor"
    shoot(page, "playbook-05-override")

    # 7. The DOCX report, opened with python-docx: the citations are in it.
    with page.expect_download() as download:
        page.click("[data-testid=export-docx]")
    doc = Docx(io.BytesIO(Path(download.value.path()).read_bytes()))
    text = "\n".join(p.text for p in doc.paragraphs)
    assert "Acme supply agreement" in text
    assert (
        "Quote, page 1, verified: “The Buyer shall pay each invoice within 30 days of receipt.”"
        in text
    )
    assert (
        "Quote, page 2, verified: “This Agreement is governed by the laws of England and Wales.”"
        in text
    )
    assert (
        "Overridden by alice" in text
        and "GBP 250,000 is below our USD 1m floor" in text
    )
    assert page.console_errors == []

    # The report on a phone: no sideways scroll.
    phone = page_at(**PHONE)
    sign_in(phone, live_server, "alice", "pw-alice")
    phone.goto(report_url)
    expect(phone.get_by_test_id("report-summary")).to_be_visible()
    assert no_horizontal_scroll(phone)
    shoot(phone, "playbook-06-report-phone")
    _no_serious_violations(phone)
    page.set_viewport_size(DESKTOP)
    with tenant_scope(tenant_a):
        assert PlaybookRun.objects.count() == 1


def _no_serious_violations(page) -> None:
    """axe-core's serious and critical violations (skipped, not failed, when
    axe-core is not installed, so the rest of this test still runs)."""
    from e2e.a11y import AXE_JS, axe_violations, describe

    if not AXE_JS.exists():
        return
    violations = axe_violations(page)
    assert not violations, describe(violations)
