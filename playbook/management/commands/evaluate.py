"""Evaluate answers, tabular cells and playbook findings on two corpora.

    manage.py evaluate [--corpus cuad|nda|all] [--limit N] [--questions N]
        [--split tune|report] [--parts answers,tabular,playbook]
        [--corpus-dir DIR] [--out FILE] [--quick]

Runs bench/evaluate.py (its docstring defines every figure) in a child
process, on a SQLite database of the evaluation's own: the corpora are
ingested there, never into this project's database. The child inherits the
environment, so the offline responder is one row and, with LLM_BASE_URL set,
that model is the next. `--quick` runs a built-in contract and NDA (no
corpus) in seconds. Exit status: the evaluation's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

SCRIPT = Path(settings.BASE_DIR) / "bench" / "evaluate.py"


class Command(BaseCommand):
    help = (
        "Answers, tabular and playbook evaluations on CUAD and ContractNLI's dev NDAs."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", choices=("cuad", "nda", "all"), default="all")
        parser.add_argument("--limit", type=int, default=None)
        parser.add_argument("--questions", type=int, default=None)
        parser.add_argument("--split", choices=("tune", "report"), default=None)
        parser.add_argument("--parts", default="answers,tabular,playbook")
        parser.add_argument("--corpus-dir", default=None)
        parser.add_argument("--out", default=None)
        parser.add_argument("--quick", action="store_true")

    def handle(self, *args, **options) -> None:
        if not SCRIPT.exists():
            raise CommandError(f"{SCRIPT} is missing: evaluate runs from a checkout.")
        argv = [sys.executable, str(SCRIPT), "--corpus", options["corpus"]]
        argv += ["--parts", options["parts"]]
        for name in ("limit", "questions", "split", "corpus_dir", "out"):
            if options[name] is not None:
                argv += [f"--{name.replace('_', '-')}", str(options[name])]
        if options["quick"]:
            argv.append("--quick")
        # Progress goes to stderr as it comes; the table to this command's stdout.
        with subprocess.Popen(
            argv, cwd=settings.BASE_DIR, stdout=subprocess.PIPE, text=True
        ) as child:
            for line in child.stdout:
                self.stdout.write(line, ending="")
        if child.returncode:
            raise CommandError(
                f"the evaluation failed (exit status {child.returncode})"
            )
