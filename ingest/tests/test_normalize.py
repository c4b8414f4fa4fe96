from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from ingest.normalize import (
    PAGE_SEPARATOR,
    normalize_page,
    normalize_page_with_map,
    normalize_pages,
    page_for_offset,
)

# Text that exercises every rule: line endings, controls, combining marks,
# surrogates, emoji, NBSP, ligatures and smart quotes (which must survive).
MESSY = st.text(
    alphabet=st.sampled_from(
        list(
            "ab cé\t\n\r\x00\x07\x0b\x0c\x85\u2028\u00a0\u0301\u0327\ufb01“”—😀\ud800가\u1100\u1161\u11a8"
        )
    ),
    max_size=60,
)


def test_line_endings_become_newlines():
    assert normalize_page("a\r\nb\rc\nd\x0ce\u2028f") == "a\nb\nc\nd\ne\nf"


def test_controls_are_removed_but_tabs_and_newlines_kept():
    assert normalize_page("a\x00b\x07c\td\x7fe\nf") == "abc\tde\nf"


def test_trailing_spaces_are_trimmed_per_line():
    assert normalize_page("one  \ntwo\t\nthree \u00a0") == "one\ntwo\nthree"


def test_nfc_composes_accents():
    assert normalize_page("Cafe\u0301") == "Café"


def test_quotes_ligatures_and_dashes_are_kept():
    text = "“ﬁnal” — ‘agreement’ … ½"
    assert normalize_page(text) == unicodedata.normalize("NFC", text)


def test_lone_surrogates_are_removed():
    assert normalize_page("a\ud800b") == "ab"


def test_a_huge_run_of_spaces_is_linear():
    text = " " * 2_000_000 + "x"
    assert normalize_page(text) == text


@given(MESSY)
def test_normalize_is_idempotent(text):
    once = normalize_page(text)
    assert normalize_page(once) == once


@given(MESSY)
def test_normalized_text_has_no_controls_or_trailing_spaces(text):
    out = normalize_page(text)
    assert "\r" not in out
    assert all(
        ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cs") for ch in out
    )
    assert all(line == line.rstrip() for line in out.split("\n"))
    assert unicodedata.is_normalized("NFC", out)


@given(MESSY)
def test_map_version_agrees_and_points_into_the_input(text):
    out, mapping = normalize_page_with_map(text)
    assert out == normalize_page(text)
    assert len(mapping) == len(out)
    real = [i for i in mapping if i >= 0]
    assert real == sorted(real)
    assert all(0 <= i < len(text) for i in real)


def test_map_points_at_the_source_characters():
    out, mapping = normalize_page_with_map("ab\r\ncd  \ne\u0301f")
    assert out == "ab\ncd\néf"
    assert mapping == [0, 1, 2, 4, 5, 8, 9, 11]


def test_pages_join_with_a_separator_and_record_starts():
    result = normalize_pages(["Page one.\r\n", "", "Page three."])
    assert (
        result.content
        == "Page one.\n" + PAGE_SEPARATOR + PAGE_SEPARATOR + "Page three."
    )
    assert result.page_starts == [0, 12, 14]
    for p, page in enumerate(["Page one.\n", "", "Page three."]):
        start = result.page_starts[p]
        assert result.content[start : start + len(page)] == page


def test_no_pages_is_one_empty_page():
    result = normalize_pages([])
    assert result.content == ""
    assert result.page_starts == [0]


def test_page_for_offset_is_one_based_and_separators_belong_to_the_page_before():
    starts = normalize_pages(["abc", "de", "f"]).page_starts  # [0, 5, 9]
    assert [page_for_offset(starts, o) for o in range(10)] == [
        1,
        1,
        1,
        1,
        1,
        2,
        2,
        2,
        2,
        3,
    ]
    assert page_for_offset(starts, 10_000) == 3
    assert page_for_offset(starts, -1) == 1
