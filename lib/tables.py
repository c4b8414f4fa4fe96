"""Kind tables (column types, connectors, file types): a row added while a
block runs, as a "how to add a …" test registers its fake kind."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

Row = TypeVar("Row")


@contextmanager
def row_added(module: str, table: str, row: Row) -> Iterator[Row]:
    """`row` is the last row of `module`'s tuple `table` while the block runs.
    Code reads the table by its module-level name at call time, so it sees
    the row; the table is the same tuple as before once the block ends."""
    owner = sys.modules[module]
    before = getattr(owner, table)
    setattr(owner, table, (*before, row))
    try:
        yield row
    finally:
        setattr(owner, table, before)
