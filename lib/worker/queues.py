"""Two queues: interactive work (a person waits for it) before bulk work.

`interactive`: answers to questions asked with ask/async and citation
verification, which a badge on a page waits for. `bulk`: ingestion, tabular
reviews, source syncs, re-verification of a changed document, prepared forms
and playbook suggestions. A worker serving both (`make worker`) reads them in
that order (the Redis transport's `priority` queue order), so a burst of bulk
work never puts a question behind it; a worker started with
`-Q interactive` keeps pool slots that bulk work can never take
(docs/production.md).

Names carry `CELERY_QUEUE_PREFIX` (tests give each run its own), read when a
task is sent, so a test may change it after start-up.
"""

from __future__ import annotations

from typing import Any

INTERACTIVE = "interactive"
BULK = "bulk"

# Tasks a person waits for; every other task is bulk.
INTERACTIVE_TASKS = frozenset(
    {
        "chat.tasks.answer_question",
        "citations.tasks.verify_message_citations",
        "citations.tasks.verify_citation",
    }
)


def queue_name(lane: str, prefix: str | None = None) -> str:
    """The queue for `lane` (INTERACTIVE or BULK) under the configured prefix."""
    if prefix is None:
        from django.conf import settings

        prefix = getattr(settings, "CELERY_QUEUE_PREFIX", "")
    return f"{prefix}{lane}"


def lane_of(task_name: str) -> str:
    return INTERACTIVE if task_name in INTERACTIVE_TASKS else BULK


def route_task(
    name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **kw: Any
) -> dict[str, str]:
    """Celery's router (CELERY_TASK_ROUTES): every task to its lane's queue."""
    return {"queue": queue_name(lane_of(name))}
