"""Connectors in a real browser (issue 29): a Slack export uploaded on the
sources page and a SQLite table registered there; answers citing a Slack
message and a table row; the footer and the citation panel name the message
(channel, sender, time) and the row (table, row, column). Screenshots in
test-results/."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import expect

from docuiq.testing.exports import BASE, SlackMessage, slack_export, sqlite_contracts

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def files(tmp_path, settings):
    settings.CONNECTORS_SQLITE_DIRS = [str(tmp_path)]
    export = tmp_path / "acme-slack.zip"
    export.write_bytes(
        slack_export(
            [
                SlackMessage(
                    "C1",
                    "U1",
                    "What escrow release window did Acme accept?",
                    BASE,
                    BASE,
                ),
                SlackMessage(
                    "C1",
                    "U2",
                    "Acme accepted an escrow release window of fourteen business days after closing.",
                    BASE + timedelta(minutes=3),
                    BASE,
                ),
            ],
            users={"U1": "Ana Ruiz", "U2": "Ben Okafor"},
            channels={"C1": "deals"},
        )
    )
    db = sqlite_contracts(
        tmp_path / "crm.db",
        [
            (
                1182,
                "Zephyr supply agreement",
                "Zephyr Ltd",
                "The indemnity cap for Zephyr is two million euros.",
            )
        ],
    )
    return {"export": export, "db": db}


def _ask(page, question: str, n: int):
    page.fill("[data-testid=question]", question)
    page.click("[data-testid=ask]")
    message = page.locator("[data-testid=assistant-message]").nth(n)
    message.wait_for()
    message.locator("a.badge[data-status=verified]").first.wait_for(timeout=20_000)
    return message


def test_connect_sources_then_open_a_slack_cited_and_a_row_cited_answer(
    page, live_server, alice, login, screenshot, files
):
    login("alice", "pw-alice")
    page.goto(f"{live_server.url}/documents/")
    page.click("[data-testid=sources-link]")
    page.select_option("[data-testid=export-kind]", "slack")
    page.set_input_files("[data-testid=export-file]", str(files["export"]))
    page.click("[data-testid=export-submit]")
    expect(page.locator("[data-testid=source-row][data-status=ready]")).to_have_count(1)
    form = page.locator("[data-testid=db-form]")
    form.locator("[name=name]").fill("CRM")
    form.locator("[name=connection_url]").fill(f"sqlite:///{files['db']}")
    form.locator("[name=table]").fill("contracts")
    form.locator("[name=key_column]").fill("id")
    form.locator("[name=text_columns]").fill("counterparty, notice_period")
    form.locator("[name=title_column]").fill("title")
    form.locator("button[type=submit]").click()
    expect(page.locator("[data-testid=source-row][data-status=ready]")).to_have_count(2)
    assert "sqlite:///" in page.locator("[data-testid=sources-table]").inner_text()
    screenshot("connectors-01-sources")

    page.goto(f"{live_server.url}/chat/?new=1")
    answer = _ask(page, "What escrow release window did Acme accept?", 0)
    footer = answer.locator("[data-testid=sources]")
    # The offline responder quotes both messages; each is named by its own.
    expect(
        footer.locator("[data-testid=source-location]", has_text="Ben Okafor")
    ).to_have_text(" · #deals · Ben Okafor · 3 Mar 2026 14:05 UTC")
    footer.locator("li", has_text="Ben Okafor").locator("a").first.click()
    panel = page.locator("#citation-panel [data-testid=panel-location]")
    expect(panel).to_have_text("#deals · Ben Okafor · 3 Mar 2026 14:05 UTC")
    expect(
        page.locator("#citation-panel [data-testid=citation-passage]")
    ).to_contain_text("fourteen business days")
    screenshot("connectors-02-slack-citation")

    answer = _ask(page, "What is the indemnity cap for Zephyr?", 1)
    answer.locator("a.badge[data-status=verified]").first.click()
    expect(page.locator("#citation-panel [data-testid=panel-location]")).to_have_text(
        "contracts · row 1182 · notice_period"
    )
    expect(
        page.locator("#citation-panel [data-testid=citation-passage]")
    ).to_contain_text("two million euros")
    screenshot("connectors-03-row-citation")
    # The viewer opens the row at the cited span.
    page.click("#citation-panel [data-testid=open-document]")
    expect(page.locator("mark").first).to_contain_text("two million euros")
    assert not page.console_errors
