from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(
    predicate: Callable[[], bool], *, timeout: float = 60.0, interval: float = 0.2
) -> bool:
    """Poll until `predicate()` is true; False if the timeout passes first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False
