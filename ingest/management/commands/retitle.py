from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_scopes import scope

from accounts.models import Tenant
from ingest.titling import documents_retitle


class Command(BaseCommand):
    help = (
        "Recompute the titles of documents already ingested from their current "
        "text (after the title rules changed), never replacing a title a person "
        "set; each change is recorded as a TitleChange. --dry-run writes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--tenant", default=None, help="one tenant's slug (default: every tenant)"
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="print the changes, write none"
        )

    def handle(self, *args: object, **options: object) -> None:
        tenants = Tenant.objects.order_by("slug")
        if options["tenant"]:
            tenants = tenants.filter(slug=options["tenant"])
            if not tenants.exists():
                raise CommandError(f"No tenant {options['tenant']!r}.")
        apply = not options["dry_run"]
        for tenant in tenants:
            changed = 0
            with scope(tenant=tenant.pk):
                for change in documents_retitle(tenant=tenant, apply=apply):
                    changed += 1
                    self.stdout.write(f"  {change.old!r} -> {change.new!r}")
            verb = "retitled" if apply else "would be retitled"
            self.stdout.write(f"{tenant.slug}: {changed} document(s) {verb}")
