"""Tabular review throughput: 100 documents x 20 columns = 2,000 cells.

    .venv/bin/python bench/tabular.py [--documents 100] [--columns 20]
        [--latency 0.5] [--concurrency 16] [--corpus ../shared/corpus]
        [--judges 2] [--paraphrase-share 0.5] [--quick]

The scripted OpenAI-compatible model server (docuiq.testing.llm_server) runs
in its own process and answers every call after ``--latency`` seconds, so the
executor talks real HTTP through the real openai SDK. Every cell does what it
does in production: search, one structured model call, a Message with its
sources, a citation, and its verification through the cascade, high stakes
(issue 25): with ``--judges 2`` a two-judge ensemble (quorum 2) is
configured, and the server paraphrases the quote of ``--paraphrase-share``
of the cells (words changed, figures and modal verbs kept) so that stages
1-2 refuse it and both judges vote, one call after the other, inside the
cell.

Prints the wall time, the ideal (every model call x latency / concurrency:
the cells' calls, a row call shared by its cells, plus one per judge per
judged cell) and their ratio
(target: within 1.3x at concurrency 16), and writes
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

# Imported before a boot points DOCUIQ_VAR_DIR elsewhere: it reads where
# the tests keep their migrated database.
import _django  # noqa: E402

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
    _django.migrate()


# Words a paraphrase keeps (the citation guard compares them).
_KEEP = {
    "shall", "may", "must", "will", "should", "not", "no", "never", "without",
    "unless", "except", "nor", "neither",
}  # fmt: skip


def paraphrase(sentence: str) -> str:
    """The sentence with every other plain word changed: figures, modal verbs
    and negations kept, so a judge can support it and the guard accepts the
    judge's span, while stages 1-2 do not find it."""
    import re

    out, plain = [], 0
    for word in sentence.split():
        bare = re.sub(r"\W", "", word).lower()
        if bare and bare.isalpha() and bare not in _KEEP:
            plain += 1
            if plain % 2 == 0:
                word = "such"
        out.append(word)
    return " ".join(out)


def serve(port: int, latency: float, share: float) -> None:
    """A scripted server whose cell answers paraphrase `share` of the quotes
    (by a hash of the quote, so a re-run is the same); judges answer as the
    extractive mode does (supported, the passage's first sentence as span)."""
    import zlib

    from docuiq.testing.llm_server import Reply, ScriptedLLMServer, extractive_reply

    def respond(body: dict):
        reply = extractive_reply(body)
        fmt = (body.get("response_format") or {}).get("json_schema") or {}
        if fmt.get("name") != "tabular_read" or reply.obj is None:
            return reply
        answers = []
        for answer in reply.obj.get("answers") or []:
            quote = answer.get("quote") or ""
            if quote and (zlib.crc32(quote.encode()) % 1000) < share * 1000:
                answer = {**answer, "quote": paraphrase(quote)}
            answers.append(answer)
        return Reply.object({"answers": answers})

    server = ScriptedLLMServer(port=port, latency_s=latency)
    server.respond_with(respond)
    server.start()
    print(f"Scripted LLM server (paraphrasing) on {server.base_url}; ready", flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        server.stop()


def _start_server(latency: float, share: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--serve",
            "--latency",
            str(latency),
            "--paraphrase-share",
            str(share),
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


def _cell_calls(tenant, review) -> int:
    """The model calls the cells made: a row call is shared by the cells it
    asked (`searched.read.shared`), so each counts 1/n of it."""
    from tabular.models import Cell

    total = 0.0
    for searched in (
        Cell.objects.with_scope(tenant=tenant.pk)
        .filter(review=review)
        .values_list("searched", flat=True)
    ):
        total += sum(
            1 / n for n in ((searched or {}).get("read") or {}).get("shared") or ()
        )
    return round(total)


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
    parser.add_argument(
        "--judges", type=int, default=2, help="ensemble judges (0: no judge)"
    )
    parser.add_argument(
        "--paraphrase-share",
        type=float,
        default=0.5,
        help="share of cells whose quote the server paraphrases (judged)",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(RESULTS / "tabular.json"))
    parser.add_argument(
        "--quick",
        action="store_true",
        help="4 generated documents x 2 columns, 10 ms calls: runs only",
    )
    args = parser.parse_args(argv)
    if args.serve:
        serve(0, args.latency, args.paraphrase_share)
        return 0
    if args.quick:
        args.documents, args.columns, args.latency = 4, 2, 0.01
        args.concurrency, args.corpus = 4, ""
    corpus = Path(args.corpus).resolve() if args.corpus else None

    server, url = _start_server(args.latency, args.paraphrase_share)
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
    # The scripted server computes any number of calls at once (a GPU server);
    # it does not say so, and an unknown server gets 8 (llm.servers).
    settings.LLM_PARALLEL = args.concurrency
    judges = [f"judge-{i + 1}" for i in range(args.judges)]
    settings.LLM_JUDGE_MODEL = judges[0] if judges else ""
    settings.LLM_ENSEMBLE_MODELS = judges
    settings.LLM_ENSEMBLE_QUORUM = len(judges) or 2
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
    judged = _judged(tenant, review)
    methods = _methods(tenant, review)
    calls = _cell_calls(tenant, review) + judged * len(judges)
    ideal = calls * args.latency / args.concurrency
    ratio = wall / ideal
    review = Review.objects.with_scope(tenant=tenant.pk).get(pk=review.pk)
    failed = Cell.objects.with_scope(tenant=tenant.pk).filter(
        review=review, status=Cell.Status.FAILED
    )
    errors = sorted({c.error for c in failed[:20]})
    print(f"status     {review.status}: {outcome.done} done, {outcome.failed} failed")
    print(f"wall       {wall:.1f} s")
    print(
        f"judged     {judged} cells by {len(judges)} judges (ensemble, quorum "
        f"{settings.LLM_ENSEMBLE_QUORUM}): {calls} model calls"
    )
    print(f"ideal      {ideal:.1f} s  (model calls x latency / concurrency)")
    print("verdicts   " + ", ".join(f"{k} {v}" for k, v in sorted(methods.items())))
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
        "high_stakes": True,
        "judges": len(judges),
        "judged_cells": judged,
        "model_calls": calls,
        "verification_methods": methods,
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


def _methods(tenant, review) -> dict[str, int]:
    from django.db.models import Count

    from citations.models import MessageCitation

    rows = (
        MessageCitation.objects.with_scope(tenant=tenant.pk)
        .filter(execution_context_id=str(review.pk))
        .values("verification_method")
        .annotate(n=Count("pk"))
    )
    return {r["verification_method"] or "none": r["n"] for r in rows}


def _judged(tenant, review) -> int:
    """Cells whose quote the judges voted on (the ensemble stage ran)."""
    from citations.models import CitationVerification

    stages = CitationVerification.objects.with_scope(tenant=tenant.pk).filter(
        citation__execution_context_id=str(review.pk)
    )
    return sum(
        any(stage.get("stage") in ("ensemble", "llm_judge") for stage in row)
        for row in stages.values_list("stages", flat=True)
    )


if __name__ == "__main__":
    raise SystemExit(main())
