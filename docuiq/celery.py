from __future__ import annotations

import os

from celery import Celery
from celery.signals import worker_process_init

from lib.worker import redis_transport
from lib.worker.liveness import WorkerAlive

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "docuiq.settings")

# Before any connection: a worker that outlives a broker restart.
redis_transport.install()

app = Celery("docuiq")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.steps["consumer"].add(WorkerAlive)


@worker_process_init.connect
def _warm(**_kwargs) -> None:
    """Each child warms before its first task (docuiq/warmup.py)."""
    from docuiq.warmup import warm_process

    warm_process()
