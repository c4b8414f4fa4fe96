from __future__ import annotations

from django.apps import AppConfig


class CitationsConfig(AppConfig):
    name = "citations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from citations.receivers import (
            prepare_on_new_revision,
            reverify_on_new_revision,
        )
        from ingest.signals import revision_created

        revision_created.connect(
            reverify_on_new_revision, dispatch_uid="citations-reverify"
        )
        revision_created.connect(
            prepare_on_new_revision, dispatch_uid="citations-prepare"
        )
