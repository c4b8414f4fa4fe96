"""REST API for connector sources (issue 29): list, detail, register a
Slack/Teams export, a web page or a database table, sync now.

Thin, like ingest.api: validate, call ingest.sources, serialize. A source's
credentials are never returned (only `connection_display`, the address
without its password). Registering a database source needs a tenant owner
or an API key (a key is created by an admin and acts for the tenant).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response

from accounts.api import (
    PageFilterSerializer,
    TenantApiView,
    collection_id_field,
    not_found,
    page_serializer,
    paged_response,
    parse_uuid,
    responses,
    tenant_collection,
    uuid_path,
)
from accounts.models import Membership
from ingest import source_kinds
from ingest.connectors.database import TableSpec
from ingest.models import Source
from ingest.sources import (
    source_create_database,
    source_create_export,
    source_create_web,
    source_request_sync,
)

if TYPE_CHECKING:
    from rest_framework.request import Request

MAX_SCHEDULE_MINUTES = 60 * 24 * 30


class SourceOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=Source.Kind.choices)
    name = serializers.CharField()
    url = serializers.CharField(help_text="web: the page captured")
    connection_display = serializers.CharField(
        help_text="database: the address without its password (credentials are never returned)"
    )
    config = serializers.DictField(
        help_text="database: table or query, key, text and title columns"
    )
    status = serializers.ChoiceField(choices=Source.Status.choices)
    error = serializers.CharField()
    error_code = serializers.CharField()
    warnings = serializers.ListField(child=serializers.DictField())
    stats = serializers.DictField(
        help_text="created, updated, unchanged, deleted, items of the last sync"
    )
    progress_done = serializers.IntegerField()
    progress_total = serializers.IntegerField()
    progress_percent = serializers.IntegerField()
    schedule_minutes = serializers.IntegerField()
    next_sync_at = serializers.DateTimeField(allow_null=True)
    last_synced_at = serializers.DateTimeField(allow_null=True)
    collection_id = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()

    class Meta:
        ref_name = "Source"


def _source_find(tenant, source_id: str) -> Source | None:
    """The tenant's source by id; another tenant's is the same as none."""
    pk = parse_uuid(source_id)
    return (
        Source.objects.with_scope(tenant=tenant.pk).filter(pk=pk).first()
        if pk
        else None
    )


def _source_get(tenant, source_id: str) -> Source:
    source = _source_find(tenant, source_id)
    if source is None:
        raise not_found()
    return source


def _created(source: Source) -> Response:
    """201 with the new source as stored (its status as the sync was queued)."""
    source.refresh_from_db()
    return Response(SourceOutputSerializer(source).data, status=status.HTTP_201_CREATED)


class SourceListApi(TenantApiView):
    """The tenant's connector sources, newest first."""

    OutputSerializer = page_serializer("Source", SourceOutputSerializer)

    @extend_schema(
        operation_id="sources_list",
        summary="List sources",
        parameters=[PageFilterSerializer],
        responses=responses(OutputSerializer, 400),
        tags=["sources"],
    )
    def get(self, request: Request) -> Response:
        rows = Source.objects.with_scope(tenant=self.tenant.pk).order_by("-created_at")
        return paged_response(request, rows, SourceOutputSerializer)


class SourceDetailApi(TenantApiView):
    """One source: its status, progress, last sync's figures and warnings."""

    @extend_schema(
        operation_id="sources_retrieve",
        summary="Get a source",
        parameters=[uuid_path("source_id")],
        responses=responses(SourceOutputSerializer, 404),
        tags=["sources"],
    )
    def get(self, request: Request, source_id: str) -> Response:
        return Response(
            SourceOutputSerializer(_source_get(self.tenant, source_id)).data
        )


class SourceSyncApi(TenantApiView):
    """Sync a source now (a web page: capture it again). 202 with the source;
    a sync already queued or running is not queued twice."""

    @extend_schema(
        operation_id="sources_sync",
        summary="Sync a source now",
        parameters=[uuid_path("source_id")],
        request=None,
        responses=responses(SourceOutputSerializer, 404, code=202),
        tags=["sources"],
    )
    def post(self, request: Request, source_id: str) -> Response:
        source = _source_get(self.tenant, source_id)
        source_request_sync(source=source)
        return Response(
            SourceOutputSerializer(source).data, status=status.HTTP_202_ACCEPTED
        )


class SourceExportCreateApi(TenantApiView):
    """Upload a Slack workspace export (zip) or a Teams channel export (JSON
    or zip); with `source_id`, a later export of an existing source (changed
    threads get new revisions, gone ones are soft-deleted)."""

    parser_classes = [MultiPartParser, FormParser]

    class InputSerializer(serializers.Serializer):
        # The export kinds of ingest.source_kinds, read again each time the
        # serializer is made (__init__), so a kind added to the table is offered.
        kind = serializers.ChoiceField(choices=source_kinds.export_choices())
        file = serializers.FileField(allow_empty_file=True, use_url=False)
        name = serializers.CharField(max_length=200, required=False, allow_blank=True)
        source_id = serializers.UUIDField(required=False)
        collection_id = collection_id_field()

        class Meta:
            ref_name = "SourceExportInput"

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.fields["kind"].choices = source_kinds.export_choices()

    @extend_schema(
        operation_id="sources_export_create",
        summary="Upload a Slack or Teams export",
        request={"multipart/form-data": InputSerializer},
        responses=responses(SourceOutputSerializer, 400, code=201),
        tags=["sources"],
    )
    def post(self, request: Request) -> Response:
        data = self.validated(request)
        collection = tenant_collection(self.tenant, data.get("collection_id"))
        existing = None
        if data.get("source_id"):
            # An id in the body is a field of the request, reported as
            # tenant_collection reports an unknown collection: 400, and
            # another tenant's source exactly like an unknown one.
            existing = _source_find(self.tenant, str(data["source_id"]))
            if existing is None:
                raise serializers.ValidationError({"source_id": ["Unknown source."]})
            if existing.kind != data["kind"]:
                raise serializers.ValidationError(
                    {"source_id": ["That source is not an export of this kind."]}
                )
        source = source_create_export(
            tenant=self.tenant,
            kind=data["kind"],
            filename=data["file"].name or "export",
            stream=data["file"],
            name=data.get("name", ""),
            user=self.acting_user,
            collection=collection,
            source=existing,
        )
        return _created(source)


class SourceWebCreateApi(TenantApiView):
    """Capture a web page by URL (again, if the tenant has it: a new
    revision when it changed). Private, loopback and link-local addresses are
    refused (400 `blocked_address`)."""

    parser_classes = [JSONParser, FormParser]

    class InputSerializer(serializers.Serializer):
        url = serializers.CharField(max_length=2000)
        schedule_minutes = serializers.IntegerField(
            min_value=0, max_value=MAX_SCHEDULE_MINUTES, default=0
        )
        collection_id = collection_id_field()

        class Meta:
            ref_name = "SourceWebInput"

    @extend_schema(
        operation_id="sources_web_create",
        summary="Capture a web page",
        request=InputSerializer,
        responses=responses(SourceOutputSerializer, 400, code=201),
        tags=["sources"],
    )
    def post(self, request: Request) -> Response:
        data = self.validated(request)
        collection = tenant_collection(self.tenant, data.get("collection_id"))
        source = source_create_web(
            tenant=self.tenant,
            url=data["url"],
            user=self.acting_user,
            collection=collection,
            schedule_minutes=data["schedule_minutes"],
        )
        return _created(source)


class SourceDatabaseCreateApi(TenantApiView):
    """Register a read-only PostgreSQL or SQLite table or query (tenant owners
    and API keys). The connection URL's password is stored encrypted and never
    returned; the statement must be one SELECT."""

    parser_classes = [JSONParser]

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        connection_url = serializers.CharField(max_length=2000, write_only=True)
        table = serializers.CharField(
            max_length=200, required=False, allow_blank=True, default=""
        )
        query = serializers.CharField(
            max_length=20000, required=False, allow_blank=True, default=""
        )
        key_column = serializers.CharField(max_length=63)
        text_columns = serializers.ListField(
            child=serializers.CharField(max_length=63), min_length=1, max_length=50
        )
        title_column = serializers.CharField(
            max_length=63, required=False, allow_blank=True, default=""
        )
        schedule_minutes = serializers.IntegerField(
            min_value=0, max_value=MAX_SCHEDULE_MINUTES, default=0
        )
        collection_id = collection_id_field()

        class Meta:
            ref_name = "SourceDatabaseInput"

    @extend_schema(
        operation_id="sources_database_create",
        summary="Register a database table or query",
        request=InputSerializer,
        responses=responses(SourceOutputSerializer, 400, code=201),
        tags=["sources"],
    )
    def post(self, request: Request) -> Response:
        user = self.acting_user
        if (
            user is not None
            and not Membership.objects.filter(
                user=user, tenant=self.tenant, role=Membership.Role.OWNER
            ).exists()
        ):
            raise PermissionDenied(
                "Only a workspace owner can register a database source."
            )
        data = self.validated(request)
        collection = tenant_collection(self.tenant, data.get("collection_id"))
        source = source_create_database(
            tenant=self.tenant,
            name=data["name"],
            connection_url=data["connection_url"],
            spec=TableSpec(
                table=data["table"],
                query=data["query"],
                key_column=data["key_column"],
                text_columns=data["text_columns"],
                title_column=data["title_column"],
            ),
            user=user,
            collection=collection,
            schedule_minutes=data["schedule_minutes"],
        )
        return _created(source)
