"""REST API for playbooks: CRUD, import/export, run, poll, report, decide, export.

One operation per class (HackSoft). Every lookup goes through the caller's
tenant: another tenant's playbook, run or finding is a 404 with the same body
as an unknown id. Document ids in a run are resolved inside the caller's
tenant (another tenant's document is a `missing` row, as in tabular).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import FileResponse, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import (
    COMMON_ERRORS,
    ERROR_404,
    FileApiView,
    PageFilterSerializer,
    TenantApiView,
    file_responses,
    found,
    int_path,
    not_found,
    page_serializer,
    paged_response,
    parse_int_id,
    parse_uuid,
    responses,
    uuid_path,
)
from playbook import export
from playbook import findings as rules
from playbook.models import Finding, Playbook, PlaybookRun
from playbook.rules import rule_display
from playbook.runs import (
    finding_accept,
    finding_clear,
    finding_override,
    findings_sync,
    run_cancel,
    run_create,
    run_resume,
)
from playbook.schema import (
    FORMATS,
    MAX_POSITIONS,
    PlaybookFileError,
    dump_playbook,
    json_schema,
    read_playbook,
    spec_from_data,
)
from playbook.selectors import (
    contract_report,
    finding_get,
    finding_view,
    playbook_get,
    playbook_list,
    positions_of,
    row_get,
    run_get,
    run_list,
    run_view,
)
from playbook.services import (
    playbook_create,
    playbook_delete,
    playbook_replace,
    playbook_spec,
)
from tabular.services import MAX_DOCUMENTS

if TYPE_CHECKING:
    from rest_framework.request import Request

TAGS = ["playbooks"]


ERROR_FILE = OpenApiResponse(
    # An object: a bad playbook is {detail, code, problems: [{line, where,
    # message}]} (playbook.schema.PlaybookFileError); a malformed body is DRF's map of
    # fields to messages, like every other 400.
    OpenApiTypes.OBJECT,
    description="A bad playbook: {detail, code, problems: [{line, where, message}]}, every "
    "problem with its line (when read from a file) and field, nothing stored; or a malformed "
    "body: each bad field with its messages.",
)


def _file_error(exc: PlaybookFileError) -> Response:
    return Response(
        {
            "detail": str(exc),
            "code": exc.code,
            "problems": [
                {"line": p.line, "where": p.where, "message": p.message}
                for p in exc.problems
            ],
        },
        status=status.HTTP_400_BAD_REQUEST,
    )


# ---------------------------------------------------------------- serializers


class PositionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    order = serializers.IntegerField()
    title = serializers.CharField()
    question = serializers.CharField()
    type = serializers.CharField()
    options = serializers.ListField(child=serializers.CharField())
    standard = serializers.CharField()
    rule = serializers.JSONField(
        allow_null=True,
        help_text='stored form: {"at_least": {"kind": "duration", ...}}',
    )
    rule_text = serializers.SerializerMethodField()
    fallbacks = serializers.ListField(child=serializers.CharField())
    fallback_rule = serializers.JSONField(allow_null=True)
    fallback_rule_text = serializers.SerializerMethodField()
    deviation = serializers.CharField()
    severity = serializers.CharField()
    if_absent = serializers.CharField(
        help_text="acceptable, or the severity of a missing clause"
    )
    guidance = serializers.CharField()
    search = serializers.CharField()

    class Meta:
        ref_name = "PlaybookPosition"

    def get_rule_text(self, position: Any) -> str:
        return rule_display(position.rule)

    def get_fallback_rule_text(self, position: Any) -> str:
        return rule_display(position.fallback_rule)


class PlaybookSummarySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    description = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    class Meta:
        ref_name = "PlaybookSummary"


class PlaybookOutputSerializer(PlaybookSummarySerializer):
    positions = serializers.SerializerMethodField()

    class Meta:
        ref_name = "Playbook"

    @extend_schema_field(PositionOutputSerializer(many=True))
    def get_positions(self, playbook: Playbook) -> list[dict[str, Any]]:
        return PositionOutputSerializer(positions_of(playbook), many=True).data


class PlaybookInputSerializer(serializers.Serializer):
    """Either the playbook's fields as JSON (`playbook`), or a file's text
    (`text`, with `format` yaml or json)."""

    playbook = serializers.JSONField(
        required=False,
        help_text="the playbook file's fields as JSON (see GET /api/playbooks/schema)",
    )
    text = serializers.CharField(
        required=False, max_length=1_000_000, trim_whitespace=False
    )
    format = serializers.ChoiceField(
        choices=FORMATS, required=False, help_text="of `text`; else guessed"
    )

    class Meta:
        ref_name = "PlaybookInput"

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("playbook" in attrs) == ("text" in attrs):
            raise serializers.ValidationError(
                "Send either 'playbook' (JSON fields) or 'text' (a YAML or JSON file)."
            )
        return attrs


def _spec_of(data: dict[str, Any]):
    if "text" in data:
        return read_playbook(data["text"], fmt=data.get("format"))
    return spec_from_data(data["playbook"])


class SummarySerializer(serializers.Serializer):
    meets = serializers.IntegerField()
    fallback = serializers.IntegerField()
    deviates = serializers.IntegerField()
    missing = serializers.IntegerField()
    needs_review = serializers.IntegerField()
    pending = serializers.IntegerField()

    class Meta:
        ref_name = "PlaybookSummaryCounts"


class ProgressSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    done = serializers.IntegerField()
    failed = serializers.IntegerField()
    pending = serializers.IntegerField()
    percent = serializers.IntegerField()

    class Meta:
        ref_name = "PlaybookProgress"


class ContractLineSerializer(serializers.Serializer):
    row_id = serializers.IntegerField()
    document_id = serializers.UUIDField()
    title = serializers.CharField()
    state = serializers.CharField(
        help_text="ready, or missing / deleted / not_ready (its findings say so)"
    )
    error = serializers.CharField()
    summary = SummarySerializer()
    summary_line = serializers.CharField()
    worst = serializers.CharField(
        help_text="the highest severity among its findings, or empty"
    )

    class Meta:
        ref_name = "PlaybookContractLine"


class RunOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    playbook_id = serializers.UUIDField(allow_null=True)
    playbook_name = serializers.CharField()
    review_id = serializers.UUIDField()
    name = serializers.CharField()
    status = serializers.CharField(
        help_text="queued | running | completed | failed | cancelled"
    )
    created_at = serializers.DateTimeField()
    progress = ProgressSerializer()
    contracts = ContractLineSerializer(many=True)

    class Meta:
        ref_name = "PlaybookRun"


def _run_data(run: PlaybookRun) -> dict[str, Any]:
    findings_sync(run)
    run.review.refresh_from_db()
    view = run_view(run)
    p = view.progress
    return {
        "id": run.pk,
        "playbook_id": run.playbook_id,
        "playbook_name": run.playbook_name,
        "review_id": run.review_id,
        "name": run.review.name,
        "status": run.review.status,
        "created_at": run.created_at,
        "progress": {
            "total": p.total,
            "done": p.done,
            "failed": p.failed,
            "pending": p.pending + p.running,
            "percent": p.percent,
        },
        "contracts": [
            {
                "row_id": line.row.pk,
                "document_id": line.row.document_uid,
                "title": line.row.title,
                "state": line.row.state,
                "error": line.row.error,
                "summary": line.summary.as_dict(),
                "summary_line": line.summary.line,
                "worst": line.worst,
            }
            for line in view.contracts
        ],
    }


class RunSummarySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    playbook_name = serializers.CharField()
    name = serializers.CharField(source="review.name")
    status = serializers.CharField(source="review.status")
    created_at = serializers.DateTimeField()

    class Meta:
        ref_name = "PlaybookRunSummary"


class CitationSerializer(serializers.Serializer):
    quote = serializers.CharField(
        help_text="the contract's own text at the verified span (else the quote as given)"
    )
    page = serializers.IntegerField(allow_null=True)
    status = serializers.CharField(
        help_text="verified | failed | pending | unverified, or empty"
    )
    method = serializers.CharField()
    citation_id = serializers.UUIDField(allow_null=True)
    link = serializers.CharField(
        help_text="the document viewer at the highlighted passage"
    )

    class Meta:
        ref_name = "PlaybookCitation"


class FindingOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    contract_row_id = serializers.IntegerField()
    document_id = serializers.UUIDField()
    contract = serializers.CharField()
    position = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=rules.KINDS, help_text="the reviewer's finding over the engine's"
    )
    severity = serializers.CharField()
    engine_kind = serializers.CharField()
    engine_severity = serializers.CharField()
    rule = serializers.CharField(
        help_text="the finding rule that decided (docs/playbook.md)"
    )
    reason = serializers.CharField()
    value = serializers.CharField(
        help_text="what the contract says (the cell's short value)"
    )
    citation = CitationSerializer()
    searched = serializers.ListField(
        child=serializers.CharField(), help_text="a missing clause: the words searched"
    )
    standard = serializers.CharField()
    standard_rule = serializers.CharField()
    guidance = serializers.CharField()
    suggestion = serializers.CharField(
        help_text="a model's suggested wording for a deviation: a suggestion, never verified"
    )
    suggestion_model = serializers.CharField()
    decision = serializers.ChoiceField(choices=Finding.Decision.choices)
    decision_note = serializers.CharField()
    decided_by = serializers.CharField()
    decided_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "PlaybookFinding"


def _finding_data(finding: Finding) -> dict[str, Any]:
    view = finding_view(finding)
    return {
        "id": finding.pk,
        "contract_row_id": finding.row_id,
        "document_id": finding.row.document_uid,
        "contract": finding.row.title,
        "position": view.position.title,
        "kind": view.kind,
        "severity": view.severity,
        "engine_kind": finding.kind,
        "engine_severity": finding.severity,
        "rule": finding.rule,
        "reason": finding.reason,
        "value": view.value,
        "citation": view.citation_dict(),
        "searched": view.searched_terms if view.kind == rules.MISSING else [],
        "standard": view.position.standard,
        "standard_rule": view.standard_rule,
        "guidance": view.position.guidance,
        "suggestion": finding.suggestion,
        "suggestion_model": finding.suggestion_model,
        "decision": finding.decision,
        "decision_note": finding.decision_note,
        "decided_by": finding.decided_by.get_username() if finding.decided_by else "",
        "decided_at": finding.decided_at,
    }


# ---------------------------------------------------------------- base


class PlaybookApiView(TenantApiView):
    def get_playbook(self, playbook_id: str) -> Playbook:
        return found(playbook_get(tenant=self.tenant, pk=parse_uuid(playbook_id)))

    def get_run(self, run_id: str) -> PlaybookRun:
        return found(run_get(tenant=self.tenant, pk=parse_uuid(run_id)))


def _finding_of(run: PlaybookRun, finding_id: str) -> Finding:
    pk = parse_int_id(finding_id)
    finding = found(finding_get(run=run, pk=pk) if pk else None)
    return Finding.objects.select_related(
        "position", "cell", "cell__citation", "row", "decided_by"
    ).get(pk=finding.pk)


# ---------------------------------------------------------------- playbooks


class PlaybookSchemaApi(APIView):
    """The playbook file's JSON Schema (public: it describes a format)."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    @extend_schema(
        tags=TAGS,
        summary="The playbook file's JSON Schema (YAML and JSON files)",
        operation_id="playbooks_schema",
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT, description="JSON Schema draft 2020-12"
            )
        },
    )
    def get(self, request: Request) -> Response:
        return Response(json_schema())


class PlaybookListApi(PlaybookApiView):
    @extend_schema(
        tags=TAGS,
        summary="List the tenant's playbooks",
        operation_id="playbooks_list",
        parameters=[PageFilterSerializer],
        responses=responses(
            page_serializer("Playbook", PlaybookSummarySerializer), 400
        ),
    )
    def get(self, request: Request) -> Response:
        return paged_response(
            request, playbook_list(tenant=self.tenant), PlaybookSummarySerializer
        )


class PlaybookCreateApi(PlaybookApiView):
    @extend_schema(
        tags=TAGS,
        summary=f"Create a playbook (JSON fields, or a YAML/JSON file's text; at most {MAX_POSITIONS} positions)",
        operation_id="playbooks_create",
        request=PlaybookInputSerializer,
        responses={201: PlaybookOutputSerializer, 400: ERROR_FILE, **COMMON_ERRORS},
    )
    def post(self, request: Request) -> Response:
        s = PlaybookInputSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        try:
            spec = _spec_of(s.validated_data)
        except PlaybookFileError as exc:
            return _file_error(exc)
        playbook = playbook_create(tenant=self.tenant, spec=spec, user=self.acting_user)
        return Response(
            PlaybookOutputSerializer(playbook).data, status=status.HTTP_201_CREATED
        )


class PlaybookDetailApi(PlaybookApiView):
    @extend_schema(
        tags=TAGS,
        summary="A playbook with its positions",
        operation_id="playbooks_retrieve",
        parameters=[uuid_path("playbook_id")],
        responses=responses(PlaybookOutputSerializer, 404),
    )
    def get(self, request: Request, playbook_id: str) -> Response:
        return Response(PlaybookOutputSerializer(self.get_playbook(playbook_id)).data)


class PlaybookUpdateApi(PlaybookApiView):
    @extend_schema(
        tags=TAGS,
        summary="Replace a playbook's name, description and positions (its runs keep theirs)",
        operation_id="playbooks_update",
        request=PlaybookInputSerializer,
        parameters=[uuid_path("playbook_id")],
        responses={
            200: PlaybookOutputSerializer,
            400: ERROR_FILE,
            404: ERROR_404,
            **COMMON_ERRORS,
        },
    )
    def post(self, request: Request, playbook_id: str) -> Response:
        playbook = self.get_playbook(playbook_id)
        s = PlaybookInputSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        try:
            spec = _spec_of(s.validated_data)
        except PlaybookFileError as exc:
            return _file_error(exc)
        playbook = playbook_replace(playbook=playbook, spec=spec)
        return Response(PlaybookOutputSerializer(playbook).data)


class PlaybookDeleteApi(PlaybookApiView):
    @extend_schema(
        tags=TAGS,
        summary="Delete a playbook (its runs are kept)",
        operation_id="playbooks_delete",
        request=None,
        parameters=[uuid_path("playbook_id")],
        responses=responses(None, 404, code=204),
    )
    def post(self, request: Request, playbook_id: str) -> Response:
        playbook_delete(playbook=self.get_playbook(playbook_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlaybookExportApi(PlaybookApiView, FileApiView):
    @extend_schema(
        tags=TAGS,
        summary="Export a playbook as a YAML or JSON file",
        operation_id="playbooks_export",
        parameters=[
            uuid_path("playbook_id"),
            OpenApiParameter(
                "format",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                enum=list(FORMATS),
                default="yaml",
            ),
        ],
        responses=file_responses(
            "application/yaml", "the playbook file", kind=OpenApiTypes.STR
        ),
    )
    def get(self, request: Request, playbook_id: str) -> HttpResponse:
        playbook = self.get_playbook(playbook_id)
        fmt = request.query_params.get("format", "yaml")
        if fmt not in FORMATS:
            fmt = "yaml"
        response = HttpResponse(
            dump_playbook(playbook_spec(playbook), fmt),
            content_type=("application/json" if fmt == "json" else "application/yaml")
            + "; charset=utf-8",
        )
        response["Content-Disposition"] = (
            f'attachment; filename="playbook-{str(playbook.pk)[:8]}.{fmt}"'
        )
        return response


class PlaybookRunApi(PlaybookApiView):
    class InputSerializer(serializers.Serializer):
        document_ids = serializers.ListField(
            child=serializers.UUIDField(),
            min_length=1,
            max_length=MAX_DOCUMENTS,
            help_text="the contracts, in this order; ids the tenant does not have are kept as missing rows",
        )
        name = serializers.CharField(
            max_length=200, required=False, allow_blank=True, default=""
        )

        class Meta:
            ref_name = "PlaybookRunCreate"

    @extend_schema(
        tags=TAGS,
        summary="Run a playbook on contracts (a tabular review in Celery; poll the run)",
        operation_id="playbooks_run",
        request=InputSerializer,
        parameters=[uuid_path("playbook_id")],
        responses=responses(RunOutputSerializer, 400, 404, code=202),
    )
    def post(self, request: Request, playbook_id: str) -> Response:
        playbook = self.get_playbook(playbook_id)
        s = self.InputSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        run = run_create(
            tenant=self.tenant,
            playbook=playbook,
            document_ids=s.validated_data["document_ids"],
            user=self.acting_user,
            name=s.validated_data["name"],
        )
        return Response(
            RunOutputSerializer(_run_data(run)).data, status=status.HTTP_202_ACCEPTED
        )


# ---------------------------------------------------------------- runs


class RunListApi(PlaybookApiView):
    @extend_schema(
        tags=TAGS,
        summary="List the tenant's playbook runs, newest first",
        operation_id="playbooks_runs_list",
        parameters=[PageFilterSerializer],
        responses=responses(page_serializer("PlaybookRun", RunSummarySerializer), 400),
    )
    def get(self, request: Request) -> Response:
        return paged_response(
            request, run_list(tenant=self.tenant), RunSummarySerializer
        )


class RunDetailApi(PlaybookApiView):
    @extend_schema(
        tags=TAGS,
        summary="A run's status, progress and summary per contract (poll this)",
        operation_id="playbooks_runs_retrieve",
        parameters=[uuid_path("run_id")],
        responses=responses(RunOutputSerializer, 404),
    )
    def get(self, request: Request, run_id: str) -> Response:
        return Response(RunOutputSerializer(_run_data(self.get_run(run_id))).data)


class RunResumeApi(PlaybookApiView):
    @extend_schema(
        tags=TAGS,
        summary="Resume a run (only unfinished checks run)",
        operation_id="playbooks_runs_resume",
        request=None,
        parameters=[uuid_path("run_id")],
        responses=responses(RunOutputSerializer, 404, code=202),
    )
    def post(self, request: Request, run_id: str) -> Response:
        run = self.get_run(run_id)
        run_resume(run=run)
        return Response(
            RunOutputSerializer(_run_data(run)).data, status=status.HTTP_202_ACCEPTED
        )


class RunCancelApi(PlaybookApiView):
    @extend_schema(
        tags=TAGS,
        summary="Cancel a queued or running run (finished checks are kept)",
        operation_id="playbooks_runs_cancel",
        request=None,
        parameters=[uuid_path("run_id")],
        responses=responses(RunOutputSerializer, 404),
    )
    def post(self, request: Request, run_id: str) -> Response:
        run = self.get_run(run_id)
        run_cancel(run=run)
        return Response(RunOutputSerializer(_run_data(run)).data)


class RunReportApi(PlaybookApiView):
    @extend_schema(
        tags=TAGS,
        summary="A run's findings with their citations (all contracts, or one: contract_row_id)",
        operation_id="playbooks_runs_report",
        parameters=[
            uuid_path("run_id"),
            OpenApiParameter(
                "contract_row_id",
                OpenApiTypes.INT,
                OpenApiParameter.QUERY,
                required=False,
            ),
        ],
        responses=responses(FindingOutputSerializer(many=True), 404),
    )
    def get(self, request: Request, run_id: str) -> Response:
        run = self.get_run(run_id)
        findings_sync(run)
        raw = request.query_params.get("contract_row_id")
        if raw:
            pk = parse_int_id(raw)
            rows = [found(row_get(run=run, pk=pk) if pk else None)]
        else:
            rows = list(run.review.rows.order_by("order"))
        data = []
        for row in rows:
            report = contract_report(run, row, events=False)
            for group in report.groups:
                data += [_finding_data(view.finding) for view in group.items]
        return Response(FindingOutputSerializer(data, many=True).data)


class FindingActionApi(PlaybookApiView):
    class InputSerializer(serializers.Serializer):
        note = serializers.CharField(
            max_length=4000, required=False, allow_blank=True, default=""
        )
        kind = serializers.ChoiceField(
            choices=rules.KINDS, required=False, help_text="override only"
        )
        severity = serializers.ChoiceField(
            choices=["", "low", "medium", "high"],
            required=False,
            default="",
            help_text="override only",
        )

        class Meta:
            ref_name = "PlaybookFindingAction"

    @extend_schema(
        tags=TAGS,
        summary="Review a finding: accept, override (kind, severity, note) or clear",
        operation_id="playbooks_findings_review",
        request=InputSerializer,
        parameters=[
            uuid_path("run_id"),
            int_path("finding_id"),
            OpenApiParameter(
                "action",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                enum=["accept", "override", "clear"],
            ),
        ],
        responses=responses(FindingOutputSerializer, 400, 404),
    )
    def post(
        self, request: Request, run_id: str, finding_id: str, action: str
    ) -> Response:
        run = self.get_run(run_id)
        finding = _finding_of(run, finding_id)
        data = self.validated(request)
        user = self.acting_user
        if action == "accept":
            finding_accept(finding=finding, user=user, note=data["note"])
        elif action == "override":
            finding_override(
                finding=finding,
                user=user,
                kind=data.get("kind", ""),
                severity=data["severity"],
                note=data["note"],
            )
        elif action == "clear":
            finding_clear(finding=finding, user=user, note=data["note"])
        else:
            raise not_found()
        return Response(
            FindingOutputSerializer(_finding_data(_finding_of(run, finding_id))).data
        )


class RunExportDocxApi(PlaybookApiView, FileApiView):
    @extend_schema(
        tags=TAGS,
        summary="The report as DOCX, with each finding's verified quote and page",
        operation_id="playbooks_runs_export_docx",
        parameters=[uuid_path("run_id")],
        responses=file_responses(export.DOCX_CONTENT_TYPE, "DOCX"),
    )
    def get(self, request: Request, run_id: str) -> FileResponse:
        run = self.get_run(run_id)
        findings_sync(run)
        return FileResponse(
            export.report_docx(run),
            as_attachment=True,
            filename=export.filename(run, "docx"),
            content_type=export.DOCX_CONTENT_TYPE,
        )


class RunExportXlsxApi(PlaybookApiView, FileApiView):
    @extend_schema(
        tags=TAGS,
        summary="The findings as XLSX (one row per finding, with citations; a History sheet)",
        operation_id="playbooks_runs_export_xlsx",
        parameters=[uuid_path("run_id")],
        responses=file_responses(export.XLSX_CONTENT_TYPE, "XLSX"),
    )
    def get(self, request: Request, run_id: str) -> FileResponse:
        run = self.get_run(run_id)
        findings_sync(run)
        return FileResponse(
            export.report_xlsx(run),
            as_attachment=True,
            filename=export.filename(run, "xlsx"),
            content_type=export.XLSX_CONTENT_TYPE,
        )
