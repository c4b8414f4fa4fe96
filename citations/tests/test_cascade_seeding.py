"""Candidate placements are ranked exactly as a full sort would rank them."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from citations.cascade.tolerant import FoldedQuote, Seed, _rank


@settings(max_examples=300, deadline=None)
@given(
    st.text("ab ", min_size=1, max_size=200),
    st.lists(
        st.tuples(st.integers(-5, 210), st.integers(0, 60)), min_size=0, max_size=12
    ),
    st.text("ab", min_size=1, max_size=60),
)
@example("abab abab", [(0, 4), (5, 4), (0, 4)], "abab")  # ties, in seed order
def test_seeds_are_ranked_by_window_similarity_ties_in_seed_order(
    skeleton, spans, quote
):
    # The best seed is found with cutoffs; the order must not change for it.
    q = FoldedQuote.of(quote)
    seeds = [Seed(s, s + n, i, 0, 0) for i, (s, n) in enumerate(spans)]

    def similarity(seed: Seed) -> float:
        window = skeleton[max(0, seed.start) : seed.end]
        return Levenshtein.normalized_similarity(q.skeleton, window)

    assert list(_rank(skeleton, q, seeds)) == sorted(
        seeds, key=lambda s: -similarity(s)
    )
