"""Sections a model reads whole: they tile the text, keep page boundaries,
and a reading says whether it holds every section."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from ingest.sections import cut_sections, estimate_tokens, read_documents

_text = st.text(alphabet=st.sampled_from(list("ab cd\n.,")), min_size=0, max_size=3000)


@settings(max_examples=300, deadline=None)
@given(text=_text, target=st.integers(min_value=1, max_value=700), data=st.data())
def test_sections_tile_the_text_and_keep_page_breaks(text, target, data):
    starts = [0]
    if text:
        extra = data.draw(
            st.lists(st.integers(min_value=1, max_value=len(text)), max_size=8)
        )
        starts = sorted({0, *extra})
    spans = cut_sections(text, starts, target_chars=target)
    assert "".join(text[s.start : s.end] for s in spans) == text
    for before, after in itertools.pairwise(spans):
        assert before.end == after.start
    for span in spans:
        assert span.end > span.start
        assert span.end - span.start <= target
        # No page boundary falls strictly inside a section that could have
        # ended there: sections end at the furthest boundary in their window.
        assert span.page_start <= span.page_end


def test_short_pages_run_together_and_a_long_page_is_cut_at_a_break():
    text = "Page one.\n" + "Page two.\n" + ("Clause words here. " * 40)
    starts = [0, 10, 20]
    spans = cut_sections(text, starts, target_chars=300)
    assert (spans[0].start, spans[0].end) == (0, 20)
    assert (spans[0].page_start, spans[0].page_end) == (1, 2)
    assert all(s.page_start == 3 for s in spans[1:])
    assert all(text[s.end - 1] == " " for s in spans[1:-1])


def test_estimate_is_on_the_safe_side():
    assert estimate_tokens("") == 0
    assert estimate_tokens("x" * 35) >= 10


@pytest.mark.django_db
def test_a_document_that_fits_is_read_whole(tenant_a):
    pages = [f"Page {n}. " + "The Supplier shall deliver. " * 30 for n in range(1, 6)]
    document = make_document(tenant_a, pages, source_type="pdf", title="Supply")
    with tenant_scope(tenant_a):
        reading = read_documents([document], budget_tokens=100_000, target_chars=1000)
        assert reading.whole
        assert next(s.label for s in reading.sections).startswith("Page")
        revision = document.current_revision
        text = revision.normalized_content
        assert "".join(s.text for s in reading.sections) == text
        for section in reading.sections:
            assert text[section.start : section.end] == section.text
            assert (
                section.chunk.start_offset <= section.start < section.chunk.end_offset
            )
            assert section.page_start == revision.page_for_offset(section.start)


@pytest.mark.django_db
def test_over_budget_reads_the_ranked_sections_and_says_it_is_partial(tenant_a):
    pages = [f"Heading {n}. " + f"Filler {n} text. " * 60 for n in range(1, 9)]
    pages[5] = "The liability of the Supplier is capped at USD 1,000. " * 10
    document = make_document(tenant_a, pages, source_type="pdf", title="Big")
    with tenant_scope(tenant_a):
        text = document.current_revision.normalized_content
        cap = text.index("capped")
        one = read_documents([document], budget_tokens=10**9, target_chars=1200)
        budget = one.sections[0].tokens + max(s.tokens for s in one.sections) + 1
        reading = read_documents(
            [document],
            budget_tokens=budget,
            ranked=[(document.pk, cap)],
            target_chars=1200,
        )
        assert not reading.whole
        assert reading.tokens <= budget
        assert any(s.start <= cap < s.end for s in reading.sections)
        assert reading.sections[0].index == 0  # the parties and definitions
        [read] = reading.describe()
        assert read["whole"] is False
        assert read["sections_read"] == len(reading.sections) < read["sections_total"]
