"""docs/answers.md is generated from the tables and kept in step with them."""

from __future__ import annotations

from chat.answers_doc import PATH, answers_markdown
from chat.naming import NAME_RULES
from citations.relevance import RELEVANCE_RULES


def test_the_committed_page_is_what_the_tables_generate():
    assert PATH.read_text(encoding="utf-8") == answers_markdown(), (
        "docs/answers.md is out of date: run `python manage.py answers_doc`"
    )


def test_every_rule_is_on_the_page():
    page = answers_markdown()
    for rule in (*NAME_RULES, *RELEVANCE_RULES):
        assert f"`{rule.name}`" in page
