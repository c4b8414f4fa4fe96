"""Collections from the documents page: make one, rename it, put documents
in it and take them out. A collection's name is unique in its tenant; every
bad name is a clear error (CollectionError), never a database error."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import Count, Q, QuerySet

from accounts.models import Collection
from ingest.models import Document

if TYPE_CHECKING:
    from accounts.models import Tenant

NAME_MAX = 200


class CollectionError(ValueError):
    """A name or a request the collection cannot take; str() says why."""


def _clean_name(name: str) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise CollectionError("Give the collection a name.")
    if len(name) > NAME_MAX:
        raise CollectionError(f"A collection's name has at most {NAME_MAX} characters.")
    return name


def collection_list(*, tenant: Tenant) -> QuerySet[Collection]:
    """The tenant's collections by name, each with its count of live documents."""
    return (
        Collection.objects.with_scope(tenant=tenant.pk)
        .filter(tenant=tenant)
        .annotate(
            live=Count(
                "documents", filter=Q(documents__is_deleted=False), distinct=True
            )
        )
        .order_by("name")
    )


def collection_get(*, tenant: Tenant, pk: object) -> Collection | None:
    try:
        return collection_list(tenant=tenant).filter(pk=int(str(pk))).first()
    except (TypeError, ValueError):
        return None


def collection_create(*, tenant: Tenant, name: str) -> Collection:
    name = _clean_name(name)
    try:
        with transaction.atomic():
            return Collection.objects.create(tenant=tenant, name=name)
    except IntegrityError as exc:
        raise CollectionError(f"There is already a collection named “{name}”.") from exc


def collection_rename(*, collection: Collection, name: str) -> Collection:
    name = _clean_name(name)
    if name == collection.name:
        return collection
    try:
        with transaction.atomic():
            Collection.objects.with_scope(tenant=collection.tenant_id).filter(
                pk=collection.pk
            ).update(name=name)
    except IntegrityError as exc:
        raise CollectionError(f"There is already a collection named “{name}”.") from exc
    collection.name = name
    return collection


def _documents(tenant: Tenant, ids: Iterable[object]) -> list[Document]:
    wanted = []
    for raw in ids:
        try:
            wanted.append(str(uuid.UUID(str(raw))))
        except ValueError:
            continue
    if not wanted:
        raise CollectionError("Tick the documents first.")
    return list(
        Document.objects.with_scope(tenant=tenant.pk).filter(
            pk__in=wanted, is_deleted=False
        )
    )


def collection_add(
    *, tenant: Tenant, collection: Collection, document_ids: Iterable[object]
) -> int:
    """Put the documents in the collection; returns how many were named."""
    documents = _documents(tenant, document_ids)
    collection.documents.add(*documents)
    return len(documents)


def collection_remove(
    *, tenant: Tenant, collection: Collection, document_ids: Iterable[object]
) -> int:
    """Take the documents out of the collection (they stay in the library)."""
    documents = _documents(tenant, document_ids)
    collection.documents.remove(*documents)
    return len(documents)
