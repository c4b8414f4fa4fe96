from __future__ import annotations

from django.core.management.base import BaseCommand

from chat.answers_doc import write


class Command(BaseCommand):
    help = "Write docs/answers.md from the scope, naming, value, relevance and badge tables."

    def handle(self, *args: object, **options: object) -> None:
        self.stdout.write(f"wrote {write()}")
