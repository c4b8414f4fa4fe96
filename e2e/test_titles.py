"""Titles in a real browser at 390 and 1440 px (issue 32): a document is
renamed inline in the documents list (and a refused title says why), then
found by its new name in a question and by "@"; a question that fits two
joint venture agreements gets "which one?" chips, and a chip answers from the
one chosen; the question box is reached within three Tab presses.
Screenshots: test-results/titles-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from docuiq.testing.factories import make_document
from e2e.a11y import axe_violations, describe
from e2e.conftest import DESKTOP, PHONE, no_horizontal_scroll, shoot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["390", "1440"])

LEASE = (
    "OFFICE LEASE\n\nThis Lease is made between Acme Properties LLC and Beta Legal "
    "LLP.\n\nRent. The Tenant shall pay the monthly rent of USD 12,500 on the first "
    "day of each month."
)
BORROW = (
    "JOINT VENTURE AGREEMENT\n\nThis Joint Venture Agreement is made between "
    "BorrowMoney.com, Inc. and JVLS, LLC.\n\nTerm. This Agreement ends on "
    "February 28, 2025."
)
MJ = (
    "JOINT VENTURE AGREEMENT\n\nThis Joint Venture Agreement is made between "
    "MJ Syndicated, Inc. and Bio Holdings, LLC.\n\nTerm. This Agreement ends on "
    "February 28, 2004."
)


def _active(page) -> dict:
    return page.evaluate(
        "() => ({id: document.activeElement.id,"
        " testid: document.activeElement.dataset.testid || null})"
    )


@SIZES
def test_rename_inline_then_ask_by_the_new_name(
    page_at, live_server, alice, tenant_a, size
):
    lease = make_document(tenant_a, LEASE, title="CONFIDENTIAL TREATMENT REQUEST")
    page = page_at(**size)
    sign_in(page, live_server, "alice", "pw-alice")
    page.goto(f"{live_server.url}/documents/")
    first_block = page.locator(f"#title-{lease.pk}")
    first_block.locator("summary").click()
    field = first_block.get_by_test_id("rename-input")
    expect(field).to_be_visible()
    field.fill("")
    field.fill(" ")  # only a space: the server refuses it, htmx shows why
    first_block.get_by_test_id("rename-save").click()
    expect(page.get_by_test_id("rename-error")).to_contain_text("cannot be empty")
    shoot(page, f"titles-rename-refused-{size['width']}")
    field = page.locator(f"#title-{lease.pk}").get_by_test_id("rename-input")
    field.fill("Acme HQ <b>lease</b>")
    field.press("Enter")
    title = page.locator(f"#title-{lease.pk}").get_by_test_id("doc-title")
    expect(title).to_have_text("Acme HQ <b>lease</b>")  # as text, never markup
    expect(
        page.locator(f"#title-{lease.pk}").get_by_test_id("filenames")
    ).to_contain_text("CONFIDENTIAL TREATMENT REQUEST.txt")
    assert no_horizontal_scroll(page)
    shoot(page, f"titles-renamed-{size['width']}")
    renamed_page = page.url
    block = page.locator(f"#title-{lease.pk}")
    block.locator("summary").click()
    block.get_by_test_id("rename-input").fill("Acme HQ lease")
    block.get_by_test_id("rename-save").click()
    expect(block.get_by_test_id("doc-title")).to_have_text("Acme HQ lease")

    # "@" suggests it by its new title; a question naming it searches it.
    page.goto(f"{live_server.url}/chat/?new=1")
    page.get_by_test_id("question").fill("What is the rent in the Acme HQ lease?")
    page.get_by_test_id("ask").click()
    searched = page.get_by_test_id("searched").first
    expect(searched).to_contain_text("Acme HQ lease")
    expect(searched).to_contain_text("named in your question")
    expect(page.get_by_test_id("assistant-message").first).to_contain_text("12,500")
    box = page.get_by_test_id("question")
    box.click()
    box.type("@Acme H")
    suggestion = page.get_by_test_id("mention-list").locator("li").first
    expect(suggestion).to_contain_text("Acme HQ lease")
    expect(suggestion).to_contain_text("CONFIDENTIAL TREATMENT REQUEST.txt")
    shoot(page, f"titles-mention-{size['width']}", full_page=False)
    assert page.console_errors == []
    page.goto(renamed_page)
    page.locator(f"#title-{lease.pk}").locator("summary").click()
    violations = axe_violations(page)  # skips without axe-core: last
    assert not violations, describe(violations)


@SIZES
def test_which_one_chips_ask_again_scoped_to_one(
    page_at, live_server, alice, tenant_a, size
):
    make_document(tenant_a, BORROW, title="Joint Venture Agreement")
    mj = make_document(
        tenant_a, MJ, title="Joint Venture Agreement — MJ Syndicated and Bio Holdings"
    )
    page = page_at(**size)
    sign_in(page, live_server, "alice", "pw-alice")
    page.goto(f"{live_server.url}/chat/?new=1")
    page.get_by_test_id("question").fill("When does the joint venture agreement end?")
    page.get_by_test_id("ask").click()
    chips = page.get_by_test_id("which-one-choice")
    expect(chips).to_have_count(2)
    first = page.get_by_test_id("assistant-message").first
    expect(first).to_contain_text("Which one?")
    expect(first).not_to_contain_text("2004")
    expect(first).not_to_contain_text("2025")
    assert no_horizontal_scroll(page)
    shoot(page, f"titles-which-one-{size['width']}")
    page.get_by_test_id("which-one-choice").filter(has_text="MJ Syndicated").click()
    second = page.get_by_test_id("assistant-message").nth(1)
    expect(second).to_contain_text("2004")
    expect(second).not_to_contain_text("2025")
    expect(second.get_by_test_id("searched")).to_contain_text("MJ Syndicated")
    shoot(page, f"titles-which-one-answered-{size['width']}")
    assert mj.title in second.inner_text()
    assert page.console_errors == []
    violations = axe_violations(page)  # skips without axe-core: last
    assert not violations, describe(violations)


@SIZES
def test_the_question_box_is_within_three_tab_presses(
    page_at, live_server, alice, tenant_a, size
):
    make_document(tenant_a, LEASE, title="Office Lease")
    page = page_at(**size)
    sign_in(page, live_server, "alice", "pw-alice")
    for url in ("/chat/", "/chat/?new=1"):
        page.goto(f"{live_server.url}{url}")
        for _press in range(3):
            page.keyboard.press("Tab")
            if _active(page)["testid"] == "skip-to-question":
                page.keyboard.press("Enter")
            if _active(page)["id"] == "question":
                break
        assert _active(page)["id"] == "question", (url, _active(page))
    # On a chat with answers too.
    page.get_by_test_id("question").fill("What is the monthly rent?")
    page.keyboard.press("Enter")
    page.get_by_test_id("assistant-message").first.wait_for()
    page.reload()
    presses = 0
    while _active(page)["id"] != "question" and presses < 3:
        page.keyboard.press("Tab")
        presses += 1
        if _active(page)["testid"] == "skip-to-question":
            page.keyboard.press("Enter")
    assert _active(page)["id"] == "question" and presses <= 3
    shoot(page, f"titles-tab-{size['width']}", full_page=False)
