"""Liveness files for supervisors' health checks: the worker's main loop and
beat each touch a file while they work, and a health check reads its age.

A worker whose consumer stopped (the kombu 5.7 "Unrecoverable error" of
issue 34, a hung event loop) stops touching its file; so does a beat that
stopped ticking. Reading a file's age costs nothing, where `celery inspect
ping` would start a whole Celery client every 30 s. Off unless
CELERY_WORKER_ALIVE_FILE / CELERY_BEAT_ALIVE_FILE name a path
(docs/production.md sets them).
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any

from celery import bootsteps

logger = logging.getLogger(__name__)

EVERY_S = 10.0


def touch(path: str) -> None:
    if not path:
        return
    try:
        Path(path).touch()
    except OSError:
        logger.warning("cannot touch the liveness file %s", path, exc_info=True)


class WorkerAlive(bootsteps.StartStopStep):
    """A consumer step: runs only while the worker consumes from its broker
    (a reconnect restarts it)."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        from django.conf import settings

        self.path: str = getattr(settings, "CELERY_WORKER_ALIVE_FILE", "")
        self.tref: Any = None  # the timer's entry (kombu's Entry)

    def start(self, parent: Any) -> None:
        if self.path and parent.timer is not None:
            touch(self.path)
            self.tref = parent.timer.call_repeatedly(EVERY_S, touch, (self.path,))

    def stop(self, parent: Any) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None


def check(path: str, max_age_s: float) -> int:
    """Exit status for a health check: 0 when `path` was touched within
    `max_age_s` seconds."""
    try:
        age = time.time() - Path(path).stat().st_mtime
    except OSError:
        sys.stderr.write(f"{path}: missing\n")
        return 1
    if age > max_age_s:
        sys.stderr.write(f"{path}: {age:.0f} s old\n")
        return 1
    return 0


if __name__ == "__main__":  # python -m lib.worker.liveness PATH [MAX_AGE_S]
    sys.exit(check(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 60.0))
