"""Which question words are searched for on a large index."""

from __future__ import annotations

from ingest.search._selectivity import (
    COMMON_FRACTION,
    MAX_TERMS,
    MIN_CHUNKS_TO_PRUNE,
    selective,
)

BIG = MIN_CHUNKS_TO_PRUNE * 10


def test_small_indexes_search_every_present_word():
    assert selective(
        {"agreement": 0.99, "notice": 0.5, "zebra": 0.0}, total_chunks=100
    ) == ["notice", "agreement"]


def test_near_ubiquitous_words_are_dropped_on_large_indexes():
    assert selective(
        {"agreement": 0.99, "notice": 0.01, "termination": 0.02}, total_chunks=BIG
    ) == [
        "notice",
        "termination",
    ]


def test_when_every_word_is_common_only_the_rarest_is_kept():
    assert selective({"agreement": 0.99, "party": 0.6}, total_chunks=BIG) == ["party"]


def test_at_most_the_rarest_few_words_are_kept():
    freqs = {f"w{i}": (i + 1) * COMMON_FRACTION / 20 for i in range(10)}
    assert selective(freqs, total_chunks=BIG) == [f"w{i}" for i in range(MAX_TERMS)]


def test_words_that_occur_nowhere_are_not_searched():
    assert selective({"zebra": 0.0}, total_chunks=BIG) == []
