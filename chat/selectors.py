from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from chat.models import ChatSession, Message
from chat.rendering import CitedItem, answer_segments, answer_with_footnotes
from citations.models import Status
from citations.presentation import badge_state, differs_from_source, footnote_text

if TYPE_CHECKING:
    from accounts.models import Tenant


def session_list(*, tenant: Tenant, user: Any = None) -> QuerySet[ChatSession]:
    qs = ChatSession.objects.with_scope(tenant=tenant.pk)
    if user is not None:
        qs = qs.filter(user=user)
    return qs.order_by("-updated_at")


def session_get(*, tenant: Tenant, pk: object, user: Any = None) -> ChatSession | None:
    try:
        return session_list(tenant=tenant, user=user).filter(pk=pk).first()
    except (ValueError, TypeError):
        return None


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

    @property
    def badge(self):
        return badge_state(
            self.status, self.method, differs=self.differs, found_in=self.found_in
        )

    @property
    def is_pending(self) -> bool:
        return self.status == Status.PENDING


@dataclass
class MessageView:
    message: Message
    segments: list
    footnotes: list
    copy_text: str
    pending: bool


def _citation_views(message: Message) -> list[tuple[CitedItem, CitationView]]:
    rows = []
    for c in message.citations.all():
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
    rows.sort(key=lambda r: (r[0].answer_start is None, r[0].answer_start or 0))
    return rows


def message_view(message: Message) -> MessageView:
    rows = _citation_views(message)
    segments, footnotes = answer_segments(message.content, [item for item, _ in rows])

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

    return MessageView(
        message=message,
        segments=segments,
        footnotes=footnotes,
        copy_text=answer_with_footnotes(segments, footnotes, describe),
        pending=any(view.is_pending for _, view in rows),
    )


def session_messages(*, session: ChatSession) -> list:
    """User messages and views of assistant messages, oldest first."""
    messages = (
        Message.objects.filter(session=session)
        .prefetch_related("citations", "unsourced_citations")
        .order_by("created_at")
    )
    return [m if m.role == Message.Role.USER else message_view(m) for m in messages]
