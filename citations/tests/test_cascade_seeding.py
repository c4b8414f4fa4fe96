"""Candidate placements are ranked exactly as a full sort would rank them."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from citations.cascade import prepared as prepared_module
from citations.cascade import verify_quote
from citations.cascade.prepared import MAX_KEY_WORDS, prepare
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
    # The best seed is found with cutoffs; the order must not change for it,
    # and only seeds at least `floor` similar are ranked.
    q = FoldedQuote.of(quote)
    seeds = [Seed(s, s + n, i, 0, 0) for i, (s, n) in enumerate(spans)]

    def similarity(seed: Seed) -> float:
        window = skeleton[max(0, seed.start) : seed.end]
        return Levenshtein.normalized_similarity(q.skeleton, window)

    for floor in (0.01, 0.5, 0.9):
        assert list(_rank(skeleton, q, seeds, floor)) == [
            s
            for s in sorted(seeds, key=lambda s: -similarity(s))
            if similarity(s) >= floor
        ]


def _postings_key_by_key(prepared, words, lo, hi, stop, selective):
    """The postings, one key at a time, as the index defines them."""
    index = prepared._index()
    found = []
    for i in range(lo, hi):
        key = f"{words[i]} {words[i + 1]}"
        hits = index.get(key, prepared_module._EMPTY)
        j = i + 2
        while len(hits) > selective and j < min(stop, i + MAX_KEY_WORDS):
            key = f"{key} {words[j]}"
            hits = index.get(key, prepared_module._EMPTY)
            j += 1
        found.append(list(hits))
    return found


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=40, max_size=300),
    st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=2, max_size=30),
    st.data(),
)
def test_longer_keys_are_taken_as_one_key_at_a_time_would_take_them(
    document, words, data
):
    # Keys of one length are extended together; each must end up the key
    # (and postings) it would be extended to on its own, `stop` respected.
    saved = prepared_module.SELECTIVE
    prepared_module.SELECTIVE = 3
    try:
        prepared_module.clear_cache()
        prepared = prepare(" ".join(document))
        n = len(words)
        lo = data.draw(st.integers(0, n - 2))
        hi = data.draw(st.integers(lo, n - 1))
        stop = data.draw(st.integers(hi + 1, n))
        selective = data.draw(st.sampled_from([3, 5, 20]))
        found = prepared._postings(tuple(words), lo, hi, stop, selective)
        expected = _postings_key_by_key(prepared, words, lo, hi, stop, selective)
        assert list(map(list, found)) == expected
    finally:
        prepared_module.SELECTIVE = saved
        prepared_module.clear_cache()


def test_where_no_place_holds_more_than_a_few_anchors_more_places_are_ranked():
    # Forty places each share one word pair with the quote: evidence is weak
    # everywhere, so more than the usual candidates go on to be ranked by
    # similarity (the true place may be any of them).
    from citations.cascade import tolerant

    quote = " ".join(f"term{i:02d}" for i in range(40))
    filler = " ".join(f"filler{i:03d}" for i in range(30))
    places = [f"term{j:02d} term{j + 1:02d}" for j in range(39)] * 2
    text = " ".join(f"{filler} {pair} {filler}." for pair in places)
    prepared = prepare(text)
    seeds = tolerant._seeds(prepared, FoldedQuote.of(quote), None)
    assert max(s.anchors for s in seeds) <= tolerant.WEAK_ANCHORS
    assert tolerant.CANDIDATES < len(seeds) <= tolerant.WEAK_CANDIDATES


CLAUSE = (
    "The Supplier shall deliver the Goods to the premises of the Buyer within "
    "the period stated in the order, and shall bear the cost of carriage."
)


def _numbered_clauses(numbers: list[int]) -> str:
    return "\n\n".join(f"Section {n}. {CLAUSE}" for n in numbers)


def test_a_look_alike_copy_without_the_quotes_number_is_the_reported_near():
    # Every copy of the clause lacks the quote's "38": each is refused before
    # the guard reads it, and the reason is worked out for the closest one.
    text = _numbered_clauses([31, 2, 36, 4])
    quote = f"Section 38. {CLAUSE}"
    verdict = verify_quote(text, quote)
    assert not verdict.verified
    assert verdict.rule == "meaning.number", verdict.reason
    assert "number differs: quote has '38'" in verdict.reason
    # The closest copy is one of the two-digit sections, and the offsets
    # shown slice back to it.
    shown = text[verdict.candidate_start : verdict.candidate_end]
    assert shown.startswith(("Section 31.", "Section 36.")), shown
    assert f"source has '{shown.split()[1].rstrip('.')}'" in verdict.reason


def test_the_copy_with_the_quotes_number_verifies_among_look_alikes():
    text = _numbered_clauses([31, 2, 38, 4]).replace(
        "Section 38. The Suppl", "Section 38. The Supp1"
    )
    verdict = verify_quote(text, f"Section 38. {CLAUSE}")
    assert verdict.verified, verdict.reason
    assert verdict.match_type == "fuzzy"
    assert text[verdict.start : verdict.end].startswith("Section 38.")
