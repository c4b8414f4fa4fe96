from __future__ import annotations

import sys

import pytest

from lib.tables import row_added

TABLE = ("a", "b")


def test_a_row_is_in_the_table_only_while_the_block_runs():
    with row_added(__name__, "TABLE", "c") as row:
        assert row == "c"
        assert sys.modules[__name__].TABLE == ("a", "b", "c")
    assert TABLE == ("a", "b")


def test_the_table_is_restored_when_the_block_raises():
    with pytest.raises(RuntimeError), row_added(__name__, "TABLE", "c"):
        raise RuntimeError
    assert TABLE == ("a", "b")
