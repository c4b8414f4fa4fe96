"""The chat page in a real browser: upload, ask, see verified badges, open the
detail panel, copy the quote, open the document at the span; failures show."""

from __future__ import annotations

import pytest

from docuiq.testing import pdfgen
from docuiq.testing.llm_server import Reply

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLAUSE = "The Supplier shall deliver the goods within 30 days of the order."
NEGATED = "The Buyer shall not assign this Agreement to a third party."


@pytest.fixture
def contract_pdf(tmp_path):
    return pdfgen.text_pages_pdf(
        tmp_path / "supply-agreement.pdf",
        {
            1: "Supply Agreement\nBetween Acme and Beta.",
            2: "Delivery.\n" + CLAUSE + "\nRisk passes on delivery.\n" + NEGATED,
        },
    )


def _upload_and_wait(page, live_server, path):
    page.goto(f"{live_server.url}/documents/")
    page.set_input_files("[data-testid=upload-input]", str(path))
    page.click("form.upload button[type=submit]")
    page.wait_for_selector(f"tr[data-status=ready] >> text={path.stem}", timeout=30_000)


def test_ask_see_verified_badge_open_panel_copy_and_open_document(
    page, live_server, alice, login, screenshot, contract_pdf
):
    login("alice", "pw-alice")
    _upload_and_wait(page, live_server, contract_pdf)
    screenshot("chat-01-documents")

    page.goto(f"{live_server.url}/chat/?new=1")
    page.fill(
        "[data-testid=question]",
        "How many days does the supplier have to deliver the goods?",
    )
    page.click("[data-testid=ask]")
    badge = page.locator("a.badge--verified").first
    badge.wait_for()
    assert "Verified" in badge.get_attribute("aria-label")
    screenshot("chat-02-answer")

    # A follow-up through the ask box streams its answer.
    page.fill("form.ask textarea", "What happens to the risk on delivery?")
    page.click("form.ask button[type=submit]")
    page.locator("[data-testid=assistant-message]").nth(1).wait_for()

    badge.click()
    panel = page.locator("[data-testid=citation-panel]")
    panel.wait_for()
    assert "Verified" in panel.inner_text()
    assert (
        "Supply Agreement" in panel.inner_text()
        or "supply-agreement" in panel.inner_text()
    )
    highlighted = panel.locator("mark.span-highlight").inner_text()
    quoted = panel.locator("blockquote.quote").inner_text()
    assert highlighted.split() == quoted.split()
    screenshot("chat-03-panel")

    page.click("[data-testid=copy-quote]")
    page.locator("[data-testid=copy-quote]", has_text="Copied").wait_for()
    assert page.evaluate("() => window.__lastCopied").split() == quoted.split()

    page.click("[data-testid=open-document]")
    mark = page.locator("mark#at")
    mark.wait_for()
    assert mark.inner_text().split() == quoted.split()
    assert "page 2" in page.locator("section.page-block", has=mark).inner_text().lower()
    printed = page.locator("[data-testid=printed-page]")
    assert "page 2 as printed" in printed.inner_text().lower()
    assert printed.locator("rect.span-box").count() >= 1
    page.wait_for_load_state("networkidle")
    assert (
        page.evaluate("() => document.querySelector('.page-image img').naturalWidth")
        > 0
    )
    screenshot("chat-04-document")

    page.reload()  # what was shown is what is shown again
    assert not page.console_errors, page.console_errors


def test_a_quote_that_is_not_in_the_source_shows_as_failed(
    page, live_server, alice, login, screenshot, contract_pdf, llm
):
    login("alice", "pw-alice")
    _upload_and_wait(page, live_server, contract_pdf)
    llm.respond_with(
        lambda request: Reply.chat_answer(
            "Delivery is due within 60 days of the order [S1].",
            ("S1", "within 60 days of the order"),
            ("S1", "<script>window.__xss = 1</script>", "related"),
        )
    )
    page.goto(f"{live_server.url}/chat/?new=1")
    page.fill("[data-testid=question]", "When must the supplier deliver?")
    page.click("[data-testid=ask]")
    # Found, differs: the passage says 30 days (amber, not the red "not found").
    failed = page.locator("a.badge--differs").first
    failed.wait_for()
    assert "not verified" in failed.get_attribute("aria-label")
    failed.click()
    panel = page.locator("[data-testid=citation-panel]")
    panel.wait_for()
    text = panel.inner_text()
    assert "60" in text and "30" in text
    assert panel.locator(".diff del").count() >= 1
    assert page.evaluate("() => window.__xss") is None  # rendered as text, never run
    screenshot("chat-05-failed")


def test_a_quote_that_leaves_out_the_negation_before_it_shows_as_failed(
    page, live_server, alice, login, screenshot, contract_pdf, llm
):
    # Every word of the quote is in the source, just after "not".
    login("alice", "pw-alice")
    _upload_and_wait(page, live_server, contract_pdf)
    llm.respond_with(
        lambda request: Reply.chat_answer(
            "Yes [S1].", ("S1", "assign this Agreement to a third party")
        )
    )
    page.goto(f"{live_server.url}/chat/?new=1")
    page.fill("[data-testid=question]", "May the buyer assign the agreement?")
    page.click("[data-testid=ask]")
    failed = page.locator("a.badge--differs").first
    failed.wait_for()
    failed.click()
    panel = page.locator("[data-testid=citation-panel]")
    panel.wait_for()
    badge = panel.locator(".badge").inner_text()
    assert "Found, differs: ∅ → not" in badge
    assert "not found" not in badge
    assert "Differs from the source" in panel.locator("dl.meta").inner_text()
    assert "starts just after “not”" in panel.locator(".reason").inner_text()
    # The diff shows the source's "not", which the quote leaves out.
    assert "not" in panel.locator(".diff ins").all_inner_texts()
    screenshot("chat-06-negation-left-out")
