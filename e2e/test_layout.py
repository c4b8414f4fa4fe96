"""The chat page at a phone's and a desktop's width, driven from the keyboard:
the skip link reaches the question, Enter sends and Shift+Enter makes a new
line, the citation panel takes focus (a bottom sheet on a phone), Escape
closes it and focus goes back to the badge; the menu folds on a phone.
Screenshots: test-results/layout-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from docuiq.testing.factories import make_document
from e2e.conftest import DESKTOP, PHONE, no_horizontal_scroll, shoot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LEASE = (
    "OFFICE LEASE. This Lease is made between Acme Properties LLC (Landlord) and "
    "Beta Legal LLP (Tenant).\n\n"
    "Rent. The Tenant shall pay the monthly rent of USD 12,500 on the first day of "
    "each month.\n\n"
    "Termination. Either party may terminate this Lease upon ninety (90) days prior "
    "written notice to the other party."
)


@pytest.fixture
def lease(tenant_a):
    return make_document(tenant_a, LEASE, title="Office lease, Acme Properties")


def _active(page) -> dict:
    return page.evaluate(
        """() => { const a = document.activeElement;
        return {id: a.id, testid: a.dataset ? a.dataset.testid : null, tag: a.tagName,
                inPanel: !!a.closest('#citation-panel'), cls: a.className}; }"""
    )


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["390", "1440"])
def test_chat_by_keyboard_with_panel_and_menu(page_at, live_server, alice, lease, size):
    width = size["width"]
    page = page_at(**size)
    sign_in(page, live_server, "alice", "pw-alice")
    page.goto(f"{live_server.url}/chat/?new=1")

    # New chat: Tab reaches the skip link first; it leads to the question box.
    page.keyboard.press("Tab")
    assert _active(page)["testid"] == "skip-to-question"
    page.keyboard.press("Enter")
    assert _active(page)["id"] == "question"
    page.keyboard.type("How much is the monthly rent?")
    page.keyboard.press("Enter")  # Enter starts the chat
    first = page.locator("[data-testid=assistant-message]").first
    first.wait_for()
    badge = page.locator("a.badge--verified").first
    badge.wait_for()

    # A follow-up: Shift+Enter makes a new line, Enter sends.
    page.keyboard.press("Tab")
    assert _active(page)["testid"] == "skip-to-question"
    page.keyboard.press("Enter")
    assert _active(page)["id"] == "question"
    page.keyboard.type("When may the lease end?")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("Give the notice period.")
    assert (
        page.input_value("#question")
        == "When may the lease end?\nGive the notice period."
    )
    page.keyboard.press("Enter")
    page.locator("[data-testid=assistant-message]").nth(1).wait_for()
    expect(page.locator("#question")).to_have_value("")
    page.locator("[data-testid=assistant-message]").nth(1).locator(
        "a.badge"
    ).first.wait_for()

    # The answer column is readable, and nothing scrolls sideways.
    box = first.bounding_box()
    assert box["width"] >= (340 if width < 500 else 600), box
    assert no_horizontal_scroll(page)
    shoot(page, f"layout-chat-{width}")

    # Keyboard to a badge; Enter opens the panel, focus moves into it.
    badge.focus()
    page.keyboard.press("Enter")
    panel = page.locator("[data-testid=citation-panel]")
    panel.wait_for()
    expect(panel).to_be_focused()
    panel_box = page.locator("#citation-panel").bounding_box()
    if width < 500:  # a bottom sheet over the answer
        assert abs(panel_box["y"] + panel_box["height"] - size["height"]) <= 2, (
            panel_box
        )
        assert panel_box["width"] >= width - 2
    else:  # a column beside the answer
        assert panel_box["x"] > box["x"] + box["width"]
    shoot(page, f"layout-chat-panel-{width}", full_page=False)

    # Escape closes it and focus returns to the badge.
    page.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    active = _active(page)
    assert "badge" in active["cls"], active

    # The × button closes it too (by keyboard), focus back on the badge.
    page.keyboard.press("Enter")
    panel.wait_for()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # the × is the panel's first control
    expect(panel).to_have_count(0)
    assert "badge" in _active(page)["cls"]

    # The navigation: a menu button on a phone, the links on a desktop.
    review = page.get_by_role("link", name="Review", exact=True)
    logout = page.get_by_role("button", name="Log out")
    if width < 500:
        expect(review).to_be_hidden()
        page.get_by_test_id("menu-toggle").click()
        expect(review).to_be_visible()
        expect(logout).to_be_visible()
        shoot(page, f"layout-menu-{width}", full_page=False)
    else:
        expect(page.get_by_test_id("menu-toggle")).to_be_hidden()
        expect(review).to_be_visible()
        expect(logout).to_be_visible()
    assert page.console_errors == []


def test_without_javascript_the_follow_up_form_asks_and_the_menu_shows(
    page_at, live_server, alice, lease
):
    """The follow-up form posts with its CSRF token (it once lost it to a
    missing '>') and the answer comes back on the page; a phone's menu is a
    plain list."""
    page = page_at(**PHONE, java_script_enabled=False)
    sign_in(page, live_server, "alice", "pw-alice")
    page.goto(f"{live_server.url}/chat/?new=1")
    page.fill("[data-testid=question]", "How much is the monthly rent?")
    page.click("[data-testid=ask]")
    page.locator("[data-testid=assistant-message]").first.wait_for()
    page.fill("form.ask textarea", "When may the lease end?")
    page.click("form.ask [data-testid=ask]")
    expect(page.locator("[data-testid=assistant-message]")).to_have_count(2)
    expect(page.locator("[data-testid=assistant-message]").nth(1)).to_contain_text(
        "ninety (90) days"
    )
    expect(page.get_by_role("link", name="Review", exact=True)).to_be_visible()
    expect(page.get_by_test_id("menu-toggle")).to_be_hidden()
    shoot(page, "layout-nojs-390")
