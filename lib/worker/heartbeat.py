"""A heartbeat for long task bodies.

A worker killed with SIGKILL leaves no trace but the row it was working on.
While a body runs, a daemon thread calls `beat()` every few seconds (it writes
a timestamp on that row); a sweeper that finds the timestamp older than a few
beats knows the worker is gone and queues the work again, long before the
broker would give the unacknowledged message back (its visibility timeout).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connections

logger = logging.getLogger(__name__)


@contextmanager
def heartbeat(beat: Callable[[], object], *, every: float) -> Iterator[None]:
    """Call `beat()` every `every` seconds in a thread while the block runs.

    The thread's database connection is its own (Django's are per thread) and
    is closed when the block ends. A failing beat is logged, never raised: the
    work goes on, and at worst a sweeper queues it again (every task that uses
    this is idempotent).
    """
    stop = threading.Event()

    def run() -> None:
        try:
            while not stop.wait(every):
                try:
                    beat()
                except Exception:
                    logger.warning("heartbeat failed", exc_info=True)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run, name="heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=max(1.0, every))
