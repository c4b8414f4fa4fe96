"""REST plumbing every app's api.py builds on, and `GET /api/me`.

The caller's tenant is decided here and nowhere else (TEN-01..TEN-04):

- `accounts.middleware.TenantMiddleware` resolves it for a session (the tenant
  chosen in the session) or an `X-API-Key` (the key's tenant) and activates
  that tenant's django-scopes scope before DRF runs;
- `TenantApiView` adds DRF token auth (which the middleware cannot see, it
  runs before DRF authenticates), refuses callers without a tenant, checks a
  `tenant_id` query parameter against the caller, and hands views
  `self.tenant`. Views pass it to selectors/services and never read a tenant
  from the request body.

Objects of another tenant are looked up exactly like unknown ids, so both
answer 404 with the same body (TEN-02). A `tenant_id` parameter naming any
tenant other than the caller's answers 403 with one fixed body whether or not
that tenant exists: it is a parameter check, not an object lookup, and the
fixed body keeps it from being an oracle for tenant slugs.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from django.core.exceptions import SuspiciousOperation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.authentication import TokenAuthentication
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from accounts.auth import ApiKeyUser, HasTenant
from accounts.models import Collection
from accounts.scoping import tenant_scope
from accounts.selectors import membership_for, tenants_for_user

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser
    from django.db.models import QuerySet
    from rest_framework.request import Request

    from accounts.models import Tenant

# Bounds for integers taken from a request: an unbounded skip reaches the
# database as an OFFSET that SQLite cannot even bind (OverflowError -> 500).
MAX_SKIP = 2**31 - 1
MAX_LIMIT = 500
DEFAULT_LIMIT = 50
MAX_INT_ID = 2**31 - 1

TENANT_MISMATCH = "tenant_id does not name a tenant you act for."


# ---------------------------------------------------------------- helpers


def parse_uuid(value: object) -> uuid.UUID | None:
    """An id from a URL, or None when malformed (then it is simply not found)."""
    try:
        return uuid.UUID(str(value))
    except (ValueError, TypeError, AttributeError):
        return None


def not_found() -> exceptions.NotFound:
    """The one 404 for unknown ids and other tenants' ids alike (TEN-02)."""
    return exceptions.NotFound()


Found = TypeVar("Found")


def found(obj: Found | None) -> Found:
    """`obj`, or the one 404 when a lookup found nothing."""
    if obj is None:
        raise not_found()
    return obj


def parse_int_id(value: object) -> int | None:
    """A whole-number id from a URL (ASCII digits, within a database integer),
    or None when it cannot name a row (then it is simply not found)."""
    text = str(value)
    if not (text.isascii() and text.isdigit()):
        return None
    pk = int(text)
    return pk if 0 < pk <= MAX_INT_ID else None


def collection_id_field(**options: Any) -> serializers.IntegerField:
    """An optional `collection_id` input (a positive database id); resolve it
    with `tenant_collection`."""
    return serializers.IntegerField(
        min_value=1, max_value=MAX_INT_ID, required=False, **options
    )


def tenant_collection(tenant: Tenant, collection_id: int | None) -> Collection | None:
    """A collection id from a request body, resolved inside the caller's
    tenant before it sets any foreign key (TEN-04, Sentry #108156): another
    tenant's id is reported exactly like an unknown one."""
    if collection_id is None:
        return None
    collection = (
        Collection.objects.with_scope(tenant=tenant.pk).filter(pk=collection_id).first()
    )
    if collection is None:
        raise serializers.ValidationError({"collection_id": ["Unknown collection."]})
    return collection


def paginate(
    rows: QuerySet | Sequence, *, skip: int, limit: int
) -> tuple[list, int | None]:
    """One page by skip/limit without COUNT(*) (LOAD-04): fetch one row more
    than asked to learn whether another page exists."""
    page = list(rows[skip : skip + limit + 1])
    next_skip = skip + limit if len(page) > limit else None
    return page[:limit], next_skip


def page_response(
    items: list, *, skip: int, limit: int, next_skip: int | None
) -> Response:
    return Response(
        {"items": items, "skip": skip, "limit": limit, "next_skip": next_skip}
    )


def page_serializer(
    name: str, item: type[serializers.Serializer]
) -> type[serializers.Serializer]:
    """The schema of a page: {"items": [...], "skip", "limit", "next_skip"}."""
    meta = type("Meta", (), {"ref_name": f"Paginated{name}List"})
    return type(
        f"{name}PageSerializer",
        (serializers.Serializer,),
        {
            "items": item(many=True),
            "skip": serializers.IntegerField(),
            "limit": serializers.IntegerField(),
            "next_skip": serializers.IntegerField(
                allow_null=True,
                help_text="skip for the next page; null on the last page",
            ),
            "Meta": meta,
        },
    )


class PageFilterSerializer(serializers.Serializer):
    """skip/limit as in seed 003."""

    skip = serializers.IntegerField(min_value=0, max_value=MAX_SKIP, default=0)
    limit = serializers.IntegerField(
        min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT
    )


def paged_response(
    request, rows: QuerySet | Sequence, serializer: type[serializers.Serializer]
) -> Response:
    """A list endpoint's answer: the request's skip/limit checked
    (PageFilterSerializer), one page of `rows` (paginate), serialized."""
    f = PageFilterSerializer(data=request.query_params)
    f.is_valid(raise_exception=True)
    skip, limit = f.validated_data["skip"], f.validated_data["limit"]
    page, next_skip = paginate(rows, skip=skip, limit=limit)
    return page_response(
        serializer(page, many=True).data, skip=skip, limit=limit, next_skip=next_skip
    )


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()

    class Meta:
        ref_name = "Error"


# Error responses shared by every operation's schema.
ERROR_400 = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description="Invalid input: an object mapping each bad field to its messages "
    '(or {"detail": ...}).',
)
ERROR_401 = OpenApiResponse(ErrorSerializer, description="No or invalid credentials.")
ERROR_403 = OpenApiResponse(
    ErrorSerializer,
    description="The caller acts for no tenant (or a `tenant_id` parameter names "
    "another tenant), or a session-authenticated write lacks its CSRF token.",
)
ERROR_404 = OpenApiResponse(
    ErrorSerializer,
    description="Unknown id, or an object of another tenant (same body for both).",
)
ERROR_429 = OpenApiResponse(ErrorSerializer, description="Too many requests.")
COMMON_ERRORS = {401: ERROR_401, 403: ERROR_403, 429: ERROR_429}
_ERRORS = {400: ERROR_400, 404: ERROR_404}


def responses(ok: Any, *errors: int, code: int = 200) -> dict[int, Any]:
    """An operation's responses: `ok` at `code`, the errors it answers besides
    the common ones (400 bad input, 404 not found), then COMMON_ERRORS."""
    return {code: ok, **{error: _ERRORS[error] for error in errors}, **COMMON_ERRORS}


def uuid_path(name: str, description: str = "") -> OpenApiParameter:
    # Paths take <str:...> so a malformed id gets the same JSON 404 as an
    # unknown one instead of Django's HTML 404; the schema still says uuid.
    return OpenApiParameter(
        name, OpenApiTypes.UUID, OpenApiParameter.PATH, description=description
    )


def int_path(name: str) -> OpenApiParameter:
    return OpenApiParameter(name, OpenApiTypes.INT, OpenApiParameter.PATH)


def file_responses(
    content_type: str, description: str, kind: Any = OpenApiTypes.BINARY
) -> dict[Any, Any]:
    """The schema of an operation that answers a file (an export)."""
    return {
        (200, content_type): OpenApiResponse(kind, description=description),
        404: ERROR_404,
        **COMMON_ERRORS,
    }


TENANT_ID_PARAM = OpenApiParameter(
    "tenant_id",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    required=True,
    description="The caller's tenant (its slug, e.g. `tenant1`, or its numeric id). "
    "Any other value answers 403.",
)


# ---------------------------------------------------------------- base view


class CallerRateThrottle(UserRateThrottle):
    """UserRateThrottle keys on `user.pk`, which is None for every API key, so
    all keys of all tenants would share one bucket: key them by key id."""

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        key = getattr(request._request, "api_key", None)
        if key is not None:
            return self.cache_format % {
                "scope": self.scope,
                "ident": f"apikey-{key.pk}",
            }
        return super().get_cache_key(request, view)


class TenantApiView(APIView):
    """Base of every tenant-owned API operation (see the module docstring).

    Set `tenant_query_param = "tenant_id"` on a view whose contract carries
    the tenant in the query (seed 003); it is then required and checked here.
    """

    permission_classes = [IsAuthenticated, HasTenant]
    throttle_classes = [CallerRateThrottle, AnonRateThrottle]
    # JSON only: the browsable API would render templates whose context
    # processors expect a person (an API-key principal breaks them), and
    # /api/docs/ already documents every operation.
    renderer_classes = [JSONRenderer]
    tenant_query_param: ClassVar[str | None] = None
    # The body's serializer, on the views that take one (see `validated`).
    InputSerializer: ClassVar[type[serializers.Serializer]]

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        # A scope entered for this request (token auth, below) must end with
        # it: django-scopes keeps it in thread state, and a leaked scope would
        # hand the next request on this thread another tenant's rows.
        with ExitStack() as stack:
            self._scopes = stack
            return super().dispatch(request, *args, **kwargs)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        self.perform_authentication(request)
        self._resolve_token_tenant(request)
        super().initial(request, *args, **kwargs)  # permissions, throttles
        if self.tenant_query_param:
            self._check_tenant_param(request)

    def _resolve_token_tenant(self, request: Request) -> None:
        """DRF token auth happens after the middleware ran, so the middleware
        found no tenant: a token acts for the person's first tenant (by slug),
        as a fresh session would."""
        django_request = request._request
        if getattr(django_request, "tenant", None) is not None:
            return
        if not isinstance(request.successful_authenticator, TokenAuthentication):
            return
        tenants = tenants_for_user(request.user)
        if tenants:
            django_request.tenant = tenants[0]
            self._scopes.enter_context(tenant_scope(tenants[0]))

    def _check_tenant_param(self, request: Request) -> None:
        name = self.tenant_query_param
        value = request.query_params.get(name, "").strip()
        if not value:
            raise exceptions.ValidationError({name: ["This field is required."]})
        if value not in {self.tenant.slug, str(self.tenant.pk)}:
            raise exceptions.PermissionDenied(TENANT_MISMATCH)

    def handle_exception(self, exc: Exception) -> Response:
        # Django's own request-size guards (too many files or fields, a body
        # over DATA_UPLOAD_MAX_MEMORY_SIZE) raise SuspiciousOperation while DRF
        # parses the body; DRF would let them through to Django's HTML 400.
        # They are bad input like any other: a JSON 400 (DAT-04, SEC-05).
        if isinstance(exc, SuspiciousOperation):
            exc = exceptions.ParseError(str(exc) or "The request body was refused.")
        return super().handle_exception(exc)

    def validated(self, request: Request) -> dict[str, Any]:
        """The request body as this view's InputSerializer reads it; an
        invalid body is a 400 naming its fields."""
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    @property
    def tenant(self) -> Tenant:
        """The tenant the caller acts for; set whenever a handler runs."""
        return self.request._request.tenant

    @property
    def acting_user(self) -> AbstractBaseUser | None:
        """The person behind the request, or None for an API key (a key acts
        for its whole tenant and is nobody's account)."""
        user = self.request.user
        if isinstance(user, ApiKeyUser) or not user.is_authenticated:
            return None
        return user


class AnyAcceptNegotiation(DefaultContentNegotiation):
    """A file whatever the client accepts (text/csv, a spreadsheet type,
    */*): DRF's JSON-only negotiation must not answer 406."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


# Base of an operation that answers a file (an export). A comment, not a
# docstring: the schema takes an operation's description from its class's
# nearest docstring, and a base must not change what its exports say.
class FileApiView(TenantApiView):
    content_negotiation_class = AnyAcceptNegotiation


# ---------------------------------------------------------------- /api/me


class MeApi(TenantApiView):
    """Who the caller is and which tenant it acts for."""

    class OutputSerializer(serializers.Serializer):
        class TenantSerializer(serializers.Serializer):
            id = serializers.IntegerField()
            slug = serializers.CharField()
            name = serializers.CharField()

            class Meta:
                ref_name = "MeTenant"

        auth = serializers.ChoiceField(choices=["api_key", "session", "token"])
        username = serializers.CharField(
            allow_null=True, help_text="null for an API key"
        )
        api_key_name = serializers.CharField(
            allow_null=True, help_text="null for a person"
        )
        role = serializers.CharField(
            allow_null=True,
            help_text="membership role in the tenant; null for an API key",
        )
        tenant = TenantSerializer()
        tenants = TenantSerializer(
            many=True, help_text="every tenant a person belongs to"
        )

        class Meta:
            ref_name = "Me"

    @extend_schema(
        operation_id="me",
        summary="The caller and its tenant",
        responses={200: OutputSerializer, **COMMON_ERRORS},
        tags=["account"],
    )
    def get(self, request: Request) -> Response:
        user = self.acting_user
        if user is None:
            data = {
                "auth": "api_key",
                "username": None,
                "api_key_name": request.auth.name,
                "role": None,
                "tenant": self.tenant,
                "tenants": [self.tenant],
            }
        else:
            membership = membership_for(user, self.tenant)
            data = {
                "auth": "token"
                if isinstance(request.successful_authenticator, TokenAuthentication)
                else "session",
                "username": user.get_username(),
                "api_key_name": None,
                "role": membership.role if membership else None,
                "tenant": self.tenant,
                "tenants": tenants_for_user(user),
            }
        return Response(self.OutputSerializer(data).data)
