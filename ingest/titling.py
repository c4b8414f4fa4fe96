"""Document titles after extraction (issue 32): distinct within a tenant,
renamed by a person, recomputed by `manage.py retitle`.

A title a person set (`metadata["title_from"] == "person"`) is never
replaced: not by a new revision, not by `documents_retitle`. Every change
a person or the command makes is a `TitleChange` row (who, from what, to
what, how).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from ingest.extractors.titles import (
    TitleChoice,
    distinct_title,
    document_title,
    opening_of,
    title_key,
    title_metadata,
)
from ingest.models import Document, TitleChange
from lib.exceptions import DocuIQError

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import Tenant

TITLE_MAX = 300
BY_PERSON = "person"
# Control characters (C0, DEL, C1) and the bidirectional overrides that can
# make a title read differently from what it holds.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class TitleInvalid(DocuIQError):
    code = "invalid_title"


def title_problem(title: str) -> str:
    """Why `title` cannot be a document's title, or ""."""
    if _CONTROL.search(title or ""):
        return (
            "A title cannot hold control characters (tabs, line breaks and the like)."
        )
    cleaned = (title or "").strip()
    if not cleaned:
        return "A title cannot be empty."
    if len(cleaned) > TITLE_MAX:
        return f"A title can be at most {TITLE_MAX} characters (this one has {len(cleaned):,})."
    return ""


def set_by_person(document: Document) -> bool:
    return (document.metadata or {}).get("title_from") == BY_PERSON


def document_rename(
    *,
    document: Document,
    title: str,
    user: AbstractBaseUser | None,
    via: str = TitleChange.Via.PAGE,
) -> Document:
    """Give a document the title a person chose, and record who did.

    Raises TitleInvalid (nothing written) for an empty title, one over
    TITLE_MAX characters or one holding control characters. The same title
    again writes nothing. Naming and `@` mentions read the new title at
    once: the name index is keyed on the documents' `updated_at`.
    """
    problem = title_problem(title)
    if problem:
        raise TitleInvalid(problem)
    title = title.strip()
    if title == document.title and set_by_person(document):
        return document
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(pk=document.pk)
        old = locked.title
        metadata = {**(locked.metadata or {}), "title_from": BY_PERSON}
        Document.objects.filter(pk=locked.pk).update(
            title=title, metadata=metadata, updated_at=timezone.now()
        )
        TitleChange.objects.create(
            tenant_id=locked.tenant_id,
            document=locked,
            old_title=old,
            new_title=title,
            changed_by=user if isinstance(user, get_user_model()) else None,
            actor=_actor(user),
            via=via,
        )
    document.refresh_from_db()
    return document


def _actor(user: object) -> str:
    """Who made a change, in words: a person's username, or the API key's
    name (an API key is no User row)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return ""
    key_name = getattr(user, "key_name", None)
    if key_name is not None:
        return f"API key {key_name}"[:200]
    return str(getattr(user, "get_username", lambda: "")())[:200]


def _taken(document: Document, title: str) -> set[str]:
    """The folded titles of the tenant's other documents that begin like
    `title` (only those can collide)."""
    rows = (
        Document.objects.with_scope(tenant=document.tenant_id)
        .filter(is_deleted=False, title__istartswith=title[:60])
        .exclude(pk=document.pk)
        .exclude(status=Document.Status.FAILED)
        .values_list("title", flat=True)
    )
    return {title_key(t) for t in rows}


def _choice(title: str, metadata: dict) -> TitleChoice:
    return TitleChoice(
        title=title,
        source=metadata.get("title_from") or "",
        kind=metadata.get("title_kind") or "",
        parties=tuple(metadata.get("title_parties") or ()),
    )


def revision_title(
    document: Document, title: str, extracted_metadata: dict
) -> tuple[str, dict]:
    """The title and metadata a new revision leaves the document with: a
    person's title and its mark are kept; otherwise the extracted title, made
    distinct from the tenant's other documents (parties, then the filer)."""
    metadata = {**(document.metadata or {}), **extracted_metadata}
    if set_by_person(document):
        metadata["title_from"] = BY_PERSON
        return document.title, metadata
    if "title_from" not in extracted_metadata:
        return title, metadata  # a thread, a row, a page: titled by its connector
    choice = _choice(title, metadata)
    return distinct_title(
        choice, document.file.filename, _taken(document, title)
    ), metadata


@dataclass(frozen=True)
class Retitled:
    document: Document
    old: str
    new: str


def _recomputed(document: Document) -> TitleChoice | None:
    revision = document.current_revision
    if revision is None:
        return None
    text = revision.normalized_content
    starts = [*(revision.page_starts or [0]), len(text)]
    pages = [text[starts[i] : starts[i + 1]] for i in range(min(2, len(starts) - 1))]
    choice = document_title(
        (document.metadata or {}).get("title") or "",
        opening_of(pages),
        document.file.filename,
    )
    if document.source_type in {Document.SourceType.PDF} or choice.kind:
        return choice
    return None  # not a contract-like text: its extractor's title stands


def documents_retitle(*, tenant: Tenant, apply: bool = True) -> Iterator[Retitled]:
    """Recompute the titles of a tenant's ready documents from their current
    text (after a change to the title rules), yielding each that changes.
    Never touches a title a person set; connector documents (a thread, a row,
    a page) keep theirs. With `apply=False` nothing is written (a dry run)."""
    documents = (
        Document.objects.with_scope(tenant=tenant.pk)
        .filter(status=Document.Status.READY, is_deleted=False)
        .filter(
            source_type__in=[
                Document.SourceType.PDF,
                Document.SourceType.TEXT,
                Document.SourceType.DOCX,
            ]
        )
        .select_related("file", "current_revision")
        .order_by("created_at")
    )
    for document in documents.iterator(chunk_size=200):
        if set_by_person(document):
            continue
        choice = _recomputed(document)
        if choice is None:
            continue
        new = distinct_title(
            choice, document.file.filename, _taken(document, choice.title)
        )
        if new == document.title:
            continue
        old = document.title
        if apply:
            with transaction.atomic():
                # A person may have renamed it since it was read: theirs wins.
                locked = Document.objects.select_for_update().get(pk=document.pk)
                if set_by_person(locked):
                    continue
                Document.objects.filter(pk=document.pk).update(
                    title=new,
                    metadata={**(locked.metadata or {}), **title_metadata(choice)},
                    updated_at=timezone.now(),
                )
                TitleChange.objects.create(
                    tenant_id=document.tenant_id,
                    document=document,
                    old_title=old,
                    new_title=new,
                    actor="manage.py retitle",
                    via=TitleChange.Via.RETITLE,
                )
            document.title = new
        yield Retitled(document=document, old=old, new=new)
