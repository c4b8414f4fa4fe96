"""Browser fixtures: Playwright driving Debian's chromium against a live server.

Playwright never downloads a browser here: it launches /usr/bin/chromium.
Screenshots go to test-results/ so a person can look at them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; Django's ORM calls
# from the test body are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RESULTS = Path(__file__).resolve().parent.parent / "test-results"


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.console_errors = errors
    yield page
    context.close()


@pytest.fixture
def screenshot(page):
    RESULTS.mkdir(exist_ok=True)

    def take(name: str) -> Path:
        path = RESULTS / f"{name}.png"
        # caret="initial": hiding the caret adds a style attribute, which the CSP reports.
        page.screenshot(path=str(path), full_page=True, caret="initial")
        return path

    return take


@pytest.fixture
def login(page, live_server):
    def do(username: str, password: str) -> None:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.wait_for_url(lambda url: "/accounts/login/" not in url)

    return do


PHONE = {"width": 390, "height": 844}
TABLET = {"width": 820, "height": 1180}
DESKTOP = {"width": 1440, "height": 900}


@pytest.fixture
def page_at(browser):
    """Pages at a chosen viewport (390 px phone, 1440 px desktop, …), each in
    its own context; script errors are collected in `page.console_errors`."""
    contexts = []

    def make(width: int, height: int = 900, **options):
        context = browser.new_context(
            viewport={"width": width, "height": height}, **options
        )
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        contexts.append(context)
        p = context.new_page()
        p.set_default_timeout(15_000)
        errors: list[str] = []
        p.on("pageerror", lambda exc: errors.append(str(exc)))
        p.on(
            "console",
            lambda m: (
                errors.append(f"console: {m.text}")
                if m.type == "error"
                and "favicon" not in (m.location or {}).get("url", "")
                else None
            ),
        )
        p.console_errors = errors
        return p

    yield make
    for context in contexts:
        context.close()


def sign_in(page, live_server, username: str, password: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def shoot(page, name: str, *, full_page: bool = True) -> Path:
    """A screenshot in test-results/ (caret left alone: hiding it writes a
    style attribute that htmx copies and the CSP reports)."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page, caret="initial")
    return path


def no_horizontal_scroll(page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth <= window.innerWidth + 1"
    )
