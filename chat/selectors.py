from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import Q, QuerySet

from accounts.scoping import first_by_pk
from chat.coverage import UNSUPPORTED
from chat.models import ChatSession, Message
from chat.payload import sentence_marks
from chat.rendering import (
    CitedItem,
    answer_segments,
    answer_with_footnotes,
    mark_uncited,
    reading_order,
)
from citations.marks import Mark, citation_mark
from citations.models import Status
from citations.presentation import (
    badge_state,
    citation_badge,
    differs_from_source,
    footnote_text,
)
from ingest.models import Document
from ingest.selectors import Span, document_list, span_locations
from llm.extractive import MODEL_NAME as EXTRACTIVE_MODEL

if TYPE_CHECKING:
    from accounts.models import Tenant

# Answers made without a model: no free sentences to check for support.
OFFLINE_MODELS = {EXTRACTIVE_MODEL, "none", ""}


def session_list(*, tenant: Tenant, user: Any = None) -> QuerySet[ChatSession]:
    qs = ChatSession.objects.with_scope(tenant=tenant.pk)
    if user is not None:
        qs = qs.filter(user=user)
    return qs.order_by("-updated_at")


def session_get(*, tenant: Tenant, pk: object, user: Any = None) -> ChatSession | None:
    return first_by_pk(session_list(tenant=tenant, user=user), pk)


@dataclass
class CitationView:
    """One citation as the page shows it (MessageCitation or UnsourcedCitation)."""

    pk: str
    ref: str
    status: str
    method: str | None
    quote: str
    title: str | None
    page: int | None
    score: float | None
    is_unsourced: bool
    differs: bool = False
    found_in: str = ""
    badge_override: Any = None
    mark: Mark | None = None
    # Where the passage is in its source's own words: a chat message, a
    # table row and column, a captured page (ingest.locations).
    location: str = ""

    @property
    def badge(self):
        if self.badge_override is not None:
            return self.badge_override
        return badge_state(
            self.status, self.method, differs=self.differs, found_in=self.found_in
        )

    @property
    def supporting(self) -> bool:
        """Counted as a source that supports the answer (not off-topic, not
        from another document than the one asked about)."""
        return self.mark is None or self.mark.supporting

    @property
    def is_pending(self) -> bool:
        return self.status == Status.PENDING


@dataclass
class MessageView:
    message: Message
    segments: list
    footnotes: list  # supporting sources, numbered first
    copy_text: str
    pending: bool
    not_answering: list = field(default_factory=list)  # retrieved, off-topic
    searched: dict = field(default_factory=dict)
    not_found: bool = False
    # The model said "not found" yet quoted the documents: for review.
    contradiction: bool = False
    stale: bool = False  # a citation failed re-verification on a new revision
    uncited: int = 0  # claims no verified, relevant citation supports

    @property
    def narrowed(self) -> bool:
        """The question itself narrowed the search (named or @-mentioned
        documents): offer to search everything instead."""
        return self.searched.get("kind") in {"named", "mentioned"}

    @property
    def searched_titles(self) -> list[str]:
        return [d["title"] for d in self.searched.get("documents", [])]


def _locations(citations) -> dict[str, str]:
    """Each citation's location label, in one query (PDF pages are shown by
    the page number already)."""
    spans = {}
    for c in citations:
        start = c.source_offset_start if c.verified else c.candidate_start
        end = c.source_offset_end if c.verified else c.candidate_end
        if c.chunk_id:
            spans[str(c.pk)] = Span(c.chunk_id, start, end)
    if not spans:
        return {}
    tenant_id = next(iter(citations)).tenant_id
    found = span_locations(tenant_id=tenant_id, spans=list(spans.values()))
    return {
        key: found[span].label
        for key, span in spans.items()
        if span in found and found[span].kind not in {"page", "document"}
    }


def _citation_views(message: Message) -> list[tuple[CitedItem, CitationView]]:
    rows = []
    citations = list(message.citations.all())
    locations = _locations(citations)
    for c in citations:
        view = CitationView(
            pk=str(c.pk),
            ref=c.ref_label,
            status=c.verification_status,
            method=c.verification_method,
            quote=c.quoted_text,
            title=c.document_name,
            page=c.source_page,
            score=c.match_score,
            is_unsourced=False,
            differs=differs_from_source(c),
            found_in=c.mis_attributed_to,
            badge_override=citation_badge(c),
            mark=citation_mark(c),
            location=locations.get(str(c.pk), ""),
        )
        rows.append((CitedItem(c.ref_label, c.answer_start, c.answer_end, view), view))
    for u in message.unsourced_citations.all():
        view = CitationView(
            pk=str(u.pk),
            ref=u.ref_label,
            status=Status.OUT_OF_PROVENANCE,
            method=None,
            quote=u.quoted_text,
            title=None,
            page=None,
            score=None,
            is_unsourced=True,
        )
        rows.append((CitedItem(u.ref_label, u.answer_start, u.answer_end, view), view))
    rows.sort(
        key=lambda r: reading_order(
            r[0].answer_start, r[0].answer_end, r[0].ref, r[1].quote or ""
        )
    )
    return rows


def message_view(message: Message) -> MessageView:
    rows = _citation_views(message)
    segments, footnotes = answer_segments(message.content, [item for item, _ in rows])
    footnotes = _supporting_first(segments, footnotes)
    citations = list(message.citations.all())
    payload = message.payload or {}
    marks: list[dict] = []
    if message.model_name not in OFFLINE_MODELS:
        # The offline responder only quotes; a model's sentences are claims.
        marks = sentence_marks(payload, citations)
        segments = mark_uncited(
            segments,
            [(m["start"], m["end"]) for m in marks if m["status"] == UNSUPPORTED],
        )

    def describe(badge) -> str:
        v = badge.item
        if v is None:
            return f"{badge.ref} (no such source)"
        return footnote_text(
            number=badge.number,
            title=v.title,
            page=v.page,
            quote=v.quote,
            badge=v.badge,
        )

    supporting = [b for b in footnotes if b.item is None or b.item.supporting]
    return MessageView(
        message=message,
        segments=segments,
        footnotes=supporting,
        not_answering=[b for b in footnotes if b not in supporting],
        copy_text=answer_with_footnotes(segments, footnotes, describe),
        pending=any(view.is_pending for _, view in rows),
        searched=payload.get("searched") or {},
        not_found=bool(payload.get("not_found")),
        contradiction=bool(payload.get("contradiction")),
        stale=any(c.is_stale for c in citations),
        uncited=sum(1 for m in marks if m["status"] == UNSUPPORTED),
    )


def _supporting_first(segments: list, footnotes: list) -> list:
    """Number the sources that support the answer first: an off-topic or
    other-document citation is never citation [1]."""
    ordered = sorted(
        footnotes,
        key=lambda b: (not (b.item is None or b.item.supporting), b.number),
    )
    renumber = {b.number: i for i, b in enumerate(ordered, start=1)}
    badges = {id(b): b for seg in segments for b in getattr(seg, "badges", ())}
    badges.update((id(b), b) for b in ordered)
    for badge in badges.values():  # each object once: some appear twice
        if badge.number:
            badge.number = renumber.get(badge.number, badge.number)
    return ordered


def session_messages(*, session: ChatSession) -> list:
    """User messages and views of assistant messages, oldest first."""
    messages = (
        Message.objects.filter(session=session)
        .prefetch_related("citations__reviews", "unsourced_citations")
        .order_by("created_at")
    )
    return [m if m.role == Message.Role.USER else message_view(m) for m in messages]


# ------------------------------------------------------------------ scope

PICKER_LIMIT = 200


def document_titles(*, tenant: Tenant, query: str = "", limit: int = PICKER_LIMIT):
    """Ready documents whose title or file name holds every word of `query`,
    newest first."""
    qs = document_list(tenant=tenant).filter(status=Document.Status.READY)
    for word in query.split()[:8]:
        qs = qs.filter(Q(title__icontains=word) | Q(file__filename__icontains=word))
    return list(
        qs.select_related(None)
        .select_related("file")
        .only("id", "title", "created_at", "file__filename")[:limit]
    )


def scope_documents(*, tenant: Tenant, ids: list) -> list:
    """The tenant's ready documents among `ids` (others are ignored)."""
    if not ids:
        return []
    qs = document_list(tenant=tenant).filter(status=Document.Status.READY, pk__in=ids)
    return list(qs)


@dataclass
class PickerOption:
    id: str
    title: str
    chosen: bool
    filename: str = ""  # shown beside the title (issue 32)


@dataclass
class Picker:
    options: list[PickerOption]
    chosen: list[PickerOption]
    collection: Any = None
    query: str = ""
    more: bool = False

    @property
    def summary(self) -> str:
        """What the chat searches, in a few words."""
        if self.chosen:
            names = ", ".join(o.title for o in self.chosen[:3])
            extra = len(self.chosen) - 3
            return names + (f" and {extra} more" if extra > 0 else "")
        if self.collection is not None:
            return f"the collection “{self.collection.name}”"
        return "all documents"


def picker_context(
    *, tenant: Tenant, chosen: list, collection: Any = None, query: str = ""
) -> Picker:
    """The picker's options: documents matching `query` (chosen ones first)."""
    chosen_docs = scope_documents(tenant=tenant, ids=list(chosen))
    chosen_ids = {d.pk for d in chosen_docs}
    found = document_titles(tenant=tenant, query=query, limit=PICKER_LIMIT + 1)
    options = [
        PickerOption(str(d.pk), d.title, True, d.file.filename) for d in chosen_docs
    ]
    options += [
        PickerOption(str(d.pk), d.title, False, d.file.filename)
        for d in found[:PICKER_LIMIT]
        if d.pk not in chosen_ids
    ]
    return Picker(
        options=options,
        chosen=[o for o in options if o.chosen],
        collection=collection,
        query=query,
        more=len(found) > PICKER_LIMIT,
    )
