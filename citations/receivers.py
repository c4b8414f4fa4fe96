from __future__ import annotations

from lib.worker.enqueue import send_on_commit


def reverify_on_new_revision(
    sender, *, document, revision, previous_revision, **kwargs
) -> None:
    """A document changed: its citations are checked again against the new text."""
    if previous_revision is None:
        return
    from citations.tasks import reverify_document_citations

    send_on_commit(reverify_document_citations, str(document.pk), run_here_if_down=True)


def prepare_on_new_revision(sender, *, document, revision, **kwargs) -> None:
    """A large new revision: its prepared form is built and stored once, by a
    worker, for every process's first quote on it."""
    from citations.prepared_store import prepared_request

    prepared_request(revision)
