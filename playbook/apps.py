from __future__ import annotations

from django.apps import AppConfig


class PlaybookConfig(AppConfig):
    name = "playbook"
    default_auto_field = "django.db.models.BigAutoField"
