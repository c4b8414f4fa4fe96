"""citations/cascade/numerals.py: the number words and digit strings the
guard compares and the value readers count."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citations.cascade.numerals import (
    CARDINALS,
    CURRENCY_SIGNS,
    number_value,
)


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("1,000", "1000"),
        ("1,000.50", "1000.50"),
        ("12,345,678", "12345678"),
        (".5", "0.5"),
        ("30", "30"),
        # Not thousands as written: which reading is meant is not guessed.
        ("1.000", "1.000"),
        ("3,5", "3,5"),
        ("10,00", "10,00"),
    ],
)
def test_a_digit_string_is_compared_as_written_but_for_thousands_commas(raw, value):
    assert number_value(raw) == value


@given(st.integers(min_value=0, max_value=10**15))
def test_a_number_with_thousands_commas_is_its_plain_digits(n):
    assert number_value(f"{n:,}") == str(n)


@given(
    st.integers(min_value=0, max_value=10**9),
    st.integers(min_value=0, max_value=99),
)
def test_a_decimal_with_thousands_commas_keeps_its_fraction(n, cents):
    assert number_value(f"{n:,}.{cents:02d}") == f"{n}.{cents:02d}"


@given(st.integers(min_value=1, max_value=10**6))
def test_two_different_numbers_never_compare_equal(n):
    # The guard's promise: "within 60 days" is never "within 30 days".
    assert number_value(f"{n:,}") != number_value(f"{n + 1:,}")


def test_a_leading_point_is_never_read_as_the_whole_number():
    assert number_value(".5") != number_value("5")


def test_the_number_words_count_what_they_say():
    assert CARDINALS["thirty"] == 30
    assert CARDINALS["zero"] == 0
    assert all(isinstance(v, int) for v in CARDINALS.values())
    assert CURRENCY_SIGNS["$"] == "USD" and CURRENCY_SIGNS["€"] == "EUR"
