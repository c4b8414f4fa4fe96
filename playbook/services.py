"""Playbook services: create, replace, import, edit positions, delete.

Contracts:
- `playbook_create(tenant, spec)` stores a playbook and its positions in one
  transaction; a name the tenant already uses raises PlaybookError
  (`name_taken`). Nothing is stored on any error.
- `playbook_import(tenant, text, filename)` reads a YAML or JSON file
  (playbook.schema; PlaybookFileError lists each problem by line) and
  creates it; `replace=playbook` replaces that playbook's name, description
  and positions instead (its runs keep their own snapshots).
- `position_save(playbook, data, position=None)` adds or edits one position
  from the page's form, checked by the same tables as a file
  (PlaybookFileError names the field).
- `position_delete`, `position_move`, `playbook_delete`.
- `playbook_spec(playbook)` is the stored playbook as a spec (export).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction

from lib.exceptions import DocuIQError
from playbook.models import Playbook, Position
from playbook.schema import (
    MAX_POSITIONS,
    PlaybookFileError,
    PlaybookSpec,
    PositionSpec,
    Problem,
    read_playbook,
    spec_from_data,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import Tenant

SAMPLE = Path(__file__).resolve().parent / "samples" / "commercial.yaml"


class PlaybookError(DocuIQError):
    code = "invalid_playbook"


def _user(user: AbstractBaseUser | None) -> AbstractBaseUser | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return user if getattr(user, "pk", None) else None


def _position_rows(
    tenant: Tenant, playbook: Playbook, specs: tuple[PositionSpec, ...]
) -> list[Position]:
    return [
        Position(
            tenant=tenant,
            playbook=playbook,
            order=order,
            **_position_fields(p, list),
        )
        for order, p in enumerate(specs)
    ]


# A position's fields are PositionSpec's (the file's); these two are lists in
# the database and tuples in a spec.
_SPEC_FIELDS = tuple(f.name for f in dataclasses.fields(PositionSpec))
_LIST_FIELDS = ("options", "fallbacks")


def _position_fields(obj: Any, sequence: type) -> dict[str, Any]:
    """PositionSpec's fields read from `obj` (a spec or a Position), its list
    fields as `sequence`."""
    return {
        name: sequence(getattr(obj, name) or ())
        if name in _LIST_FIELDS
        else getattr(obj, name)
        for name in _SPEC_FIELDS
    }


def _name_free(tenant: Tenant, name: str, exclude: Playbook | None = None) -> None:
    taken = Playbook.objects.filter(tenant=tenant, name__iexact=name)
    if exclude is not None:
        taken = taken.exclude(pk=exclude.pk)
    if taken.exists():
        raise PlaybookError(
            f"A playbook named {name!r} already exists: choose another name.",
            code="name_taken",
        )


def playbook_create(
    *, tenant: Tenant, spec: PlaybookSpec, user: AbstractBaseUser | None = None
) -> Playbook:
    try:
        with transaction.atomic():
            _name_free(tenant, spec.name)
            playbook = Playbook.objects.create(
                tenant=tenant,
                name=spec.name,
                description=spec.description,
                created_by=_user(user),
            )
            Position.objects.bulk_create(
                _position_rows(tenant, playbook, spec.positions)
            )
    except IntegrityError:  # a concurrent create took the name
        raise PlaybookError(
            f"A playbook named {spec.name!r} already exists: choose another name.",
            code="name_taken",
        ) from None
    return playbook


def playbook_replace(*, playbook: Playbook, spec: PlaybookSpec) -> Playbook:
    """Replace the playbook's name, description and positions with the spec's."""
    with transaction.atomic():
        _name_free(playbook.tenant, spec.name, exclude=playbook)
        Playbook.objects.filter(pk=playbook.pk).update(
            name=spec.name, description=spec.description
        )
        Position.objects.filter(playbook=playbook).delete()
        Position.objects.bulk_create(
            _position_rows(playbook.tenant, playbook, spec.positions)
        )
    playbook.refresh_from_db()
    return playbook


def playbook_import(
    *,
    tenant: Tenant,
    text: str | bytes,
    filename: str = "",
    fmt: str | None = None,
    user: AbstractBaseUser | None = None,
    replace: Playbook | None = None,
) -> Playbook:
    spec = read_playbook(text, filename=filename, fmt=fmt)
    if replace is not None:
        return playbook_replace(playbook=replace, spec=spec)
    return playbook_create(tenant=tenant, spec=spec, user=user)


def playbook_from_data(
    *, tenant: Tenant, data: Any, user: AbstractBaseUser | None = None
) -> Playbook:
    """A playbook from a REST body (the file's fields as JSON)."""
    return playbook_create(tenant=tenant, spec=spec_from_data(data), user=user)


def sample_import(
    *, tenant: Tenant, user: AbstractBaseUser | None = None, name: str | None = None
) -> Playbook:
    """The sample commercial playbook, under `name` if given. Idempotent
    for the demo: an existing playbook of that name is returned as it is."""
    spec = read_playbook(SAMPLE.read_text(encoding="utf-8"), filename=SAMPLE.name)
    if name:
        spec = PlaybookSpec(
            name=name, description=spec.description, positions=spec.positions
        )
    existing = Playbook.objects.filter(tenant=tenant, name=spec.name).first()
    if existing is not None:
        return existing
    return playbook_create(tenant=tenant, spec=spec, user=user)


def playbook_delete(*, playbook: Playbook) -> None:
    """Delete a playbook and its positions; its runs stay (with their own
    snapshot of the positions and the playbook's name)."""
    playbook.delete()


# ---------------------------------------------------------------- positions


def position_spec(position: Position) -> PositionSpec:
    return PositionSpec(**_position_fields(position, tuple))


def playbook_spec(playbook: Playbook) -> PlaybookSpec:
    return PlaybookSpec(
        name=playbook.name,
        description=playbook.description,
        positions=tuple(
            position_spec(p)
            for p in Position.objects.filter(playbook=playbook).order_by("order")
        ),
    )


def position_save(
    *, playbook: Playbook, data: dict[str, Any], position: Position | None = None
) -> Position:
    """Add a position (at the end) or edit one, from the form's fields
    (title, question, type, options, standard, rule, fallbacks, fallback_rule,
    deviation, severity, if_absent, guidance, search). Options and fallbacks
    may be one per line. Checked by the file's tables: PlaybookFileError
    names each bad field."""
    fields = dict(data)
    for name in ("options", "fallbacks"):
        value = fields.get(name)
        if isinstance(value, str):
            fields[name] = [line for line in value.splitlines() if line.strip()]
    fields = {k: v for k, v in fields.items() if v not in (None, "", [])}
    with transaction.atomic():
        others = list(
            Position.objects.filter(playbook=playbook)
            .exclude(pk=getattr(position, "pk", None))
            .order_by("order")
        )
        if position is None and len(others) >= MAX_POSITIONS:
            raise PlaybookFileError(
                [
                    Problem(
                        None,
                        "positions",
                        f"a playbook has at most {MAX_POSITIONS} positions",
                    )
                ]
            )
        # Checked as one position of a playbook, so duplicate titles are caught.
        index = len(others)
        try:
            spec = spec_from_data(
                {
                    "name": playbook.name,
                    "positions": [
                        {"title": o.title, "question": "-", "standard": "-"}
                        for o in others
                    ]
                    + [fields],
                }
            )
        except PlaybookFileError as exc:
            raise PlaybookFileError(
                [
                    Problem(
                        None, p.where.replace(f"positions[{index}].", ""), p.message
                    )
                    for p in exc.problems
                    if p.where.startswith(f"positions[{index}]")
                ]
                or exc.problems
            ) from None
        p = spec.positions[-1]
        values = {
            "title": p.title,
            "question": p.question,
            "type": p.type,
            "options": list(p.options),
            "standard": p.standard,
            "rule": p.rule,
            "fallbacks": list(p.fallbacks),
            "fallback_rule": p.fallback_rule,
            "deviation": p.deviation,
            "severity": p.severity,
            "if_absent": p.if_absent,
            "guidance": p.guidance,
            "search": p.search,
        }
        if position is None:
            last = max((o.order for o in others), default=-1)
            position = Position.objects.create(
                tenant=playbook.tenant, playbook=playbook, order=last + 1, **values
            )
        else:
            Position.objects.filter(pk=position.pk).update(**values)
            position.refresh_from_db()
        Playbook.objects.filter(pk=playbook.pk).update(
            name=playbook.name
        )  # touches updated_at
    return position


def position_delete(*, position: Position) -> None:
    position.delete()


def position_move(*, position: Position, by: int) -> None:
    """Move a position up (-1) or down (+1) in the playbook's order."""
    with transaction.atomic():
        ordered = list(
            Position.objects.select_for_update()
            .filter(playbook_id=position.playbook_id)
            .order_by("order")
        )
        index = next(i for i, p in enumerate(ordered) if p.pk == position.pk)
        target = index + by
        if not 0 <= target < len(ordered):
            return
        ordered[index], ordered[target] = ordered[target], ordered[index]
        # Two passes: the (playbook, order) constraint holds at every step.
        top = len(ordered) + 1000
        for i, p in enumerate(ordered):
            Position.objects.filter(pk=p.pk).update(order=top + i)
        for i, p in enumerate(ordered):
            Position.objects.filter(pk=p.pk).update(order=i)
