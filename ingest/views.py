from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.http import require_tenant
from accounts.models import Collection
from ingest.errors import ExtractionError
from ingest.page_image import page_png, span_highlight
from ingest.reading import page_views
from ingest.search import search_chunks
from ingest.selectors import document_get, document_list, documents_pending
from ingest.services import Upload, document_upload_result

LIST_LIMIT = 200


def _rows_context(request: HttpRequest) -> dict:
    documents = list(document_list(tenant=request.tenant)[:LIST_LIMIT])
    return {"documents": documents, "polling": documents_pending(documents)}


@require_GET
@login_required
def document_list_view(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    q = request.GET.get("q", "").strip()[:500]
    context = _rows_context(request)
    context.update(
        q=q,
        hits=search_chunks(request.tenant, q, k=10) if q else [],
        collections=list(Collection.objects.all()),
    )
    return render(request, "ingest/document_list.html", context)


@require_GET
@login_required
def document_rows(request: HttpRequest) -> HttpResponse:
    require_tenant(request)
    return render(
        request, "ingest/document_list.html#document-rows", _rows_context(request)
    )


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
    results = [
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
        for uploaded in files
    ]
    # Same bytes under another name are one document: say so, never answer
    # silently with the other name.
    notes = [
        f"“{r.uploaded_as}” has the same content as “{r.document.title}”: "
        "one document, both names kept."
        for r in results
        if r.outcome == "duplicate" and r.uploaded_as != r.document.title
    ]
    if not request.htmx:
        messages.success(request, f"{len(files)} file(s) uploaded.")
        for note in notes:
            messages.info(request, note)
        return redirect("ingest:document-list")
    return render(
        request,
        "ingest/document_list.html#document-rows",
        {**_rows_context(request), "upload_notes": notes},
    )


@require_GET
@login_required
def document_detail(request: HttpRequest, pk: str) -> HttpResponse:
    require_tenant(request)
    document = document_get(tenant=request.tenant, pk=pk)
    if document is None:
        raise Http404("No such document.")
    revision = document.current_revision
    highlight = None
    try:
        start, end = int(request.GET["at"]), int(request.GET.get("end", -1))
        highlight = (start, end if end > start else start + 1)
    except (KeyError, ValueError):
        pass
    pages = (
        page_views(
            revision.normalized_content, revision.page_starts, highlight=highlight
        )
        if revision
        else []
    )
    printed = None
    if revision is not None and highlight is not None and document.source_type == "pdf":
        printed = span_highlight(revision, *highlight)
    meta_items = [
        (k.replace("_", " ").capitalize(), v)
        for k, v in document.metadata.items()
        if isinstance(v, str | int | float) and k not in {"text"}
    ][:12]
    return render(
        request,
        "ingest/document_detail.html",
        {
            "document": document,
            "revision": revision,
            "pages": pages,
            "meta_items": meta_items,
            "attachments": list(document.attachments.filter(is_deleted=False)),
            "printed": printed,
        },
    )


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
    try:
        png = page_png(revision, page)
    except (ExtractionError, OSError) as exc:
        raise Http404("This page cannot be shown.") from exc
    response = HttpResponse(png, content_type="image/png")
    response["Cache-Control"] = "private, max-age=3600"
    return response
