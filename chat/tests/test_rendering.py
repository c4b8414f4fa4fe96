"""The order an answer's citations are read in (footer, payload)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chat.rendering import reading_order

# Few places, refs and quotes, so that ties are the rule, not the exception.
citation = st.tuples(
    st.one_of(st.none(), st.integers(0, 3)),
    st.one_of(st.none(), st.integers(0, 3)),
    st.sampled_from(["S1", "S2", "S10", "S3"]),
    st.sampled_from(["", "within 30 days", "the Supplier shall"]),
)


def _read(citations: list[tuple]) -> list[tuple]:
    return sorted(citations, key=lambda c: reading_order(*c))


@given(
    st.lists(citation, max_size=8).flatmap(
        lambda c: st.tuples(st.just(c), st.permutations(c))
    )
)
def test_citations_read_in_one_order_whatever_order_the_database_returns(pair):
    """Rows come back from the database in no promised order: the footer
    reads the same from any of them."""
    stored, returned = pair
    assert _read(returned) == _read(stored)


def test_citations_read_by_place_then_source_number():
    """ "[S10, S2]" at one place reads S2 then S10 (numbers, not text), and
    refs the answer places nowhere come last."""
    read = _read(
        [(None, None, "S1", ""), (5, 9, "S10", ""), (5, 9, "S2", ""), (0, 4, "S3", "")]
    )
    assert [c[2] for c in read] == ["S3", "S2", "S10", "S1"]
