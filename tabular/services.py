"""Tabular review services: create, start, cancel, re-run a cell.

Contracts:
- `review_create` stores the review, its rows (documents in the operator's
  order, duplicates dropped; an id that names no document of the tenant is
  kept as a `missing` row), its columns and one pending cell per (row,
  column), in one transaction. It does not start the run.
- `review_start` marks the review `queued` and publishes the run task after
  commit (the review is the task's record, CEL-10). Starting a review that
  is queued or running does nothing more; a finished or cancelled review with
  pending cells runs again and only those cells run. A broker that is down
  leaves it queued for `reviews_sweep`.
- `review_cancel` is a conditional UPDATE (queued/running -> cancelled); the
  executor notices between cells. Finished cells are kept.
- `cell_rerun` resets one finished cell to pending and starts the review.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from ingest.models import Document
from lib.exceptions import DocuIQError
from lib.worker.enqueue import send_on_commit
from tabular import column_types
from tabular.models import Cell, Review, ReviewColumn, ReviewDocument

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import Tenant

logger = logging.getLogger(__name__)

MAX_DOCUMENTS = 500
MAX_COLUMNS = 50


class ReviewError(DocuIQError):
    code = "invalid_review"


@dataclass(frozen=True)
class ColumnSpec:
    name: str
    question: str
    type: str = column_types.TEXT
    description: str = ""
    options: tuple[str, ...] = ()


_SPEC_RE = re.compile(
    r"^\s*(?P<name>[^:()]+?)\s*(?:\((?P<type>[^)]*)\))?\s*:\s*(?P<question>.+)$", re.S
)
# "Options: A | B | C" after an options column's question, in the form's lines.
_OPTIONS_RE = re.compile(r"\s*\[(?P<options>[^\]]*)\]\s*$")
MAX_OPTIONS = 20
# A cell without a reviewer's edit (reverting an edit, re-running a cell).
NO_EDIT = {
    "edited_value": "",
    "edited_typed_value": None,
    "edited_support": "",
    "edited_support_reason": "",
    "edit_note": "",
    "edited_by": None,
    "edited_at": None,
}


def column_type(raw: str) -> str:
    """A column type from its name or an alias ("yes/no", "amount", "list");
    ReviewError if unknown."""
    found = column_types.column_type(raw)
    if found is None:
        raise ReviewError(
            f"Unknown column type {raw!r}: use {column_types.names()}.",
            code="invalid_column_type",
        )
    return found.key


def column_options(kind: str, options: Sequence[str]) -> tuple[str, ...]:
    """An options column's choices, cleaned (blank and repeated ones dropped);
    ReviewError when an options column has fewer than two, or another type has any."""
    cleaned: list[str] = []
    for option in options:
        option = " ".join(str(option).split())[:200]
        if option and option.casefold() not in {o.casefold() for o in cleaned}:
            cleaned.append(option)
    if kind != column_types.OPTIONS:
        if cleaned:
            raise ReviewError(
                "Only an options column lists options.", code="invalid_column"
            )
        return ()
    if len(cleaned) < 2 or len(cleaned) > MAX_OPTIONS:
        raise ReviewError(
            f"An options column needs 2 to {MAX_OPTIONS} options, "
            '"Name (options): question [A | B | C]".',
            code="invalid_column",
        )
    return tuple(cleaned)


def parse_column(spec: str) -> ColumnSpec:
    """``"Name: question"`` or ``"Name (type): question"``, an options column
    ending with its options in brackets: ``"Termination right (options): Who
    may terminate? [Either party | Customer only | None]"``."""
    match = _SPEC_RE.match(spec)
    if not match or not match.group("question").strip():
        raise ReviewError(
            f'Column {spec!r} is not "Name: question" (or "Name (type): question").',
            code="invalid_column",
        )
    kind = (
        column_type(match.group("type")) if match.group("type") else column_types.TEXT
    )
    question = match.group("question").strip()
    options: tuple[str, ...] = ()
    listed = _OPTIONS_RE.search(question)
    if listed and kind == column_types.OPTIONS:
        options = tuple(listed.group("options").split("|"))
        question = question[: listed.start()].strip()
    return ColumnSpec(
        name=match.group("name").strip(),
        question=question,
        type=kind,
        options=column_options(kind, options),
    )


def _document_uuid(value: object) -> uuid.UUID:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except (ValueError, TypeError, AttributeError):
        raise ReviewError(
            f"{value!r} is not a document id.", code="invalid_document_id"
        ) from None


@transaction.atomic
def review_create(
    *,
    tenant: Tenant,
    name: str,
    document_ids: Sequence[object],
    columns: Sequence[ColumnSpec],
    user: AbstractBaseUser | None = None,
) -> Review:
    """Create a review with its rows, columns and pending cells (see module docstring)."""
    name = (name or "").strip() or "Untitled review"
    ids: list[uuid.UUID] = []
    for raw in document_ids:
        doc_id = _document_uuid(raw)
        if doc_id not in ids:
            ids.append(doc_id)
    if not ids:
        raise ReviewError("Choose at least one document.", code="no_documents")
    if len(ids) > MAX_DOCUMENTS:
        raise ReviewError(
            f"A review can have at most {MAX_DOCUMENTS} documents.",
            code="too_many_documents",
        )
    if not columns:
        raise ReviewError("Add at least one column.", code="no_columns")
    if len(columns) > MAX_COLUMNS:
        raise ReviewError(
            f"A review can have at most {MAX_COLUMNS} columns.", code="too_many_columns"
        )
    specs = []
    for spec in columns:
        if not spec.name.strip() or not spec.question.strip():
            raise ReviewError(
                "Every column needs a name and a question.", code="invalid_column"
            )
        kind = column_type(spec.type)
        specs.append(
            ColumnSpec(
                name=spec.name.strip()[:200],
                question=spec.question.strip()[:4000],
                type=kind,
                description=(spec.description or "").strip()[:4000],
                options=column_options(kind, spec.options or ()),
            )
        )
    user = (
        user
        if (
            user is not None
            and getattr(user, "is_authenticated", False)
            and getattr(user, "pk", None)
        )
        else None
    )
    with tenant_scope(tenant):
        review = Review.objects.create(tenant=tenant, name=name[:200], created_by=user)
        titles = dict(Document.objects.filter(pk__in=ids).values_list("pk", "title"))
        rows = ReviewDocument.objects.bulk_create(
            [
                ReviewDocument(
                    tenant=tenant,
                    review=review,
                    document_uid=doc_id,
                    document_id=doc_id if doc_id in titles else None,
                    title=(titles.get(doc_id) or "")[:500],
                    order=order,
                    state=(
                        ReviewDocument.State.PENDING
                        if doc_id in titles
                        else ReviewDocument.State.MISSING
                    ),
                    error=""
                    if doc_id in titles
                    else "No such document in this workspace.",
                )
                for order, doc_id in enumerate(ids)
            ]
        )
        cols = ReviewColumn.objects.bulk_create(
            [
                ReviewColumn(
                    tenant=tenant,
                    review=review,
                    name=spec.name,
                    question=spec.question,
                    description=spec.description,
                    type=spec.type,
                    options=list(spec.options),
                    order=order,
                )
                for order, spec in enumerate(specs)
            ]
        )
        if any(r.pk is None for r in rows) or any(c.pk is None for c in cols):
            rows = list(ReviewDocument.objects.filter(review=review).order_by("order"))
            cols = list(ReviewColumn.objects.filter(review=review).order_by("order"))
        Cell.objects.bulk_create(
            [
                Cell(tenant=tenant, review=review, row=r, column=c)
                for r in rows
                for c in cols
            ],
            batch_size=1000,
        )
    return review


def review_start(*, review: Review) -> Review:
    """Queue the review's run (see module docstring). Returns it refreshed."""
    with tenant_scope(review.tenant):
        if review.status in Review.ACTIVE:
            if review.status == Review.Status.QUEUED:
                _enqueue(review)  # a second nudge is harmless: the run is idempotent
            review.refresh_from_db()
            return review
        has_work = Cell.objects.filter(
            review=review, status=Cell.Status.PENDING
        ).exists()
        if not has_work and review.status == Review.Status.COMPLETED:
            return review
        with transaction.atomic():
            Review.objects.filter(pk=review.pk).exclude(
                status__in=Review.ACTIVE
            ).update(status=Review.Status.QUEUED, finished_at=None, error="")
            _enqueue(review)
        review.refresh_from_db()
        return review


def review_cancel(*, review: Review) -> bool:
    """Cancel a queued or running review; False if it had already finished."""
    with tenant_scope(review.tenant):
        changed = Review.objects.filter(pk=review.pk, status__in=Review.ACTIVE).update(
            status=Review.Status.CANCELLED, finished_at=timezone.now()
        )
        review.refresh_from_db()
        if changed:
            # Results so far, so the grid and exports are complete for what ran.
            from tabular.selectors import review_results

            Review.objects.filter(pk=review.pk).update(results=review_results(review))
        return bool(changed)


def cell_rerun(*, cell: Cell, user: AbstractBaseUser | None = None) -> Cell:
    """Reset a finished cell to pending and start its review. A running or
    pending cell is left alone (it is about to be answered anyway). The new
    answer is unreviewed: a reviewer's state and edit belonged to the old one
    (the CellEvent history keeps both)."""
    from tabular.models import CellEvent

    with tenant_scope(cell.review.tenant):
        with transaction.atomic():
            previous = Cell.objects.filter(pk=cell.pk).first()
            reset = Cell.objects.filter(pk=cell.pk, status__in=Cell.FINISHED).update(
                status=Cell.Status.PENDING,
                outcome="",
                value="",
                typed_value=None,
                support="",
                support_reason="",
                confidence="",
                model_confidence="",
                confidence_rule="",
                searched={},
                justification="",
                quote="",
                error="",
                message=None,
                citation=None,
                cited_chunk_ids=[],
                retrieved_chunk_ids=[],
                used_fallback=False,
                run_token=None,
                attempts=0,
                started_at=None,
                finished_at=None,
                prompt_tokens=0,
                completion_tokens=0,
                cost_usd=0,
                review_state=Cell.ReviewState.UNREVIEWED,
                reviewed_by=None,
                reviewed_at=None,
                **NO_EDIT,
            )
            if reset and previous is not None:
                who = user if getattr(user, "is_authenticated", False) else None
                CellEvent.objects.create(
                    tenant_id=previous.tenant_id,
                    cell=previous,
                    action=CellEvent.Action.RERUN,
                    user=who,
                    user_name=who.get_username()[:150] if who else "",
                    value_before=previous.shown_value,
                    state_before=previous.review_state,
                    state_after=Cell.ReviewState.UNREVIEWED,
                )
        review_start(review=Review.objects.get(pk=cell.review_id))
        cell.refresh_from_db()
        return cell


def _enqueue(review: Review) -> None:
    """Queue the run after commit (`send_on_commit`: a broker that is down
    leaves the review queued for `reviews_sweep`, CEL-07). Eager Celery (no
    broker) runs it right there, or in a background thread with
    TABULAR_EAGER_THREAD (so `make run` shows the grid filling in)."""
    from tabular.tasks import run_review

    review_id = str(review.pk)
    if settings.CELERY_TASK_ALWAYS_EAGER and getattr(
        settings, "TABULAR_EAGER_THREAD", False
    ):
        transaction.on_commit(
            lambda: threading.Thread(
                target=_run_in_thread, args=(review_id,), daemon=True
            ).start()
        )
        return
    send_on_commit(run_review, review_id)


def _run_in_thread(review_id: str) -> None:
    from django.db import connection

    from tabular.tasks import run_review

    try:
        run_review.apply(args=(review_id,))
    finally:
        connection.close()


def reviews_sweep(*, stale_after_s: int | None = None) -> int:
    """Queue again reviews left queued (broker down) or running without a
    heartbeat (worker lost for good). Returns how many were queued."""
    if stale_after_s is None:
        stale_after_s = settings.TABULAR_STALE_AFTER_S
    cutoff = timezone.now() - timedelta(seconds=stale_after_s)
    with unscoped():
        active = list(
            Review.objects.filter(status__in=Review.ACTIVE).select_related("tenant")
        )
    count = 0
    for review in active:
        last = review.heartbeat_at or review.updated_at
        if last >= cutoff:
            continue
        with tenant_scope(review.tenant):
            Review.objects.filter(pk=review.pk).update(heartbeat_at=timezone.now())
            with transaction.atomic():
                _enqueue(review)
        count += 1
    return count
