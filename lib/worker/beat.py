"""Celery beat for DocuIQ's sweeps: beat runs each sweep itself.

Every entry of CELERY_BEAT_SCHEDULE is a sweep (ingest.tasks.sweep_documents
and sweep_sources, tabular.tasks.sweep_reviews, chat.tasks.sweep_questions,
citations.tasks.sweep_citations). Published as
ordinary tasks they would wait behind whatever fills the queue, and a busy
pool (two 5-minute PDFs) would delay the very recovery they exist for; run
here they take a few queries every CELERY_SWEEP_S seconds, whatever the
workers are doing. The schedule is kept in memory (no beat file): a sweep
missed while beat was down is simply run at its next tick.

Beat is a process of its own (`make beat`), never inside a worker (`-B`): a
worker that dies (or is killed with SIGKILL, which left the embedded beat
behind as an orphan) takes no sweep with it, and the supervisor restarts
each on its own (docs/production.md). Sweeps claim each row with a
conditional UPDATE, so a second beat does no harm beyond a few queries.
"""

from __future__ import annotations

import logging
from typing import Any

from celery.beat import Scheduler
from django.conf import settings
from django.db import close_old_connections

from lib.worker.liveness import touch

logger = logging.getLogger(__name__)


class SweepScheduler(Scheduler):
    def tick(self, *args: Any, **kwargs: Any) -> float:
        # Beat is alive while it ticks (at least every CELERY_SWEEP_S).
        touch(getattr(settings, "CELERY_BEAT_ALIVE_FILE", ""))
        seconds: float = super().tick(*args, **kwargs)  # until the next tick
        return seconds

    @property
    def producer(self) -> None:
        # Beat publishes nothing itself (a sweep's .delay() uses the app's
        # producer pool), so it never blocks on a broker that is down.
        return None

    def apply_async(
        self, entry: Any, producer: Any = None, advance: bool = True, **kwargs: Any
    ) -> None:
        entry = self.reserve(entry) if advance else entry
        task = self.app.tasks[entry.task]
        close_old_connections()
        try:
            found = task(*entry.args, **entry.kwargs)
        finally:
            close_old_connections()
        if found:
            logger.warning("%s queued %s stranded row(s) again", entry.task, found)
        return None
