"""What management commands that run over tenants share: a `--tenant` option
that narrows "every tenant" to one, and the tenants it names."""

from __future__ import annotations

from django.core.management.base import CommandError, CommandParser
from django.db.models import QuerySet

from accounts.models import Tenant


def add_tenant_option(parser: CommandParser) -> None:
    parser.add_argument(
        "--tenant", default=None, help="one tenant's slug (default: every tenant)"
    )


def tenants_chosen(slug: object) -> QuerySet[Tenant]:
    """Every tenant by slug, or the one `slug` names; an unknown slug is a
    CommandError rather than a run over nothing."""
    tenants = Tenant.objects.order_by("slug")
    if slug:
        tenants = tenants.filter(slug=slug)
        if not tenants.exists():
            raise CommandError(f"No tenant {slug!r}.")
    return tenants
