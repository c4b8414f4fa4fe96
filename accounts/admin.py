"""Admin for tenants, memberships, API keys and collections, each limited to
the request's tenant (see accounts.admin_mixins, TEN-07)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import Count, Q
from django.utils import timezone

from accounts.admin_mixins import TenantScopedAdmin, request_tenant
from accounts.models import ApiKey, Collection, Membership, Tenant, hash_api_key
from accounts.selectors import api_key_cache_clear

if TYPE_CHECKING:
    from django.db.models import QuerySet
    from django.http import HttpRequest

User = get_user_model()


@admin.register(Tenant)
class TenantAdmin(TenantScopedAdmin):
    """A staff user sees the workspace they are acting for; only superusers
    create workspaces (and become their owner, so they can see them)."""

    tenant_lookup = "pk"
    list_display = ["slug", "name", "is_active", "created_at"]
    search_fields = ["slug", "name"]
    readonly_fields = ["created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser and request_tenant(request) is not None

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and not request.user.is_superuser:
            fields += ["slug", "is_active"]
        return fields

    def save_model(
        self, request: HttpRequest, obj: Tenant, form: Any, change: bool
    ) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        obj.save()
        Membership.objects.get_or_create(
            user=request.user, tenant=obj, defaults={"role": Membership.Role.OWNER}
        )
        messages.info(
            request, f"You are the owner of {obj.name}. Switch to it to see its data."
        )


class MembershipForm(forms.ModelForm):
    """Members are added by exact username, so the form never lists the
    users of other workspaces."""

    username = forms.CharField(
        max_length=150, help_text="The exact username of the person to add."
    )
    tenant: Tenant | None = None  # set per request by MembershipAdmin.get_form

    class Meta:
        model = Membership
        fields = ["role"]

    def clean_username(self) -> str:
        username = self.cleaned_data["username"].strip()
        user = User.objects.filter(**{User.USERNAME_FIELD: username}).first()
        if user is None:
            raise forms.ValidationError("No user with this username.")
        if Membership.objects.filter(user=user, tenant=self.tenant).exists():
            raise forms.ValidationError(
                "This user is already a member of this workspace."
            )
        self.user = user
        return username


@admin.register(Membership)
class MembershipAdmin(TenantScopedAdmin):
    list_display = ["user", "role", "created_at"]
    list_filter = ["role"]
    search_fields = ["user__username", "user__email"]
    readonly_fields = ["created_at"]

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = type(
                "MembershipForm", (MembershipForm,), {"tenant": request_tenant(request)}
            )
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is None:
            return ["username", "role"]
        return ["user", "role", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["user", "created_at"] if obj is not None else []

    def save_model(
        self, request: HttpRequest, obj: Membership, form: Any, change: bool
    ) -> None:
        if not change:
            obj.user = form.user
        super().save_model(request, obj, form, change)


@admin.register(ApiKey)
class ApiKeyAdmin(TenantScopedAdmin):
    """Keys are stored as a prefix and a SHA-512 hash. The full key is shown
    once, in a message after it is created; the list shows the prefix."""

    list_display = [
        "name",
        "key_prefix",
        "state",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix"]
    fields = ["name", "key_prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["key_prefix", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke_selected"]

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> Any:
        return [*super().get_exclude(request, obj), "prefix", "hashed_key"]

    @admin.display(description="Key", ordering="prefix")
    def key_prefix(self, obj: ApiKey) -> str:
        return f"dq_{obj.prefix}_…" if obj.prefix else "—"

    @admin.display(description="State")
    def state(self, obj: ApiKey) -> str:
        return "revoked" if obj.revoked_at else "active"

    def save_model(
        self, request: HttpRequest, obj: ApiKey, form: Any, change: bool
    ) -> None:
        raw = None
        if not change:
            obj.prefix, raw = ApiKey.generate()
            obj.hashed_key = hash_api_key(raw)
        super().save_model(request, obj, form, change)
        if raw is not None:
            # Shown once: only the hash is stored (AUTH-01). Escaped by the template.
            messages.warning(
                request,
                f"The new API key is {raw} — copy it now: it will not be shown again.",
            )

    @admin.action(description="Revoke selected API keys", permissions=["change"])
    def revoke_selected(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        n = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        api_key_cache_clear()  # at once here; other processes within API_KEY_CACHE_S
        self.message_user(request, f"Revoked {n} key(s).", messages.SUCCESS)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Revoke instead: a deleted key leaves no trace of who called the API.
        return bool(request.user.is_superuser and request_tenant(request))


@admin.register(Collection)
class CollectionAdmin(TenantScopedAdmin):
    list_display = ["name", "document_count", "created_at"]
    search_fields = ["name"]
    ordering = ["name"]
    readonly_fields = ["created_at"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Collection]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                n_documents=Count("documents", filter=Q(documents__is_deleted=False))
            )
        )

    @admin.display(description="Documents", ordering="n_documents")
    def document_count(self, obj: Collection) -> int:
        return obj.n_documents


# ---------------------------------------------------------------- users
# Users are not tenant-owned, but a staff user with the auth permissions must
# still not browse another workspace's people: non-superusers see the members
# of their current tenant, and cannot grant themselves more rights.
admin.site.unregister(User)


@admin.register(User)
class TenantUserAdmin(UserAdmin):
    def get_queryset(self, request: HttpRequest) -> QuerySet:
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        tenant = request_tenant(request)
        if tenant is None:
            return qs.none()
        return qs.filter(memberships__tenant=tenant)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        if not request.user.is_superuser:
            fields += ["is_staff", "is_superuser", "groups", "user_permissions"]
        return fields

    def save_model(
        self, request: HttpRequest, obj: Any, form: Any, change: bool
    ) -> None:
        super().save_model(request, obj, form, change)
        tenant = request_tenant(request)
        if not change and tenant is not None and not request.user.is_superuser:
            Membership.objects.get_or_create(user=obj, tenant=tenant)
