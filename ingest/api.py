"""REST API for documents (upload, list, detail, soft delete) and search.

Views are thin: validate with a nested serializer, call ingest.selectors /
ingest.services / ingest.search with `self.tenant`, serialize. Every lookup is
tenant-scoped; a collection id from the client is checked against the tenant
before it is used (TEN-04).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from accounts.api import (
    PageFilterSerializer,
    TenantApiView,
    collection_id_field,
    found,
    page_response,
    page_serializer,
    paginate,
    parse_uuid,
    responses,
    tenant_collection,
    uuid_path,
)
from accounts.models import Collection
from ingest.models import Document, TitleChange
from ingest.search import search_chunks
from ingest.selectors import document_get, document_list
from ingest.services import Upload, document_upload_result
from ingest.titling import TitleInvalid, document_rename
from ingest.trash import document_delete, document_get_any, document_restore

if TYPE_CHECKING:
    from rest_framework.request import Request


# The API accepts as many files per request as Django lets through
# (DATA_UPLOAD_MAX_NUMBER_FILES); each file is size-checked by document_upload.
MAX_FILES_PER_UPLOAD = 100
MAX_SEARCH_K = 50


class DocumentOutputSerializer(serializers.Serializer):
    """A document as every documents endpoint returns it (HackSoft allows one
    output shape to be shared by operations that return the same thing)."""

    id = serializers.UUIDField()
    title = serializers.CharField()
    filename = serializers.CharField(source="file.filename")
    filenames = serializers.ListField(
        child=serializers.CharField(),
        source="file.filenames",
        help_text="every name these bytes were uploaded under, the first first",
    )
    content_type = serializers.CharField(source="file.content_type")
    size = serializers.IntegerField(source="file.size", help_text="bytes")
    sha256 = serializers.CharField(source="file.sha256")
    source_type = serializers.ChoiceField(choices=Document.SourceType.choices)
    origin_url = serializers.CharField()
    metadata = serializers.DictField(
        help_text="message_id, thread_id, sender, table, … by type"
    )
    status = serializers.ChoiceField(choices=Document.Status.choices)
    error = serializers.CharField(help_text="why the document failed; empty otherwise")
    error_code = serializers.CharField(
        help_text="why it failed; on a ready document, `vectors_pending`: searched "
        "by full text until its vectors are computed (a sweep retries)"
    )
    progress_done = serializers.IntegerField()
    progress_total = serializers.IntegerField()
    progress_percent = serializers.IntegerField()
    parent_id = serializers.UUIDField(
        allow_null=True, help_text="set for email attachments"
    )
    collection_ids = serializers.SerializerMethodField()
    current_revision_id = serializers.UUIDField(allow_null=True)
    revision_number = serializers.IntegerField(
        source="current_revision.number", allow_null=True, default=None
    )
    page_count = serializers.IntegerField(
        source="current_revision.page_count", allow_null=True, default=None
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    class Meta:
        ref_name = "Document"

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_collection_ids(self, document: Document) -> list[int]:
        return sorted(c.pk for c in document.collections.all())


class UploadItemSerializer(DocumentOutputSerializer):
    """A document as an upload made it, with what became of the upload."""

    outcome = serializers.ChoiceField(
        choices=["created", "revision", "duplicate", "failed"],
        help_text="duplicate: the tenant had these bytes already; this is "
        "their document, which may be named otherwise (see filenames)",
    )
    uploaded_as = serializers.CharField(help_text="this upload's file name")

    class Meta:
        ref_name = "DocumentUploadItem"


# Operations on one document: the one tenant-scoped lookup they share (a
# deleted document, or another tenant's, is not found). A comment: the schema
# takes an operation's description from its class's nearest docstring.
class DocumentApiView(TenantApiView):
    def get_document(self, document_id: str) -> Document:
        return found(document_get(tenant=self.tenant, pk=parse_uuid(document_id)))


class DocumentListApi(TenantApiView):
    """The tenant's documents, newest first (soft-deleted ones are hidden)."""

    class FilterSerializer(PageFilterSerializer):
        status = serializers.ChoiceField(
            choices=Document.Status.choices, required=False
        )
        collection_id = collection_id_field()
        q = serializers.CharField(
            max_length=200,
            required=False,
            help_text="title contains (case-insensitive)",
        )

        class Meta:
            ref_name = "DocumentListFilter"

    OutputSerializer = page_serializer("Document", DocumentOutputSerializer)

    @extend_schema(
        operation_id="documents_list",
        summary="List documents",
        parameters=[FilterSerializer],
        responses=responses(OutputSerializer, 400),
        tags=["documents"],
    )
    def get(self, request: Request) -> Response:
        f = self.FilterSerializer(data=request.query_params)
        f.is_valid(raise_exception=True)
        data = f.validated_data
        rows = (
            document_list(tenant=self.tenant)
            .select_related("file")
            .prefetch_related("collections")
            # The list never shows the text; a revision can be megabytes.
            .defer("current_revision__normalized_content")
        )
        if "status" in data:
            rows = rows.filter(status=data["status"])
        if "collection_id" in data:
            rows = rows.filter(collections__id=data["collection_id"])
        if data.get("q"):
            rows = rows.filter(title__icontains=data["q"])
        items, next_skip = paginate(rows, skip=data["skip"], limit=data["limit"])
        return page_response(
            DocumentOutputSerializer(items, many=True).data,
            skip=data["skip"],
            limit=data["limit"],
            next_skip=next_skip,
        )


class DocumentUploadApi(TenantApiView):
    """Upload one or more files (multipart, field `files`, repeated).

    Each file becomes a document queued for ingestion (poll its status).
    Same bytes as an existing document return that document, with
    `outcome: duplicate` and the upload's name added to its `filenames`; a
    file named like a live document becomes its new revision; an oversized
    file becomes a failed document with the reason (nothing else is lost).
    """

    parser_classes = [MultiPartParser, FormParser]

    class InputSerializer(serializers.Serializer):
        files = serializers.ListField(
            child=serializers.FileField(allow_empty_file=True, use_url=False),
            allow_empty=False,
            max_length=MAX_FILES_PER_UPLOAD,
        )
        collection_id = collection_id_field()

        class Meta:
            ref_name = "DocumentUploadInput"

    class OutputSerializer(serializers.Serializer):
        items = UploadItemSerializer(many=True)

        class Meta:
            ref_name = "DocumentUploadResult"

    @extend_schema(
        operation_id="documents_upload",
        summary="Upload documents",
        request={"multipart/form-data": InputSerializer},
        responses=responses(OutputSerializer, 400, code=201),
        tags=["documents"],
    )
    def post(self, request: Request) -> Response:
        data = self.validated(request)
        collection = tenant_collection(self.tenant, data.get("collection_id"))
        results = [
            document_upload_result(
                tenant=self.tenant,
                upload=Upload(
                    filename=uploaded.name or "untitled",
                    stream=uploaded,
                    content_type=uploaded.content_type or "",
                ),
                user=self.acting_user,
                collection=collection,
            )
            for uploaded in data["files"]
        ]
        # Read back in one query with what the output needs; one item per
        # uploaded file, in upload order (a repeated file repeats its document).
        fetched = (
            Document.objects.with_scope(tenant=self.tenant.pk)
            .filter(pk__in=[r.document.pk for r in results])
            .select_related("file", "current_revision")
            .prefetch_related("collections")
            .in_bulk()
        )
        items = [
            {
                **DocumentOutputSerializer(fetched[r.document.pk]).data,
                "outcome": r.outcome,
                "uploaded_as": r.uploaded_as,
            }
            for r in results
        ]
        return Response({"items": items}, status=status.HTTP_201_CREATED)


class DocumentDetailApi(DocumentApiView):
    """One document with its current text and page boundaries."""

    class FilterSerializer(serializers.Serializer):
        include_text = serializers.BooleanField(
            default=True, help_text="false leaves `text` out (it can be megabytes)"
        )

        class Meta:
            ref_name = "DocumentDetailFilter"

    class OutputSerializer(DocumentOutputSerializer):
        class PageSerializer(serializers.Serializer):
            number = serializers.IntegerField(help_text="1-based")
            start = serializers.IntegerField(help_text="code-point offset into `text`")
            end = serializers.IntegerField(help_text="exclusive")

            class Meta:
                ref_name = "DocumentPage"

        class AttachmentSerializer(serializers.Serializer):
            id = serializers.UUIDField()
            title = serializers.CharField()
            status = serializers.ChoiceField(choices=Document.Status.choices)
            error = serializers.CharField()

            class Meta:
                ref_name = "DocumentAttachment"

        text = serializers.CharField(
            allow_null=True,
            help_text="the current revision's normalized text; every offset points into it "
            "(null before the first revision, or with include_text=false)",
        )
        pages = PageSerializer(many=True)
        attachments = AttachmentSerializer(many=True, source="attachments_list")

        class Meta:
            ref_name = "DocumentDetail"

    @extend_schema(
        operation_id="documents_retrieve",
        summary="Get a document with its text",
        parameters=[uuid_path("document_id"), FilterSerializer],
        responses=responses(OutputSerializer, 400, 404),
        tags=["documents"],
    )
    def get(self, request: Request, document_id: str) -> Response:
        f = self.FilterSerializer(data=request.query_params)
        f.is_valid(raise_exception=True)
        document = self.get_document(document_id)
        revision = document.current_revision
        text = revision.normalized_content if revision is not None else None
        starts = (revision.page_starts or [0]) if revision is not None else []
        ends = [*starts[1:], len(text)] if text is not None else []
        document.text = text if f.validated_data["include_text"] else None
        document.pages = [
            {"number": i, "start": s, "end": e}
            for i, (s, e) in enumerate(zip(starts, ends, strict=True), start=1)
        ]
        document.attachments_list = list(document.attachments.filter(is_deleted=False))
        return Response(self.OutputSerializer(document).data)


class DocumentDeleteApi(DocumentApiView):
    """Soft-delete a document: it leaves lists, search and chat; its citations
    stay as history (seed 003: citations outlive their sources)."""

    @extend_schema(
        operation_id="documents_delete",
        summary="Delete a document",
        parameters=[uuid_path("document_id")],
        request=None,
        responses=responses(OpenApiResponse(description="Deleted."), 404, code=204),
        tags=["documents"],
    )
    def post(self, request: Request, document_id: str) -> Response:
        document = self.get_document(document_id)
        document_delete(document=document)  # with its attachments
        return Response(status=status.HTTP_204_NO_CONTENT)


class DocumentRestoreApi(DocumentApiView):
    """Take back a deleted document (and the attachments deleted with it):
    it returns to lists, search and chat. Restoring a live document is a
    no-op."""

    @extend_schema(
        operation_id="documents_restore",
        summary="Restore a deleted document",
        parameters=[uuid_path("document_id")],
        request=None,
        responses=responses(DocumentOutputSerializer, 404),
        tags=["documents"],
    )
    def post(self, request: Request, document_id: str) -> Response:
        document = found(
            document_get_any(tenant=self.tenant, pk=parse_uuid(document_id))
        )
        document_restore(document=document)
        document = (
            Document.objects.with_scope(tenant=self.tenant.pk)
            .select_related("file", "current_revision")
            .prefetch_related("collections")
            .get(pk=document.pk)
        )
        return Response(DocumentOutputSerializer(document).data)


class DocumentRenameApi(DocumentApiView):
    """Give a document the title a person chose (issue 32): naming in chat and
    `@` mentions use it at once, a new revision never replaces it, and a
    TitleChange records who changed it. 400 for an empty title, one over 300
    characters or one holding control characters (nothing changes)."""

    class InputSerializer(serializers.Serializer):
        title = serializers.CharField(
            allow_blank=True,
            trim_whitespace=False,
            help_text="1-300 characters, no control characters; shown as text",
        )

        class Meta:
            ref_name = "DocumentRenameInput"

    @extend_schema(
        operation_id="documents_rename",
        summary="Rename a document",
        parameters=[uuid_path("document_id")],
        request=InputSerializer,
        responses=responses(DocumentOutputSerializer, 400, 404),
        tags=["documents"],
    )
    def post(self, request: Request, document_id: str) -> Response:
        document = self.get_document(document_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            document_rename(
                document=document,
                title=data.validated_data["title"],
                user=request.user,
                via=TitleChange.Via.API,
            )
        except TitleInvalid as error:
            raise serializers.ValidationError({"title": [error.message]}) from error
        document = document_get(tenant=self.tenant, pk=document.pk)
        return Response(DocumentOutputSerializer(document).data)


class ChunkSearchApi(TenantApiView):
    """Full-text search over the tenant's ready, current, non-deleted documents."""

    class FilterSerializer(serializers.Serializer):
        q = serializers.CharField(max_length=500, help_text="words to look for")
        k = serializers.IntegerField(min_value=1, max_value=MAX_SEARCH_K, default=10)
        document_id = serializers.UUIDField(
            required=False, help_text="search one document"
        )
        collection_id = collection_id_field(help_text="search one collection")

        class Meta:
            ref_name = "SearchFilter"

    class OutputSerializer(serializers.Serializer):
        class HitSerializer(serializers.Serializer):
            rank = serializers.IntegerField(help_text="1-based")
            score = serializers.FloatField(help_text="higher is better")
            chunk_id = serializers.UUIDField(
                source="chunk.uid", help_text="cite it with /api/citations/resolve"
            )
            chunk_index = serializers.IntegerField(source="chunk.chunk_index")
            document_id = serializers.UUIDField(source="chunk.document_id")
            document_title = serializers.CharField(source="chunk.document.title")
            source_type = serializers.CharField(source="chunk.document.source_type")
            revision_id = serializers.UUIDField(source="chunk.revision_id")
            content = serializers.CharField(source="chunk.content")
            start_offset = serializers.IntegerField(source="chunk.start_offset")
            end_offset = serializers.IntegerField(source="chunk.end_offset")
            page_start = serializers.IntegerField(source="chunk.page_start")
            page_end = serializers.IntegerField(source="chunk.page_end")

            class Meta:
                ref_name = "SearchHit"

        items = HitSerializer(many=True)

        class Meta:
            ref_name = "SearchResult"

    @extend_schema(
        operation_id="search",
        summary="Search document chunks",
        parameters=[FilterSerializer],
        responses=responses(OutputSerializer, 400),
        tags=["search"],
    )
    def get(self, request: Request) -> Response:
        f = self.FilterSerializer(data=request.query_params)
        f.is_valid(raise_exception=True)
        data = f.validated_data
        document = collection = None
        narrowed_to_nothing = False
        if "document_id" in data:
            document = document_get(tenant=self.tenant, pk=data["document_id"])
            narrowed_to_nothing = document is None
        if "collection_id" in data:
            collection = (
                Collection.objects.with_scope(tenant=self.tenant.pk)
                .filter(pk=data["collection_id"])
                .first()
            )
            narrowed_to_nothing = narrowed_to_nothing or collection is None
        # An unknown (or foreign) document or collection narrows the search to
        # nothing, exactly like a filter on the citations list: no oracle.
        hits = (
            []
            if narrowed_to_nothing
            else search_chunks(
                self.tenant,
                data["q"],
                document=document,
                collection=collection,
                k=data["k"],
            )
        )
        return Response(self.OutputSerializer({"items": hits}).data)


__all__ = [
    "ChunkSearchApi",
    "DocumentDeleteApi",
    "DocumentDetailApi",
    "DocumentListApi",
    "DocumentUploadApi",
]
