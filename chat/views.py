from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

from django.contrib.auth.decorators import login_required
from django.http import (
    HttpRequest,
    HttpResponse,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.http import found_or_404, require_tenant
from accounts.models import Collection
from chat.models import Message
from chat.selectors import (
    document_titles,
    message_view,
    picker_context,
    scope_documents,
    session_get,
    session_list,
    session_messages,
)
from chat.services import (
    message_ask,
    message_retry,
    message_stream,
    question_store,
    session_create,
    session_scope_set,
    turn_answer,
    turn_for,
)
from citations.models import MessageCitation, UnsourcedCitation
from citations.panel import citation_panel_context, unsourced_panel_context


def _session_or_404(request: HttpRequest, session_id):
    return found_or_404(
        session_get(tenant=require_tenant(request), pk=session_id, user=request.user),
        "No such chat.",
    )


# ---------------------------------------------------------------- pages


@require_GET
@login_required
def chat_home(request: HttpRequest) -> HttpResponse:
    tenant = require_tenant(request)
    latest = session_list(tenant=tenant, user=request.user).first()
    preset = request.GET.getlist("document")
    if latest is not None and "new" not in request.GET and not preset:
        return redirect("chat:session", session_id=latest.pk)
    return render(
        request,
        "chat/session_detail.html",
        {
            "sessions": session_list(tenant=tenant, user=request.user)[:50],
            "collections": Collection.objects.all(),
            "session": None,
            "items": [],
            "picker": picker_context(tenant=tenant, chosen=_uuids(preset)),
        },
    )


def _uuids(values) -> list:
    out = []
    for value in values:
        try:
            out.append(uuid.UUID(str(value)))
        except ValueError:
            continue
    return out


def _collection(request: HttpRequest, value: str | None):
    if value and str(value).isdigit():
        return Collection.objects.filter(pk=int(value)).first()
    return None


@require_POST
@login_required
def session_new(request: HttpRequest) -> HttpResponse:
    tenant = require_tenant(request)
    collection = _collection(request, request.POST.get("collection"))
    documents = scope_documents(
        tenant=tenant, ids=_uuids(request.POST.getlist("documents"))
    )
    session = session_create(
        tenant=tenant, user=request.user, collection=collection, documents=documents
    )
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
            "picker": picker_context(
                tenant=session.tenant,
                chosen=[d.pk for d in session.documents.all()],
                collection=session.collection,
            ),
        },
    )


def _question_choice(request: HttpRequest, session) -> dict | None:
    """This question's own scope: "Search all documents instead", or the
    document a "which one?" chip chose (the tenant's, else ignored)."""
    if request.POST.get("scope") == "all":
        return {"all": True}
    chosen = scope_documents(
        tenant=session.tenant, ids=_uuids(request.POST.getlist("document"))
    )
    if chosen:
        return {"document_ids": [str(d.pk) for d in chosen]}
    return None


@require_POST
@login_required
def message_create(request: HttpRequest, session_id) -> HttpResponse:
    session = _session_or_404(request, session_id)
    question = request.POST.get("question", "").strip()
    if not question:
        return HttpResponse(status=204)
    choice = _question_choice(request, session)
    if not request.htmx:  # without JS: answer in the request, then POST/redirect/GET
        message_ask(session=session, question=question, choice=choice)
        return redirect("chat:session", session_id=session.pk)
    stored = question_store(session=session, question=question, choice=choice)
    return render(
        request, "chat/session_detail.html#turn-pending", {"question": stored}
    )


def _sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


@require_GET
@login_required
def message_stream_view(request: HttpRequest, question_id) -> StreamingHttpResponse:
    tenant = require_tenant(request)
    question = found_or_404(
        Message.objects.filter(
            pk=question_id, role=Message.Role.USER, session__user=request.user
        )
        .select_related("session", "session__tenant")
        .first(),
        "No such question.",
    )
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
    message = found_or_404(
        Message.objects.filter(
            pk=message_id, role=Message.Role.ASSISTANT, session__user=request.user
        )
        .prefetch_related("citations__reviews", "unsourced_citations")
        .first(),
        "No such message.",
    )
    return render(
        request,
        "chat/session_detail.html#assistant-message",
        {"m": message_view(message)},
    )


@require_POST
@login_required
def message_retry_view(request: HttpRequest, message_id) -> HttpResponse:
    require_tenant(request)
    failed = found_or_404(
        Message.objects.filter(
            pk=message_id, status=Message.Status.FAILED, session__user=request.user
        ).first(),
        "No such failed answer.",
    )
    question = failed.reply_to
    turn = message_retry(failed=failed)
    if not request.htmx:  # without JS: answer in the request, then POST/redirect/GET
        turn_answer(turn=turn)
        return redirect("chat:session", session_id=question.session_id)
    return render(
        request, "chat/session_detail.html#stream-placeholder", {"question": question}
    )


@require_POST
@login_required
def session_scope(request: HttpRequest, session_id) -> HttpResponse:
    """Set the chat's documents and collection for the questions that follow."""
    session = _session_or_404(request, session_id)
    documents = scope_documents(
        tenant=session.tenant, ids=_uuids(request.POST.getlist("documents"))
    )
    session_scope_set(
        session=session,
        documents=documents,
        collection=_collection(request, request.POST.get("collection")),
    )
    if not request.htmx:
        return redirect("chat:session", session_id=session.pk)
    context = {
        "session": session,
        "collections": Collection.objects.all(),
        "picker": picker_context(
            tenant=session.tenant,
            chosen=[d.pk for d in documents],
            collection=session.collection,
        ),
    }
    return render(request, "chat/session_detail.html#scope-picker", context)


@require_GET
@login_required
def picker_options(request: HttpRequest) -> HttpResponse:
    """The picker's documents matching `q` (ticked ones kept), as a fragment."""
    tenant = require_tenant(request)
    context = {
        "picker": picker_context(
            tenant=tenant,
            chosen=_uuids(request.GET.getlist("documents")),
            query=request.GET.get("q", "")[:200],
        )
    }
    return render(request, "chat/session_detail.html#picker-options", context)


@require_GET
@login_required
def document_suggest(request: HttpRequest) -> JsonResponse:
    """Documents whose title matches `q`, for the question box's @ mentions."""
    tenant = require_tenant(request)
    found = document_titles(tenant=tenant, query=request.GET.get("q", ""), limit=8)
    return JsonResponse(
        {
            "documents": [
                {"id": str(d.pk), "title": d.title, "filename": d.file.filename}
                for d in found
            ]
        }
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
        unsourced = found_or_404(
            UnsourcedCitation.objects.filter(pk=citation_id).first(),
            "No such citation.",
        )
        context = unsourced_panel_context(unsourced)
    return render(request, "citations/_citation_panel.html", context)
