"""The task machinery's ground: queues, enqueue on commit, broker retries, heartbeats, liveness and beat's sweep scheduler (Celery, kombu and django.db only; no app)."""
