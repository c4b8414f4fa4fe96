"""The bit-parallel matcher agrees with the textbook dynamic programme."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from citations.cascade.align import end_scores, paired_scores, place


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


@settings(max_examples=300, deadline=None)
@given(
    st.text("abcd", min_size=1, max_size=70),
    st.text("abcde", max_size=130),
    st.text("abcd", min_size=1, max_size=70),
    st.text("abcde", max_size=130),
)
@example("ab", "xxab", "ba", "ba")  # a match at the top of the first text
def test_paired_scores_are_two_independent_searches(pattern, text, other, other_text):
    # Head and tail share one pass; neither may leak into the other.
    other = (other * len(pattern))[: len(pattern)]
    assert paired_scores(pattern, text, other, other_text) == (
        _semi_global(pattern, text),
        _semi_global(other, other_text),
    )


@settings(max_examples=300, deadline=None)
@given(
    st.text("abc ", max_size=120),
    st.text("abc ", min_size=1, max_size=90),
    st.integers(-200, 400),
    st.integers(-200, 400),
    st.integers(0, 100),
)
@example("aaaa bbbb cccc dddd", "bbbb cccc", -300, -200, 3)
@example("aaaa bbbb cccc dddd", "bbbb cccc", 300, 400, 3)
def test_place_stays_inside_the_text_whatever_the_guesses(
    text, pattern, start, end, slack
):
    s, e, *_ = place(text, pattern, start, end, slack)
    assert 0 <= s <= len(text) and 0 <= e <= len(text)


def test_place_with_an_end_guess_past_the_text():
    # Seen on ICDAR: the start lands after the end window, which is then empty.
    text = "and to that purpose hee took a good cudgell in his hand"
    s, e, *_ = place(text, "hand, and so forth", 50, 200, 5)
    assert 0 <= s <= len(text) and 0 <= e <= len(text)
