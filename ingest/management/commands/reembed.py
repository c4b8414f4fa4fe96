from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from accounts.commands import add_tenant_option, tenants_chosen
from ingest.embedding import configured_embedder, reembed_tenant
from llm.errors import LLMError


class Command(BaseCommand):
    help = (
        "Compute the configured embedder's vectors for the chunks that lack one "
        "(after a model change, or after the embedding server was down), then "
        "delete vectors of other models. Exit status 1 if the embedder failed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_tenant_option(parser)
        parser.add_argument(
            "--all",
            action="store_true",
            dest="everything",
            help="recompute every chunk's vector, not only the missing ones "
            "(the same model name now gives other vectors)",
        )

    def handle(self, *args: object, **options: object) -> None:
        embedder = configured_embedder()
        if embedder is None:
            raise CommandError(
                "Embeddings are off (EMBEDDINGS=off, or misconfigured: see the log)."
            )
        tenants = tenants_chosen(options["tenant"])
        try:
            model = embedder.name
        except LLMError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Embedding model: {model}")
        for tenant in tenants:
            bar = tqdm(unit="chunk", desc=tenant.slug, leave=True)
            try:
                done = reembed_tenant(
                    tenant,
                    embedder=embedder,
                    everything=bool(options["everything"]),
                    on_total=lambda n, bar=bar: bar.reset(total=n),
                    on_batch=bar.update,
                )
            except LLMError as exc:
                raise CommandError(
                    f"{tenant.slug}: {exc} Vectors stored so far are kept; run "
                    "reembed again to go on."
                ) from exc
            finally:
                bar.close()
            self.stdout.write(
                f"{tenant.slug}: {done.stored} vectors computed, "
                f"{done.removed} of other models or old revisions removed"
            )
