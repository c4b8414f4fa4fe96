"""The bit-parallel matcher agrees with the textbook dynamic programme."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citations.cascade.align import end_scores


def _semi_global(pattern: str, text: str) -> list[int]:
    previous = list(range(len(pattern) + 1))
    out = []
    for c in text:
        current = [0]
        for i in range(1, len(pattern) + 1):
            current.append(
                min(
                    previous[i] + 1,
                    current[i - 1] + 1,
                    previous[i - 1] + (pattern[i - 1] != c),
                )
            )
        out.append(current[-1])
        previous = current
    return out


@settings(max_examples=300, deadline=None)
@given(st.text("abcd", min_size=1, max_size=80), st.text("abcde", max_size=100))
def test_end_scores_match_the_dynamic_programme(pattern, text):
    assert end_scores(pattern, text) == _semi_global(pattern, text)
