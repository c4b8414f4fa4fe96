"""No citation pending forever: the sweep that queues verification again.

A citation is stored `pending` and its verification is sent after the commit
(lib.worker.enqueue). The message can be lost: a broker down at commit time, a
Redis restarted without persistence, a worker killed with the message
unacknowledged past its retries. Beat runs `citations_sweep` every
CELERY_SWEEP_S: a citation still pending CITATIONS_PENDING_AFTER_S after it
was stored (or any pending one, when the broker lost its queues) is queued
again, each at most once per that interval (a judge that is down keeps its
citations pending without flooding the queue). Verification is idempotent:
a second delivery finds the verdict written and stops.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from accounts.scoping import unscoped
from citations.models import MessageCitation, Status
from lib.worker.broker import broker_lost_since_last_look
from lib.worker.enqueue import send

REQUEUED_KEY = "docuiq:citation-requeued:"
SWEEP_LIMIT = 500  # per sweep: a backlog drains over several sweeps


def citations_sweep() -> int:
    """Queue verification again for stranded pending citations; returns how
    many were sent."""
    from citations.tasks import verify_citation

    after = float(settings.CITATIONS_PENDING_AFTER_S)
    lost = broker_lost_since_last_look("citations")
    with unscoped():
        pending = MessageCitation.objects.filter(
            verification_status=Status.PENDING
        ).exclude(quoted_text="")
        if not lost:
            pending = pending.filter(
                created_at__lt=timezone.now() - timedelta(seconds=after)
            )
        ids = list(
            pending.order_by("created_at").values_list("pk", flat=True)[
                : 4 * SWEEP_LIMIT
            ]
        )
    sent = 0
    for citation_id in ids:
        key = f"{REQUEUED_KEY}{citation_id}"
        # Queued again by a recent sweep (lost or not, the answer is on its way).
        if not lost and not cache.add(key, 1, timeout=after):
            continue
        if not send(verify_citation, str(citation_id), "initial"):
            cache.delete(key)
            break  # the broker is down: the next sweep tries again
        if lost:
            cache.set(key, 1, timeout=after)
        sent += 1
        if sent >= SWEEP_LIMIT:
            break
    return sent
