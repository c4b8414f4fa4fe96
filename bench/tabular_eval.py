"""Retrieval quality of tabular cells on CUAD (issue 6).

    .venv/bin/python bench/tabular_eval.py --corpus ../shared/corpus

The CUAD contracts (plain text, ingested through the real pipeline) are the
rows; the 41 CUAD categories are the columns (name = category, question = its
description from category_descriptions.csv, type from its answer format). For
every (contract, category) with an expert-highlighted span in gold_spans.jsonl
it reports, per category:

* ``fts@4``    the baseline of seed 002: the top 4 chunks of a full-text
               search with the question alone contain the gold clause;
* ``cell@4``   the same for tabular.retrieval (query expansion + phrase and
               proximity re-ranking), i.e. what a cell's model call sees;
* ``cited``    the chunk the cell cites contains the gold clause (a full run of
               the executor with the offline extractive responder);
* ``quote_in`` the cell's verified quote lies inside a gold span;
* ``quote_ov`` the cell's quote overlaps a gold span.

"Contains" means at least half of a gold span's characters are in the chunk(s)
(long clauses can be longer than a chunk). Results go to
bench/results/tabular_eval.json. No model server is needed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
from bisect import bisect_left
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# `make bench-quick` points BENCH_RESULTS elsewhere (bench/_common.py).
RESULTS = Path(os.environ.get("BENCH_RESULTS") or ROOT / "bench" / "results")


def _boot(var_dir: str) -> None:
    os.environ["DOCUIQ_VAR_DIR"] = var_dir
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ["LLM_BASE_URL"] = ""
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["DJANGO_SETTINGS_MODULE"] = "docuiq.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


QUICK_CONTRACT = (
    "SUPPLY AGREEMENT\n\n"
    "1. Governing Law. This Agreement shall be governed by the laws of the State "
    "of New York.\n\n"
    "2. Term. This Agreement begins on the Effective Date and continues for three "
    "years unless terminated earlier.\n"
)


def _quick_corpus(base: Path) -> Path:
    """A corpus of one built-in contract and two categories, in CUAD's layout."""
    cuad = base / "cuad"
    (cuad / "contracts_txt").mkdir(parents=True)
    (cuad / "contracts_txt" / "quick.txt").write_text(QUICK_CONTRACT)
    (cuad / "category_descriptions.csv").write_text(
        "Category: Governing Law,Description: Which state's law governs?,"
        "Answer Format: Location,Group: 1\n"
        "Category: Expiration Date,Description: When does the contract end?,"
        "Answer Format: Date,Group: 2\n"
    )
    spans = []
    for category, clause in (
        ("Governing Law", "governed by the laws of the State of New York"),
        ("Expiration Date", "continues for three years"),
    ):
        start = QUICK_CONTRACT.index(clause)
        spans.append(
            {
                "category": category,
                "spans": [
                    {"text": clause, "answer_start": start, "all_starts": [start]}
                ],
            }
        )
    record = {"title": "quick", "txt": "contracts_txt/quick.txt", "categories": spans}
    (cuad / "gold_spans.jsonl").write_text(json.dumps(record) + "\n")
    return base


def _type_for(answer_format: str) -> str:
    fmt = answer_format.lower()
    if "yes/no" in fmt:
        return "yes_no"
    if "date" in fmt:
        return "date"
    return "text"


def load_categories(corpus: Path) -> list[dict]:
    rows = []
    path = corpus / "cuad" / "category_descriptions.csv"
    with path.open(encoding="utf-8-sig", newline="") as fh:
        for row in csv.reader(fh):
            if not row or not row[0].startswith("Category:"):
                continue
            name = row[0].split(":", 1)[1].strip()
            description = (
                row[1].split(":", 1)[1].strip() if ":" in row[1] else row[1].strip()
            )
            answer = row[2].split(":", 1)[1].strip() if ":" in row[2] else ""
            rows.append(
                {"name": name, "question": description, "type": _type_for(answer)}
            )
    return rows


def load_contracts(corpus: Path, limit: int | None) -> list[dict]:
    lines = (
        (corpus / "cuad" / "gold_spans.jsonl").read_text(encoding="utf-8").splitlines()
    )
    contracts = [json.loads(line) for line in lines if line.strip()]
    return contracts[:limit] if limit else contracts


def _offset_map(original: str):
    """original offset -> normalized offset (normalization only drops characters)."""
    from ingest.normalize import normalize_page_with_map

    normalized, index = normalize_page_with_map(original)
    if index and index[0] == -1:
        return normalized, None
    return normalized, index


def ingest(tenant, contracts: list[dict], corpus: Path) -> dict[str, tuple]:
    """Ingest each contract's .txt; returns title -> (document, gold spans by category)."""
    from accounts.scoping import tenant_scope
    from ingest.models import Document
    from ingest.services import Upload, document_upload

    out = {}
    for contract in contracts:
        path = corpus / "cuad" / contract["txt"]
        original = path.read_text(encoding="utf-8")
        with path.open("rb") as stream:
            document = document_upload(
                tenant=tenant, upload=Upload(filename=path.name, stream=stream)
            )
        with tenant_scope(tenant):
            document = Document.objects.select_related("current_revision").get(
                pk=document.pk
            )
        if document.status != Document.Status.READY:
            print(
                f"  skipped {path.name}: {document.status} {document.error}",
                file=sys.stderr,
            )
            continue
        text = document.current_revision.normalized_content
        _, index = _offset_map(original)
        spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for category in contract["categories"]:
            for span in category["spans"]:
                start = span["answer_start"]
                end = start + len(span["text"])
                if index is not None:
                    start, end = bisect_left(index, start), bisect_left(index, end)
                if 0 <= start < end <= len(text):
                    spans[category["category"]].append((start, end))
        out[contract["title"]] = (document, dict(spans))
    return out


def half_inside(spans: list[tuple[int, int]], regions: list[tuple[int, int]]) -> bool:
    """At least half of some gold span lies in the union of `regions`."""
    for s, e in spans:
        covered = 0
        for a, b in sorted(regions):
            lo, hi = max(s, a), min(e, b)
            if hi > lo:
                covered += hi - lo
        # Overlapping chunks may count a character twice: cap at the span.
        if min(covered, e - s) * 2 >= e - s:
            return True
    return False


def quote_inside(
    spans: list[tuple[int, int]], start: int, end: int, slack: int = 2
) -> bool:
    return any(s - slack <= start and end <= e + slack for s, e in spans)


def overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(min(e, end) > max(s, start) for s, e in spans)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", default=os.environ.get("DOCUIQ_CORPUS", "../shared/corpus")
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="first N contracts only"
    )
    parser.add_argument(
        "--no-run", action="store_true", help="retrieval only, no executor run"
    )
    parser.add_argument("--out", default=str(RESULTS / "tabular_eval.json"))
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a built-in two-clause contract instead of the corpus: runs only",
    )
    args = parser.parse_args(argv)
    if args.quick:
        with tempfile.TemporaryDirectory(prefix="docuiq-tabular-eval-quick-") as tmp:
            args.corpus = str(_quick_corpus(Path(tmp)))
            with tempfile.TemporaryDirectory(prefix="docuiq-tabular-eval-") as var:
                _boot(var)
                return _evaluate(args, Path(args.corpus))
    corpus = Path(args.corpus).resolve()
    if not (corpus / "cuad" / "gold_spans.jsonl").exists():
        # `make bench` runs every script: without the shared corpus, skip.
        print(
            f"skipped: no CUAD corpus under {corpus} (pass --corpus)", file=sys.stderr
        )
        return 0

    with tempfile.TemporaryDirectory(prefix="docuiq-tabular-eval-") as var_dir:
        _boot(var_dir)
        return _evaluate(args, corpus)


def _evaluate(args: argparse.Namespace, corpus: Path) -> int:
    from accounts.scoping import tenant_scope
    from accounts.services import tenant_create
    from ingest.search import search_chunks
    from tabular import retrieval

    started = time.monotonic()
    tenant = tenant_create(slug="cuad-eval", name="CUAD evaluation")
    categories = load_categories(corpus)
    contracts = load_contracts(corpus, args.limit)
    docs = ingest(tenant, contracts, corpus)
    print(
        f"ingested {len(docs)} contracts in {time.monotonic() - started:.1f} s",
        file=sys.stderr,
    )

    stats: dict[str, dict[str, int]] = {c["name"]: defaultdict(int) for c in categories}
    with tenant_scope(tenant):
        for category in categories:
            query = retrieval.build_query(
                name=category["name"],
                question=category["question"],
                kind=category["type"],
            )
            for document, spans_by_category in docs.values():
                spans = spans_by_category.get(category["name"])
                if not spans:
                    continue
                row = stats[category["name"]]
                row["cells"] += 1
                hits = search_chunks(
                    tenant, category["question"], document=document, k=4
                )
                chunks = (
                    [h.chunk for h in hits]
                    if hits
                    else retrieval.first_chunks(document, 4)
                )
                regions = [(c.start_offset, c.end_offset) for c in chunks]
                row["fts@4"] += half_inside(spans, regions)
                got = retrieval.retrieve(tenant, document, query)
                regions = [(c.start_offset, c.end_offset) for c in got.chunks]
                row["cell@4"] += half_inside(spans, regions)

        if not args.no_run:
            _run_cells(tenant, categories, docs, stats)

    return _report(args, stats, started, ran=not args.no_run)


def _run_cells(tenant, categories, docs, stats) -> None:
    """A real review (offline extractive responder) over every contract x category."""
    from citations.models import MessageCitation
    from tabular import services
    from tabular.executor import review_run
    from tabular.models import Cell

    documents = [doc for doc, _ in docs.values()]
    review = services.review_create(
        tenant=tenant,
        name="CUAD",
        document_ids=[d.pk for d in documents],
        columns=[
            services.ColumnSpec(name=c["name"], question=c["question"], type=c["type"])
            for c in categories
        ],
    )
    t0 = time.monotonic()
    review_run(review_id=review.pk)
    print(
        f"ran {len(documents) * len(categories)} cells in {time.monotonic() - t0:.1f} s",
        file=sys.stderr,
    )
    spans_for = {str(doc.pk): spans for doc, spans in docs.values()}
    cells = Cell.objects.filter(review=review).select_related("row", "column")
    citations = {
        c.pk: c
        for c in MessageCitation.objects.filter(
            pk__in=[cell.citation_id for cell in cells if cell.citation_id]
        )
    }
    from ingest.models import DocumentChunk

    chunk_spans = {
        str(uid): (s, e)
        for uid, s, e in DocumentChunk.objects.filter(
            document_id__in=[d.pk for d in documents]
        ).values_list("uid", "start_offset", "end_offset")
    }
    for cell in cells:
        spans = spans_for.get(str(cell.row.document_uid), {}).get(cell.column.name)
        if not spans:
            continue
        row = stats[cell.column.name]
        regions = [chunk_spans[c] for c in cell.cited_chunk_ids if c in chunk_spans]
        row["cited"] += half_inside(spans, regions)
        citation = citations.get(cell.citation_id)
        if citation is not None and citation.verified:
            row["quote_in"] += quote_inside(
                spans, citation.source_offset_start, citation.source_offset_end
            )
            row["quote_ov"] += overlaps(
                spans, citation.source_offset_start, citation.source_offset_end
            )
        row["failed"] += cell.status == Cell.Status.FAILED


def _report(args, stats, started, *, ran: bool) -> int:
    metrics = ["fts@4", "cell@4"] + (["cited", "quote_in", "quote_ov"] if ran else [])
    totals: dict[str, int] = defaultdict(int)
    per_category = {}
    width = max(len(name) for name in stats) + 2
    print(f"{'category':<{width}}{'cells':>6}" + "".join(f"{m:>10}" for m in metrics))
    for name, row in stats.items():
        n = row["cells"]
        if not n:
            continue
        totals["cells"] += n
        for m in metrics:
            totals[m] += row[m]
        per_category[name] = {"cells": n, **{m: round(row[m] / n, 3) for m in metrics}}
        print(
            f"{name:<{width}}{n:>6}" + "".join(f"{row[m] / n:>10.0%}" for m in metrics)
        )
    n = totals["cells"] or 1
    overall = {m: round(totals[m] / n, 3) for m in metrics}
    print(
        f"{'ALL':<{width}}{totals['cells']:>6}"
        + "".join(f"{overall[m]:>10.0%}" for m in metrics)
    )
    result = {
        "benchmark": "tabular_eval",
        "quick": bool(getattr(args, "quick", False)),
        "cells_with_gold": totals["cells"],
        "overall": overall,
        "per_category": per_category,
        "seconds": round(time.monotonic() - started, 1),
        "definitions": {
            "fts@4": "top-4 full-text search with the question alone holds >= half of a gold span",
            "cell@4": "top-4 of tabular.retrieval (expansion + phrase/proximity) holds >= half of a gold span",
            "cited": "the chunk(s) the offline cell cites hold >= half of a gold span",
            "quote_in": "the cell's verified quote lies inside a gold span",
            "quote_ov": "the cell's verified quote overlaps a gold span",
        },
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
