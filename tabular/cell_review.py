"""Reviewing cells: approve, flag, clear, edit a value with a note, revert.

"Verified" stays the engine's word (the quote is in the document); a
reviewer's word is separate: a cell is `unreviewed`, `approved` or
`flagged`, and may carry an edited value beside the engine's. An edited
value is checked against the cell's verified quote exactly as a model's
value is (`tabular.reading.value_support`), so an edit the quote does not
support says so.

Contracts (each runs in one transaction, records one `CellEvent` with who
and when, and returns the cell refreshed):

- `cell_approve`: a done cell (answered or not found) -> approved.
- `cell_flag`: a done or failed cell -> flagged, with an optional note.
- `cell_clear`: back to unreviewed.
- `cell_edit`: a done cell gets `value` (required) with a `note`
  (required: an edit says why); the engine's value is kept.
- `cell_revert`: the edit is dropped; the engine's value shows again.

A cell that is not finished (pending, running) raises ReviewError
(`cell_not_finished`): there is nothing to review yet. Acting on a cell
whose state is already the one asked for records nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from tabular import column_types
from tabular.models import Cell, CellEvent
from tabular.reading import value_support
from tabular.services import NO_EDIT, ReviewError

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

MAX_VALUE_CHARS = 2000
MAX_NOTE_CHARS = 4000


def _user(user: AbstractBaseUser | None) -> tuple[AbstractBaseUser | None, str]:
    if user is None or not getattr(user, "is_authenticated", False):
        return None, ""
    return user, user.get_username()[:150]


def _locked(cell: Cell) -> Cell:
    return (
        Cell.objects.select_for_update(of=("self",))
        .select_related("column", "citation")
        .get(pk=cell.pk)
    )


def _event(
    cell: Cell,
    action: str,
    user: AbstractBaseUser | None,
    *,
    note: str = "",
    value_before: str = "",
    value_after: str = "",
    state_before: str = "",
    state_after: str = "",
) -> CellEvent:
    who, name = _user(user)
    return CellEvent.objects.create(
        tenant_id=cell.tenant_id,
        cell=cell,
        action=action,
        user=who,
        user_name=name,
        note=note[:MAX_NOTE_CHARS],
        value_before=value_before,
        value_after=value_after,
        state_before=state_before,
        state_after=state_after,
    )


def _set_state(
    cell: Cell,
    state: str,
    action: str,
    user: AbstractBaseUser | None,
    note: str,
    allowed: tuple[str, ...],
) -> Cell:
    with transaction.atomic():
        locked = _locked(cell)
        if locked.status not in allowed:
            raise ReviewError(
                "This cell has no answer to review yet.", code="cell_not_finished"
            )
        if locked.review_state != state:
            who, _ = _user(user)
            before = locked.review_state
            Cell.objects.filter(pk=locked.pk).update(
                review_state=state,
                reviewed_by=who if state != Cell.ReviewState.UNREVIEWED else None,
                reviewed_at=timezone.now()
                if state != Cell.ReviewState.UNREVIEWED
                else None,
            )
            _event(
                locked,
                action,
                user,
                note=note.strip(),
                value_before=locked.shown_value,
                value_after=locked.shown_value,
                state_before=before,
                state_after=state,
            )
    cell.refresh_from_db()
    return cell


def cell_approve(*, cell: Cell, user: AbstractBaseUser | None, note: str = "") -> Cell:
    return _set_state(
        cell,
        Cell.ReviewState.APPROVED,
        CellEvent.Action.APPROVE,
        user,
        note,
        (Cell.Status.DONE,),
    )


def cell_flag(*, cell: Cell, user: AbstractBaseUser | None, note: str = "") -> Cell:
    return _set_state(
        cell, Cell.ReviewState.FLAGGED, CellEvent.Action.FLAG, user, note, Cell.FINISHED
    )


def cell_clear(*, cell: Cell, user: AbstractBaseUser | None, note: str = "") -> Cell:
    return _set_state(
        cell,
        Cell.ReviewState.UNREVIEWED,
        CellEvent.Action.CLEAR,
        user,
        note,
        Cell.FINISHED,
    )


def cell_edit(
    *, cell: Cell, user: AbstractBaseUser | None, value: str, note: str
) -> Cell:
    """Give a done cell the reviewer's value, checked against its quote."""
    value = " ".join((value or "").split())
    note = (note or "").strip()
    if not value:
        raise ReviewError("Type the value the cell should show.", code="value_required")
    if len(value) > MAX_VALUE_CHARS:
        raise ReviewError(
            f"A value has at most {MAX_VALUE_CHARS} characters.", code="value_too_long"
        )
    if not note:
        raise ReviewError(
            "Say why the value changes (a note is kept with the edit).",
            code="note_required",
        )
    with transaction.atomic():
        locked = _locked(cell)
        if locked.status != Cell.Status.DONE:
            raise ReviewError(
                "Only an answered or not-found cell can be edited; re-run a failed one.",
                code="cell_not_finished",
            )
        column = locked.column
        options = column.options or ()
        citation = locked.citation
        quote = (
            citation.source_text if citation is not None and citation.verified else ""
        )
        support = value_support(column.type, value, quote, options)
        typed = column_types.read_typed(value, column.type, options)
        if isinstance(typed, list) or typed is None:
            typed_json = column_types.typed_json(typed) if typed else None
        else:
            typed_json = column_types.typed_json(typed)
        who, _ = _user(user)
        before = locked.shown_value
        Cell.objects.filter(pk=locked.pk).update(
            edited_value=value,
            edited_typed_value=typed_json,
            edited_support=support.state,
            edited_support_reason=support.reason[:2000],
            edit_note=note[:MAX_NOTE_CHARS],
            edited_by=who,
            edited_at=timezone.now(),
        )
        _event(
            locked,
            CellEvent.Action.EDIT,
            user,
            note=note,
            value_before=before,
            value_after=value,
            state_before=locked.review_state,
            state_after=locked.review_state,
        )
    cell.refresh_from_db()
    return cell


def cell_revert(*, cell: Cell, user: AbstractBaseUser | None, note: str = "") -> Cell:
    """Drop the reviewer's value: the engine's shows again."""
    with transaction.atomic():
        locked = _locked(cell)
        if not locked.is_edited:
            return cell
        Cell.objects.filter(pk=locked.pk).update(**NO_EDIT)
        _event(
            locked,
            CellEvent.Action.REVERT,
            user,
            note=note.strip(),
            value_before=locked.edited_value,
            value_after=locked.value,
            state_before=locked.review_state,
            state_after=locked.review_state,
        )
    cell.refresh_from_db()
    return cell


def cell_history(cell: Cell) -> list[CellEvent]:
    """The cell's review history, newest first."""
    return list(CellEvent.objects.filter(cell=cell).order_by("-created_at", "-id"))
