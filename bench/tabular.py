"""Tabular review throughput: 100 documents x 20 columns = 2,000 cells.

    .venv/bin/python bench/tabular.py [--documents 100] [--columns 20]
        [--latency 0.5] [--concurrency 16] [--corpus ../shared/corpus] [--quick]

The scripted OpenAI-compatible model server (docuiq.testing.llm_server) runs
in its own process and answers every call after ``--latency`` seconds, so the
executor talks real HTTP through the real openai SDK. Every cell does what it
does in production: search, one structured model call, a Message with its
sources, a citation, and its verification through the cascade.

Prints the wall time, the ideal (cells x latency / concurrency) and their
ratio (target: within 1.3x at concurrency 16), and writes
bench/results/tabular.json. Documents are CUAD contracts from the shared
corpus when it is there (cycled to reach --documents), else generated text.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# `make bench-quick` points BENCH_RESULTS elsewhere (bench/_common.py).
RESULTS = Path(os.environ.get("BENCH_RESULTS") or ROOT / "bench" / "results")

COLUMNS = [
    ("Parties", "text", "Who are the parties to this agreement?"),
    ("Agreement date", "date", "On what date was the agreement made?"),
    ("Effective date", "date", "When does the agreement take effect?"),
    ("Expiration", "date", "When does the initial term expire?"),
    ("Renewal", "text", "Does the agreement renew automatically, and for how long?"),
    (
        "Notice to terminate",
        "text",
        "How much notice is needed to terminate or not renew?",
    ),
    ("Governing law", "text", "Which law governs the agreement?"),
    ("Exclusivity", "yes_no", "Is there an exclusive dealing commitment?"),
    ("Non-compete", "yes_no", "Is a party restricted from competing?"),
    ("Assignment", "yes_no", "Is consent required to assign the agreement?"),
    ("Change of control", "yes_no", "Does a change of control allow termination?"),
    ("Liability cap", "money", "What is the cap on liability?"),
    ("Uncapped liability", "yes_no", "Is any liability uncapped?"),
    ("Termination for convenience", "yes_no", "Can a party terminate without cause?"),
    (
        "Audit rights",
        "yes_no",
        "Does a party have the right to audit the other's records?",
    ),
    ("Insurance", "text", "What insurance must a party maintain?"),
    ("Warranty duration", "text", "How long is the warranty?"),
    ("License grant", "text", "What license does the agreement grant?"),
    ("Payment terms", "money", "What fees are payable and when?"),
    ("Confidentiality", "text", "How long do confidentiality obligations last?"),
]

_GENERATED = """MASTER SERVICES AGREEMENT {n}

This Master Services Agreement (the "Agreement") is entered into as of March {day}, 2024 (the "Effective Date") by and between Northwind Traders {n} Inc., a Delaware corporation ("Customer"), and Contoso Services LLC ("Provider").

1. Term. The initial term of this Agreement begins on the Effective Date and expires on March {day}, 2027, unless terminated earlier. This Agreement renews automatically for successive one-year terms unless either party gives ninety (90) days' prior written notice of non-renewal.

2. Fees. Customer shall pay Provider a monthly fee of USD {fee},000.00 within thirty (30) days of receipt of each invoice. Late payments bear interest at one percent (1%) per month.

3. Exclusivity. During the term, Provider shall not provide similar services to any competitor of Customer within North America.

4. Assignment. Neither party may assign this Agreement without the prior written consent of the other party, except to a successor in a merger or change of control.

5. Limitation of Liability. In no event shall either party's aggregate liability exceed the fees paid in the twelve (12) months preceding the claim, except for breaches of confidentiality, for which liability is uncapped.

6. Audit. Customer may audit Provider's books and records relating to the services once per calendar year on thirty (30) days' notice.

7. Insurance. Provider shall maintain commercial general liability insurance of at least USD 2,000,000 per occurrence.

8. Warranty. Provider warrants that the services will be performed in a professional manner for a period of ninety (90) days after delivery.

9. License. Provider grants Customer a non-exclusive, non-transferable license to use the deliverables for its internal business purposes.

10. Confidentiality. Each party shall keep the other's Confidential Information confidential for five (5) years after termination.

11. Termination for Convenience. Customer may terminate this Agreement for convenience on sixty (60) days' written notice.

12. Governing Law. This Agreement is governed by the laws of the State of New York.
"""


def _boot(var_dir: str, database_url: str | None) -> None:
    os.environ["DOCUIQ_VAR_DIR"] = var_dir
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    else:
        os.environ.pop("DATABASE_URL", None)
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["DJANGO_SETTINGS_MODULE"] = "docuiq.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "docuiq.testing.llm_server",
            "--port",
            "0",
            "--latency",
            str(latency),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        raise RuntimeError(f"the scripted model server did not start: {line!r}")
    url = line.split(" on ", 1)[1].split(";", 1)[0].strip()
    return proc, url


def _texts(corpus: Path | None, n: int) -> list[tuple[str, str]]:
    sources: list[tuple[str, str]] = []
    if corpus is not None and (corpus / "cuad" / "contracts_txt").is_dir():
        for path in sorted((corpus / "cuad" / "contracts_txt").glob("*.txt")):
            sources.append((path.stem[:80], path.read_text(encoding="utf-8")))
    if not sources:
        sources = [
            (
                f"Generated agreement {i}",
                _GENERATED.format(n=i, day=1 + i % 28, fee=5 + i),
            )
            for i in range(n)
        ]
    return [
        (f"{title} #{i // len(sources) + 1}", text)
        for i, (title, text) in ((i, sources[i % len(sources)]) for i in range(n))
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=100)
    parser.add_argument("--columns", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--corpus", default=os.environ.get("DOCUIQ_CORPUS", "../shared/corpus")
    )
    parser.add_argument(
        "--database-url", default=None, help="default: a fresh SQLite file"
    )
    parser.add_argument("--out", default=str(RESULTS / "tabular.json"))
    parser.add_argument(
        "--quick",
        action="store_true",
        help="4 generated documents x 2 columns, 10 ms calls: runs only",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.documents, args.columns, args.latency = 4, 2, 0.01
        args.concurrency, args.corpus = 4, ""
    corpus = Path(args.corpus).resolve() if args.corpus else None

    server, url = _start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory(prefix="docuiq-tabular-bench-") as var_dir:
            _boot(var_dir, args.database_url)
            return _bench(args, corpus, url)
    finally:
        server.terminate()
        server.wait(timeout=10)


def _bench(args: argparse.Namespace, corpus: Path | None, url: str) -> int:
    from django.conf import settings

    from accounts.services import tenant_create
    from docuiq.testing.factories import make_document
    from tabular import services
    from tabular.executor import review_run
    from tabular.models import Cell, Review

    settings.LLM_BASE_URL = url
    settings.LLM_MODEL = "scripted-model"
    settings.LLM_API_KEY = "bench"
    # Priced like a small hosted model, so the cost path is exercised.
    settings.LLM_PRICES = {**settings.LLM_PRICES, "scripted-model": (0.15, 0.60)}

    tenant = tenant_create(slug="bench", name="Bench")
    t0 = time.monotonic()
    documents = [
        make_document(tenant, text, title=title)
        for title, text in _texts(corpus, args.documents)
    ]
    setup_s = time.monotonic() - t0
    columns = [
        services.ColumnSpec(name=name, question=question, type=kind)
        for name, kind, question in (COLUMNS * (args.columns // len(COLUMNS) + 1))[
            : args.columns
        ]
    ]
    review = services.review_create(
        tenant=tenant,
        name="Bench",
        document_ids=[d.pk for d in documents],
        columns=columns,
    )
    cells = args.documents * args.columns
    print(
        f"{args.documents} documents x {args.columns} columns = {cells} cells; "
        f"model latency {args.latency * 1000:.0f} ms; concurrency {args.concurrency} "
        f"({settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}); setup {setup_s:.1f} s",
        flush=True,
    )
    started = time.monotonic()
    outcome = review_run(review_id=review.pk, concurrency=args.concurrency)
    wall = time.monotonic() - started
    ideal = cells * args.latency / args.concurrency
    ratio = wall / ideal
    review = Review.objects.with_scope(tenant=tenant.pk).get(pk=review.pk)
    failed = Cell.objects.with_scope(tenant=tenant.pk).filter(
        review=review, status=Cell.Status.FAILED
    )
    errors = sorted({c.error for c in failed[:20]})
    print(f"status     {review.status}: {outcome.done} done, {outcome.failed} failed")
    print(f"wall       {wall:.1f} s")
    print(f"ideal      {ideal:.1f} s  (cells x latency / concurrency)")
    print(f"ratio      {ratio:.2f}x  (target <= 1.30x)")
    print(f"throughput {cells / wall:.1f} cells/s")
    print(
        f"cost       USD {review.cost_actual_usd} ({review.prompt_tokens} + {review.completion_tokens} tokens)"
    )
    if errors:
        print("errors     " + " | ".join(errors[:3]))
    result = {
        "benchmark": "tabular",
        "documents": args.documents,
        "columns": args.columns,
        "cells": cells,
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "database": settings.DATABASES["default"]["ENGINE"],
        "wall_s": round(wall, 2),
        "ideal_s": round(ideal, 2),
        "ratio": round(ratio, 3),
        "target_ratio": 1.3,
        "done": outcome.done,
        "failed": outcome.failed,
        "cost_usd": str(review.cost_actual_usd),
        "quick": args.quick,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)
    return 0 if outcome.failed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
