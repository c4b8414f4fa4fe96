"""Column detection on synthetic line boxes (PDF user space: y grows upwards)."""

from __future__ import annotations

from ingest.extractors.pdf_layout import Segment, reading_order

LINE = 14.0
TOP = 760.0


def column(
    x0: float, x1: float, n: int, first_index: int, top: float = TOP, chars: int = 40
) -> list[Segment]:
    return [
        Segment(
            first_index + i * chars,
            first_index + (i + 1) * chars,
            x0,
            top - i * LINE - 9,
            x1,
            top - i * LINE,
        )
        for i in range(n)
    ]


def order(lines: list[list[Segment]]) -> list[int]:
    return [seg.start for line in lines for seg in line]


def test_single_column_keeps_the_original_order():
    assert reading_order(column(56, 540, 40, 0)) is None


def test_two_columns_under_a_heading_read_left_then_right():
    heading = Segment(10_000, 10_050, 56, 790, 500, 804)
    left = column(56, 280, 30, 0)
    right = column(310, 540, 30, 5000)
    interleaved = [heading] + [
        s for pair in zip(left, right, strict=True) for s in pair
    ]
    lines = reading_order(interleaved)
    assert lines is not None
    assert order(lines) == [10_000] + [s.start for s in left] + [s.start for s in right]


def test_three_columns():
    cols = [column(40 + k * 180, 200 + k * 180, 25, k * 10_000) for k in range(3)]
    lines = reading_order([s for row in zip(*cols, strict=True) for s in row])
    assert lines is not None
    assert order(lines) == [s.start for col in cols for s in col]


def test_full_width_line_splits_the_columns_into_bands():
    upper_left, upper_right = column(56, 280, 10, 0), column(310, 540, 10, 1000)
    figure = Segment(50_000, 50_080, 56, TOP - 10 * LINE - 20, 540, TOP - 10 * LINE - 9)
    lower_top = TOP - 10 * LINE - 40
    lower_left, lower_right = (
        column(56, 280, 10, 2000, lower_top),
        column(310, 540, 10, 3000, lower_top),
    )
    lines = reading_order(
        upper_left + upper_right + [figure] + lower_left + lower_right
    )
    assert lines is not None
    expected = upper_left + upper_right + [figure] + lower_left + lower_right
    assert order(lines) == [s.start for s in expected]


def test_label_value_table_stays_in_row_order():
    labels = column(56, 110, 30, 0, chars=8)
    # Short labels of varying width in a wide left column: not a text column.
    labels = [
        Segment(s.start, s.end, s.x0, s.y0, s.x0 + 20 + (i % 5) * 30, s.y1)
        for i, s in enumerate(labels)
    ]
    values = column(300, 540, 30, 5000)
    assert (
        reading_order([s for pair in zip(labels, values, strict=True) for s in pair])
        is None
    )


def test_blocks_at_different_heights_are_not_columns():
    upper_right = column(310, 540, 6, 0)
    lower_left = column(56, 280, 6, 1000, top=TOP - 300)
    assert reading_order(upper_right + lower_left) is None


def test_vertical_margin_text_goes_last():
    stamp = Segment(90_000, 90_030, 20, 100, 28, 700)
    left, right = column(56, 280, 30, 0), column(310, 540, 30, 5000)
    lines = reading_order([stamp, *left, *right])
    assert lines is not None
    assert order(lines)[-1] == 90_000
