"""gunicorn settings for `make serve` (docs/production.md); each can be set
from the environment.

Threaded workers (gthread): a request that waits (a streamed answer, a
synchronous ask on a slow model) holds a thread, not a whole process. Two
processes per core plus one, as gunicorn's design notes advise for sync
workers, each with a few threads; more only adds queueing on two cores.
"""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count() + 1))
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "4"))
# A synchronous ask waits for the model (LLM_TIMEOUT_S with retries); long
# answers should use ask/async or the streamed chat page.
timeout = int(os.environ.get("WEB_TIMEOUT_S", "180"))
graceful_timeout = 30
keepalive = 5
# Recycle workers now and then: a slow leak never grows for good.
max_requests = 5000
max_requests_jitter = 500
# Heartbeat files in memory, not on a disk that may stall.
worker_tmp_dir = "/dev/shm" if Path("/dev/shm").is_dir() else None
accesslog = os.environ.get("WEB_ACCESS_LOG") or None
errorlog = "-"
# X-Forwarded-* are believed only from these addresses (the proxy in front).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# The app is loaded once in the master and warmed there (docuiq/warmup.py):
# every worker, and every one max_requests recycles, is forked with the word
# lists and models in memory, shared copy-on-write, so its first request
# costs what the hundredth does. WEB_PRELOAD=0 loads the app per worker.
preload_app = os.environ.get("WEB_PRELOAD", "1") != "0"


def when_ready(server) -> None:
    if preload_app:
        from docuiq.warmup import warm_process

        server.log.info("warmed before forking: %s", warm_process(database=False))


def post_fork(server, worker) -> None:
    # Without preload each worker loads and warms its own copy; with it this
    # finds everything warm. Connections are never opened in the master.
    from docuiq.warmup import warm_process

    warm_process()
