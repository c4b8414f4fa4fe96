from __future__ import annotations

import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from accounts.models import Membership
from accounts.services import membership_add, tenant_create


class Command(BaseCommand):
    help = (
        "Create the demo tenant and user, and ingest the demo documents (idempotent)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--password", default=None)

    def handle(self, *args: object, **options: object) -> None:
        tenant = tenant_create(slug="demo", name="Demo workspace")
        User = get_user_model()
        user, created = User.objects.get_or_create(
            username="demo", defaults={"is_staff": True}
        )
        password = options["password"] or (
            None if not created else secrets.token_urlsafe(9)
        )
        if password:
            user.set_password(password)
            user.save()
        membership_add(user=user, tenant=tenant, role=Membership.Role.OWNER)
        demo_dir = Path(settings.BASE_DIR) / "demo"
        try:
            call_command("ingest", str(demo_dir), tenant="demo", collection="Demo")
        except SystemExit:
            self.stderr.write("some demo documents failed to ingest (see above)")
        # The sample playbook (by command name: accounts imports no upper app).
        call_command("playbook", "sample", tenant="demo", stdout=self.stdout)
        self.stdout.write("")
        self.stdout.write("Demo workspace ready: log in at http://127.0.0.1:8000/")
        if password:
            self.stdout.write(f"  username: demo   password: {password}")
        else:
            self.stdout.write(
                "  username: demo   (password unchanged; pass --password to reset)"
            )
