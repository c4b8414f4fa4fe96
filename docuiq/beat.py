"""Celery beat for DocuIQ's sweeps: beat runs each sweep itself.

Every entry of CELERY_BEAT_SCHEDULE is a sweep (ingest.tasks.sweep_documents,
tabular.tasks.sweep_reviews, chat.tasks.sweep_questions). Published as
ordinary tasks they would wait behind whatever fills the queue, and a busy
pool (two 5-minute PDFs) would delay the very recovery they exist for; run
here they take a few queries every CELERY_SWEEP_S seconds, whatever the
workers are doing. The schedule is kept in memory (no beat file): a sweep
missed while beat was down is simply run at its next tick.

`make worker` starts beat inside the worker (`celery worker -B`). Sweeps
claim each row with a conditional UPDATE, so several workers each running
their own beat do no harm beyond a few extra queries.
"""

from __future__ import annotations

import logging

from celery.beat import Scheduler
from django.db import close_old_connections

logger = logging.getLogger(__name__)


class SweepScheduler(Scheduler):
    @property
    def producer(self):
        # Beat publishes nothing itself (a sweep's .delay() uses the app's
        # producer pool), so it never blocks on a broker that is down.
        return None

    def apply_async(self, entry, producer=None, advance=True, **kwargs):
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
