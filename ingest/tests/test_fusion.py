"""Weighted reciprocal rank fusion (pure): examples and properties."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ingest.search._fusion import fuse, lexical_depth


def ids(fused) -> list[int]:
    return [f.chunk_id for f in fused]


def test_a_chunk_both_legs_rank_first_wins():
    fused = fuse([(1, 9.0), (2, 5.0)], [(1, 0.8), (3, 0.7)], dense_weight=0.5, k=10)
    assert ids(fused) == [1, 2, 3]
    first = fused[0]
    assert (first.lexical_rank, first.dense_rank) == (1, 1)
    assert (first.lexical_score, first.dense_score) == (9.0, 0.8)
    assert first.score == pytest.approx(0.5 / 11 + 0.5 / 11)
    assert (fused[1].dense_rank, fused[2].lexical_rank) == (None, None)


def test_a_small_dense_weight_only_reorders_close_full_text_ranks():
    lexical = [(i, 10.0 - i) for i in range(1, 9)]
    dense = [(8, 0.9), (2, 0.8)]  # dense loves the 8th and the 2nd
    fused = ids(fuse(lexical, dense, dense_weight=0.1, k=10))
    assert fused[:2] == [2, 1]  # neighbours in full text: dense breaks the tie
    assert fused.index(8) > 3  # 8th by full text is not lifted into the top 4


def test_a_chunk_no_term_matched_comes_after_the_full_text_matches():
    fused = ids(fuse([(1, 3.0), (2, 2.0)], [(7, 0.99)], dense_weight=0.1, k=10))
    assert fused == [1, 2, 7]


def test_weights_at_the_ends_give_one_legs_order():
    lexical, dense = [(1, 3.0), (2, 2.0)], [(2, 0.9), (3, 0.8)]
    assert ids(fuse(lexical, dense, dense_weight=0.0, k=10)) == [1, 2]
    assert ids(fuse(lexical, dense, dense_weight=1.0, k=10)) == [2, 3]


@pytest.mark.parametrize(("weight", "k"), [(-0.1, 10), (1.5, 10), (0.5, -1)])
def test_bad_parameters_are_refused(weight, k):
    with pytest.raises(ValueError, match=r"dense_weight|k must"):
        fuse([], [], dense_weight=weight, k=k)


rankings = st.lists(st.integers(0, 40), unique=True, max_size=30)


@given(rankings, rankings, st.floats(0.01, 0.99), st.integers(0, 100))
def test_fusion_keeps_every_chunk_once_best_first(lexical, dense, weight, k):
    fused = fuse(
        [(c, float(-i)) for i, c in enumerate(lexical)],
        [(c, 1.0 - i / 100) for i, c in enumerate(dense)],
        dense_weight=weight,
        k=k,
    )
    assert sorted(ids(fused)) == sorted(set(lexical) | set(dense))
    assert all(a.score >= b.score for a, b in itertools.pairwise(fused))
    for f in fused:
        assert (f.lexical_rank is None) == (f.chunk_id not in lexical)
        assert (f.dense_rank is None) == (f.chunk_id not in dense)
        if f.lexical_rank:
            assert lexical[f.lexical_rank - 1] == f.chunk_id


@given(rankings, rankings, st.floats(0.01, 0.99), st.integers(0, 100))
def test_a_chunk_better_ranked_by_both_legs_is_fused_higher(lexical, dense, weight, k):
    fused = fuse(
        [(c, 0.0) for c in lexical], [(c, 0.0) for c in dense], dense_weight=weight, k=k
    )
    position = {f.chunk_id: i for i, f in enumerate(fused)}
    for a in set(lexical) & set(dense):
        for b in set(lexical) & set(dense):
            if lexical.index(a) < lexical.index(b) and dense.index(a) < dense.index(b):
                assert position[a] < position[b]


@given(rankings, st.floats(0.0, 0.99))
def test_without_a_dense_leg_the_full_text_order_stands(lexical, weight):
    fused = fuse([(c, 1.0) for c in lexical], [], dense_weight=weight, k=10)
    assert ids(fused) == lexical


def test_the_default_weights_need_six_full_text_ranks_for_a_top_4():
    assert lexical_depth(4, dense_weight=0.1, rrf_k=10, cap=40) == 6
    assert lexical_depth(4, dense_weight=0.5, rrf_k=10, cap=40) == 40
    assert lexical_depth(4, dense_weight=0.0, rrf_k=10, cap=40) == 4


@given(
    st.lists(st.integers(0, 60), unique=True, max_size=50),
    st.lists(st.integers(0, 60), unique=True, max_size=50),
    st.integers(1, 8),
    st.floats(0.0, 0.6),
    st.integers(0, 60),
)
def test_full_text_cut_at_its_depth_gives_the_same_top_k(lexical, dense, k, weight, K):
    depth = lexical_depth(k, dense_weight=weight, rrf_k=K, cap=1000)
    full = fuse(
        [(c, 1.0) for c in lexical], [(c, 1.0) for c in dense], dense_weight=weight, k=K
    )
    cut = fuse(
        [(c, 1.0) for c in lexical[:depth]],
        [(c, 1.0) for c in dense],
        dense_weight=weight,
        k=K,
    )
    assert [f.score for f in cut[:k]] == pytest.approx([f.score for f in full[:k]])
