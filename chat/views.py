from __future__ import annotations

import json
from collections.abc import Iterator

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.http import require_tenant
from accounts.models import Collection
from chat.models import Message
from chat.selectors import message_view, session_get, session_list, session_messages
from chat.services import (
    message_ask,
    message_retry,
    message_stream,
    question_store,
    session_create,
    turn_answer,
    turn_for,
)
from citations.models import MessageCitation, UnsourcedCitation
from citations.panel import citation_panel_context, unsourced_panel_context


def _session_or_404(request: HttpRequest, session_id):
    session = session_get(
        tenant=require_tenant(request), pk=session_id, user=request.user
    )
    if session is None:
        raise Http404("No such chat.")
    return session


# ---------------------------------------------------------------- pages


@require_GET
@login_required
def chat_home(request: HttpRequest) -> HttpResponse:
    tenant = require_tenant(request)
    latest = session_list(tenant=tenant, user=request.user).first()
    if latest is not None and "new" not in request.GET:
        return redirect("chat:session", session_id=latest.pk)
    return render(
        request,
        "chat/session_detail.html",
        {
            "sessions": session_list(tenant=tenant, user=request.user)[:50],
            "collections": Collection.objects.all(),
            "session": None,
            "items": [],
        },
    )


@require_POST
@login_required
def session_new(request: HttpRequest) -> HttpResponse:
    tenant = require_tenant(request)
    collection = None
    if request.POST.get("collection", "").isdigit():
        collection = Collection.objects.filter(
            pk=int(request.POST["collection"])
        ).first()
    session = session_create(tenant=tenant, user=request.user, collection=collection)
    question = request.POST.get("question", "").strip()
    if question:
        if request.htmx:
            question_store(session=session, question=question)
        else:
            message_ask(session=session, question=question)
    return redirect("chat:session", session_id=session.pk)


@require_GET
@login_required
def session_detail(request: HttpRequest, session_id) -> HttpResponse:
    session = _session_or_404(request, session_id)
    items = session_messages(session=session)
    # A question without an answer yet (page reloaded mid-stream, or asked
    # from the new-chat form) is answered by streaming it now.
    unanswered = None
    if items and isinstance(items[-1], Message) and items[-1].role == Message.Role.USER:
        unanswered = items[-1]
    return render(
        request,
        "chat/session_detail.html",
        {
            "sessions": session_list(tenant=session.tenant, user=request.user)[:50],
            "collections": Collection.objects.all(),
            "session": session,
            "items": items,
            "unanswered": unanswered,
        },
    )


@require_POST
@login_required
def message_create(request: HttpRequest, session_id) -> HttpResponse:
    session = _session_or_404(request, session_id)
    question = request.POST.get("question", "").strip()
    if not question:
        return HttpResponse(status=204)
    if not request.htmx:  # without JS: answer in the request, then POST/redirect/GET
        message_ask(session=session, question=question)
        return redirect("chat:session", session_id=session.pk)
    stored = question_store(session=session, question=question)
    return render(
        request, "chat/session_detail.html#turn-pending", {"question": stored}
    )


def _sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


@require_GET
@login_required
def message_stream_view(request: HttpRequest, question_id) -> StreamingHttpResponse:
    tenant = require_tenant(request)
    question = (
        Message.objects.filter(
            pk=question_id, role=Message.Role.USER, session__user=request.user
        )
        .select_related("session", "session__tenant")
        .first()
    )
    if question is None:
        raise Http404("No such question.")
    existing = Message.objects.filter(reply_to=question).first()

    def events() -> Iterator[str]:
        if existing is not None:
            yield _sse("done", {"url": reverse("chat:message", args=[existing.pk])})
            return
        from django_scopes import scope

        # The response body is produced after the middleware's scope has
        # closed, so the generator enters the tenant scope itself.
        with scope(tenant=tenant.pk):
            turn = turn_for(question=question)
            for part in message_stream(turn=turn):
                if isinstance(part, Message):
                    yield _sse("done", {"url": reverse("chat:message", args=[part.pk])})
                else:
                    yield _sse("delta", {"t": part})

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@require_GET
@login_required
def message_fragment(request: HttpRequest, message_id) -> HttpResponse:
    require_tenant(request)
    message = (
        Message.objects.filter(
            pk=message_id, role=Message.Role.ASSISTANT, session__user=request.user
        )
        .prefetch_related("citations", "unsourced_citations")
        .first()
    )
    if message is None:
        raise Http404("No such message.")
    return render(
        request,
        "chat/session_detail.html#assistant-message",
        {"m": message_view(message)},
    )


@require_POST
@login_required
def message_retry_view(request: HttpRequest, message_id) -> HttpResponse:
    require_tenant(request)
    failed = Message.objects.filter(
        pk=message_id, status=Message.Status.FAILED, session__user=request.user
    ).first()
    if failed is None:
        raise Http404("No such failed answer.")
    question = failed.reply_to
    turn = message_retry(failed=failed)
    if not request.htmx:  # without JS: answer in the request, then POST/redirect/GET
        turn_answer(turn=turn)
        return redirect("chat:session", session_id=question.session_id)
    return render(
        request, "chat/session_detail.html#stream-placeholder", {"question": question}
    )


@require_GET
@login_required
def citation_panel(request: HttpRequest, citation_id) -> HttpResponse:
    require_tenant(request)
    citation = (
        MessageCitation.objects.filter(pk=citation_id).select_related("message").first()
    )
    if citation is not None:
        context = citation_panel_context(citation)
    else:
        unsourced = UnsourcedCitation.objects.filter(pk=citation_id).first()
        if unsourced is None:
            raise Http404("No such citation.")
        context = unsourced_panel_context(unsourced)
    return render(request, "citations/_citation_panel.html", context)
