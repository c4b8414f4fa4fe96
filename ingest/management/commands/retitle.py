from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser
from django_scopes import scope

from accounts.commands import add_tenant_option, tenants_chosen
from ingest.titling import documents_retitle


class Command(BaseCommand):
    help = (
        "Recompute the titles of documents already ingested from their current "
        "text (after the title rules changed), never replacing a title a person "
        "set; each change is recorded as a TitleChange. --dry-run writes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_tenant_option(parser)
        parser.add_argument(
            "--dry-run", action="store_true", help="print the changes, write none"
        )

    def handle(self, *args: object, **options: object) -> None:
        tenants = tenants_chosen(options["tenant"])
        apply = not options["dry_run"]
        for tenant in tenants:
            changed = 0
            with scope(tenant=tenant.pk):
                for change in documents_retitle(tenant=tenant, apply=apply):
                    changed += 1
                    self.stdout.write(f"  {change.old!r} -> {change.new!r}")
            verb = "retitled" if apply else "would be retitled"
            self.stdout.write(f"{tenant.slug}: {changed} document(s) {verb}")
