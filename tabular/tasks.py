"""Tabular tasks: thin shells over tabular.executor and tabular.services.

`run_review` is acked late and idempotent (see tabular.executor): a worker
killed mid-run gets the message back, the next delivery takes the run over
and does only the cells that are not finished. A delivery works for at most
TABULAR_SLICE_S seconds, then queues a continuation, so a 2,000-cell review
never runs into the task time limit or the broker's visibility timeout.
"""

from __future__ import annotations

from celery import current_app, shared_task
from django.conf import settings

from lib.worker.enqueue import send


def _slice_s() -> float:
    return float(getattr(settings, "TABULAR_SLICE_S", 150))


# Room for the cells in flight when the slice ends: each may take the model's
# timeout once per try. The broker's visibility timeout (2 x the global hard
# limit) stays above this hard limit with the default settings.
_IN_FLIGHT_S = float(getattr(settings, "LLM_TIMEOUT_S", 60)) * (
    int(getattr(settings, "LLM_MAX_RETRIES", 2)) + 1
)
SOFT_TIME_LIMIT = int(_slice_s() + _IN_FLIGHT_S + 30)
TIME_LIMIT = SOFT_TIME_LIMIT + 30


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    soft_time_limit=SOFT_TIME_LIMIT,
    time_limit=TIME_LIMIT,
)
def run_review(review_id: str) -> str:
    from tabular.executor import review_run

    with _heartbeat(review_id):
        outcome = review_run(review_id=review_id, budget_s=_slice_s())
    if outcome.more and outcome.ran:
        # Time's up with cells left: the next slice. A delivery that made no
        # progress (a persistent error) leaves the review to the sweeper.
        # (`send`: a broker that is down leaves the review to the sweeper.)
        send(run_review, review_id)
    return outcome.status


def _heartbeat(review_id: str):
    """The executor beats between cells; this beats while every cell waits on
    a slow model too, so `reviews_sweep` tells a live run from a dead one
    within TABULAR_STALE_AFTER_S. Eager Celery: nothing to lose, no thread."""
    from contextlib import nullcontext

    from django.utils import timezone

    from accounts.scoping import unscoped
    from lib.worker.heartbeat import heartbeat
    from tabular.models import Review

    if current_app.conf.task_always_eager:
        return nullcontext()

    def beat() -> None:
        with unscoped():
            Review.objects.filter(pk=review_id, status=Review.Status.RUNNING).update(
                heartbeat_at=timezone.now()
            )

    return heartbeat(beat, every=settings.TABULAR_HEARTBEAT_S)


@shared_task(ignore_result=True)
def sweep_reviews() -> int:
    from tabular.services import reviews_sweep

    return reviews_sweep()
