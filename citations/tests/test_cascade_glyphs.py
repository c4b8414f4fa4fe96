"""citations/cascade/glyphs.py: the glyphs OCR mistakes for one another,
and putting back one glyph OCR read as two."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citations.cascade.glyphs import (
    CONFUSABLE,
    CONFUSABLE_PAIRS,
    INITIAL_CONFUSABLE,
    INITIAL_CONFUSABLE_PAIRS,
    MERGED,
    SPLIT_GLYPHS,
    merged_once,
)


def test_a_split_glyph_is_put_back_in_every_place_it_can_be():
    assert "now" in set(merged_once("rlow"))
    assert "must" in set(merged_once("nnust"))
    assert set(merged_once("rnrn")) == {"mrn", "rnm"}
    assert list(merged_once("plain")) == []


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="rnmlcdvwhu ab", max_size=30))
def test_each_merge_puts_back_one_glyph_where_two_were_read(word):
    merged = list(merged_once(word))
    # One per place a split pair occurs, each one character shorter.
    places = sum(
        1
        for two, _ in SPLIT_GLYPHS
        for at in range(len(word) - 1)
        if word[at : at + 2] == two
    )
    assert len(merged) == places
    assert all(len(m) == len(word) - 1 for m in merged)


def test_the_pair_tables_are_the_sets_read_in_either_order():
    for pair in CONFUSABLE:
        x, y = sorted(pair)
        assert x + y in CONFUSABLE_PAIRS and y + x in CONFUSABLE_PAIRS
    assert len(CONFUSABLE_PAIRS) == 2 * len(CONFUSABLE)
    for pair in INITIAL_CONFUSABLE:
        x, y = sorted(pair)
        assert x + y in INITIAL_CONFUSABLE_PAIRS and y + x in INITIAL_CONFUSABLE_PAIRS
    for two, one in SPLIT_GLYPHS:
        assert one in MERGED[two]


def test_the_letters_that_tell_parties_apart_are_not_look_alikes():
    # "Licensor"/"Licensee", "employer"/"employee" differ by r/e: a fuzzy
    # match that took one for the other would swap the parties.
    assert "re" not in CONFUSABLE_PAIRS and "er" not in CONFUSABLE_PAIRS
    assert "or" not in CONFUSABLE_PAIRS
