"""Playbooks from the command line.

    manage.py playbook run --tenant acme --playbook "Commercial contracts (sample)" \\
        --documents ID [ID ...] [--docx OUT.docx] [--xlsx OUT.xlsx] [--json] [--concurrency N]
    manage.py playbook import FILE.yaml --tenant acme [--replace PLAYBOOK]
    manage.py playbook export --tenant acme --playbook NAME [--format yaml|json] [--out FILE]
    manage.py playbook sample --tenant acme [--name NAME]
    manage.py playbook list --tenant acme

`run` checks the playbook on the documents in this process (tabular's
executor, the same as the Celery task) with a progress bar on stderr, then
prints each contract's summary line and its findings by severity (the
verified quote's page beside each), or the report as JSON with --json.
Ctrl-C cancels; finished checks are kept. A bad playbook file prints every
problem with its line and exits 1 with nothing stored.
"""

from __future__ import annotations

import json
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from accounts.models import Tenant
from accounts.scoping import tenant_scope
from playbook import export
from playbook.models import Playbook
from playbook.runs import RunError, findings_sync, run_cancel, run_create
from playbook.schema import FORMATS, PlaybookFileError, dump_playbook
from playbook.selectors import run_reports
from playbook.services import (
    PlaybookError,
    playbook_import,
    playbook_spec,
    sample_import,
)
from tabular.executor import review_run
from tabular.selectors import review_progress
from tabular.services import ReviewError

MARKS = {
    "meets": "✓",
    "fallback": "~",
    "deviates": "✗",
    "missing": "∅",
    "needs_review": "?",
}


class Command(BaseCommand):
    help = "Run, import, export and list playbooks."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        run = sub.add_parser("run", help="check a playbook on documents")
        run.add_argument("--tenant", required=True)
        run.add_argument("--playbook", required=True, help="name or id")
        run.add_argument("--documents", nargs="+", required=True, metavar="ID")
        run.add_argument("--name", default="")
        run.add_argument("--docx", default=None, metavar="OUT")
        run.add_argument("--xlsx", default=None, metavar="OUT")
        run.add_argument(
            "--json", action="store_true", help="print the findings as JSON"
        )
        run.add_argument("--concurrency", type=int, default=None)
        imp = sub.add_parser("import", help="import a YAML or JSON playbook file")
        imp.add_argument("file")
        imp.add_argument("--tenant", required=True)
        imp.add_argument(
            "--replace", default=None, help="replace this playbook (name or id)"
        )
        exp = sub.add_parser("export", help="write a playbook as YAML or JSON")
        exp.add_argument("--tenant", required=True)
        exp.add_argument("--playbook", required=True)
        exp.add_argument("--format", choices=FORMATS, default="yaml")
        exp.add_argument("--out", default=None)
        sample = sub.add_parser("sample", help="create the sample commercial playbook")
        sample.add_argument("--tenant", required=True)
        sample.add_argument("--name", default=None)
        listing = sub.add_parser("list", help="list the tenant's playbooks")
        listing.add_argument("--tenant", required=True)

    def handle(self, *args: object, **options: Any) -> None:
        tenant = Tenant.objects.filter(slug=options["tenant"]).first()
        if tenant is None:
            raise CommandError(
                f"No tenant {options['tenant']!r}; create it with create_tenant."
            )
        with tenant_scope(tenant):
            getattr(self, f"_{options['action']}")(tenant, options)

    def _playbook(self, tenant: Tenant, ref: str) -> Playbook:
        found = Playbook.objects.filter(tenant=tenant, name=ref).first()
        if found is None:
            try:
                found = Playbook.objects.filter(
                    tenant=tenant, pk=uuid.UUID(ref)
                ).first()
            except ValueError:
                found = None
        if found is None:
            raise CommandError(
                f"No playbook {ref!r} in {tenant.slug} (see `manage.py playbook list`)."
            )
        return found

    # ------------------------------------------------------------ actions

    def _list(self, tenant: Tenant, options: dict) -> None:
        for p in Playbook.objects.filter(tenant=tenant).order_by("name"):
            self.stdout.write(f"{p.pk}  {p.positions.count():>3} positions  {p.name}")

    def _sample(self, tenant: Tenant, options: dict) -> None:
        playbook = sample_import(tenant=tenant, name=options["name"])
        self.stdout.write(f"{playbook.pk}  {playbook.name}")

    def _import(self, tenant: Tenant, options: dict) -> None:
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        replace = (
            self._playbook(tenant, options["replace"]) if options["replace"] else None
        )
        try:
            playbook = playbook_import(
                tenant=tenant,
                text=path.read_bytes(),
                filename=path.name,
                replace=replace,
            )
        except PlaybookFileError as exc:
            self.stderr.write(f"{path}: nothing was stored:")
            for problem in exc.problems:
                self.stderr.write(f"  {problem}")
            raise SystemExit(1) from None
        except PlaybookError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"{playbook.pk}  {playbook.name}")

    def _export(self, tenant: Tenant, options: dict) -> None:
        text = dump_playbook(
            playbook_spec(self._playbook(tenant, options["playbook"])),
            options["format"],
        )
        if options["out"]:
            Path(options["out"]).write_text(text, encoding="utf-8")
            self.stderr.write(f"wrote {options['out']}")
        else:
            self.stdout.write(text, ending="")

    def _run(self, tenant: Tenant, options: dict) -> None:
        playbook = self._playbook(tenant, options["playbook"])
        try:
            ids = [uuid.UUID(str(d)) for d in options["documents"]]
        except ValueError as exc:
            raise CommandError(f"Not a document id: {exc}") from None
        try:
            run = run_create(
                tenant=tenant,
                playbook=playbook,
                document_ids=ids,
                name=options["name"],
                start=False,
            )
        except (ReviewError, RunError) as exc:
            raise CommandError(exc.message) from None
        bar = tqdm(
            total=review_progress(run.review).total,
            unit="check",
            file=sys.stderr,
            desc=playbook.name[:30],
        )
        lock = threading.Lock()

        def advance() -> None:
            with lock:
                bar.update(1)

        try:
            review_run(
                review_id=run.review_id,
                concurrency=options["concurrency"],
                on_cell=advance,
            )
        except KeyboardInterrupt:
            run_cancel(run=run)
            self.stderr.write(
                "cancelled; finished checks are kept (resume with the API or the page)"
            )
        finally:
            bar.close()
        findings_sync(run)
        run.review.refresh_from_db()
        reports = run_reports(run)
        if options["json"]:
            self.stdout.write(json.dumps(_as_json(run, reports), indent=2, default=str))
        else:
            self._print(reports)
        if options["docx"]:
            Path(options["docx"]).write_bytes(export.report_docx(run).getvalue())
            self.stderr.write(f"wrote {options['docx']}")
        if options["xlsx"]:
            Path(options["xlsx"]).write_bytes(export.report_xlsx(run).getvalue())
            self.stderr.write(f"wrote {options['xlsx']}")
        self.stderr.write(f"run {run.pk}: {run.review.get_status_display().lower()}")
        if run.review.status != "completed":
            raise SystemExit(1)

    def _print(self, reports) -> None:
        for report in reports:
            self.stdout.write(f"\n{report.row.title or report.row.document_uid}")
            self.stdout.write(f"  {report.summary.line}")
            for group in report.groups:
                self.stdout.write(f"  {group.label}:")
                for view in group.items:
                    where = (
                        f" (p. {view.page}, {view.citation_status})"
                        if view.quote
                        else ""
                    )
                    said = f": {view.value}" if view.value else ""
                    self.stdout.write(
                        f"    {MARKS.get(view.kind, '')} {view.position.title} — {export.finding_label(view)}{said}{where}"
                    )


def _as_json(run, reports) -> dict[str, Any]:
    return {
        "run_id": str(run.pk),
        "status": run.review.status,
        "contracts": [
            {
                "document_id": str(r.row.document_uid),
                "title": r.row.title,
                "summary": r.summary.as_dict(),
                "findings": [
                    {
                        "position": v.position.title,
                        "kind": v.kind,
                        "severity": v.severity,
                        "rule": v.finding.rule,
                        "value": v.value,
                        "reason": v.finding.reason,
                        "citation": v.citation_dict(),
                    }
                    for g in r.groups
                    for v in g.items
                ],
            }
            for r in reports
        ],
    }
