"""The document viewer in a real browser at 390 and 1440 px: "Open in
document" lands on the cited page with the outline in view and context
above it; paging, go to page, zoom, the arrow keys; a quote across a page
break outlined on both pages; the citation's other spans; a deep link
(#page=N&span=S-E) shared without its query; a text document opened at
its span. Screenshots: test-results/viewer-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.scoping import tenant_scope
from docuiq.testing import pdfgen
from docuiq.testing.factories import make_document
from e2e.a11y import axe_violations, describe
from e2e.conftest import DESKTOP, PHONE, no_horizontal_scroll, shoot, sign_in
from ingest.links import document_span_url
from ingest.models import Document
from ingest.services import Upload, document_upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FILLER = "\n".join(
    f"Clause {n}. The parties agree to the terms of this clause." for n in range(1, 30)
)


@pytest.fixture
def lease(tenant_a, tmp_path):
    path = pdfgen.text_pages_pdf(
        tmp_path / "office-lease.pdf",
        {
            1: "Office Lease\nBetween Acme Properties and Beta Legal.\n" + FILLER,
            2: FILLER + "\nRent.\nThe Tenant shall pay the monthly rent of USD 12,500",
            3: "on the first day of each month.\nTermination.\n" + FILLER,
            4: "Notices.\nNotices are given in writing.\n" + FILLER,
            5: "Signatures.",
        },
    )
    with path.open("rb") as stream:
        document = document_upload(
            tenant=tenant_a, upload=Upload(filename=path.name, stream=stream)
        )
    with tenant_scope(tenant_a):
        document = Document.objects.select_related("current_revision").get(
            pk=document.pk
        )
    assert document.status == Document.Status.READY, document.error
    return document


def _in_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["390", "1440"])
def test_the_viewer_opens_at_the_quote_and_pages_and_zooms(
    page_at, live_server, alice, lease, size
):
    width = size["width"]
    page = page_at(**size)
    sign_in(page, live_server, "alice", "pw-alice")
    text = lease.current_revision.normalized_content
    start = text.index("The Tenant shall pay")
    end = text.index("each month.") + len("each month.")
    notices = text.index("Notices are given in writing.")
    url = live_server.url + document_span_url(
        lease.pk, start, end, others=[(notices, notices + 29)]
    )

    page.goto(url)
    viewer = page.get_by_test_id("viewer")
    expect(page.get_by_test_id("printed-page")).to_contain_text(
        "Page 2 as printed", ignore_case=True
    )
    outline = page.locator("rect.span-box--current").first
    expect(outline).to_be_attached()
    page.wait_for_load_state("networkidle")
    assert (
        page.evaluate("() => document.querySelector('.page-image img').naturalWidth")
        > 0
    )
    # The outline is on screen, with some of the page above it.
    assert _in_viewport(page, outline)
    assert outline.bounding_box()["y"] >= 60
    # The address names the page and span: it can be shared as it stands.
    assert page.evaluate("() => location.hash") == f"#page=2&span={start}-{end}"
    assert no_horizontal_scroll(page)
    shoot(page, f"viewer-01-cited-{width}", full_page=False)
    violations = axe_violations(page)
    assert not violations, describe(violations)

    # The quote goes on over the page break: page 3 outlines the rest.
    expect(page.get_by_test_id("continues")).to_contain_text("page 3")
    page.get_by_test_id("next-page").click()
    expect(viewer).to_have_attribute("data-page", "3")
    expect(page.locator("rect.span-box--current")).not_to_have_count(0)
    expect(page.locator("mark#at")).to_have_text("on the first day of each month.")

    # The arrow keys turn pages; go to page takes a number.
    expect(viewer).to_have_attribute("data-ready", "1")
    page.keyboard.press("ArrowLeft")
    expect(viewer).to_have_attribute("data-page", "2")
    page.get_by_test_id("page-input").fill("5")
    page.get_by_test_id("page-input").press("Enter")
    expect(viewer).to_have_attribute("data-page", "5")
    expect(page.get_by_test_id("next-page")).to_have_count(0)

    # The citation's other span is one click away.
    spans = page.get_by_test_id("span-link")
    expect(spans).to_have_count(2)
    spans.nth(1).click()
    expect(viewer).to_have_attribute("data-page", "4")
    expect(page.locator("mark#at")).to_have_text("Notices are given in writing.")

    # Zoom: 150% is half as wide again as 100%; fit fills the column.
    page.get_by_test_id("zoom-100").click()
    at_100 = page.locator(".page-image img").bounding_box()["width"]
    page.get_by_test_id("zoom-150").click()
    expect(viewer).to_have_attribute("data-zoom", "150")
    at_150 = page.locator(".page-image img").bounding_box()["width"]
    assert abs(at_150 / at_100 - 1.5) < 0.02, (at_100, at_150)
    assert no_horizontal_scroll(page)  # the page scrolls inside its frame
    page.wait_for_load_state("networkidle")
    shoot(page, f"viewer-02-zoom150-{width}", full_page=False)
    page.get_by_test_id("zoom-fit").click()
    fit = page.locator(".page-image img").bounding_box()["width"]
    column = page.locator(".viewer-scroll").bounding_box()["width"]
    assert fit <= column + 1 and fit >= column - 40

    # A deep link with only the fragment opens the same place.
    page.goto(f"{live_server.url}/documents/{lease.pk}/#page=3&span={start}-{end}")
    expect(viewer).to_have_attribute("data-page", "3")
    expect(viewer).to_have_attribute("data-span", f"{start}-{end}")
    expect(page.locator("rect.span-box--current")).not_to_have_count(0)
    assert page.console_errors == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["390", "1440"])
def test_a_text_document_opens_at_the_span(page_at, live_server, alice, tenant_a, size):
    body = "\n\n".join(
        f"Section {n}. Nothing of note here at all." for n in range(1, 80)
    )
    document = make_document(
        tenant_a,
        [body, "Payment. Invoices are payable within 45 days.\n\n" + body],
        title="Services agreement",
    )
    text = document.current_revision.normalized_content
    start = text.index("Invoices are payable")
    page = page_at(**size)
    sign_in(page, live_server, "alice", "pw-alice")
    page.goto(live_server.url + document_span_url(document.pk, start, start + 36))
    mark = page.locator("mark#at")
    expect(mark).to_have_text("Invoices are payable within 45 days.")
    page.wait_for_load_state("networkidle")
    assert _in_viewport(page, mark)
    expect(page.get_by_test_id("zoom-150")).to_have_count(0)  # no zoom for text
    assert no_horizontal_scroll(page)
    shoot(page, f"viewer-03-text-{size['width']}", full_page=False)
    assert page.console_errors == []
