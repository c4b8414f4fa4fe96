"""One table of months (lib.months) for every date reader."""

from __future__ import annotations

from lib.months import MONTH_ABBREVIATIONS, MONTHS


def test_each_abbreviation_names_the_month_it_starts() -> None:
    for short, number in MONTH_ABBREVIATIONS.items():
        (name,) = [
            m for m, n in MONTHS.items() if n == number and m.startswith(short[:3])
        ]
        assert name.startswith(short)


def test_every_month_has_an_abbreviation() -> None:
    assert set(MONTH_ABBREVIATIONS.values()) == set(MONTHS.values())
