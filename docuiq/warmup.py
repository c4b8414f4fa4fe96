"""What every process needs before its first request, loaded once at start.

A new gunicorn worker, Celery child or CLI run used to pay for it on the first
request it served (issue 34: ~2.6 s CPU, ~30x a warm ask): the guard's word
list (citations.cascade.lexicon, ~0.5 s), the embedder's model (WordLlama),
the model client and its SDK (the `openai` import, when a model server is
configured; imported lazily otherwise), the URLconf (every view and API
module, loaded by the first request that resolves a route), and the
cascade's compiled tables (a quote verified once). `warm_process` does all of it, each part timed;
gunicorn calls it in the master before forking (preload: the workers share
what it loaded, copy-on-write) and again in `post_fork` (a no-op when warm),
Celery in `worker_process_init`.

Hot documents, the revisions most recently cited, are read into the
process's caches too (their search index, their prepared form for the
cascade), in the processes that may use the database: each gunicorn worker
after fork and each Celery child, never the master.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

_warmed: dict[str, float] = {}


def _lexicon() -> None:
    from citations.cascade import lexicon

    lexicon.frequency("the")
    lexicon.is_spelled("agreement")


def _embedder() -> None:
    from llm.configured import embedder

    found = embedder()
    if found is not None:
        found.embed(["warm up"])


def _model_client() -> None:
    from django.conf import settings

    if getattr(settings, "LLM_BASE_URL", None):
        from llm.configured import provider

        provider()


def _routes() -> None:
    # The URLconf loads on the first request that resolves or reverses a
    # route: every view, DRF, drf-spectacular and the exporters with it
    # (~2.5 s CPU on the first ask, measured by bench/first_request.py).
    from django.urls import get_resolver

    resolver = get_resolver()
    len(resolver.reverse_dict)


def _tasks() -> None:
    # The Celery app finalizes its task registry on the first task sent.
    from docuiq.celery import app

    app.finalize(auto=True)
    len(app.tasks)


def _cascade() -> None:
    from citations.cascade import verify_quote
    from citations.values import find_jurisdictions

    text = "The Buyer shall pay the Seller within thirty (30) days. Disputes go to the courts of New York."
    verify_quote(text, "The Buyer shall pay the Seller within thirty (30) days")
    verify_quote(text, "The Buyer shall pay the Seller within 30 days")
    find_jurisdictions(text)


# Revisions most recently cited, read into this process's caches by a
# process that may use the database (never gunicorn's master: a connection
# opened before fork would be shared by every worker).
HOT_DOCUMENTS = 32


def _hot_documents() -> None:
    from django.db import connections
    from django_scopes import scopes_disabled

    from citations.cascade.prepared import prepare
    from citations.models import MessageCitation
    from citations.prepared_store import prepared_warm
    from ingest.models import DocumentRevision
    from ingest.search.within import revision_index

    try:
        with scopes_disabled():
            recent = (
                MessageCitation.objects.exclude(revision_id=None)
                .order_by("-created_at")
                .values_list("revision_id", flat=True)[: HOT_DOCUMENTS * 8]
            )
            ids = list(dict.fromkeys(recent))[:HOT_DOCUMENTS]
            for revision in DocumentRevision.objects.filter(pk__in=ids):
                revision_index(revision.pk)
                prepared_warm(revision)
                prepare(revision.normalized_content)
    finally:
        connections.close_all()


PARTS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("url routes", _routes),
    ("task registry", _tasks),
    ("word list", _lexicon),
    ("embedder", _embedder),
    ("model client", _model_client),
    ("cascade", _cascade),
)


DATABASE_PARTS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("hot documents", _hot_documents),
)


def warm_process(database: bool = True) -> dict[str, float]:
    """Load every part once per process; {part: ms it took}. `database`:
    also the parts that read the database (False in gunicorn's master). A
    part that fails is logged and left to load on first use: warming must
    never stop a worker from starting."""
    for name, part in (*PARTS, *(DATABASE_PARTS if database else ())):
        if name in _warmed:
            continue
        started = time.perf_counter()
        try:
            part()
        except Exception:  # a warm-up failure is never fatal
            logger.exception("Warm-up of the %s failed; it loads on first use.", name)
            continue
        _warmed[name] = round((time.perf_counter() - started) * 1000, 1)
    return dict(_warmed)
