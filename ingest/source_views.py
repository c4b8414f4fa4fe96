"""The sources page (issue 29): connect a Slack or Teams export, capture a
web page, register a database table (owners); each source's status,
progress, last sync's figures and warnings; sync now. Thin views over
ingest.sources; the table polls while a sync runs."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.http import require_tenant
from accounts.models import Membership
from ingest import source_kinds
from ingest.collections import collection_get, collection_list
from ingest.connectors.database import TableSpec
from ingest.models import Source
from ingest.source_kinds.base import SourceError
from ingest.sources import (
    source_create_database,
    source_create_export,
    source_create_web,
    source_request_sync,
)

LIST_LIMIT = 200


def _is_owner(request: HttpRequest) -> bool:
    return Membership.objects.filter(
        user=request.user, tenant=request.tenant, role=Membership.Role.OWNER
    ).exists()


def _context(request: HttpRequest) -> dict:
    sources = list(
        Source.objects.with_scope(tenant=request.tenant.pk).order_by("-created_at")[
            :LIST_LIMIT
        ]
    )
    return {
        "sources": sources,
        "polling": any(
            s.status in (Source.Status.QUEUED, Source.Status.SYNCING) for s in sources
        ),
        "collections": list(collection_list(tenant=request.tenant)),
        "is_owner": _is_owner(request),
        "export_kinds": source_kinds.export_choices(),
        "export_names": source_kinds.export_names(),
    }


@require_GET
@login_required
def source_list_view(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    return render(request, "ingest/source_list.html", _context(request))


@require_GET
@login_required
def source_rows_view(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    return render(request, "ingest/source_list.html#source-rows", _context(request))


def _collection(request: HttpRequest):
    value = request.POST.get("collection", "")
    return collection_get(tenant=request.tenant, pk=value) if value.isdigit() else None


def _done(
    request: HttpRequest, source: Source | None, error: SourceError | None
) -> HttpResponse:
    if error is not None:
        messages.error(request, error.message)
    elif source is not None:
        messages.success(request, f"{source.name}: queued for sync.")
    return redirect("ingest:source-list")


def _create(
    request: HttpRequest, create: Callable[..., Source], **fields
) -> HttpResponse:
    """Every kind's form: the caller's tenant, user and chosen collection plus
    the kind's own fields; a SourceError becomes the page's message."""
    try:
        source = create(
            tenant=request.tenant,
            user=request.user,
            collection=_collection(request),
            **fields,
        )
    except SourceError as exc:
        return _done(request, None, exc)
    return _done(request, source, None)


@require_POST
@login_required
def source_export_view(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    upload = request.FILES.get("file")
    kind = request.POST.get("kind", "")
    if upload is None or kind not in dict(source_kinds.export_choices()):
        return _done(
            request,
            None,
            SourceError(
                "bad_input",
                f"Choose {source_kinds.export_names()} and an export file.",
            ),
        )
    return _create(
        request,
        source_create_export,
        kind=kind,
        filename=upload.name or "export",
        stream=upload,
    )


@require_POST
@login_required
def source_web_view(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    return _create(request, source_create_web, url=request.POST.get("url", "")[:2000])


@require_POST
@login_required
def source_database_view(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    if not _is_owner(request):
        return _done(
            request,
            None,
            SourceError(
                "forbidden", "Only a workspace owner can register a database source."
            ),
        )
    post = request.POST
    return _create(
        request,
        source_create_database,
        name=post.get("name", "")[:200],
        connection_url=post.get("connection_url", "")[:2000],
        spec=TableSpec(
            table=post.get("table", "").strip(),
            query=post.get("query", "").strip()[:20000],
            key_column=post.get("key_column", "").strip(),
            text_columns=[
                c.strip() for c in post.get("text_columns", "").split(",") if c.strip()
            ][:50],
            title_column=post.get("title_column", "").strip(),
        ),
        schedule_minutes=int(post["schedule_minutes"])
        if post.get("schedule_minutes", "").isdigit()
        else 0,
    )


@require_POST
@login_required
def source_sync_view(request: HttpRequest, pk) -> HttpResponse:
    require_tenant(request)
    source = Source.objects.with_scope(tenant=request.tenant.pk).filter(pk=pk).first()
    if source is None:
        from django.http import Http404

        raise Http404("No such source.")
    source_request_sync(source=source)
    return _done(request, source, None)
