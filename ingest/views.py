from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from accounts.http import found_or_404, require_tenant
from accounts.models import Collection
from ingest import source_kinds
from ingest.collections import (
    CollectionError,
    collection_add,
    collection_create,
    collection_get,
    collection_list,
    collection_remove,
    collection_rename,
)
from ingest.errors import ExtractionError
from ingest.exports import export_kind
from ingest.models import TitleChange
from ingest.page_image import page_picture, page_png
from ingest.progress import upload_progress
from ingest.search import search_chunks
from ingest.selectors import document_get, document_list, documents_pending
from ingest.services import Upload, document_upload_result
from ingest.source_kinds.base import SourceError
from ingest.sources import source_create_export
from ingest.titling import TitleInvalid, document_rename
from ingest.trash import (
    document_delete,
    document_get_any,
    document_restore,
    documents_deleted,
)
from ingest.viewer import (
    POINTS_TO_CSS_PX,
    RENDER_SCALE,
    ZOOMS,
    ViewerState,
    page_segments,
    pages_of,
    span_links,
    viewer_state,
)

LIST_LIMIT = 200


def _list_query(request: HttpRequest) -> dict[str, str]:
    """What the documents list shows (a collection, or the deleted ones), as
    query parameters the rows fragment keeps while it polls."""
    # An action (POST) carries the list it came from in `return_query`.
    given = request.GET or QueryDict(request.POST.get("return_query", ""))
    query = {}
    if given.get("collection", "").isdigit():
        query["collection"] = given["collection"]
    if given.get("deleted") == "1":
        query["deleted"] = "1"
    return query


def _rows_context(request: HttpRequest, *, query: dict | None = None) -> dict:
    """The documents table: top-level documents, each with its attachments
    under it (failed ones dismissable); or the deleted ones to restore."""
    tenant = request.tenant
    query = _list_query(request) if query is None else query
    collection = (
        collection_get(tenant=tenant, pk=query["collection"])
        if "collection" in query
        else None
    )
    if query.get("deleted"):
        deleted = list(documents_deleted(tenant=tenant)[:LIST_LIMIT])
        return {
            "deleted_view": True,
            "groups": [{"document": d, "attachments": []} for d in deleted],
            "polling": False,
            "list_query": urlencode(query),
            "current_collection": None,
        }
    documents = document_list(tenant=tenant).prefetch_related("collections")
    if collection is not None:
        documents = documents.filter(collections=collection)
    documents = list(documents[:LIST_LIMIT])
    by_parent: dict = {}
    for d in documents:
        if d.parent_id:
            by_parent.setdefault(d.parent_id, []).append(d)
    shown = {d.pk for d in documents}
    groups = [
        {
            "document": d,
            "attachments": sorted(by_parent.get(d.pk, []), key=lambda a: a.title),
        }
        for d in documents
        # An attachment sits under its email; alone only if its email is not listed.
        if not d.parent_id or d.parent_id not in shown
    ]
    return {
        "deleted_view": False,
        "groups": groups,
        "polling": documents_pending(documents),
        "list_query": urlencode(query),
        "current_collection": collection,
    }


def _rows(request: HttpRequest, **extra: object) -> HttpResponse:
    context = {
        **_rows_context(request),
        "collections": list(collection_list(tenant=request.tenant)),
        **extra,
    }
    return render(request, "ingest/document_list.html#document-rows", context)


@require_GET
@login_required
def document_list_view(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    tenant = request.tenant
    q = request.GET.get("q", "").strip()[:500]
    context = _rows_context(request)
    named = []
    if q:
        named = list(
            document_list(tenant=tenant).filter(
                Q(title__icontains=q) | Q(file__filename__icontains=q)
            )[:10]
        )
    context.update(
        q=q,
        hits=search_chunks(tenant, q, k=10) if q else [],
        named=named,
        collections=list(collection_list(tenant=tenant)),
        total=document_list(tenant=tenant).filter(parent__isnull=True).count(),
        deleted_count=documents_deleted(tenant=tenant).count(),
    )
    return render(request, "ingest/document_list.html", context)


@require_GET
@login_required
def document_rows(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    return _rows(request)


@require_GET
@login_required
def upload_progress_view(request: HttpRequest) -> JsonResponse:
    """Each named file's document and stage, while its upload runs."""
    require_tenant(request)
    names = [n for n in request.GET.getlist("name") if n][:20]
    return JsonResponse(
        {
            "files": upload_progress(
                tenant=request.tenant, names=names, user=request.user
            )
        }
    )


def _back(request: HttpRequest, message: str = "", *, error: str = "") -> HttpResponse:
    """After an action: the rows fragment (htmx), else back to the list."""
    if request.htmx:
        return _rows(request, flash=message, flash_error=error)
    if error:
        messages.error(request, error)
    elif message:
        messages.success(request, message)
    query = request.POST.get("return_query", "")
    url = reverse("ingest:document-list")
    return redirect(f"{url}?{query}" if query else url)


@require_POST
@login_required
def document_delete_view(request: HttpRequest, pk: str) -> HttpResponse:
    require_tenant(request)
    document = found_or_404(
        document_get(tenant=request.tenant, pk=pk), "No such document."
    )
    document_delete(document=document)
    if request.htmx:  # the rows, with an Undo beside the message
        return _rows(request, undo=document)
    messages.success(request, f"Deleted “{document.title}”. Restore it from “Deleted”.")
    return _back(request)


@require_POST
@login_required
def document_restore_view(request: HttpRequest, pk: str) -> HttpResponse:
    require_tenant(request)
    document = found_or_404(
        document_get_any(tenant=request.tenant, pk=pk), "No such document."
    )
    document_restore(document=document)
    return _back(request, f"Restored “{document.title}”.")


@require_POST
@login_required
def document_rename_view(request: HttpRequest, pk: str) -> HttpResponse:
    """Rename a document from its page or its row (issue 32): htmx swaps the
    title block (a refused title comes back in it with the reason, at 200 so
    htmx swaps it); without JS, back to where the form was."""
    require_tenant(request)
    document = found_or_404(
        document_get(tenant=request.tenant, pk=pk), "No such document."
    )
    title = request.POST.get("title", "")
    error = ""
    try:
        document = document_rename(
            document=document, title=title, user=request.user, via=TitleChange.Via.PAGE
        )
    except TitleInvalid as refused:
        error = refused.message
    on_page = request.POST.get("where") == "page"
    if request.htmx:
        return render(
            request,
            "ingest/_title_block.html",
            {
                "d": document,
                "heading": on_page,
                "title_error": error,
                "title_value": title,
                "renamed": not error,
            },
        )
    if error:
        messages.error(request, error)
    else:
        messages.success(request, f"Renamed to “{document.title}”.")
    if on_page:
        return redirect("ingest:document-detail", pk=document.pk)
    return _back(request)


@require_POST
@login_required
def collection_create_view(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    try:
        collection = collection_create(
            tenant=request.tenant, name=request.POST.get("name", "")
        )
    except CollectionError as error:
        messages.error(request, str(error))
        return redirect("ingest:document-list")
    messages.success(
        request, f"Collection “{collection.name}” made: tick documents to add them."
    )
    return redirect(f"{reverse('ingest:document-list')}?collection={collection.pk}")


@require_POST
@login_required
def collection_rename_view(request: HttpRequest, pk: int) -> HttpResponse:
    require_tenant(request)
    collection = found_or_404(
        collection_get(tenant=request.tenant, pk=pk), "No such collection."
    )
    try:
        collection_rename(collection=collection, name=request.POST.get("name", ""))
    except CollectionError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Renamed to “{collection.name}”.")
    return redirect(f"{reverse('ingest:document-list')}?collection={collection.pk}")


@require_POST
@login_required
def collection_documents_view(request: HttpRequest) -> HttpResponse:
    """Put the ticked documents in a collection, or take them out of it."""
    require_tenant(request)
    tenant = request.tenant
    collection = collection_get(tenant=tenant, pk=request.POST.get("collection", ""))
    ids = request.POST.getlist("documents")
    if collection is None:
        return _back(request, error="Choose a collection.")
    try:
        if request.POST.get("action") == "remove":
            n = collection_remove(
                tenant=tenant, collection=collection, document_ids=ids
            )
            message = f"Took {n} document{pluralize(n)} out of “{collection.name}”."
        else:
            n = collection_add(tenant=tenant, collection=collection, document_ids=ids)
            message = f"Added {n} document{pluralize(n)} to “{collection.name}”."
    except CollectionError as error:
        return _back(request, error=str(error))
    return _back(request, message)


@require_POST
@login_required
def document_upload_view(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    collection = None
    if request.POST.get("collection", "").isdigit():
        collection = Collection.objects.filter(
            pk=int(request.POST["collection"])
        ).first()
    files = request.FILES.getlist("files")
    results = []
    added_sources: list[str] = []
    for uploaded in files:
        # A Slack or Teams export is a source, not a document (issue 32).
        kind = export_kind(uploaded, uploaded.name)
        if kind:
            added_sources.append(
                _export_source(request, uploaded, kind=kind, collection=collection)
            )
            continue
        results.append(
            document_upload_result(
                tenant=request.tenant,
                upload=Upload(
                    filename=uploaded.name,
                    stream=uploaded,
                    content_type=uploaded.content_type or "",
                ),
                user=request.user,
                collection=collection,
            )
        )
    # Same bytes under another name are one document: say so, never answer
    # silently with the other name.
    notes = [
        f"“{r.uploaded_as}” has the same content as “{r.document.title}”: "
        "one document, both names kept."
        for r in results
        if r.outcome == "duplicate" and r.uploaded_as != r.document.title
    ]
    notes += added_sources
    if not request.htmx:
        messages.success(request, f"{len(files)} file(s) uploaded.")
        for note in notes:
            messages.info(request, note)
        return redirect("ingest:document-list")
    return _rows(request, upload_notes=notes)


def _export_source(request: HttpRequest, uploaded, *, kind: str, collection) -> str:
    """Add an uploaded chat export as a source; the note that says so."""
    found = source_kinds.kind_of(kind)
    label = found.label if found is not None else kind
    try:
        source = source_create_export(
            tenant=request.tenant,
            kind=kind,
            filename=uploaded.name,
            stream=uploaded,
            user=request.user,
            collection=collection,
        )
    except SourceError as error:
        return (
            f"“{uploaded.name}” looks like a {label} but was refused: {error.message}"
        )
    return (
        f"“{uploaded.name}” is a {label}: added as the source “{source.name}” "
        "(see Sources); its threads become documents as it syncs."
    )


def _viewer_url(document, state: ViewerState, **changes: object) -> str:
    """The viewer's address with `changes` (page, zoom, a span first)."""
    spans = list(state.spans)
    first = changes.pop("span", None)
    if first is not None:
        spans = [first, *[s for s in spans if s != first]]
    query: dict[str, object] = {}
    if spans:
        query.update(at=spans[0].start, end=spans[0].end)
        if len(spans) > 1:
            query["spans"] = ",".join(s.key for s in spans[1:])
    page = changes.get("page", state.page if first is None else None)
    if page:
        query["page"] = page
    zoom = changes.get("zoom", state.zoom)
    if zoom != "fit":
        query["zoom"] = zoom
    base = reverse("ingest:document-detail", args=[document.pk])
    return f"{base}?{urlencode(query)}" if query else base


@require_GET
@login_required
def document_detail(request: HttpRequest, pk: str) -> HttpResponse:
    """The document viewer: a PDF one printed page at a time (image, span
    outlines, its text beside or under it) with paging and zoom; other
    documents as text. Opens at `?at=&end=` (the cited span), its page first."""
    require_tenant(request)
    document = found_or_404(
        document_get(tenant=request.tenant, pk=pk), "No such document."
    )
    revision = document.current_revision
    context: dict = {
        "document": document,
        "revision": revision,
        "meta_items": [
            (k.replace("_", " ").capitalize(), v)
            for k, v in document.metadata.items()
            if isinstance(v, str | int | float)
            and k not in {"text"}
            and not k.startswith("title_")
        ][:12],
        "attachments": list(document.attachments.filter(is_deleted=False)),
    }
    if revision is not None:
        context.update(_viewer_context(document, revision, request.GET))
    return render(request, "ingest/document_detail.html", context)


def _viewer_context(document, revision, query) -> dict:
    content, starts = revision.normalized_content, revision.page_starts or [0]
    state = viewer_state(query, length=len(content), page_starts=starts)
    page_count = max(1, len(starts))
    is_pdf = document.source_type == "pdf"
    spans = [(s.start, s.end) for s in state.spans]
    context: dict = {
        "viewer": state,
        "page_count": page_count,
        "is_pdf": is_pdf,
        "span_links": [
            {
                "number": n,
                "pages": pages,
                "current": n == 1,
                "url": _viewer_url(document, state, span=span),
                "span": span,
                "anchor": f"#span-{n}",
            }
            for n, span, pages in span_links(state.spans, starts)
        ],
    }
    if not is_pdf:
        context["text_pages"] = [
            {"number": n, "segments": page_segments(content, starts, n, state.spans)}
            for n in range(1, page_count + 1)
        ]
        return context
    picture = page_picture(revision, state.page, spans)
    scale = RENDER_SCALE[state.zoom]
    # CSS pixels per point at this zoom (a point is 1/72 inch, a pixel 1/96).
    css_px = POINTS_TO_CSS_PX * (1.5 if state.zoom == "150" else 1.0)
    current = state.current
    later = [p for p in pages_of(starts, current) if p > state.page] if current else []
    context.update(
        picture=picture,
        text_pages=[
            {
                "number": state.page,
                "segments": page_segments(content, starts, state.page, state.spans),
            }
        ],
        image_url=reverse("ingest:document-page-image", args=[document.pk, state.page])
        + f"?scale={scale:g}",
        image_width=round((picture.width if picture else 612) * css_px),
        image_height=round((picture.height if picture else 792) * css_px),
        prev_url=_viewer_url(document, state, page=state.page - 1)
        if state.page > 1
        else "",
        next_url=_viewer_url(document, state, page=state.page + 1)
        if state.page < page_count
        else "",
        zoom_links=[
            {
                "key": key,
                "label": label,
                "url": _viewer_url(document, state, zoom=key),
                "current": key == state.zoom,
            }
            for key, label in ZOOMS.items()
        ],
        continues_on=later[0] if later else None,
        continues_url=_viewer_url(document, state, page=later[0]) if later else "",
        go_fields={
            k: v
            for k, v in (
                ("at", current.start if current else ""),
                ("end", current.end if current else ""),
                ("spans", ",".join(s.key for s in state.spans[1:])),
                ("zoom", "" if state.zoom == "fit" else state.zoom),
            )
            if v != ""
        },
    )
    return context


@require_GET
@login_required
def document_page_image(request: HttpRequest, pk: str, page: int) -> HttpResponse:
    """One PDF page as a PNG, for the viewer. Tenant-scoped like the document."""
    require_tenant(request)
    document = document_get(tenant=request.tenant, pk=pk)
    revision = document.current_revision if document is not None else None
    if (
        revision is None
        or document.source_type != "pdf"
        or not 1 <= page <= revision.page_count
    ):
        raise Http404("No such page.")
    # The viewer asks for a sharper image at 150%; other scales are refused
    # rather than rendered (each is a child process and ~1-4 MB of pixels).
    scale = {f"{v:g}": v for v in RENDER_SCALE.values()}.get(
        request.GET.get("scale", ""), 1.5
    )
    try:
        png = page_png(revision, page, scale=scale)
    except (ExtractionError, OSError) as exc:
        raise Http404("This page cannot be shown.") from exc
    response = HttpResponse(png, content_type="image/png")
    response["Cache-Control"] = "private, max-age=3600"
    return response
