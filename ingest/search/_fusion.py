"""Weighted reciprocal rank fusion of the full-text and dense rankings.

A chunk ranked ``r`` (1-based) by a leg of weight ``w`` earns ``w / (k + r)``;
its fused score is the sum over the legs that ranked it. Ranks, not scores,
are fused because BM25 (SQLite), ts_rank (PostgreSQL) and cosine live on
different scales.

The defaults (full text 0.9, dense 0.1, k = 10) were measured on CUAD with the
offline WordLlama embedder (bench/retrieval_eval.py): dense retrieval alone
found the expert's clause in the top 4 for 43% of the tune questions against
61% for full text, and equal weights made retrieval worse. At 0.1 the dense
rank reorders only chunks full text ranks close together, and a chunk no term
matches comes after the first ~90 that full text ranks (it fills the list
when fewer match), so a weak embedder cannot push the lexical match out, and a
better one still helps break ties.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Required, TypedDict


@dataclass(frozen=True)
class Fused:
    chunk_id: int
    score: float
    lexical_rank: int | None
    lexical_score: float | None
    dense_rank: int | None
    dense_score: float | None


class _Entry(TypedDict, total=False):
    """A chunk's fused score so far, and its rank and score in each leg
    that lists it."""

    score: Required[float]
    lexical_rank: int
    lexical_score: float
    dense_rank: int
    dense_score: float


def fuse(
    lexical: list[tuple[int, float]],
    dense: list[tuple[int, float]],
    *,
    dense_weight: float,
    k: int,
) -> list[Fused]:
    """Both legs' (chunk id, score) lists, best first, fused best first.

    Ties (same fused score) keep the full-text order, then the dense order.
    """
    if not 0.0 <= dense_weight <= 1.0:
        raise ValueError(f"dense_weight must be within [0, 1], not {dense_weight}")
    if k < 0:
        raise ValueError(f"k must be >= 0, not {k}")
    lexical_weight = 1.0 - dense_weight
    entries: dict[int, _Entry] = {}
    for rank, (chunk_id, score) in enumerate(lexical, start=1):
        entry = entries.setdefault(chunk_id, {"score": 0.0})
        if "lexical_rank" in entry:
            continue  # a leg lists each chunk once; keep its best rank
        entry["lexical_rank"], entry["lexical_score"] = rank, float(score)
        entry["score"] += lexical_weight / (k + rank)
    for rank, (chunk_id, score) in enumerate(dense, start=1):
        entry = entries.setdefault(chunk_id, {"score": 0.0})
        if "dense_rank" in entry:
            continue
        entry["dense_rank"], entry["dense_score"] = rank, float(score)
        entry["score"] += dense_weight / (k + rank)
    fused = [
        Fused(
            chunk_id=chunk_id,
            score=entry["score"],
            lexical_rank=entry.get("lexical_rank"),
            lexical_score=entry.get("lexical_score"),
            dense_rank=entry.get("dense_rank"),
            dense_score=entry.get("dense_score"),
        )
        for chunk_id, entry in entries.items()
        if entry["score"] > 0  # a leg of weight 0 adds nothing
    ]
    unranked = len(entries) + 1
    fused.sort(
        key=lambda f: (
            -f.score,
            f.lexical_rank or unranked,
            f.dense_rank or unranked,
        )
    )
    return fused


def lexical_depth(k: int, *, dense_weight: float, rrf_k: int, cap: int) -> int:
    """How deep the full-text ranking must go for the fused top k to be exact.

    A chunk at full-text rank r reaches the fused top k only if even the best
    dense rank lifts it over the k-th full-text chunk:
    (1-w)/(K+r) + w/(K+1) >= (1-w)/(K+k). Beyond the r that solves this,
    ranking more full-text matches only costs time (at 0.9/0.1 and K = 10,
    the top 4 need 6 full-text ranks, not 40). `cap` when any rank could.
    """
    lexical_weight = 1.0 - dense_weight
    if lexical_weight <= 0:
        return k
    margin = lexical_weight / (rrf_k + k) - dense_weight / (rrf_k + 1)
    if margin <= 0:
        return max(k, cap)
    deepest = int(lexical_weight / margin - rrf_k)
    return max(k, min(cap, deepest))
