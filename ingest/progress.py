"""What an upload is doing, per file, for the documents page's upload list.

The page sends each file in its own request and asks here, by file name,
while that request runs: with a broker the request returns once the file is
stored, and in the default eager mode only after the file is read, so the
reading (page 3 of 48) is only visible by asking. Stages are rows of
STAGES: the first whose rule holds names the document's state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from ingest.models import Document

if TYPE_CHECKING:
    from accounts.models import Tenant

RECENT = timedelta(minutes=30)  # an older document of that name is not this upload
NAMES_MAX = 20


@dataclass(frozen=True)
class Stage:
    key: str
    applies: Callable[[Document], bool]
    label: Callable[[Document], str]


def _pages(d: Document) -> str:
    return f"{d.progress_total} page{'s' if d.progress_total != 1 else ''}"


STAGES: tuple[Stage, ...] = (
    Stage(
        "failed",
        lambda d: d.status == Document.Status.FAILED,
        lambda d: d.error or "Failed",
    ),
    Stage(
        "ready",
        lambda d: d.status == Document.Status.READY,
        lambda d: f"Ready · {_pages(d)}" if d.progress_total else "Ready",
    ),
    Stage(
        "finishing",
        lambda d: (
            d.status == Document.Status.PROCESSING
            and d.progress_total > 0
            and d.progress_done >= d.progress_total
            and d.current_revision_id is not None
        ),
        lambda d: "Storing attachments and search vectors",
    ),
    Stage(
        "reading",
        lambda d: d.status == Document.Status.PROCESSING and d.progress_total > 0,
        lambda d: f"Reading page {max(1, d.progress_done)} of {d.progress_total}",
    ),
    Stage(
        "opening",
        lambda d: d.status == Document.Status.PROCESSING,
        lambda d: "Opening the file",
    ),
    Stage("queued", lambda d: True, lambda d: "Waiting to be read"),
)


def stage_of(document: Document) -> Stage:
    return next(s for s in STAGES if s.applies(document))


def upload_progress(*, tenant: Tenant, names: list[str], user=None) -> list[dict]:
    """For each file name, the newest recent top-level document uploaded
    under it (by `user` when given), with its stage; None where there is none
    yet (the file is still on its way)."""
    since = timezone.now() - RECENT
    out = []
    for sent in names[:NAMES_MAX]:
        # Stored as services._safe_filename stores it: the last path part.
        name = Path(sent.replace("\\", "/")).name.replace("\x00", "").strip()[:255]
        qs = (
            Document.objects.with_scope(tenant=tenant.pk)
            .filter(parent__isnull=True, is_deleted=False, updated_at__gte=since)
            .filter(Q(file__filename=name) | Q(title=name))
        )
        if user is not None and getattr(user, "is_authenticated", False):
            qs = qs.filter(Q(uploaded_by=user) | Q(uploaded_by__isnull=True))
        document = qs.order_by("-updated_at").first()
        if document is None:
            out.append({"name": sent, "document": None})
            continue
        stage = stage_of(document)
        out.append(
            {
                "name": sent,
                "document": {
                    "id": str(document.pk),
                    "title": document.title,
                    "status": document.status,
                    "stage": stage.key,
                    "label": stage.label(document),
                    "done": document.progress_done,
                    "total": document.progress_total,
                    "url": reverse("ingest:document-detail", args=[document.pk]),
                },
            }
        )
    return out
