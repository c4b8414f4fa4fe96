"""What a question is asked about: which documents are searched, and why.

In order, the first that applies decides (`Scope.kind` says which):
1. `chosen`: documents picked for this question (the REST ask's
   `document_ids`, a "search all documents" click, a per-question collection);
2. `mentioned`: documents mentioned with `@` in the question;
3. `session`: documents picked for the chat (the picker; "Ask about this
   document" starts a chat with one);
4. `named`: documents the question names by title, filename or party
   (chat.naming), within the chat's collection if it has one; when the
   naming words fit several documents and the question asks about one
   ("the joint venture agreement" with two of them), `ambiguous`: nothing is
   searched, the answer asks which one (chat.which_one) and the payload's
   `searched.ambiguous` lists the candidates;
5. `collection` / `all`: the chat's collection, else every ready document.

The words that named or mentioned documents are taken out of the search
terms. A question's own choice is kept in its message's payload
(`{"scope": {...}}`), so a streamed answer and a retry search the same way.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import Count, Max
from django.db.models.functions import Substr

from accounts.models import Collection
from chat.naming import (
    FIRST_PAGE_CHARS,
    DocumentNames,
    NameIndex,
    fold,
    named_documents,
    parties,
)
from citations.relevance import passage_shape
from ingest.models import Document
from ingest.search.within import document_index
from lib.textfold import fold_compat

if TYPE_CHECKING:
    from accounts.models import Tenant
    from chat.models import ChatSession, Message

MENTION = re.compile(r"(?:(?<=\s)|^)@")


@dataclass
class Scope:
    """The documents a question searches, how they were chosen, and the text
    to search with (the question less the words that named documents)."""

    kind: str  # chosen | mentioned | session | named | ambiguous | collection | all
    documents: list[Document] = field(default_factory=list)
    collection: Collection | None = None
    search_text: str = ""
    named_by: list[str] = field(default_factory=list)  # naming rules that decided

    @property
    def narrowed(self) -> bool:
        """Did the question itself (not the chat) narrow the search?"""
        return self.kind in {"named", "mentioned"}

    @property
    def ambiguous(self) -> bool:
        """The question names one document in words that fit several."""
        return self.kind == "ambiguous"

    def describe(self) -> dict[str, Any]:
        """What was searched, for the payload and the "Searched:" line; for an
        ambiguous question, the candidates to choose from."""
        described = {
            "kind": self.kind,
            "documents": [{"id": str(d.pk), "title": d.title} for d in self.documents],
            "collection": (
                {"id": self.collection.pk, "name": self.collection.name}
                if self.collection is not None
                else None
            ),
            "named_by": self.named_by,
        }
        if self.ambiguous:
            described["ambiguous"] = [
                {
                    "id": str(d.pk),
                    "title": d.title,
                    "filename": d.file.filename,
                    "added": d.created_at.date().isoformat(),
                }
                for d in self.documents
            ]
        return described


# ------------------------------------------------------------- name index

_CACHE: dict[int, tuple[tuple, NameIndex, dict]] = {}
_LOCK = threading.Lock()


def _ready(tenant: Tenant):
    return Document.objects.with_scope(tenant=tenant.pk).filter(
        status=Document.Status.READY, is_deleted=False
    )


def name_index(tenant: Tenant) -> tuple[NameIndex, dict]:
    """The tenant's name index and its documents' titles by id, rebuilt when
    a ready document is added, changed or removed. Party names come from the
    first page of each current revision."""
    version = tuple(
        _ready(tenant).aggregate(n=Count("id"), at=Max("updated_at")).values()
    )
    with _LOCK:
        cached = _CACHE.get(tenant.pk)
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
    rows = _ready(tenant).values_list(
        "id",
        "title",
        "file__filename",
        Substr("current_revision__normalized_content", 1, FIRST_PAGE_CHARS),
    )
    names = [
        DocumentNames(
            id=pk,
            title=title,
            filename=filename or "",
            party_names=tuple(parties(fold_compat(head or ""))),
        )
        for pk, title, filename, head in rows
    ]
    index = NameIndex(names)
    titles = {n.id: n.title for n in names}
    with _LOCK:
        _CACHE[tenant.pk] = (version, index, titles)
    return index, titles


def name_texts(documents: Sequence[Document]) -> list[str]:
    """What names each document: its title, its file's names, the heading it
    opens with and the parties its opening names (its first chunks, cached
    with its index).
    Their words say which document, never what to find in it."""
    texts: list[str] = []
    for document in documents:
        texts.append(document.title)
        texts += list(document.file.filenames)
        if document.current_revision_id:
            opening = "\n".join(c.content for c in document_index(document).chunks[:4])
            texts += parties(opening[:FIRST_PAGE_CHARS])
            # The heading it opens with is its title as printed ("SUPPLY
            # AGREEMENT" in a file named quick.txt).
            first = next((line for line in opening.splitlines() if line.strip()), "")
            if passage_shape(first) == "heading":
                texts.append(first)
    return texts


# ----------------------------------------------------------------- mentions


def mentioned(question: str, titles: dict) -> tuple[list, str]:
    """Documents mentioned as "@Title" (the longest title that follows the @,
    case-insensitive), and the question without the mentions."""
    folded_titles = sorted(
        ((fold(t), pk) for pk, t in titles.items() if t), key=lambda x: -len(x[0])
    )
    found: list = []
    spans: list[tuple[int, int]] = []
    folded = fold(question)
    for m in MENTION.finditer(question):
        rest = folded[m.end() :]
        for title, pk in folded_titles:
            if rest.startswith(title) and (
                len(rest) == len(title) or not rest[len(title)].isalnum()
            ):
                if pk not in found:
                    found.append(pk)
                spans.append((m.start(), m.end() + len(title)))
                break
    text = question
    for start, end in reversed(spans):
        text = text[:start] + " " + text[end:]
    return found, " ".join(text.split())


# -------------------------------------------------------------------- scope


def _documents(tenant: Tenant, ids: list) -> list[Document]:
    """The tenant's ready documents among `ids` (UUIDs or their strings), in
    the order given."""
    wanted = []
    for value in ids:
        try:
            wanted.append(
                value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
            )
        except ValueError:
            continue
    by_id = {
        d.pk: d for d in _ready(tenant).filter(pk__in=wanted).select_related("file")
    }
    return [by_id[i] for i in dict.fromkeys(wanted) if i in by_id]


def choice_of(question: Message) -> dict[str, Any]:
    """A question's own scope choice, as stored in its payload."""
    return dict((question.payload or {}).get("scope") or {})


def scope_for(
    *, session: ChatSession, question: str, choice: dict | None = None
) -> Scope:
    """Decide what a question searches (see the module docstring)."""
    tenant = session.tenant
    choice = choice or {}
    if choice.get("all"):
        return Scope(kind="all", search_text=question)
    if choice.get("document_ids") or choice.get("collection_id"):
        documents = _documents(tenant, list(choice.get("document_ids") or []))
        collection = None
        if choice.get("collection_id"):
            collection = (
                Collection.objects.with_scope(tenant=tenant.pk)
                .filter(pk=choice["collection_id"])
                .first()
            )
        return Scope(
            kind="chosen",
            documents=documents,
            collection=collection,
            search_text=question,
        )
    index, titles = name_index(tenant)
    ids, text = mentioned(question, titles)
    if ids:
        return Scope(
            kind="mentioned", documents=_documents(tenant, ids), search_text=text
        )
    picked = list(
        session.documents.filter(status=Document.Status.READY, is_deleted=False)
    )
    if picked:
        return Scope(kind="session", documents=picked, search_text=question)
    named = named_documents(question, index)
    if named.document_ids:
        documents = _documents(tenant, named.document_ids)
        if session.collection is not None:
            inside = set(
                session.collection.documents.filter(
                    pk__in=[d.pk for d in documents]
                ).values_list("pk", flat=True)
            )
            documents = [d for d in documents if d.pk in inside]
        if documents:
            return Scope(
                kind="ambiguous" if named.ambiguous and len(documents) > 1 else "named",
                documents=documents,
                collection=session.collection,
                search_text=named.search_text,
                named_by=named.rules,
            )
    if session.collection is not None:
        return Scope(
            kind="collection", collection=session.collection, search_text=question
        )
    return Scope(kind="all", search_text=question)
