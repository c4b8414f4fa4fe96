from __future__ import annotations

import json
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from accounts.models import Tenant
from accounts.scoping import tenant_scope
from accounts.services import collection_get_or_create
from ingest.exports import export_kind
from ingest.models import Document, Source
from ingest.services import Upload, document_upload
from ingest.source_kinds.base import SourceError
from ingest.sources import source_create_export


def _expand(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file() and not p.name.startswith(".")
                )
            )
        elif path.is_file():
            files.append(path)
        else:
            raise CommandError(f"No such file or folder: {raw}")
    return files


def _wait_source(source: Source) -> Source:
    """With a broker, a worker syncs: wait for the source's sync to finish."""
    deadline = time.monotonic() + settings.INGEST_TIME_LIMIT_S * 4 + 60
    while True:
        source = Source.objects.get(pk=source.pk)
        if source.status in {"ready", "failed"} or time.monotonic() > deadline:
            return source
        time.sleep(0.25)


def _wait(document: Document) -> Document:
    """With a broker, a worker ingests: wait for the document to finish."""
    deadline = (
        time.monotonic()
        + settings.INGEST_TIME_LIMIT_S * (settings.INGEST_MAX_ATTEMPTS + 1)
        + 60
    )
    while True:
        document = Document.objects.get(pk=document.pk)
        if document.is_terminal or time.monotonic() > deadline:
            return document
        time.sleep(0.25)


class Command(BaseCommand):
    help = "Ingest files or folders into a tenant; exit status 1 if any file failed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+")
        parser.add_argument("--tenant", required=True)
        parser.add_argument("--collection", default=None)
        parser.add_argument(
            "--json", action="store_true", help="one JSON object per file"
        )

    def handle(self, *args: object, **options: object) -> None:
        tenant = Tenant.objects.filter(slug=options["tenant"]).first()
        if tenant is None:
            raise CommandError(
                f"No tenant {options['tenant']!r}; create it with create_tenant."
            )
        files = _expand(list(options["paths"]))
        as_json = bool(options["json"])
        failed = 0
        with tenant_scope(tenant):
            collection = (
                collection_get_or_create(tenant=tenant, name=str(options["collection"]))
                if options["collection"]
                else None
            )
            bar = tqdm(
                files,
                unit="file",
                disable=as_json or len(files) < 2,
                file=self.stderr._out,
            )
            for path in bar:
                bar.set_description(path.name[:40])
                with path.open("rb") as stream:
                    kind = export_kind(stream, path.name)
                    if kind:  # a Slack or Teams export: a source (issue 32)
                        failed += self._source(
                            tenant, path, stream, kind, collection, as_json
                        )
                        continue
                    document = document_upload(
                        tenant=tenant,
                        upload=Upload(filename=path.name, stream=stream),
                        collection=collection,
                    )
                document = _wait(document)
                failed += document.status == Document.Status.FAILED
                row = {
                    "file": str(path),
                    "document_id": str(document.pk),
                    "title": document.title,
                    "source_type": document.source_type,
                    "status": document.status,
                    "pages": document.progress_total
                    if document.status == "ready"
                    else None,
                    "error": document.error or None,
                }
                if as_json:
                    self.stdout.write(json.dumps(row))
                else:
                    line = f"{row['document_id']}  {row['status']:<10} pages={row['pages'] or '-':<5} {path}"
                    if row["error"]:
                        line += f"  ({row['error']})"
                    tqdm.write(line, file=self.stdout._out)
        if failed:
            raise SystemExit(1)

    def _source(self, tenant, path: Path, stream, kind: str, collection, as_json):
        """Add a chat export as a source and sync it (eager without a broker);
        1 if it failed."""
        try:
            source = source_create_export(
                tenant=tenant,
                kind=kind,
                filename=path.name,
                stream=stream,
                collection=collection,
            )
        except SourceError as error:
            source, message = None, error.message
        if source is not None:
            source = _wait_source(source)
            message = source.error or ""
        row = {
            "file": str(path),
            "source_id": str(source.pk) if source else None,
            "kind": kind,
            "status": source.status if source else "failed",
            "documents": source.items.count() if source else 0,
            "error": message or None,
        }
        if as_json:
            self.stdout.write(json.dumps(row))
        else:
            line = (
                f"{row['source_id'] or '-'}  {row['status']:<10} {kind} export "
                f"({row['documents']} threads) {path}"
            )
            if row["error"]:
                line += f"  ({row['error']})"
            tqdm.write(line, file=self.stdout._out)
        return int(row["status"] == "failed")
