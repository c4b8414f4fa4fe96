"""The first request like the hundredth: CPU time of a new process's first
request against its warm ones, for a web and a worker process.

    .venv/bin/python bench/first_request.py [--corpus ../shared/corpus] [--requests 12] [--quick]

The parent prepares a database of its own with real contracts (CUAD's
`contracts_txt`, ingested through the product's services) and starts, for
each kind of process, two fresh Python processes: one as a process starts
today without warming, one warmed as gunicorn's `when_ready`/`post_fork` and
Celery's `worker_process_init` warm it (docuiq/warmup.py; the warm-up's own
time is reported apart: it is paid before the process takes requests).

  web     a question on a contract (chat.services.message_ask, the offline
          responder) and the verification of its citations: the chat
          overhead, CPU per ask; p95 over the warm asks is the issue's
          "chat overhead on real contracts" (target < 100 ms)
  worker  a citation task's work: a CUAD clause verified against its
          contract's stored text (citations.cascade.verify_quote), quoted
          with its whitespace collapsed, every other one with an OCR-like
          glyph ("tlie"), so the guard and its word list run

Each row: first request's CPU ms, the median of the warm ones, their ratio
(target <= 2), the p95 of the warm ones, and the process's peak RSS.
Results go to bench/results/first_request.json.

--quick: bench/evaluate.py's built-in contract (in CUAD's layout) in place of
the corpus, 3 requests per process; only proves the script runs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

QUESTIONS = [
    "What is the governing law of the agreement?",
    "Can either party terminate the agreement for convenience?",
    "Is there a cap on liability?",
    "Who owns the intellectual property?",
    "How long does the agreement last?",
    "Can the agreement be assigned?",
    "What are the payment terms?",
    "Is there an exclusivity obligation?",
]


def _prepare(corpus: Path, contracts: int) -> dict:
    import _django

    url = _django.setup()
    from accounts.services import tenant_create
    from docuiq.testing.factories import make_document

    tenant = tenant_create(slug="bench-first")
    base = corpus / "cuad"
    records = [
        json.loads(line)
        for line in (base / "gold_spans.jsonl").read_text().splitlines()
    ][:contracts]
    clauses = []
    for record in records:
        text = (base / record["txt"]).read_text(encoding="utf-8", errors="replace")
        document = make_document(tenant, [text], title=Path(record["txt"]).stem)
        for category in record["categories"]:
            for span in category["spans"][:1]:
                if len(span["text"].split()) >= 8:
                    clauses.append((str(document.pk), span["text"]))
    # A day's traffic before the processes start, as production has: its
    # citations name the hot documents a warmed process reads at start.
    from accounts.scoping import tenant_scope
    from chat.services import message_ask, session_create
    from citations.services import message_citations_verify

    with tenant_scope(tenant):
        session = session_create(tenant=tenant, user=None)
        for question in QUESTIONS:
            message = message_ask(session=session, question=question)
            message_citations_verify(message_id=message.pk)
    return {"database": url, "tenant": tenant.slug, "clauses": clauses}


def _child(kind: str, warm: bool, setup: dict, requests: int) -> dict:
    os.environ["DATABASE_URL"] = setup["database"]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "docuiq.settings")
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ.pop("LLM_BASE_URL", None)
    import django

    django.setup()
    warmed = {}
    if warm:
        from docuiq.warmup import warm_process

        warmed = warm_process()
    from accounts.models import Tenant
    from accounts.scoping import tenant_scope, unscoped

    with unscoped():
        tenant = Tenant.objects.get(slug=setup["tenant"])
    cpu = []
    with tenant_scope(tenant):
        if kind == "web":
            from chat.services import message_ask, session_create
            from citations.services import message_citations_verify

            session = session_create(tenant=tenant, user=None)
            for i in range(requests):
                started = time.process_time()
                message = message_ask(
                    session=session, question=QUESTIONS[i % len(QUESTIONS)]
                )
                message_citations_verify(message_id=message.pk)
                cpu.append((time.process_time() - started) * 1000)
        else:
            from citations.cascade import verify_quote
            from ingest.models import Document

            clauses = setup["clauses"]
            for i in range(requests):
                document_id, clause = clauses[i % len(clauses)]
                # As a model quotes: whitespace its own, and every other quote
                # with a glyph OCR confuses, so the guard reads its words.
                clause = " ".join(clause.split())
                if i % 2:
                    clause = clause.replace(" the ", " tlie ", 1)
                started = time.process_time()
                revision = Document.objects.get(pk=document_id).current_revision
                verify_quote(
                    revision.normalized_content,
                    clause,
                    page_starts=revision.page_starts,
                )
                cpu.append((time.process_time() - started) * 1000)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cpu_ms": cpu, "warm_up_ms": warmed, "peak_rss_mib": round(rss, 1)}


def _row(kind: str, warm: bool, result: dict) -> dict:
    first, rest = result["cpu_ms"][0], sorted(result["cpu_ms"][1:])
    median = statistics.median(rest)
    p95 = rest[min(len(rest) - 1, round(0.95 * (len(rest) - 1)))]
    return {
        "process": kind,
        "warmed": warm,
        "first_ms": round(first, 1),
        "warm_median_ms": round(median, 1),
        "ratio": round(first / median, 2) if median else None,
        "warm_p95_ms": round(p95, 1),
        "warm_up_ms": result["warm_up_ms"],
        "peak_rss_mib": result["peak_rss_mib"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--corpus",
        default=os.environ.get("DOCUIQ_CORPUS")
        or str(HERE.parents[1] / "shared" / "corpus"),
    )
    parser.add_argument("--contracts", type=int, default=6)
    parser.add_argument("--requests", type=int, default=12)
    parser.add_argument(
        "--quick", action="store_true", help="built-in contract: runs only"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--warm", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--setup", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        setup = json.loads(Path(args.setup).read_text())
        print(json.dumps(_child(args.child, args.warm, setup, args.requests)))
        return
    if args.quick:
        from evaluate import quick_corpus

        # The fixture `manage.py evaluate --quick` runs on, in CUAD's layout:
        # _prepare reads it as it reads CUAD. Two warm requests at least, so
        # each process has a median to compare its first with.
        args.requests = 3
        with tempfile.TemporaryDirectory(prefix="docuiq-first-request-") as tmp:
            corpus, _questions = quick_corpus(Path(tmp))
            setup = _prepare(corpus, args.contracts)
    else:
        setup = _prepare(Path(args.corpus), args.contracts)
    setup_file = Path(setup["database"].removeprefix("sqlite:///")).with_suffix(".json")
    setup_file.write_text(json.dumps(setup))
    rows = []
    for kind in ("web", "worker"):
        for warm in (False, True):
            command = [
                sys.executable,
                __file__,
                "--child",
                kind,
                "--setup",
                str(setup_file),
                "--requests",
                str(args.requests),
            ] + (["--warm"] if warm else [])
            out = subprocess.run(command, capture_output=True, text=True, check=True)
            rows.append(
                _row(kind, warm, json.loads(out.stdout.strip().splitlines()[-1]))
            )
    print(
        f"{'process':<8}{'warmed':>8}{'first ms':>10}{'warm ms':>9}{'ratio':>7}"
        f"{'warm p95':>10}{'RSS MiB':>9}  warm-up at start (ms)"
    )
    for r in rows:
        print(
            f"{r['process']:<8}{r['warmed']!s:>8}{r['first_ms']:>10}"
            f"{r['warm_median_ms']:>9}{r['ratio']:>7}{r['warm_p95_ms']:>10}"
            f"{r['peak_rss_mib']:>9}  {r['warm_up_ms'] or '-'}"
        )
    from _common import write_results

    path = write_results(
        "first_request.json",
        {"rows": rows, "requests": args.requests, "quick": args.quick},
    )
    print(f"results: {path}")


if __name__ == "__main__":
    main()
