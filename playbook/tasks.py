"""Playbook tasks: thin shells. A run's cells are tabular's `run_review`
task (one queue); the playbook's own work is the suggested wording."""

from __future__ import annotations

from celery import shared_task


@shared_task(acks_late=True, ignore_result=True, autoretry_for=(), max_retries=0)
def suggest_wording(finding_id: int) -> str:
    from playbook.suggestions import suggest_wording as suggest

    return suggest(int(finding_id))
