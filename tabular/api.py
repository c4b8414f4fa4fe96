"""REST API for tabular reviews: create, run, poll, cancel, cells, export.

One operation per class (HackSoft). Every review lookup goes through the
caller's tenant: another tenant's review is a 404 with the same body as an
unknown id (TEN-02). Document ids in a new review are resolved inside the
caller's tenant too: another tenant's document is listed as `missing`,
exactly like an id that exists nowhere (TEN-04).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import FileResponse, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.response import Response

from accounts.api import (
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
from tabular import column_types, export
from tabular.cell_review import (
    cell_approve,
    cell_clear,
    cell_edit,
    cell_flag,
    cell_revert,
)
from tabular.models import Cell, Review, ReviewColumn, ReviewDocument
from tabular.selectors import (
    cell_citation,
    cell_review,
    review_get,
    review_list,
    review_progress,
)
from tabular.services import (
    MAX_COLUMNS,
    MAX_DOCUMENTS,
    MAX_OPTIONS,
    ColumnSpec,
    cell_rerun,
    review_cancel,
    review_create,
    review_start,
)

if TYPE_CHECKING:
    from rest_framework.request import Request

TAGS = ["tabular"]


# ---------------------------------------------------------------- serializers


class ColumnTypeField(serializers.ChoiceField):
    """A column type of the table, plus "list" (stored as text). DRF builds a
    field anew for each serializer it serves, so the choices are the table's
    as it is then: a type added to the table is accepted without an edit here."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            choices=[*column_types.choices(), ("list", "List (stored as text)")],
            **kwargs,
        )


class ColumnInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    question = serializers.CharField(max_length=4000)
    type = ColumnTypeField(
        default="text",
        help_text="what a cell holds; 'list' is accepted and stored as text",
    )
    options = serializers.ListField(
        child=serializers.CharField(max_length=200),
        required=False,
        default=list,
        max_length=MAX_OPTIONS,
        help_text="an options column's choices (2 or more); empty for other types",
    )
    description = serializers.CharField(
        max_length=4000,
        required=False,
        allow_blank=True,
        default="",
        help_text="what the column means; widens the search when the question's "
        "wording differs from the documents'",
    )

    class Meta:
        ref_name = "TabularColumnInput"


class ColumnOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    question = serializers.CharField()
    type = serializers.CharField()
    options = serializers.ListField(child=serializers.CharField())
    description = serializers.CharField()
    order = serializers.IntegerField()

    class Meta:
        ref_name = "TabularColumn"


class RowOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    document_id = serializers.UUIDField(source="document_uid")
    title = serializers.CharField()
    order = serializers.IntegerField()
    state = serializers.ChoiceField(
        choices=ReviewDocument.State.choices,
        help_text="missing / deleted / not_ready rows are kept; their cells fail with the reason",
    )
    error = serializers.CharField()

    class Meta:
        ref_name = "TabularRow"


class ProgressSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    done = serializers.IntegerField()
    failed = serializers.IntegerField()
    running = serializers.IntegerField()
    pending = serializers.IntegerField()
    percent = serializers.IntegerField()

    class Meta:
        ref_name = "TabularProgress"


class ReviewSummarySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Review.Status.choices)
    cost_actual_usd = serializers.DecimalField(max_digits=12, decimal_places=6)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "TabularReviewSummary"


class ReviewOutputSerializer(ReviewSummarySerializer):
    error = serializers.CharField()
    model_name = serializers.CharField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    started_at = serializers.DateTimeField(allow_null=True)
    progress = serializers.SerializerMethodField()
    documents = serializers.SerializerMethodField()
    columns = serializers.SerializerMethodField()

    class Meta:
        ref_name = "TabularReview"

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, review: Review) -> dict[str, Any]:
        return ProgressSerializer(review_progress(review)).data

    @extend_schema_field(RowOutputSerializer(many=True))
    def get_documents(self, review: Review) -> list[dict[str, Any]]:
        rows = ReviewDocument.objects.filter(review=review).order_by("order")
        return RowOutputSerializer(rows, many=True).data

    @extend_schema_field(ColumnOutputSerializer(many=True))
    def get_columns(self, review: Review) -> list[dict[str, Any]]:
        columns = ReviewColumn.objects.filter(review=review).order_by("order")
        return ColumnOutputSerializer(columns, many=True).data


class CitationOutputSerializer(serializers.Serializer):
    citation_id = serializers.UUIDField(allow_null=True)
    document = serializers.CharField()
    page = serializers.IntegerField(allow_null=True)
    quote = serializers.CharField()
    status = serializers.CharField(
        help_text="verified | failed | pending | unverified, or empty"
    )
    method = serializers.CharField()
    source_text = serializers.CharField(
        help_text="the document's own text at the verified span"
    )
    stale = serializers.BooleanField(
        help_text="verified before; a new revision of the document no longer holds it"
    )
    relevance = serializers.CharField(
        help_text="answers | related | off_topic: does the cited passage bear on the column"
    )

    class Meta:
        ref_name = "TabularCitation"


class CellReviewSerializer(serializers.Serializer):
    outcome = serializers.CharField(help_text="answered | not_found (empty until done)")
    value = serializers.CharField(
        help_text="the value shown: the edit, else the engine's"
    )
    typed_value = serializers.JSONField(
        allow_null=True,
        help_text='normalised: {"kind": "duration", "amount": 90, "unit": "day"}, '
        '{"kind": "money", "currency": "USD", "amount": "5000000"}, ...',
    )
    original_value = serializers.CharField(help_text="the engine's value")
    edited_value = serializers.CharField()
    edited_by = serializers.CharField()
    edited_at = serializers.DateTimeField(allow_null=True)
    edit_note = serializers.CharField()
    support = serializers.CharField(
        help_text="supported | unsupported | unchecked: does the verified quote state the value"
    )
    support_reason = serializers.CharField()
    review_state = serializers.ChoiceField(choices=Cell.ReviewState.choices)
    reviewed_by = serializers.CharField()
    reviewed_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "TabularCellReview"


class CellOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    row_id = serializers.IntegerField()
    document_id = serializers.UUIDField(source="row.document_uid")
    column_id = serializers.IntegerField()
    column = serializers.CharField(source="column.name")
    status = serializers.ChoiceField(choices=Cell.Status.choices)
    outcome = serializers.CharField(help_text="answered | not_found (empty until done)")
    value = serializers.CharField(source="shown_value")
    typed_value = serializers.JSONField(source="shown_typed_value", allow_null=True)
    confidence = serializers.CharField(
        help_text="high | medium | low (calibrated), or failed"
    )
    confidence_rule = serializers.CharField()
    model_confidence = serializers.CharField(help_text="what the model said, if any")
    justification = serializers.CharField()
    searched = serializers.JSONField(help_text="what a not-found cell read")
    error = serializers.CharField()
    cost_usd = serializers.DecimalField(max_digits=12, decimal_places=6)
    citation = serializers.SerializerMethodField()
    review = serializers.SerializerMethodField()

    class Meta:
        ref_name = "TabularCell"

    @extend_schema_field(CitationOutputSerializer)
    def get_citation(self, cell: Cell) -> dict[str, Any]:
        return cell_citation(cell)

    @extend_schema_field(CellReviewSerializer)
    def get_review(self, cell: Cell) -> dict[str, Any]:
        return cell_review(cell)


# ---------------------------------------------------------------- base


class ReviewApiView(TenantApiView):
    """Operations on one review: the one tenant-scoped lookup they share."""

    def get_review(self, review_id: str) -> Review:
        return found(review_get(tenant=self.tenant, pk=parse_uuid(review_id)))

    def review_response(
        self, review: Review, code: int = status.HTTP_200_OK
    ) -> Response:
        review.refresh_from_db()
        return Response(ReviewOutputSerializer(review).data, status=code)


# ---------------------------------------------------------------- operations


class ReviewListApi(TenantApiView):
    @extend_schema(
        tags=TAGS,
        summary="List the tenant's reviews, newest first",
        operation_id="tabular_reviews_list",
        parameters=[PageFilterSerializer],
        responses=responses(
            page_serializer("TabularReview", ReviewSummarySerializer), 400
        ),
    )
    def get(self, request: Request) -> Response:
        return paged_response(
            request, review_list(tenant=self.tenant), ReviewSummarySerializer
        )


class ReviewCreateApi(ReviewApiView):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        document_ids = serializers.ListField(
            child=serializers.UUIDField(),
            min_length=1,
            max_length=MAX_DOCUMENTS,
            help_text="rows, in this order; ids the tenant does not have are kept as missing rows",
        )
        columns = ColumnInputSerializer(many=True, min_length=1, max_length=MAX_COLUMNS)
        run = serializers.BooleanField(default=True, help_text="start the run at once")

        class Meta:
            ref_name = "TabularReviewCreate"

    @extend_schema(
        tags=TAGS,
        summary="Create a review (documents x columns) and, by default, start it",
        operation_id="tabular_reviews_create",
        request=InputSerializer,
        responses=responses(ReviewOutputSerializer, 400, code=201),
    )
    def post(self, request: Request) -> Response:
        data = self.validated(request)
        review = review_create(
            tenant=self.tenant,
            name=data["name"],
            document_ids=data["document_ids"],
            columns=[ColumnSpec(**column) for column in data["columns"]],
            user=self.acting_user,
        )
        if data["run"]:
            review_start(review=review)
        return self.review_response(review, status.HTTP_201_CREATED)


class ReviewDetailApi(ReviewApiView):
    @extend_schema(
        tags=TAGS,
        summary="A review with its progress (poll this while it runs)",
        operation_id="tabular_reviews_retrieve",
        parameters=[uuid_path("review_id")],
        responses=responses(ReviewOutputSerializer, 404),
    )
    def get(self, request: Request, review_id: str) -> Response:
        return self.review_response(self.get_review(review_id))


class ReviewRunApi(ReviewApiView):
    @extend_schema(
        tags=TAGS,
        summary="Start or resume a review (only unfinished cells run)",
        operation_id="tabular_reviews_run",
        request=None,
        parameters=[uuid_path("review_id")],
        responses=responses(ReviewOutputSerializer, 404, code=202),
    )
    def post(self, request: Request, review_id: str) -> Response:
        review = self.get_review(review_id)
        review_start(review=review)
        return self.review_response(review, status.HTTP_202_ACCEPTED)


class ReviewCancelApi(ReviewApiView):
    @extend_schema(
        tags=TAGS,
        summary="Cancel a queued or running review (finished cells are kept)",
        operation_id="tabular_reviews_cancel",
        request=None,
        parameters=[uuid_path("review_id")],
        responses=responses(ReviewOutputSerializer, 404),
    )
    def post(self, request: Request, review_id: str) -> Response:
        review = self.get_review(review_id)
        review_cancel(review=review)
        return self.review_response(review)


class ReviewCellListApi(ReviewApiView):
    @extend_schema(
        tags=TAGS,
        summary="A review's cells with their citations, row by row",
        operation_id="tabular_cells_list",
        parameters=[uuid_path("review_id"), PageFilterSerializer],
        responses=responses(
            page_serializer("TabularCell", CellOutputSerializer), 400, 404
        ),
    )
    def get(self, request: Request, review_id: str) -> Response:
        review = self.get_review(review_id)
        cells = (
            Cell.objects.filter(review=review)
            .select_related(*_CELL_RELATED)
            .order_by("row__order", "column__order")
        )
        return paged_response(request, cells, CellOutputSerializer)


class ReviewCellRerunApi(ReviewApiView):
    @extend_schema(
        tags=TAGS,
        summary="Re-run one finished cell (the review runs again for it)",
        operation_id="tabular_cells_rerun",
        request=None,
        parameters=[uuid_path("review_id"), int_path("cell_id")],
        responses=responses(CellOutputSerializer, 404, code=202),
    )
    def post(self, request: Request, review_id: str, cell_id: str) -> Response:
        review = self.get_review(review_id)
        cell = _cell_of(review, cell_id)
        cell_rerun(cell=cell, user=self.acting_user)
        return Response(_cell_data(cell), status=status.HTTP_202_ACCEPTED)


class ReviewCellActionApi(ReviewApiView):
    """Approve, flag, clear, edit (value + note) or revert one cell."""

    ACTIONS = {
        "approve": cell_approve,
        "flag": cell_flag,
        "clear": cell_clear,
        "revert": cell_revert,
    }

    class InputSerializer(serializers.Serializer):
        note = serializers.CharField(
            max_length=4000, required=False, allow_blank=True, default=""
        )
        value = serializers.CharField(
            max_length=2000,
            required=False,
            allow_blank=True,
            default="",
            help_text="edit only: the value the cell should show",
        )

        class Meta:
            ref_name = "TabularCellAction"

    @extend_schema(
        tags=TAGS,
        summary="Review a cell: approve, flag, clear, edit (value with a note) or revert",
        operation_id="tabular_cells_review",
        request=InputSerializer,
        parameters=[
            uuid_path("review_id"),
            int_path("cell_id"),
            OpenApiParameter(
                "action",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                enum=["approve", "flag", "clear", "edit", "revert"],
            ),
        ],
        responses=responses(CellOutputSerializer, 400, 404),
    )
    def post(
        self, request: Request, review_id: str, cell_id: str, action: str
    ) -> Response:
        review = self.get_review(review_id)
        cell = _cell_of(review, cell_id)
        s = self.InputSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        user = self.acting_user
        if action == "edit":
            cell_edit(
                cell=cell,
                user=user,
                value=s.validated_data["value"],
                note=s.validated_data["note"],
            )
        elif action in self.ACTIONS:
            self.ACTIONS[action](cell=cell, user=user, note=s.validated_data["note"])
        else:
            raise not_found()
        return Response(_cell_data(cell))


_CELL_RELATED = ("row", "column", "citation", "edited_by", "reviewed_by")


def _cell_of(review: Review, cell_id: str) -> Cell:
    pk = parse_int_id(cell_id)
    return found(Cell.objects.filter(review=review, pk=pk).first() if pk else None)


def _cell_data(cell: Cell) -> dict[str, Any]:
    """A cell as the API shows it, read again after a change."""
    return CellOutputSerializer(
        Cell.objects.select_related(*_CELL_RELATED).get(pk=cell.pk)
    ).data


class ReviewExportCsvApi(ReviewApiView, FileApiView):
    """One row per document; per column value, confidence, status, citation
    status, page and quote (see tabular.export)."""

    @extend_schema(
        tags=TAGS,
        summary="Export a review as CSV, with each cell's citation",
        operation_id="tabular_reviews_export_csv",
        parameters=[uuid_path("review_id")],
        responses=file_responses(
            "text/csv", "CSV (UTF-8 with BOM)", kind=OpenApiTypes.STR
        ),
    )
    def get(self, request: Request, review_id: str) -> HttpResponse:
        review = self.get_review(review_id)
        response = HttpResponse(
            export.review_csv(review), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = (
            f'attachment; filename="{export.filename(review, "csv")}"'
        )
        return response


class ReviewExportXlsxApi(ReviewApiView, FileApiView):
    """The grid sheet as the CSV, plus a Citations sheet (one row per cell)."""

    @extend_schema(
        tags=TAGS,
        summary="Export a review as XLSX, with each cell's citation",
        operation_id="tabular_reviews_export_xlsx",
        parameters=[uuid_path("review_id")],
        responses=file_responses(export.XLSX_CONTENT_TYPE, "XLSX"),
    )
    def get(self, request: Request, review_id: str) -> FileResponse:
        review = self.get_review(review_id)
        return FileResponse(
            export.review_xlsx(review),
            as_attachment=True,
            filename=export.filename(review, "xlsx"),
            content_type=export.XLSX_CONTENT_TYPE,
        )
