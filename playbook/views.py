"""Playbook pages (HTMX, and without JavaScript): playbooks (list, import,
edit positions, export), runs (live progress) and a report per contract
(findings by severity, accept or override with a note, DOCX/XLSX).

Thin: every change goes through playbook.services / playbook.runs; a bad
input re-renders the form at 200 with its errors, so nothing typed is lost.
While a run is active its progress fragment polls every 2 s and syncs the
findings of cells that finished (playbook.runs.findings_sync).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.http import found_or_404, require_tenant
from ingest.models import Document
from ingest.selectors import document_list
from playbook import export
from playbook import findings as rules
from playbook.models import Finding, Playbook, PlaybookRun, Position, Severity
from playbook.rules import POSITION_TYPES, rule_display
from playbook.runs import (
    RunError,
    finding_accept,
    finding_clear,
    finding_override,
    findings_sync,
    model_configured,
    run_cancel,
    run_create,
    run_resume,
)
from playbook.schema import (
    FORMATS,
    IF_ABSENT,
    PlaybookFileError,
    PlaybookSpec,
    dump_playbook,
)
from playbook.selectors import (
    contract_report,
    finding_get,
    finding_view,
    playbook_get,
    playbook_list,
    position_get,
    positions_of,
    row_get,
    run_get,
    run_list,
    run_view,
)
from playbook.services import (
    PlaybookError,
    playbook_delete,
    playbook_import,
    playbook_replace,
    playbook_spec,
    position_delete,
    position_move,
    position_save,
    sample_import,
)
from tabular.services import ReviewError

MAX_UPLOAD_BYTES = 1_000_000


def _playbook_or_404(request: HttpRequest, playbook_id) -> Playbook:
    return found_or_404(
        playbook_get(tenant=require_tenant(request), pk=playbook_id),
        "No such playbook.",
    )


def _run_or_404(request: HttpRequest, run_id) -> PlaybookRun:
    return found_or_404(
        run_get(tenant=require_tenant(request), pk=run_id), "No such run."
    )


def _problems(exc: Exception) -> list[str]:
    if isinstance(exc, PlaybookFileError):
        return [str(p) for p in exc.problems]
    return [getattr(exc, "message", str(exc))]


# ---------------------------------------------------------------- playbooks


def _list_context(request: HttpRequest, **extra) -> dict:
    tenant = require_tenant(request)
    return {
        "playbooks": playbook_list(tenant=tenant),
        "runs": run_list(tenant=tenant)[:30],
        **extra,
    }


@require_GET
@login_required
def playbook_list_view(request: HttpRequest) -> HttpResponse:
    return render(request, "playbook/list.html", _list_context(request))


@require_POST
@login_required
def playbook_import_view(request: HttpRequest) -> HttpResponse:
    """A playbook from an uploaded file, pasted text, or the sample."""
    tenant = require_tenant(request)
    try:
        if request.POST.get("sample"):
            name = " ".join(request.POST.get("name", "").split())[:200] or None
            playbook = sample_import(tenant=tenant, user=request.user, name=name)
        else:
            upload = request.FILES.get("file")
            if upload is not None:
                if upload.size > MAX_UPLOAD_BYTES:
                    raise PlaybookError(
                        f"The file is larger than {MAX_UPLOAD_BYTES:,} bytes."
                    )
                text, filename = upload.read(), upload.name or ""
            else:
                text, filename = request.POST.get("text", ""), ""
                if not text.strip():
                    raise PlaybookError("Choose a YAML or JSON file, or paste one.")
            playbook = playbook_import(
                tenant=tenant, text=text, filename=filename, user=request.user
            )
    except (PlaybookFileError, PlaybookError) as exc:
        context = _list_context(
            request, import_errors=_problems(exc), pasted=request.POST.get("text", "")
        )
        return render(request, "playbook/list.html", context)
    messages.success(request, f"Playbook “{playbook.name}” is ready.")
    return redirect("playbook:detail", playbook_id=playbook.pk)


def _detail_context(request: HttpRequest, playbook: Playbook, **extra) -> dict:
    tenant = require_tenant(request)
    return {
        "playbook": playbook,
        "positions": [
            (p, rule_display(p.rule), rule_display(p.fallback_rule))
            for p in positions_of(playbook)
        ],
        "documents": document_list(tenant=tenant).filter(status=Document.Status.READY)[
            :500
        ],
        "runs": run_list(tenant=tenant).filter(playbook=playbook)[:20],
        "model": model_configured(),
        **extra,
    }


@require_GET
@login_required
def playbook_detail(request: HttpRequest, playbook_id) -> HttpResponse:
    playbook = _playbook_or_404(request, playbook_id)
    return render(request, "playbook/detail.html", _detail_context(request, playbook))


@require_POST
@login_required
def playbook_rename(request: HttpRequest, playbook_id) -> HttpResponse:
    playbook = _playbook_or_404(request, playbook_id)
    spec = playbook_spec(playbook)
    name = " ".join(request.POST.get("name", "").split())[:200]
    try:
        if not name:
            raise PlaybookError("A playbook needs a name.")
        playbook_replace(
            playbook=playbook,
            spec=PlaybookSpec(
                name=name,
                description=request.POST.get("description", "").strip()[:4000],
                positions=spec.positions,
            ),
        )
    except PlaybookError as exc:
        return render(
            request,
            "playbook/detail.html",
            _detail_context(request, playbook, rename_error=exc.message),
        )
    return redirect("playbook:detail", playbook_id=playbook.pk)


@require_POST
@login_required
def playbook_replace_view(request: HttpRequest, playbook_id) -> HttpResponse:
    """Replace the playbook from a file (its runs keep their snapshots)."""
    playbook = _playbook_or_404(request, playbook_id)
    upload = request.FILES.get("file")
    try:
        if upload is None:
            raise PlaybookError("Choose a YAML or JSON file.")
        if upload.size > MAX_UPLOAD_BYTES:
            raise PlaybookError(f"The file is larger than {MAX_UPLOAD_BYTES:,} bytes.")
        playbook_import(
            tenant=playbook.tenant,
            text=upload.read(),
            filename=upload.name or "",
            replace=playbook,
        )
    except (PlaybookFileError, PlaybookError) as exc:
        return render(
            request,
            "playbook/detail.html",
            _detail_context(request, playbook, import_errors=_problems(exc)),
        )
    messages.success(request, "Positions replaced from the file.")
    return redirect("playbook:detail", playbook_id=playbook.pk)


@require_POST
@login_required
def playbook_delete_view(request: HttpRequest, playbook_id) -> HttpResponse:
    playbook = _playbook_or_404(request, playbook_id)
    name = playbook.name
    playbook_delete(playbook=playbook)
    messages.info(request, f"Playbook “{name}” deleted; its runs are kept.")
    return redirect("playbook:list")


@require_GET
@login_required
def playbook_export(request: HttpRequest, playbook_id, fmt: str) -> HttpResponse:
    playbook = _playbook_or_404(request, playbook_id)
    if fmt not in FORMATS:
        raise Http404("No such format.")
    text = dump_playbook(playbook_spec(playbook), fmt)
    content_type = "application/json" if fmt == "json" else "application/yaml"
    response = HttpResponse(text, content_type=f"{content_type}; charset=utf-8")
    name = (playbook.name or "playbook").replace('"', "")[:80]
    response["Content-Disposition"] = (
        f'attachment; filename="{_slug(name)}.{fmt if fmt == "json" else "yaml"}"'
    )
    return response


def _slug(name: str) -> str:
    from django.utils.text import slugify

    return slugify(name)[:60] or "playbook"


# ---------------------------------------------------------------- positions

POSITION_FORM_FIELDS = (
    "title",
    "question",
    "type",
    "options",
    "standard",
    "rule",
    "fallbacks",
    "fallback_rule",
    "deviation",
    "severity",
    "if_absent",
    "guidance",
    "search",
)


def _position_initial(position: Position | None) -> dict:
    if position is None:
        return {"type": "text", "severity": "medium", "if_absent": "medium"}
    return {
        "title": position.title,
        "question": position.question,
        "type": position.type,
        "options": "\n".join(position.options or ()),
        "standard": position.standard,
        "rule": rule_display(position.rule),
        "fallbacks": "\n".join(position.fallbacks or ()),
        "fallback_rule": rule_display(position.fallback_rule),
        "deviation": position.deviation,
        "severity": position.severity,
        "if_absent": position.if_absent,
        "guidance": position.guidance,
        "search": position.search,
    }


def _position_context(
    playbook: Playbook,
    position: Position | None,
    form: dict,
    errors: list[str] | None = None,
) -> dict:
    return {
        "playbook": playbook,
        "position": position,
        "form": form,
        "errors": errors or [],
        "types": POSITION_TYPES,
        "severities": Severity.choices,
        "if_absent_choices": IF_ABSENT,
    }


@login_required
def position_form(request: HttpRequest, playbook_id, position_id=None) -> HttpResponse:
    """Add (no id) or edit a position: GET shows the form, POST saves it."""
    playbook = _playbook_or_404(request, playbook_id)
    position = None
    if position_id is not None:
        position = found_or_404(
            position_get(playbook=playbook, pk=position_id), "No such position."
        )
    if request.method != "POST":
        if request.method != "GET":
            return HttpResponse(status=405)
        return render(
            request,
            "playbook/position_form.html",
            _position_context(playbook, position, _position_initial(position)),
        )
    form = {name: request.POST.get(name, "") for name in POSITION_FORM_FIELDS}
    try:
        position_save(playbook=playbook, data=form, position=position)
    except PlaybookFileError as exc:
        return render(
            request,
            "playbook/position_form.html",
            _position_context(playbook, position, form, _problems(exc)),
        )
    return redirect("playbook:detail", playbook_id=playbook.pk)


@require_POST
@login_required
def position_delete_view(
    request: HttpRequest, playbook_id, position_id
) -> HttpResponse:
    playbook = _playbook_or_404(request, playbook_id)
    position = found_or_404(
        position_get(playbook=playbook, pk=position_id), "No such position."
    )
    position_delete(position=position)
    return redirect("playbook:detail", playbook_id=playbook.pk)


@require_POST
@login_required
def position_move_view(request: HttpRequest, playbook_id, position_id) -> HttpResponse:
    playbook = _playbook_or_404(request, playbook_id)
    position = found_or_404(
        position_get(playbook=playbook, pk=position_id), "No such position."
    )
    position_move(
        position=position, by=-1 if request.POST.get("direction") == "up" else 1
    )
    return redirect("playbook:detail", playbook_id=playbook.pk)


# ---------------------------------------------------------------- runs


@require_POST
@login_required
def run_create_view(request: HttpRequest, playbook_id) -> HttpResponse:
    playbook = _playbook_or_404(request, playbook_id)
    try:
        run = run_create(
            tenant=playbook.tenant,
            playbook=playbook,
            document_ids=request.POST.getlist("documents"),
            user=request.user,
            name=request.POST.get("name", ""),
        )
    except (ReviewError, RunError) as exc:
        context = _detail_context(
            request,
            playbook,
            run_error=exc.message,
            chosen=request.POST.getlist("documents"),
        )
        return render(request, "playbook/detail.html", context)
    return redirect("playbook:run", run_id=run.pk)


def _run_context(run: PlaybookRun) -> dict:
    findings_sync(run)
    run.review.refresh_from_db()
    view = run_view(run)
    return {"run": run, "review": run.review, "view": view, "progress": view.progress}


@require_GET
@login_required
def run_detail(request: HttpRequest, run_id) -> HttpResponse:
    run = _run_or_404(request, run_id)
    return render(request, "playbook/run.html", _run_context(run))


@require_GET
@login_required
def run_progress(request: HttpRequest, run_id) -> HttpResponse:
    run = _run_or_404(request, run_id)
    return render(request, "playbook/run.html#run-body", _run_context(run))


@require_POST
@login_required
def run_resume_view(request: HttpRequest, run_id) -> HttpResponse:
    run = _run_or_404(request, run_id)
    run_resume(run=run)
    return redirect("playbook:run", run_id=run.pk)


@require_POST
@login_required
def run_cancel_view(request: HttpRequest, run_id) -> HttpResponse:
    run = _run_or_404(request, run_id)
    if not run_cancel(run=run):
        messages.info(request, "The run had already finished.")
    return redirect("playbook:run", run_id=run.pk)


def _report_context(run: PlaybookRun, row, **extra) -> dict:
    findings_sync(run)
    run.review.refresh_from_db()
    return {
        "run": run,
        "review": run.review,
        "report": contract_report(run, row),
        "kinds": [(k, rules.KIND_LABELS[k]) for k in rules.KINDS],
        "severities": Severity.choices,
        **extra,
    }


@require_GET
@login_required
def contract_report_view(request: HttpRequest, run_id, row_id) -> HttpResponse:
    run = _run_or_404(request, run_id)
    row = found_or_404(row_get(run=run, pk=row_id), "No such contract in this run.")
    return render(request, "playbook/report.html", _report_context(run, row))


FINDING_ACTIONS = {
    "accept": lambda f, user, post: finding_accept(
        finding=f, user=user, note=post.get("note", "")
    ),
    "override": lambda f, user, post: finding_override(
        finding=f,
        user=user,
        kind=post.get("kind", ""),
        severity=post.get("severity", ""),
        note=post.get("note", ""),
    ),
    "clear": lambda f, user, post: finding_clear(
        finding=f, user=user, note=post.get("note", "")
    ),
}


@require_POST
@login_required
def finding_action_view(
    request: HttpRequest, run_id, finding_id, action: str
) -> HttpResponse:
    """Accept, override (finding, severity, note) or clear a finding; answers
    with its card (htmx) or goes back to the report."""
    run = _run_or_404(request, run_id)
    finding = finding_get(run=run, pk=finding_id)
    act = FINDING_ACTIONS.get(action)
    if finding is None or act is None:
        raise Http404("No such finding or action.")
    error = ""
    try:
        act(finding, request.user, request.POST)
    except RunError as exc:
        error = exc.message
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(f"{_report_url(run, finding.row_id)}#finding-{finding.pk}")
    finding = Finding.objects.select_related(
        "position", "cell", "cell__citation", "row", "decided_by"
    ).get(pk=finding.pk)
    context = {
        "run": run,
        "item": finding_view(finding, events=True),
        "kinds": [(k, rules.KIND_LABELS[k]) for k in rules.KINDS],
        "severities": Severity.choices,
        "error": error,
        "note_value": request.POST.get("note", "") if error else "",
        # Re-rendered with what was chosen, so a refused override loses nothing.
        "kind_value": request.POST.get("kind", "") if error else "",
        "severity_value": request.POST.get("severity", "") if error else "",
    }
    return render(request, "playbook/report.html#finding", context)


def _report_url(run: PlaybookRun, row_id: int) -> str:
    from django.urls import reverse

    return reverse("playbook:report", kwargs={"run_id": run.pk, "row_id": row_id})


def _export_rows(request: HttpRequest, run: PlaybookRun):
    raw = request.GET.get("contract")
    if not raw:
        return None, None
    row = found_or_404(row_get(run=run, pk=raw), "No such contract in this run.")
    return [row], row


# The report's file formats: the writer and the content type of each.
REPORT_FORMATS = {
    "docx": (export.report_docx, export.DOCX_CONTENT_TYPE),
    "xlsx": (export.report_xlsx, export.XLSX_CONTENT_TYPE),
}


@require_GET
@login_required
def run_export(request: HttpRequest, run_id, fmt: str) -> FileResponse:
    """The report as `fmt` (REPORT_FORMATS): every contract, or one (?contract=)."""
    run = _run_or_404(request, run_id)
    findings_sync(run)
    rows, row = _export_rows(request, run)
    write, content_type = REPORT_FORMATS[fmt]
    return FileResponse(
        write(run, rows=rows),
        as_attachment=True,
        filename=export.filename(run, fmt, row),
        content_type=content_type,
    )
