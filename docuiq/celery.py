from __future__ import annotations

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "docuiq.settings")

app = Celery("docuiq")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _warm(**_kwargs) -> None:
    """Each child warms before its first task (docuiq/warmup.py)."""
    from docuiq.warmup import warm_process

    warm_process()
