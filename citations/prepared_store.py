"""Stored prepared forms (issue 27 item 5): a large revision's text is folded
and indexed once, after ingestion, and every process reads that instead of
building it again on its first quote (citations.cascade.prepared: ~2 s at
5 MB to build, ~0.1 s to read).

`prepared_store` builds and stores a revision's form (the task
`prepare_revision` calls it after each new revision); `prepared_warm` puts a
stored form in this process's cache before a verification reads the text
(`citations.verdicts.RevisionText.of` calls it). A form made by other code
(`FORMAT`) is never read: it is rebuilt and replaced.
"""

from __future__ import annotations

import logging
import uuid

from django.db import IntegrityError, transaction

from accounts.scoping import tenant_scope, unscoped
from citations.cascade import prepared
from citations.models import PreparedForm
from ingest.models import DocumentRevision
from lib.worker.enqueue import send_on_commit

logger = logging.getLogger(__name__)

# Below this a text is prepared in milliseconds: storing it saves nothing.
STORE_MIN_CHARS = 200_000


def prepared_store(revision: DocumentRevision) -> bool:
    """Build and store the revision's prepared form unless a current one is
    stored; True when one was written."""
    text = revision.normalized_content
    if len(text) < STORE_MIN_CHARS:
        return False
    stored = PreparedForm.objects.filter(revision_id=revision.pk).only("format").first()
    if stored is not None and stored.format == prepared.FORMAT:
        return False
    data = prepared.dumps(prepared.prepare(text))
    fields = {"format": prepared.FORMAT, "data": data, "chars": len(text)}
    try:
        with transaction.atomic():
            if stored is not None:
                PreparedForm.objects.filter(pk=stored.pk).update(**fields)
            else:
                PreparedForm.objects.create(
                    tenant_id=revision.tenant_id, revision_id=revision.pk, **fields
                )
    except IntegrityError:
        return False  # another worker stored it meanwhile
    return True


def prepared_warm(revision: DocumentRevision) -> bool:
    """Load the revision's stored form into this process's cache, when its
    text is large, not cached yet and a current form is stored. True when
    the cache holds it afterwards. The lookup names the revision's tenant
    itself, so a caller outside a tenant scope (a task) may call it too."""
    text = revision.normalized_content
    if len(text) < STORE_MIN_CHARS:
        return False
    if prepared.cached(text) is not None:
        return True
    with unscoped():
        data = (
            PreparedForm.objects.filter(
                tenant_id=revision.tenant_id,
                revision_id=revision.pk,
                format=prepared.FORMAT,
            )
            .values_list("data", flat=True)
            .first()
        )
    if data is None:
        _queue_once(revision.pk)  # none yet, or one made by other code
        return False
    loaded = prepared.loads(text, bytes(data))
    if loaded is None:
        logger.warning("stored prepared form of revision %s unreadable", revision.pk)
        return False
    prepared.seed(loaded)
    return True


# Revisions this process has asked a worker to prepare: one request each,
# however many quotes are verified against them meanwhile.
_queued: set[uuid.UUID] = set()


def prepared_request(revision: DocumentRevision) -> None:
    """Ask a worker, after the commit, to store a large new revision's form
    (ingest's revision_created calls this through citations.receivers)."""
    if len(revision.normalized_content or "") >= STORE_MIN_CHARS:
        _queue(revision.pk)


def _queue_once(revision_id: uuid.UUID) -> None:
    """A large revision read without a current form (ingested before forms
    were stored, or by a deploy whose code prepares differently) gets one."""
    if revision_id in _queued:
        return
    _queued.add(revision_id)
    _queue(revision_id)


def _queue(revision_id: uuid.UUID) -> None:
    from citations.tasks import prepare_revision

    # Lost with a broker outage, it is asked for again by the next process
    # that verifies against the revision (_queue_once).
    send_on_commit(prepare_revision, str(revision_id))


def revision_prepare(*, revision_id: uuid.UUID) -> bool:
    """The task's body: the revision looked up by key, then stored in its
    tenant's scope. A revision deleted meanwhile is nothing to do."""
    with unscoped():
        revision = (
            DocumentRevision.objects.select_related("tenant")
            .filter(pk=revision_id)
            .first()
        )
    if revision is None:
        return False
    with tenant_scope(revision.tenant):
        return prepared_store(revision)
