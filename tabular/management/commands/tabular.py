"""Run a tabular review from the command line.

    manage.py tabular --tenant acme --documents ID [ID ...] \\
        --column "Parties: Who are the parties?" \\
        --column "Effective date (date): When does it take effect?" \\
        [--name NAME] [--csv OUT.csv] [--xlsx OUT.xlsx] [--concurrency N]

The review runs in this process (the same executor as the Celery task) with a
progress bar on stderr; when it is done the grid is printed (value,
confidence, citation status and page per cell) and written to --csv / --xlsx
(one row per document; per column value, original and edited value, review,
support, confidence, status, citation, stale, page, quote).
Ctrl-C cancels the review; cells already finished are kept. Exit status 1 if
the review did not complete.
"""

from __future__ import annotations

import shutil
import threading
import uuid

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from accounts.models import Tenant
from accounts.scoping import tenant_scope
from tabular import export
from tabular.executor import review_run
from tabular.models import Review
from tabular.selectors import review_grid, review_progress
from tabular.services import ReviewError, parse_column, review_cancel, review_create

CELL_WIDTH = 34
DOC_WIDTH = 30
_MARKS = {"verified": "✓", "failed": "✗", "pending": "…", "unverified": "?"}


def _clip(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


class Command(BaseCommand):
    help = "Run a tabular review (documents x columns) and print the grid."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant slug")
        parser.add_argument("--documents", nargs="+", required=True, metavar="ID")
        parser.add_argument(
            "--column",
            action="append",
            required=True,
            dest="columns",
            metavar='"Name: question"',
            help='repeatable; "Name (type): question" sets the type '
            "(text, date, money, yes/no, list)",
        )
        parser.add_argument("--name", default="")
        parser.add_argument("--csv", default=None, metavar="OUT")
        parser.add_argument("--xlsx", default=None, metavar="OUT")
        parser.add_argument("--concurrency", type=int, default=None)

    def handle(self, *args: object, **options: object) -> None:
        tenant = Tenant.objects.filter(slug=options["tenant"]).first()
        if tenant is None:
            raise CommandError(
                f"No tenant {options['tenant']!r}; create it with create_tenant."
            )
        try:
            columns = [parse_column(str(c)) for c in options["columns"]]
            ids = [uuid.UUID(str(d)) for d in options["documents"]]
        except ReviewError as exc:
            raise CommandError(exc.message) from exc
        except ValueError as exc:
            raise CommandError(f"Not a document id: {exc}") from exc
        name = str(options["name"] or f"Review of {len(ids)} document(s)")
        with tenant_scope(tenant):
            try:
                review = review_create(
                    tenant=tenant, name=name, document_ids=ids, columns=columns
                )
            except ReviewError as exc:
                raise CommandError(exc.message) from exc
            concurrency = options["concurrency"]  # argparse's int, or None
            self._run(review, concurrency if isinstance(concurrency, int) else None)
            review.refresh_from_db()
            self._print(review)
            if options["csv"]:
                export.write_csv(review, options["csv"])
                self.stderr.write(f"wrote {options['csv']}")
            if options["xlsx"]:
                export.write_xlsx(review, options["xlsx"])
                self.stderr.write(f"wrote {options['xlsx']}")
        if review.status != Review.Status.COMPLETED:
            raise SystemExit(1)

    def _run(self, review: Review, concurrency: int | None) -> None:
        bar = tqdm(
            total=review_progress(review).total,
            unit="cell",
            file=self.stderr._out,
            desc=review.name[:30],
        )
        lock = threading.Lock()

        def advance() -> None:  # called from the executor's pool threads
            with lock:
                bar.update(1)

        try:
            review_run(review_id=review.pk, concurrency=concurrency, on_cell=advance)
        except KeyboardInterrupt:
            review_cancel(review=review)
            self.stderr.write(
                "cancelled; cells already answered are kept (resume with the API or the page)"
            )
        finally:
            bar.close()

    def _print(self, review: Review) -> None:
        grid = review_grid(review)
        width = shutil.get_terminal_size((160, 40)).columns
        per_cell = max(
            12, min(CELL_WIDTH, (width - DOC_WIDTH) // max(1, len(grid.columns)) - 3)
        )
        head = [_clip("Document", DOC_WIDTH).ljust(DOC_WIDTH)] + [
            _clip(c.name, per_cell).ljust(per_cell) for c in grid.columns
        ]
        self.stdout.write(" | ".join(head))
        self.stdout.write("-+-".join("-" * len(h) for h in head))
        for grid_row in grid.rows:
            title = grid_row.row.title or str(grid_row.row.document_uid)
            if grid_row.row.state not in ("ready", "pending"):
                title = f"[{grid_row.row.state}] {title}"
            line = [_clip(title, DOC_WIDTH).ljust(DOC_WIDTH)]
            for cell in grid_row.cells:
                line.append(self._cell(cell, per_cell).ljust(per_cell))
            self.stdout.write(" | ".join(line))
        progress = review_progress(review)
        self.stdout.write("")
        self.stdout.write(
            f"{review.get_status_display()}: {progress.done} answered, {progress.failed} failed "
            f"of {progress.total} cells; cost USD {review.cost_actual_usd} "
            f"({review.prompt_tokens} + {review.completion_tokens} tokens)"
        )

    @staticmethod
    def _cell(cell, width: int) -> str:
        if cell is None:
            return ""
        if cell.status == "failed":
            return _clip(f"✗ {cell.error}", width)
        if cell.status != "done":
            return cell.status
        if cell.is_not_found and not cell.is_edited:
            return _clip(f"{cell.value + ' · ' if cell.value else ''}not found", width)
        mark = ""
        if cell.shown_support == "unsupported":
            mark = "⚠unsupported"
        elif cell.citation is not None:
            mark = _MARKS.get(cell.citation.verification_status, "")
            if cell.citation.source_page:
                mark += f"p{cell.citation.source_page}"
        suffix = f" ({cell.confidence[:1]}{' ' + mark if mark else ''})"
        shown = cell.shown_value or "(see quote)"
        return _clip(shown, max(4, width - len(suffix))) + suffix
