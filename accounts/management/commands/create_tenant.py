from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from accounts.scoping import tenant_scope
from accounts.services import api_key_create, tenant_create


class Command(BaseCommand):
    help = "Create a tenant (idempotent); with --api-key also create a key and print it last."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--name", default=None)
        parser.add_argument(
            "--api-key", action="store_true", help="also create an API key"
        )
        parser.add_argument("--key-name", default="cli")

    def handle(self, *args: object, **options: object) -> None:
        tenant = tenant_create(slug=str(options["slug"]), name=options["name"])
        self.stdout.write(f"tenant {tenant.slug} (id {tenant.pk})")
        if options["api_key"]:
            with tenant_scope(tenant):
                _, raw = api_key_create(tenant=tenant, name=str(options["key_name"]))
            # Alone on the last line so scripts can `tail -1`.
            self.stdout.write(raw)
