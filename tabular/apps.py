from __future__ import annotations

from django.apps import AppConfig


class TabularConfig(AppConfig):
    name = "tabular"
    default_auto_field = "django.db.models.BigAutoField"
