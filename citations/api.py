"""REST API for citations (seed 003): list, detail, stats, verify. Resolve
(`POST /api/citations/resolve`) creates a holder message, so it is served by
chat.api with this module's serializer.

`tenant_id` (list and stats) is required and must name the caller's own
tenant; anything else is a 403 with one fixed body (see accounts.api). Ids in
paths and bodies are looked up inside the caller's tenant only, so another
tenant's citation or chunk is a 404 with the same body as an unknown id and
nothing is written (TEN-02).

Out-of-provenance references (the model cited a source it was never given)
have no chunk or file, so they live outside `message_citations`
(citations.models.UnsourcedCitation). Stats count them; the list returns them
when asked for with `verification_status=out_of_provenance`, in the same
shape with the source fields null; their ids work on the detail endpoint.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from accounts.api import (
    TENANT_ID_PARAM,
    PageFilterSerializer,
    TenantApiView,
    collection_id_field,
    not_found,
    page_response,
    page_serializer,
    paginate,
    parse_uuid,
    responses,
    uuid_path,
)
from citations.cascade.rules import RULES
from citations.models import FailureKind, MatchType, Method, Relevance, Status
from citations.selectors import (
    CitationFilters,
    citation_get,
    citation_list,
    citation_rule_counts,
    citation_stats,
    unsourced_list,
)
from citations.services import citation_verify

if TYPE_CHECKING:
    from rest_framework.request import Request

# Execution contexts are labels chosen by the client (chat, workflow,
# function_call, …); kept to a safe alphabet and the column widths.
CONTEXT_TYPE_PATTERN = r"^[A-Za-z0-9_.:-]{1,32}$"
MAX_CONTEXT_ID = 64
MAX_QUOTE_CHARS = 20_000


class CitationOutputSerializer(serializers.Serializer):
    """One citation (seed 000 columns + seed 003 fields). For an
    out-of-provenance reference the source fields are null."""

    id = serializers.UUIDField()
    message_id = serializers.UUIDField()
    execution_context_type = serializers.CharField()
    execution_context_id = serializers.CharField()
    ref_label = serializers.CharField()
    quoted_text = serializers.CharField(help_text="the model's (or agent's) words")
    verification_status = serializers.ChoiceField(choices=Status.choices)
    verification_method = serializers.ChoiceField(
        choices=Method.choices, allow_null=True
    )
    verification_confidence = serializers.FloatField(allow_null=True)
    match_type = serializers.ChoiceField(choices=MatchType.choices, allow_null=True)
    match_score = serializers.FloatField(allow_null=True)
    verified = serializers.BooleanField(default=False)
    verified_at = serializers.DateTimeField(allow_null=True)
    reason = serializers.CharField(
        help_text="why it failed or is unverified; empty otherwise"
    )
    mis_attributed_to = serializers.CharField(
        allow_null=True, help_text="ref of the source the quote was really found in"
    )
    chunk_id = serializers.UUIDField(allow_null=True)
    revision_id = serializers.UUIDField(allow_null=True)
    document_id = serializers.UUIDField(allow_null=True)
    document_name = serializers.CharField(
        allow_null=True, help_text="snapshot: survives the document's deletion"
    )
    file_id = serializers.UUIDField(source="source_file_id", allow_null=True)
    source_offset_start = serializers.IntegerField(
        allow_null=True, help_text="code-point offset into the revision's text"
    )
    source_offset_end = serializers.IntegerField(allow_null=True, help_text="exclusive")
    source_page = serializers.IntegerField(allow_null=True, help_text="1-based")
    source_text = serializers.CharField(
        allow_null=True, help_text="the document's own text at the offsets"
    )
    failure_kind = serializers.ChoiceField(
        choices=[("", "not failed"), *FailureKind.choices],
        allow_null=True,
        help_text="why a failed citation failed: differs (its passage was found "
        "and says something else), not_found, misattributed, out_of_provenance; "
        "empty when not failed",
    )
    rule = serializers.CharField(
        default="",
        help_text="the id of the rule that refused a failed citation (the rule "
        "table, docs/verification.md); empty when verified, pending, or when no "
        "rule of the cascade refused it",
    )
    candidate_start = serializers.IntegerField(
        allow_null=True,
        help_text="differs: the found passage's code-point offset into the "
        "revision's text",
    )
    candidate_end = serializers.IntegerField(allow_null=True, help_text="exclusive")
    candidate_page = serializers.IntegerField(
        allow_null=True, help_text="1-based page of candidate_start"
    )
    relevance = serializers.ChoiceField(
        choices=Relevance.choices,
        allow_null=True,
        default=None,
        help_text="does the cited passage bear on the question (a signal beside "
        "verification): answers, related or off_topic; null when not rated",
    )
    relevance_score = serializers.FloatField(
        allow_null=True, default=None, help_text="offline rating's score, 0-1"
    )
    relevance_method = serializers.CharField(
        default="", help_text="offline (measured) or judge (a model rated it)"
    )
    relevance_reason = serializers.CharField(default="")
    other_document = serializers.BooleanField(
        default=False,
        help_text="from another document than the one the question named",
    )
    stale = serializers.BooleanField(
        source="is_stale",
        default=False,
        help_text="verified once, failed against its document's new revision",
    )
    created_at = serializers.DateTimeField()

    class Meta:
        ref_name = "Citation"


class CitationFilterSerializer(serializers.Serializer):
    """seed 003's filters; `tenant_id` is required and checked by TenantApiView."""

    document_id = serializers.UUIDField(required=False)
    collection_id = collection_id_field()
    execution_context_type = serializers.CharField(max_length=32, required=False)
    execution_context_id = serializers.CharField(
        max_length=MAX_CONTEXT_ID, required=False
    )
    verification_status = serializers.ChoiceField(
        choices=Status.choices, required=False
    )
    verification_method = serializers.ChoiceField(
        choices=Method.choices, required=False
    )
    document_name = serializers.CharField(
        max_length=500, required=False, help_text="case-insensitive partial match"
    )
    date_from = serializers.DateTimeField(
        required=False,
        help_text="created at or after (ISO 8601; a bare date is midnight UTC)",
    )
    date_to = serializers.DateTimeField(
        required=False,
        help_text="created at or before (ISO 8601; a bare date is the whole day)",
    )
    message_id = serializers.UUIDField(required=False)
    relevance = serializers.ChoiceField(
        choices=[*Relevance.choices, ("unrated", "Not rated")],
        required=False,
        help_text="answers, related, off_topic, or unrated",
    )
    stale = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="true: only citations that failed against a new revision",
    )
    rule = serializers.ChoiceField(
        choices=[rule.id for rule in RULES],
        required=False,
        help_text="only citations this rule refused (an id of docs/verification.md)",
    )

    class Meta:
        ref_name = "CitationFilter"

    def validate(self, attrs: dict) -> dict:
        raw_to = str(self.initial_data.get("date_to", ""))
        if "date_to" in attrs and len(raw_to) == len("2026-02-20"):
            # A bare date means "up to the end of that day", not its midnight.
            try:
                attrs["date_to"] += dt.timedelta(days=1) - dt.timedelta(microseconds=1)
            except OverflowError:  # 9999-12-31: already the end of time
                attrs["date_to"] = dt.datetime.max.replace(tzinfo=dt.UTC)
        if (
            attrs.get("date_from")
            and attrs.get("date_to")
            and attrs["date_from"] > attrs["date_to"]
        ):
            raise serializers.ValidationError(
                {"date_to": ["date_to is before date_from."]}
            )
        return attrs

    def filters(self) -> CitationFilters:
        data = {
            k: v
            for k, v in self.validated_data.items()
            if k in CitationFilters.__annotations__
        }
        return CitationFilters(**data)


class CitationListApi(TenantApiView):
    """A tenant's citations, newest first."""

    tenant_query_param = "tenant_id"

    class FilterSerializer(CitationFilterSerializer, PageFilterSerializer):
        class Meta:
            ref_name = "CitationListFilter"

    OutputSerializer = page_serializer("Citation", CitationOutputSerializer)

    @extend_schema(
        operation_id="citations_list",
        summary="List citations",
        parameters=[TENANT_ID_PARAM, FilterSerializer],
        responses=responses(OutputSerializer, 400),
        tags=["citations"],
    )
    def get(self, request: Request) -> Response:
        f = self.FilterSerializer(data=request.query_params)
        f.is_valid(raise_exception=True)
        filters = f.filters()
        skip, limit = f.validated_data["skip"], f.validated_data["limit"]
        if filters.verification_status == Status.OUT_OF_PROVENANCE:
            rows = unsourced_list(tenant=self.tenant, filters=filters)
        else:
            rows = citation_list(tenant=self.tenant, filters=filters)
        items, next_skip = paginate(rows, skip=skip, limit=limit)
        return page_response(
            CitationOutputSerializer(items, many=True).data,
            skip=skip,
            limit=limit,
            next_skip=next_skip,
        )


class CitationStatsApi(TenantApiView):
    """Counts by verification status and their total (seed 003), and failed
    citations by the rule that refused them; the list's filters narrow them
    the same way."""

    tenant_query_param = "tenant_id"

    class OutputSerializer(serializers.Serializer):
        verified = serializers.IntegerField()
        failed = serializers.IntegerField()
        pending = serializers.IntegerField()
        unverified = serializers.IntegerField()
        out_of_provenance = serializers.IntegerField()
        total = serializers.IntegerField()
        by_rule = serializers.DictField(
            child=serializers.IntegerField(),
            help_text="failed citations by the id of the rule that refused "
            "them, most first",
        )

        class Meta:
            ref_name = "CitationStats"

    @extend_schema(
        operation_id="citations_stats",
        summary="Citation counts by status",
        parameters=[TENANT_ID_PARAM, CitationFilterSerializer],
        responses=responses(OutputSerializer, 400),
        tags=["citations"],
    )
    def get(self, request: Request) -> Response:
        f = CitationFilterSerializer(data=request.query_params)
        f.is_valid(raise_exception=True)
        filters = f.filters()
        counts: dict[str, object] = dict(
            citation_stats(tenant=self.tenant, filters=filters)
        )
        counts["by_rule"] = citation_rule_counts(tenant=self.tenant, filters=filters)
        return Response(self.OutputSerializer(counts).data)


class CitationDetailApi(TenantApiView):
    @extend_schema(
        operation_id="citations_retrieve",
        summary="Get a citation",
        parameters=[uuid_path("citation_id")],
        responses=responses(CitationOutputSerializer, 404),
        tags=["citations"],
    )
    def get(self, request: Request, citation_id: str) -> Response:
        pk = parse_uuid(citation_id)
        citation = citation_get(tenant=self.tenant, pk=pk) if pk else None
        if citation is None and pk is not None:
            citation = unsourced_list(tenant=self.tenant).filter(pk=pk).first()
        if citation is None:
            raise not_found()
        return Response(CitationOutputSerializer(citation).data)


class CitationVerifyApi(TenantApiView):
    """Re-verify a citation against its document's current revision (seed
    003's `verify_citation`); returns it with the fresh verdict. A citation
    without a quote stays unverified; an out-of-provenance reference has no
    source to check (400)."""

    @extend_schema(
        operation_id="citations_verify",
        summary="Re-verify a citation",
        parameters=[uuid_path("citation_id")],
        request=None,
        responses=responses(CitationOutputSerializer, 400, 404),
        tags=["citations"],
    )
    def post(self, request: Request, citation_id: str) -> Response:
        pk = parse_uuid(citation_id)
        citation = citation_get(tenant=self.tenant, pk=pk) if pk else None
        if citation is None:
            if (
                pk is not None
                and unsourced_list(tenant=self.tenant).filter(pk=pk).exists()
            ):
                raise serializers.ValidationError(
                    {
                        "detail": "An out-of-provenance reference has no source to verify against."
                    }
                )
            raise not_found()
        citation = (
            citation_verify(citation_id=citation.pk, trigger="reverify") or citation
        )
        return Response(CitationOutputSerializer(citation).data)


__all__ = [
    "CitationDetailApi",
    "CitationListApi",
    "CitationStatsApi",
    "CitationVerifyApi",
]
