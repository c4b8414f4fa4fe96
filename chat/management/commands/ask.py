from __future__ import annotations

import json
import time
import uuid

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import Tenant
from accounts.scoping import tenant_scope
from chat.models import Message
from chat.payload import payload_with_verdicts
from chat.selectors import message_view
from chat.services import message_ask, session_create
from citations.models import Status
from citations.services import message_citations_verify
from ingest.models import Document

WAIT_S = 120


class Command(BaseCommand):
    help = "Ask a question; print the answer and its citations once verified."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question")
        parser.add_argument("--tenant", required=True)
        parser.add_argument("--collection", default=None)
        parser.add_argument(
            "--document",
            action="append",
            default=[],
            help="search only this document (its id or exact title); repeatable",
        )
        parser.add_argument(
            "--json", action="store_true", help="print the stored payload"
        )

    def handle(self, *args: object, **options: object) -> None:
        tenant = Tenant.objects.filter(slug=options["tenant"]).first()
        if tenant is None:
            raise CommandError(f"No tenant {options['tenant']!r}.")
        with tenant_scope(tenant):
            collection = None
            if options["collection"]:
                from accounts.models import Collection

                collection = Collection.objects.filter(
                    name=options["collection"]
                ).first()
                if collection is None:
                    raise CommandError(f"No collection {options['collection']!r}.")
            documents = [self._document(tenant, ref) for ref in options["document"]]
            session = session_create(
                tenant=tenant, user=None, collection=collection, documents=documents
            )
            message = message_ask(session=session, question=str(options["question"]))
            if message.status == Message.Status.FAILED:
                raise CommandError(message.error)
            self._wait_for_verification(message)
            message = Message.objects.prefetch_related(
                "citations", "unsourced_citations"
            ).get(pk=message.pk)
            if options["json"]:
                self.stdout.write(json.dumps(payload_with_verdicts(message), indent=2))
                return
            view = message_view(message)
            self.stdout.write(view.copy_text)

    @staticmethod
    def _document(tenant: Tenant, ref: str) -> Document:
        ready = Document.objects.filter(status=Document.Status.READY, is_deleted=False)
        try:
            matches = list(ready.filter(pk=uuid.UUID(ref)))
        except ValueError:
            matches = list(ready.filter(title=ref)[:2])
        if len(matches) > 1:
            raise CommandError(f"Several documents are titled {ref!r}: give its id.")
        found = matches[0] if matches else None
        if found is None:
            raise CommandError(f"No ready document {ref!r} in tenant {tenant.slug!r}.")
        return found

    def _wait_for_verification(self, message: Message) -> None:
        # With a broker the worker verifies; without one (or if it is slow)
        # the command verifies itself, which is idempotent.
        if settings.CELERY_TASK_ALWAYS_EAGER:
            message_citations_verify(message_id=message.pk)  # no worker to wait for
            return
        deadline = time.monotonic() + WAIT_S
        while message.citations.filter(verification_status=Status.PENDING).exists():
            if time.monotonic() > deadline:
                message_citations_verify(message_id=message.pk)
                break
            time.sleep(0.2)
