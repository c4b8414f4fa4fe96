"""Sending a task after the commit, so that a broker error loses nothing.

Every row whose work is queued says so itself (a document `queued`, a
citation `pending`, a review `running` with a heartbeat): a sweep
(lib/worker/beat.py) finds the rows whose message never left or was lost, and
queues them again. So a broker that is down at commit time is logged here,
never raised into the request or task that committed (which would turn a
stored answer into a 500, or stop an ingestion half-way), and work that a
person is waiting for can be run in this process instead.

The only place in the project that calls `.delay()` after a commit.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from celery import current_app
from django.db import connections, transaction
from kombu.exceptions import KombuError
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# What a publish raises when the broker cannot be reached: kombu's wrapped
# OperationalError, or a socket or Redis error it passed through. Anything
# else (a task that cannot be serialized) is a bug and is raised.
BROKER_ERRORS = (KombuError, OSError, RedisError)


def send_on_commit(
    task: Any,
    *args: Any,
    run_here_if_down: bool = False,
    on_sent: Callable[[], object] | None = None,
) -> None:
    """After the current transaction commits, send `task(*args)`.

    A broker that cannot take the message is logged; the row stays for its
    sweep. With `run_here_if_down`, the task then runs in this process, in a
    thread, so a person's answer is verified without a broker (the sweep
    still covers a process that dies first). `on_sent` runs once the broker
    has the message, or the eager task has run (e.g. to record when it was
    sent, which the sweeps read).
    """
    transaction.on_commit(
        lambda: send(task, *args, run_here_if_down=run_here_if_down, on_sent=on_sent)
    )


def send(
    task: Any,
    *args: Any,
    run_here_if_down: bool = False,
    on_sent: Callable[[], object] | None = None,
) -> bool:
    """Send `task(*args)` now; False when the broker could not take it.

    Eager Celery (no broker): the task runs here and its errors propagate,
    as `.delay()` would. `apply()` rather than `.delay()` there: a producer
    would pin the app's connection pool to memory:// for the process.
    """
    if current_app.conf.task_always_eager:
        task.apply(args=args)
    else:
        try:
            task.delay(*args)
        except BROKER_ERRORS:
            logger.warning(
                "broker unavailable: %s%r %s",
                task.name,
                args,
                "runs in this process" if run_here_if_down else "is left to its sweep",
            )
            if run_here_if_down:
                run_here(task, *args)
            return False
    if on_sent is not None:
        on_sent()
    return True


def run_here(task: Any, *args: Any) -> threading.Thread:
    """Run the task's body in a thread of this process (its own database
    connection, closed at the end); an error is logged, the row stays for
    its sweep."""

    def body() -> None:
        try:
            task.apply(args=args, throw=True)
        except Exception:
            logger.exception("%s%r failed in process", task.name, args)
        finally:
            connections.close_all()

    thread = threading.Thread(target=body, name=f"run-here:{task.name}", daemon=True)
    thread.start()
    return thread
