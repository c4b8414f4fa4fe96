"""What a model-read review costs: calls, prompt tokens per cell, wall time.

    .venv/bin/python bench/tabular_reading.py [--corpus ../shared/corpus]
        [--contracts 3] [--latency 0.5] [--per-call 1 4] [--json OUT] [--quick]

A few CUAD contracts (plain text) x three columns, run by the real executor
against the scripted OpenAI-compatible server (docuiq.testing.llm_server) on
real HTTP, one call at a time (a single-slot server) with ``--latency``
seconds per call (plus, with ``--prompt-tps``, the time a CPU server takes to
read the prompt). The scripted "model" answers every question it is asked
with the first line it is shown: this measures what is sent, not answers.
With ``--per-call``, each value of TABULAR_COLUMNS_PER_CALL is one run (1:
every cell its own call). The same script runs on an older tree (cells on
four retrieved chunks), where ``--per-call`` has no effect: that is the
baseline. Prints one line per run and writes JSON with ``--json``.

``--quick``: bench/evaluate.py's built-in contract (in CUAD's layout) instead
of the corpus, no latency, JSON to bench/results/tabular_reading.json (or
where BENCH_RESULTS points); only proves the script runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path.cwd()
sys.path.insert(0, str(ROOT))

# Imported before a boot points DOCUIQ_VAR_DIR elsewhere: it reads where
# the tests keep their migrated database.
import _django  # noqa: E402

CONTRACTS = (
    "GOCALLINC_03_30_2000-EX-10.7-Promotion Agreement.txt",
    "ABILITYINC_06_15_2020-EX-4.25-SERVICES AGREEMENT.txt",
    "ANIXABIOSCIENCESINC_06_09_2020-EX-10.1-COLLABORATION AGREEMENT.txt",
    "ENTRUSTINC_07_24_1998-EX-10.5-STRATEGIC ALLIANCE AGREEMENT.txt",
)
COLUMNS = (
    (
        "Governing law",
        "Which state's or country's law governs the agreement?",
        "jurisdiction",
    ),
    ("Agreement date", "On what date was the agreement signed?", "date"),
    ("Cap on liability", "Is either party's liability capped?", "yes_no"),
)
_PASSAGE = re.compile(r'<passage index="(\d+)">\n(.*?)\n</passage>', re.S)
_QUESTION = re.compile(r'<question number="(\d+)">')


def _boot(var_dir: str) -> None:
    os.environ["DOCUIQ_VAR_DIR"] = var_dir
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ["LLM_BASE_URL"] = ""
    os.environ["EMBEDDINGS"] = "off"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["DJANGO_SETTINGS_MODULE"] = "docuiq.settings"
    import django

    django.setup()
    _django.migrate()


def _responder(prompt_tps: float):
    """Every call waits as a CPU server computing its prompt would (its
    tokens / `prompt_tps`; 0: no wait), then answers (_every_question)."""
    from docuiq.testing.llm_server import _estimate_tokens, extractive_reply

    def respond(body: dict):
        reply = _every_question(body) or extractive_reply(body)
        if prompt_tps:
            prompt = "\n\n".join(m["content"] for m in body["messages"])
            reply = reply.with_delay(_estimate_tokens(prompt) / prompt_tps)
        return reply

    return respond


def _every_question(body: dict):
    """Answer each question of a read-whole call with the first line shown
    (None for any other call)."""
    from docuiq.testing.llm_server import Reply

    prompt = body["messages"][-1]["content"]
    numbers = [int(n) for n in _QUESTION.findall(prompt)]
    passages = _PASSAGE.findall(prompt)
    if not numbers or not passages:
        return None
    index, text = passages[0]
    line = next((x.strip() for x in text.splitlines() if x.strip()), "")
    return Reply.object(
        {
            "answers": [
                {
                    "question": n,
                    "found": True,
                    "value": line,
                    "quote": line,
                    "section_index": int(index),
                    "quote_answers": True,
                    "confidence": "medium",
                    "justification": "scripted",
                }
                for n in numbers
            ]
        }
    )


def _cell_line(cell) -> dict:
    read = (cell.searched or {}).get("read") or {}
    return {
        "document": cell.row.title[:30],
        "column": cell.column.name,
        "status": cell.status,
        "outcome": cell.outcome,
        "value": cell.value[:80],
        "verified": bool(cell.citation and cell.citation.verified),
        "support": cell.support,
        "confidence": cell.confidence,
        "rule": cell.confidence_rule,
        "read": read.get("summary", ""),
        "error": cell.error[:200],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="../shared/corpus")
    parser.add_argument("--contracts", type=int, default=3)
    parser.add_argument(
        "--files", nargs="*", default=[], help="CUAD file names instead of the defaults"
    )
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--per-call", type=int, nargs="+", default=[1, 4])
    parser.add_argument(
        "--prompt-tps",
        type=float,
        default=0.0,
        help="prompt tokens per second the 'server' computes (a CPU llama.cpp: ~100-300)",
    )
    parser.add_argument(
        "--base-url",
        default="",
        help="a real OpenAI-compatible server instead of the scripted one",
    )
    parser.add_argument("--model", default="")
    parser.add_argument("--context-tokens", type=int, default=32768)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--cells", action="store_true", help="print every cell")
    parser.add_argument("--json", default="")
    parser.add_argument(
        "--quick", action="store_true", help="built-in contract: runs only"
    )
    args = parser.parse_args(argv)

    var = tempfile.mkdtemp(prefix="docuiq-reading-")
    if args.quick:
        from _common import RESULTS
        from evaluate import quick_corpus

        # The fixture `manage.py evaluate --quick` runs on, in CUAD's layout:
        # the corpus code path below reads it as it reads CUAD.
        corpus_dir, _questions = quick_corpus(Path(var) / "corpus")
        args.corpus, args.files, args.contracts = str(corpus_dir), ["quick.txt"], 1
        args.latency, args.base_url = 0.0, ""
        args.json = args.json or str(RESULTS / "tabular_reading.json")
    _boot(var)
    from django.conf import settings

    from accounts.models import Tenant
    from accounts.scoping import tenant_scope
    from docuiq.testing.factories import make_document
    from docuiq.testing.llm_server import ScriptedLLMServer
    from tabular.executor import review_run
    from tabular.models import Cell
    from tabular.services import ColumnSpec, review_create

    corpus = Path(args.corpus) / "cuad" / "contracts_txt"
    tenant = Tenant.objects.create(slug="bench", name="Bench")
    documents = []
    names = (args.files or CONTRACTS)[: args.contracts]
    for name in names:
        text = (corpus / name).read_text(encoding="utf-8")
        documents.append(make_document(tenant, text, title=name[:80]))
    chars = sum(len((corpus / n).read_text(encoding="utf-8")) for n in names)
    columns = [ColumnSpec(n, q, type=t) for n, q, t in COLUMNS]
    rows = []
    scripted = ScriptedLLMServer(latency_s=args.latency)
    with scripted as server:
        server.respond_with(_responder(args.prompt_tps))
        settings.LLM_BASE_URL = args.base_url or server.base_url
        settings.LLM_MODEL = args.model or ("" if args.base_url else server.model)
        settings.LLM_API_KEY = "bench"
        settings.LLM_MAX_RETRIES = 0
        settings.LLM_TIMEOUT_S = args.timeout
        settings.LLM_CONTEXT_TOKENS = args.context_tokens
        for per_call in args.per_call:
            settings.TABULAR_COLUMNS_PER_CALL = per_call
            server.reset()
            with tenant_scope(tenant):
                review = review_create(
                    tenant=tenant,
                    name=f"per call {per_call}",
                    document_ids=[d.pk for d in documents],
                    columns=columns,
                )
            started = time.monotonic()
            review_run(review_id=review.pk, concurrency=1)
            wall = time.monotonic() - started
            with tenant_scope(tenant):
                cells = list(
                    Cell.objects.filter(review=review)
                    .select_related("row", "column", "citation")
                    .order_by("row__order", "column__order")
                )
                if args.cells:
                    for c in cells:
                        print(json.dumps(_cell_line(c)), flush=True)
            calls = [
                r
                for r in server.chat_requests
                if "citation" not in json.dumps(r.body.get("response_format") or {})
            ]
            row = {
                "per_call": per_call,
                "cells": len(cells),
                "done": sum(c.status == "done" for c in cells),
                "calls": "n/a" if args.base_url else len(calls),
                "failed": [c.error[:160] for c in cells if c.status == "failed"][:3],
                "prompt_tokens_per_cell": round(
                    sum(c.prompt_tokens for c in cells) / len(cells)
                ),
                "wall_s": round(wall, 2),
                "document_chars": chars,
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
