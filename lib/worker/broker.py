"""Did the broker lose its queues? A question only the broker can answer.

Redis without persistence forgets every queued message when it restarts (and
so does a FLUSHALL, or an eviction under memory pressure). Rows that say
"queued" then wait for a message that no longer exists. Each sweeper leaves a
marker key in the broker when it looks; if the marker is gone at its next
look, whatever the broker held before then is gone too, and the sweeper
queues those rows again. One GET and one SET per sweep, whatever the length
of the queue.

Only Redis brokers are asked; for any other broker (or when the broker cannot
be reached) the answer is "not known to be lost" and the sweepers' time-based
fallback applies.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import redis

logger = logging.getLogger(__name__)

MARKER_PREFIX = "docuiq:broker-marker:"


def _redis_client() -> redis.Redis | None:
    from celery import current_app

    url = str(current_app.conf.broker_url or "")
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    import redis

    return redis.Redis.from_url(url, socket_timeout=3, socket_connect_timeout=3)


def broker_lost_since_last_look(name: str) -> bool:
    """True when the marker that sweeper `name` left at its last look is gone.

    The first look of all (no marker yet) counts as a loss too: a sweeper
    cannot tell a new broker from an emptied one, and queueing again what is
    queued already only costs a redelivery that finds nothing to do.
    """
    try:
        client = _redis_client()
        if client is None:
            return False
        key = MARKER_PREFIX + name
        # SET ... GET: one round trip returns the old marker and leaves a new one.
        previous = client.set(key, str(time.time()), get=True)
        client.close()
    except Exception:
        logger.info("broker not reachable; loss check for %s skipped", name)
        return False
    if previous is None:
        logger.warning(
            "broker holds no marker for %s: its queues were lost (or this is "
            "the first sweep); rows waiting on it are queued again",
            name,
        )
        return True
    return False
