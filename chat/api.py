"""REST API for chat: sessions, asking, messages, the chat widget's
citation status endpoint (seed 003, X-API-Key only), and seed 003's
`resolve_citation` (`POST /api/citations/resolve`), whose citation hangs on a
holder message (see chat.resolve).

Who sees which sessions: a person sees their own sessions, as on the chat
page; an API key acts for its whole tenant (a service account), so it sees
every session of that tenant. Another tenant's session is a 404 with the same
body as an unknown id (TEN-02, LLM-07).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import Q
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response

from accounts.api import (
    COMMON_ERRORS,
    ERROR_400,
    ERROR_404,
    ERROR_429,
    ErrorSerializer,
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
from accounts.auth import ApiKeyAuthentication, ApiKeyOnly, HasTenant
from chat.asking import QUESTION_STATES, question_ask_later, question_state
from chat.idempotency import (
    MAX_KEY_CHARS,
    Asked,
    KeyInUse,
    KeyReused,
    message_ask_once,
    question_ask_later_once,
)
from chat.models import ChatSession, Message
from chat.payload import payload_with_verdicts
from chat.resolve import citation_resolve
from chat.selectors import session_get, session_list
from chat.services import message_ask, session_create
from citations.api import (
    CONTEXT_TYPE_PATTERN,
    MAX_CONTEXT_ID,
    MAX_QUOTE_CHARS,
    CitationOutputSerializer,
)
from citations.models import MessageCitation, Status
from ingest.selectors import document_list

if TYPE_CHECKING:
    import uuid

    from rest_framework.request import Request

    from accounts.models import Tenant

MAX_SESSION_DOCUMENTS = 100
MAX_QUESTION_CHARS = 4000


class ChatSessionOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    title = serializers.CharField()
    collection_id = serializers.IntegerField(allow_null=True)
    document_ids = serializers.SerializerMethodField(
        help_text="documents the chat is limited to; empty means all"
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    class Meta:
        ref_name = "ChatSession"

    @extend_schema_field(serializers.ListField(child=serializers.UUIDField()))
    def get_document_ids(self, session: ChatSession) -> list[str]:
        return sorted(str(d.pk) for d in session.documents.all())


class ChatSessionApiView(TenantApiView):
    """Base of the operations on one session: the one lookup they share."""

    def get_session(self, session_id: str) -> ChatSession:
        session = session_get(
            tenant=self.tenant, pk=parse_uuid(session_id), user=self.acting_user
        )
        if session is None:
            raise not_found()
        return session


class MessageOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    session_id = serializers.UUIDField()
    reply_to_id = serializers.UUIDField(
        allow_null=True, help_text="the question an answer answers"
    )
    role = serializers.ChoiceField(choices=Message.Role.choices)
    status = serializers.ChoiceField(
        choices=Message.Status.choices,
        help_text="failed: the model was down or answered garbage; see `error`",
    )
    content = serializers.CharField(help_text="the question, or the answer's text")
    error = serializers.CharField()
    model_name = serializers.CharField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    payload = serializers.SerializerMethodField(
        help_text="answers only (null for questions): seed 004's payload — `answer`, "
        "`citations` (each with its current verification: status, method, match_type, "
        "confidence, match_score, start, end, page, source_text, quoted_text), "
        "`all_citations` (every source given to the model), `inline_refs`"
    )

    class Meta:
        ref_name = "ChatMessage"

    @extend_schema_field(
        {"type": "object", "nullable": True, "additionalProperties": True}
    )
    def get_payload(self, message: Message) -> dict[str, Any] | None:
        if message.role == Message.Role.USER:
            return None
        return payload_with_verdicts(message)


class ChatSessionListApi(TenantApiView):
    """Chat sessions, most recently active first."""

    OutputSerializer = page_serializer("ChatSession", ChatSessionOutputSerializer)

    @extend_schema(
        operation_id="chat_sessions_list",
        summary="List chat sessions",
        parameters=[PageFilterSerializer],
        responses=responses(OutputSerializer, 400),
        tags=["chat"],
    )
    def get(self, request: Request) -> Response:
        rows = session_list(tenant=self.tenant, user=self.acting_user).prefetch_related(
            "documents"
        )
        return paged_response(request, rows, ChatSessionOutputSerializer)


class ChatSessionCreateApi(TenantApiView):
    """Start a chat, optionally limited to a collection or to some documents."""

    class InputSerializer(serializers.Serializer):
        title = serializers.CharField(
            max_length=200, required=False, allow_blank=True, default=""
        )
        collection_id = collection_id_field(allow_null=True)
        document_ids = serializers.ListField(
            child=serializers.UUIDField(),
            required=False,
            max_length=MAX_SESSION_DOCUMENTS,
            default=list,
        )

        class Meta:
            ref_name = "ChatSessionCreateInput"

    @extend_schema(
        operation_id="chat_sessions_create",
        summary="Create a chat session",
        request=InputSerializer,
        responses=responses(ChatSessionOutputSerializer, 400, code=201),
        tags=["chat"],
    )
    def post(self, request: Request) -> Response:
        data = self.validated(request)
        collection = tenant_collection(self.tenant, data.get("collection_id"))
        documents = _tenant_documents(self.tenant, data["document_ids"])
        session = session_create(
            tenant=self.tenant,
            user=self.acting_user,
            title=data["title"],
            collection=collection,
            documents=documents,
        )
        return Response(
            ChatSessionOutputSerializer(session).data, status=status.HTTP_201_CREATED
        )


def _tenant_documents(tenant: Tenant, ids: list[uuid.UUID]) -> list:
    """Document ids from the body, checked like collection ids (TEN-04)."""
    wanted = set(ids)
    documents = (
        list(document_list(tenant=tenant).filter(pk__in=wanted)) if wanted else []
    )
    if len(documents) != len(wanted):
        raise serializers.ValidationError({"document_ids": ["Unknown document."]})
    return documents


class ChatSessionDetailApi(ChatSessionApiView):
    """One chat session (its messages: the messages endpoint)."""

    @extend_schema(
        operation_id="chat_sessions_retrieve",
        summary="Get a chat session",
        parameters=[uuid_path("session_id")],
        responses=responses(ChatSessionOutputSerializer, 404),
        tags=["chat"],
    )
    def get(self, request: Request, session_id: str) -> Response:
        return Response(ChatSessionOutputSerializer(self.get_session(session_id)).data)


class ChatMessageListApi(ChatSessionApiView):
    """A session's questions and answers, oldest first; answers carry their
    payload with each citation's current verification."""

    OutputSerializer = page_serializer("ChatMessage", MessageOutputSerializer)

    @extend_schema(
        operation_id="chat_messages_list",
        summary="List a session's messages",
        parameters=[uuid_path("session_id"), PageFilterSerializer],
        responses=responses(OutputSerializer, 400, 404),
        tags=["chat"],
    )
    def get(self, request: Request, session_id: str) -> Response:
        session = self.get_session(session_id)
        rows = (
            Message.objects.with_scope(tenant=self.tenant.pk)
            .filter(session=session)
            .prefetch_related("citations")
            .order_by("created_at", "id")
        )
        return paged_response(request, rows, MessageOutputSerializer)


MAX_SCOPE_DOCUMENTS = 200

IDEMPOTENCY_KEY_PARAM = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="A retry with the same key returns what the first request stored.",
)


def idempotency_key(request: Request) -> str:
    """The request's `Idempotency-Key` header ('' without one); 400 if too long."""
    key = request.headers.get("Idempotency-Key", "").strip()
    if len(key) > MAX_KEY_CHARS:
        raise exceptions.ValidationError(
            {"detail": f"Idempotency-Key is longer than {MAX_KEY_CHARS} characters."}
        )
    return key


def key_reused_response() -> Response:
    return Response(
        {"detail": "This Idempotency-Key was sent with another question."},
        status=status.HTTP_422_UNPROCESSABLE_ENTITY,
    )


def _replayed(asked: Asked) -> dict | None:
    return {"Idempotent-Replayed": "true"} if asked.replayed else None


class ChatMessageAskApi(ChatSessionApiView):
    """Ask a question and get the answer in the same request.

    Retrieval, the model call and citation extraction run here; verification
    is queued when the answer is stored (in-process when Celery is eager), so
    citations may still be `pending`: poll the messages list or the citation
    status endpoint. A model that is down yields an answer with
    `status: failed` and an `error` (the question is kept). A broker that is
    down changes nothing for the caller: the answer is stored and returned
    with `pending` citations, which this server verifies itself.

    Send an `Idempotency-Key` header (any string up to 255 characters) to
    retry safely: the same key in the same session returns the stored answer
    (`Idempotent-Replayed: true`), never a second one; 409 while the first
    request is still answering, 422 if the key came with another question.
    """

    class InputSerializer(serializers.Serializer):
        question = serializers.CharField(max_length=MAX_QUESTION_CHARS)
        document_ids = serializers.ListField(
            child=serializers.UUIDField(),
            required=False,
            max_length=MAX_SCOPE_DOCUMENTS,
            help_text="search only these documents for this question "
            "(overrides the session's scope for this turn)",
        )
        collection_id = collection_id_field(
            help_text="search only this collection for this question"
        )

        class Meta:
            ref_name = "ChatAskInput"

    @extend_schema(
        operation_id="chat_messages_ask",
        summary="Ask a question",
        parameters=[uuid_path("session_id"), IDEMPOTENCY_KEY_PARAM],
        request=InputSerializer,
        responses={
            201: MessageOutputSerializer,
            400: ERROR_400,
            404: ERROR_404,
            409: OpenApiResponse(description="The key's first request is answering."),
            422: OpenApiResponse(description="The key came with another question."),
            **COMMON_ERRORS,
        },
        tags=["chat"],
    )
    def post(self, request: Request, session_id: str) -> Response:
        session, data, choice, key = self._asked(request, session_id)
        if not key:
            answer = message_ask(
                session=session, question=data["question"], choice=choice
            )
            return Response(
                MessageOutputSerializer(answer).data, status=status.HTTP_201_CREATED
            )
        try:
            asked = message_ask_once(
                session=session, question=data["question"], key=key, choice=choice
            )
        except KeyInUse:
            return Response(
                {"detail": "A request with this Idempotency-Key is still answering."},
                status=status.HTTP_409_CONFLICT,
                headers={"Retry-After": "2"},
            )
        except KeyReused:
            return key_reused_response()
        return Response(
            MessageOutputSerializer(asked.message).data,
            status=status.HTTP_201_CREATED,
            headers=_replayed(asked),
        )

    def _asked(
        self, request: Request, session_id: str
    ) -> tuple[ChatSession, dict, dict | None, str]:
        """What both ways of asking read first: the session, the body, the
        question's own scope (None: the session's) and the idempotency key."""
        session = self.get_session(session_id)
        data = self.validated(request)
        choice = None
        if data.get("document_ids") or data.get("collection_id"):
            choice = self._choice(data)
        return session, data, choice, idempotency_key(request)

    def _choice(self, data: dict) -> dict:
        """This question's own scope, checked inside the caller's tenant like
        the session's (an unknown or foreign id is a 400)."""
        collection = tenant_collection(self.tenant, data.get("collection_id"))
        documents = _tenant_documents(self.tenant, data.get("document_ids") or [])
        return {
            "document_ids": [str(d.pk) for d in documents],
            "collection_id": collection.pk if collection is not None else None,
        }


class ChatMessageAskAsyncApi(ChatMessageAskApi):
    """Ask a question and come back for the answer: 202 at once with the
    question's id and the URL to poll, so no model call holds a server
    thread. A worker answers it exactly as `ask` would (chat.asking); the
    poll says `pending` until the answer is stored, then `complete` (or
    `failed`, with the answer's `error`) with the answer."""

    class OutputSerializer(serializers.Serializer):
        question_id = serializers.UUIDField()
        status = serializers.ChoiceField(choices=QUESTION_STATES)
        poll_url = serializers.CharField(help_text="GET it until status is not pending")

        class Meta:
            ref_name = "ChatAskAccepted"

    @extend_schema(
        operation_id="chat_messages_ask_async",
        summary="Ask a question, answered in the background",
        parameters=[uuid_path("session_id"), IDEMPOTENCY_KEY_PARAM],
        request=ChatMessageAskApi.InputSerializer,
        responses=responses(OutputSerializer, 400, 404, code=202),
        tags=["chat"],
    )
    def post(self, request: Request, session_id: str) -> Response:
        session, data, choice, key = self._asked(request, session_id)
        replayed = None
        if key:
            try:
                asked = question_ask_later_once(
                    session=session, question=data["question"], key=key, choice=choice
                )
            except KeyReused:
                return key_reused_response()
            question, replayed = asked.message, _replayed(asked)
        else:
            question = question_ask_later(
                session=session, question=data["question"], choice=choice
            )
        state, _ = question_state(question=question)
        poll_url = reverse(
            "api:chat-question", args=[str(session.pk), str(question.pk)]
        )
        return Response(
            self.OutputSerializer(
                {"question_id": question.pk, "status": state, "poll_url": poll_url}
            ).data,
            status=status.HTTP_202_ACCEPTED,
            headers=replayed,
        )


class ChatQuestionApi(ChatSessionApiView):
    """A question asked with `ask/async`: pending, or its answer."""

    class OutputSerializer(serializers.Serializer):
        question_id = serializers.UUIDField()
        status = serializers.ChoiceField(choices=QUESTION_STATES)
        answer = MessageOutputSerializer(allow_null=True)

        class Meta:
            ref_name = "ChatQuestionState"

    @extend_schema(
        operation_id="chat_question",
        summary="Poll a question asked with ask/async",
        parameters=[uuid_path("session_id"), uuid_path("question_id")],
        responses=responses(OutputSerializer, 404),
        tags=["chat"],
    )
    def get(self, request: Request, session_id: str, question_id: str) -> Response:
        session = self.get_session(session_id)
        question = Message.objects.filter(
            session=session, pk=parse_uuid(question_id), role=Message.Role.USER
        ).first()
        if question is None:
            raise not_found()
        state, answer = question_state(question=question)
        return Response(
            self.OutputSerializer(
                {"question_id": question.pk, "status": state, "answer": answer}
            ).data
        )


def _status_citation(
    *,
    tenant: Tenant,
    session: ChatSession,
    chunk_id: uuid.UUID,
    revision_id: uuid.UUID,
    message_id: uuid.UUID | None,
) -> MessageCitation | None:
    """The newest citation of `chunk_id` made in `session` (read-only query).

    In the session: cited by one of its answers, or resolved by an agent with
    the execution context ("chat", session id) (seed 003). The revision the
    widget holds is the chunk's; re-verification after a new revision moves
    `revision_id` on, so the message's source snapshot is matched too.
    """
    in_session = Q(message__session=session) | Q(
        execution_context_type="chat", execution_context_id=str(session.pk)
    )
    revision = Q(revision_id=revision_id) | Q(
        message__sources__chunk_uid=chunk_id, message__sources__revision_id=revision_id
    )
    rows = MessageCitation.objects.with_scope(tenant=tenant.pk).filter(
        in_session, revision, chunk_id=chunk_id
    )
    if message_id is not None:
        rows = rows.filter(message_id=message_id)
    return rows.order_by("-created_at", "-id").first()


class ChatCitationStatusApi(ChatSessionApiView):
    """Live verification status of a citation in a chat (the chat widget).

    X-API-Key only: a session cookie never authenticates it (SEC-04), so it
    cannot be a CSRF target; every authentication failure answers the same
    401 body. An unknown session and another tenant's session answer the
    same 404 (LLM-07). A chunk not cited in the session answers
    `found: false` whether or not it exists anywhere, so it is no oracle.
    The span is reported only once verified (before that it is just the
    cited chunk).
    """

    authentication_classes = [ApiKeyAuthentication]
    permission_classes = [ApiKeyOnly, HasTenant]
    AUTH_FAILED = "A valid X-API-Key header is required."

    class FilterSerializer(serializers.Serializer):
        message_id = serializers.UUIDField(
            required=False,
            help_text="narrow to one answer when the chunk is cited in several",
        )

        class Meta:
            ref_name = "ChatCitationStatusFilter"

    class OutputSerializer(serializers.Serializer):
        found = serializers.BooleanField()
        verification_status = serializers.ChoiceField(
            choices=Status.choices, allow_null=True
        )
        match_type = serializers.CharField(allow_null=True)
        match_score = serializers.FloatField(allow_null=True)
        matched_span_start = serializers.IntegerField(allow_null=True)
        matched_span_end = serializers.IntegerField(allow_null=True)
        verified_at = serializers.DateTimeField(allow_null=True)
        relevance = serializers.CharField(
            allow_null=True,
            help_text="answers, related or off_topic: does the passage bear on "
            "the question (beside verification); null when not rated",
        )
        other_document = serializers.BooleanField(allow_null=True)
        stale = serializers.BooleanField(
            allow_null=True,
            help_text="verified once, failed against its document's new revision",
        )

        class Meta:
            ref_name = "ChatCitationStatus"

    def handle_exception(self, exc: Exception) -> Response:
        # No key, an empty, wrong or revoked key, a disabled tenant's key, a
        # session cookie: one 401 body for all (SEC-04).
        if isinstance(
            exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed
        ):
            exc = exceptions.AuthenticationFailed(self.AUTH_FAILED)
        return super().handle_exception(exc)

    @extend_schema(
        operation_id="chat_citation_status",
        summary="Verification status of a citation in a chat (X-API-Key)",
        parameters=[
            uuid_path("session_id"),
            uuid_path("chunk_id", "the cited chunk (payload `chunk_id`)"),
            uuid_path("revision_id", "the cited revision (payload `revision_id`)"),
            FilterSerializer,
        ],
        responses={
            200: OutputSerializer,
            400: ERROR_400,
            401: OpenApiResponse(
                ErrorSerializer, description="X-API-Key missing or invalid."
            ),
            404: ERROR_404,
            429: ERROR_429,
        },
        tags=["chat"],
    )
    def get(
        self, request: Request, session_id: str, chunk_id: str, revision_id: str
    ) -> Response:
        session = self.get_session(session_id)
        f = self.FilterSerializer(data=request.query_params)
        f.is_valid(raise_exception=True)
        chunk_uuid, revision_uuid = parse_uuid(chunk_id), parse_uuid(revision_id)
        citation = None
        if chunk_uuid is not None and revision_uuid is not None:
            citation = _status_citation(
                tenant=self.tenant,
                session=session,
                chunk_id=chunk_uuid,
                revision_id=revision_uuid,
                message_id=f.validated_data.get("message_id"),
            )
        if citation is None:
            data = dict.fromkeys(self.OutputSerializer().fields, None) | {
                "found": False
            }
        else:
            verified = citation.verification_status == Status.VERIFIED
            data = {
                "found": True,
                "verification_status": citation.verification_status,
                "match_type": citation.match_type,
                "match_score": citation.match_score,
                "matched_span_start": citation.source_offset_start
                if verified
                else None,
                "matched_span_end": citation.source_offset_end if verified else None,
                "verified_at": citation.verified_at,
                "relevance": citation.relevance,
                "other_document": citation.other_document,
                "stale": citation.is_stale,
            }
        return Response(self.OutputSerializer(data).data)


class CitationResolveApi(TenantApiView):
    """seed 003's `resolve_citation`: cite a chunk from an execution context.

    With `quoted_text` the quote is verified against the chunk now
    (match_type exact / normalized / fuzzy, or not_found: the citation is
    still created, as failed). Without it the citation is `unverified`.
    Repeating the same call returns the same citation (200 instead of 201).
    """

    class InputSerializer(serializers.Serializer):
        chunk_id = serializers.UUIDField(
            help_text="the chunk's id as search returns it"
        )
        quoted_text = serializers.CharField(
            max_length=MAX_QUOTE_CHARS,
            required=False,
            allow_blank=True,
            default="",
            help_text="exact text being referenced (enables verification)",
        )
        execution_context_type = serializers.RegexField(
            CONTEXT_TYPE_PATTERN,
            required=False,
            default="api",
            help_text='e.g. "chat" (then execution_context_id is a chat session id), '
            '"workflow", "function_call"',
        )
        execution_context_id = serializers.CharField(
            max_length=MAX_CONTEXT_ID, required=False, allow_blank=True, default=""
        )

        class Meta:
            ref_name = "CitationResolveInput"

    @extend_schema(
        operation_id="citations_resolve",
        summary="Resolve (create) a citation of a chunk",
        request=InputSerializer,
        responses={
            201: CitationOutputSerializer,
            200: OpenApiResponse(
                CitationOutputSerializer, description="The same citation again."
            ),
            400: ERROR_400,
            404: ERROR_404,
            **COMMON_ERRORS,
        },
        tags=["citations"],
    )
    def post(self, request: Request) -> Response:
        data = self.validated(request)
        if data["execution_context_type"] == "chat":
            # A chat context names a session: it must be one the caller can
            # see, or the citation would surface in a foreign chat (TEN-04).
            session = session_get(
                tenant=self.tenant,
                pk=parse_uuid(data["execution_context_id"]),
                user=self.acting_user,
            )
            if session is None:
                raise serializers.ValidationError(
                    {"execution_context_id": ["Unknown chat session."]}
                )
            data["execution_context_id"] = str(session.pk)
        resolved = citation_resolve(
            tenant=self.tenant,
            chunk_uid=data["chunk_id"],
            quoted_text=data["quoted_text"],
            context_type=data["execution_context_type"],
            context_id=data["execution_context_id"],
        )
        if resolved is None:
            raise not_found()
        return Response(
            CitationOutputSerializer(resolved.citation).data,
            status=status.HTTP_201_CREATED if resolved.created else status.HTTP_200_OK,
        )


__all__ = [
    "ChatCitationStatusApi",
    "ChatMessageAskApi",
    "ChatMessageAskAsyncApi",
    "ChatMessageListApi",
    "ChatQuestionApi",
    "ChatSessionCreateApi",
    "ChatSessionDetailApi",
    "ChatSessionListApi",
    "CitationResolveApi",
]
