"""Which query terms are worth searching for.

A natural-language question becomes an OR query, and OR-ing a word that
occurs in most chunks ("agreement" in a contract library) makes the engine
rank nearly every chunk while adding almost nothing to the ranking (its IDF
is near zero). Terms whose document frequency is above COMMON_FRACTION are
dropped (when every term is that common, only the rarest is kept), so the
query touches only the chunks that can win. Both engines report frequencies from their own
statistics (see _sqlite.py and _postgres.py).
"""

from __future__ import annotations

COMMON_FRACTION = 0.12
# Below this many chunks an OR over every term is cheap, and frequencies
# measured on a handful of chunks say nothing about a word's information.
MIN_CHUNKS_TO_PRUNE = 5000
MAX_TERMS = 5


def selective(frequencies: dict[str, float], *, total_chunks: int) -> list[str]:
    """Terms (keys) to query, rarest first; terms that match nothing are dropped.

    `frequencies` maps each term to the fraction of chunks containing it
    (0 when it occurs nowhere).
    """
    present = sorted((f, t) for t, f in frequencies.items() if f > 0)
    if not present:
        return []
    if total_chunks < MIN_CHUNKS_TO_PRUNE:
        return [t for _, t in present]
    kept = [t for f, t in present if f <= COMMON_FRACTION]
    # The rarest terms carry the ranking; capping them bounds how many chunks
    # an OR query has to rank, whatever the question's length.
    return kept[:MAX_TERMS] or [present[0][1]]
