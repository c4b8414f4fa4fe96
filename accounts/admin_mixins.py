"""Tenant isolation for the Django admin (TEN-07).

Every tenant-owned model uses django-scopes' ScopedManager and
TenantMiddleware activates the scope of `request.tenant`, so a query outside
that tenant already raises. `TenantScopedAdmin` adds the same rule explicitly
(belt and braces), because the admin has many side doors: the changelist,
search, list filters, date hierarchy, autocomplete JSON, FK widgets, actions
and exports all start from `get_queryset` or a related model's manager.

- `get_queryset` filters by `request.tenant`; with no tenant (a superuser who
  is a member of no workspace) it returns an empty queryset and the
  changelist says why, instead of crashing on a ScopeError.
- Foreign-key and many-to-many choices are limited to the tenant's rows.
- New objects get `tenant = request.tenant` on save; the tenant field is never
  shown in a form, so it cannot be pointed elsewhere.
- Staff who are members of the tenant may view; owners (or users with the
  Django permission) may add, change and delete.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.core.exceptions import FieldDoesNotExist, PermissionDenied, ValidationError
from django.db import models
from django.http import HttpResponseBadRequest

from accounts.models import Membership, Tenant

if TYPE_CHECKING:
    from django.db.models import QuerySet
    from django.http import HttpRequest, HttpResponse

NO_TENANT_MESSAGE = (
    "You are not a member of any workspace, so there is nothing to show here. "
    "Add a membership for your user to review a workspace's data."
)


def request_tenant(request: HttpRequest) -> Tenant | None:
    return getattr(request, "tenant", None)


def tenant_role(request: HttpRequest) -> str | None:
    """The user's role in the request's tenant (cached on the request)."""
    tenant = request_tenant(request)
    if tenant is None or not request.user.is_authenticated:
        return None
    if not hasattr(request, "_tenant_role"):
        membership = Membership.objects.filter(user=request.user, tenant=tenant).first()
        request._tenant_role = membership.role if membership else None
    return request._tenant_role


def is_tenant_staff(request: HttpRequest) -> bool:
    """A staff user acting for a tenant they belong to."""
    user = request.user
    return bool(
        user.is_active
        and user.is_staff
        and request_tenant(request)
        and tenant_role(request)
    )


def _tenant_lookup_for(model: type[models.Model]) -> str | None:
    """How rows of `model` name their tenant, or None if they have none."""
    if model is Tenant:
        return "pk"
    if model is get_user_model():
        return "memberships__tenant"
    try:
        model._meta.get_field("tenant")
    except FieldDoesNotExist:
        return None
    return "tenant"


def tenant_queryset(model: type[models.Model], tenant: Tenant | None) -> QuerySet:
    """All of `tenant`'s rows of `model` (none without a tenant), whether or
    not a scope is active."""
    manager = model._default_manager
    lookup = _tenant_lookup_for(model)
    if tenant is None:
        return manager.none()
    if hasattr(manager, "with_scope"):
        manager = manager.with_scope(tenant=tenant.pk)
    qs = manager.get_queryset()
    if lookup is not None:
        qs = qs.filter(**{lookup: tenant.pk if lookup == "pk" else tenant})
        if lookup.endswith("__tenant"):
            qs = qs.distinct()
    return qs


class TenantScopedAdmin(admin.ModelAdmin):
    """ModelAdmin base for models owned by a tenant (see module docstring)."""

    #: Lookup from this model to its Tenant ("pk" for Tenant itself).
    tenant_lookup = "tenant"

    # ------------------------------------------------------------ rows
    def get_queryset(self, request: HttpRequest) -> QuerySet:
        tenant = request_tenant(request)
        manager = self.model._default_manager
        if tenant is None:
            return manager.none()
        if hasattr(manager, "with_scope"):
            manager = manager.with_scope(tenant=tenant.pk)
        value = tenant.pk if self.tenant_lookup == "pk" else tenant
        qs = manager.get_queryset().filter(**{self.tenant_lookup: value})
        ordering = self.get_ordering(request)
        if ordering:
            qs = qs.order_by(*ordering)
        return qs

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if request_tenant(request) is None and request.method == "GET":
            messages.warning(request, NO_TENANT_MESSAGE)
        return super().changelist_view(request, extra_context)

    # ------------------------------------------------------------ actions
    def response_action(self, request: HttpRequest, queryset: QuerySet) -> Any:
        """An action on a selection that is no row id ("abc" for an integer
        key: Django's filter raises ValueError) answers 400, changing nothing."""
        key = self.model._meta.pk
        for value in request.POST.getlist(helpers.ACTION_CHECKBOX_NAME):
            try:
                key.to_python(value)
            except ValidationError:
                return HttpResponseBadRequest(
                    "The selection holds a value that is no row of this list.",
                    content_type="text/plain; charset=utf-8",
                )
        return super().response_action(request, queryset)

    # ------------------------------------------------------------ forms
    def _has_tenant_field(self) -> bool:
        return self.tenant_lookup == "tenant"

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        """The form validates the model's constraints with the caller's
        tenant: the field is not in the form, so Django would skip every
        unique constraint naming it, and a second collection of the same name
        reached the database as an IntegrityError (a 500) instead of the
        form's error."""
        form = super().get_form(request, obj, change, **kwargs)
        tenant = request_tenant(request)
        if not self._has_tenant_field() or tenant is None:
            return form

        class TenantForm(form):  # type: ignore[misc, valid-type]
            def _get_validation_exclusions(self) -> set[str]:
                exclude = set(super()._get_validation_exclusions())
                exclude.discard("tenant")
                return exclude

            def _post_clean(self) -> None:
                if not getattr(self.instance, "tenant_id", None):
                    self.instance.tenant = tenant
                super()._post_clean()

        TenantForm.__name__ = form.__name__
        return TenantForm

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> Any:
        exclude = list(super().get_exclude(request, obj) or [])
        if self._has_tenant_field() and "tenant" not in exclude:
            exclude.append("tenant")
        return exclude

    def _tenant_choices(
        self, db_field: Any, request: HttpRequest, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """A relation's choices: the request tenant's rows only, unless the
        caller already chose them."""
        if "queryset" not in kwargs:
            kwargs["queryset"] = tenant_queryset(
                db_field.remote_field.model, request_tenant(request)
            )
        return kwargs

    def formfield_for_foreignkey(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> Any:
        kwargs = self._tenant_choices(db_field, request, kwargs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> Any:
        kwargs = self._tenant_choices(db_field, request, kwargs)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def save_model(
        self, request: HttpRequest, obj: Any, form: Any, change: bool
    ) -> None:
        tenant = request_tenant(request)
        if tenant is None:
            raise PermissionDenied(NO_TENANT_MESSAGE)
        if self._has_tenant_field():
            if not change:
                obj.tenant = tenant
            elif obj.tenant_id != tenant.pk:
                raise PermissionDenied("This row belongs to another workspace.")
        super().save_model(request, obj, form, change)

    # ------------------------------------------------------------ permissions
    def _is_owner(self, request: HttpRequest) -> bool:
        return (
            is_tenant_staff(request) and tenant_role(request) == Membership.Role.OWNER
        )

    def has_module_permission(self, request: HttpRequest) -> bool:
        return super().has_module_permission(request) or is_tenant_staff(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_view_permission(request, obj) or is_tenant_staff(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        if request_tenant(request) is None:
            return False
        return super().has_add_permission(request) or self._is_owner(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_change_permission(request, obj) or self._is_owner(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_delete_permission(request, obj) or self._is_owner(request)


class ReadOnlyAdminMixin:
    """History that nobody edits by hand: view only (superusers may delete)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser and request_tenant(request) is not None)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_tenant_staff(request) or super().has_view_permission(request, obj)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return tenant_queryset(self.model, request_tenant(request)).order_by(
            *(self.ordering or self.model._meta.ordering or ["pk"])
        )
