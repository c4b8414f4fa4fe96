"""A memo for the cascade's small pure functions of words.

functools.lru_cache keeps each entry in a link object the garbage collector
tracks: the cascade's word caches hold up to 65k entries each, and every full
collection walked them all (~6 ms for one full cache, landing in whichever
query it interrupted). A plain dict of strings, numbers and tuples of them
is untracked after one collection. It is emptied when full instead of
evicting the least recently used entry: word caches refill within a document.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from enum import Enum
from functools import wraps
from typing import Final, TypeVar

R = TypeVar("R")


class _Missing(Enum):
    # An enum's lone member, so a type checker knows a value that is not it
    # is a result.
    MISSING = 0


_MISSING: Final = _Missing.MISSING


def memo(limit: int) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Memoize a pure function of positional, hashable arguments (strings,
    numbers) whose results are strings, numbers, booleans or tuples of them."""

    def decorate(function: Callable[..., R]) -> Callable[..., R]:
        found: dict[Hashable, R] = {}

        @wraps(function)
        def remembered(*args: Hashable) -> R:
            key = args[0] if len(args) == 1 else args
            value = found.get(key, _MISSING)
            if value is not _MISSING:
                return value
            value = function(*args)
            if len(found) >= limit:
                found.clear()
            found[key] = value
            return value

        remembered.entries = found  # type: ignore[attr-defined]
        return remembered

    return decorate
