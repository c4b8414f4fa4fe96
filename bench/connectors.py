"""Connectors (issue 29): a generated Slack export and a SQLite table
ingested through the real sync (ingest.sources), then search.

    .venv/bin/python bench/connectors.py [--quick] [--pg] [--corpus PATH]

Measures: Slack messages/s (100,000 messages in 2,000 threads), table
rows/s (100,000 rows), peak memory (the process's maximum RSS after each
step), full-text and hybrid search p95 over everything afterwards, and a
sync of 1% changed rows against a full sync (target: about 1% of it). With
the shared corpus (--corpus or DOCUIQ_CORPUS), the article extractors
measured on Mozilla Readability's test pages: word recall and precision
against the expected article, and title matches.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import resource
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import _django
from _common import percentile, write_results

QUESTIONS = [
    "notice period termination",
    "indemnity liability cap",
    "escrow release schedule",
    "governing law arbitration",
    "invoice payment delivery",
    "warranty audit clause",
    "confidentiality breach remedy",
    "assignment consent counterparty",
]


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_slack(tenant, messages: int, threads: int) -> dict:
    from accounts.scoping import tenant_scope
    from docuiq.testing.exports import slack_export_generated
    from ingest.models import Source
    from ingest.sources import source_create_export

    data = slack_export_generated(messages=messages, threads=threads)
    started = time.perf_counter()
    with tenant_scope(tenant):
        source = source_create_export(
            tenant=tenant, kind="slack", filename="bench.zip", stream=io.BytesIO(data)
        )
    took = time.perf_counter() - started
    with tenant_scope(tenant):
        source = Source.objects.get(pk=source.pk)
    assert source.status == "ready", source.error
    return {
        "messages": messages,
        "threads": threads,
        "export_mb": round(len(data) / 2**20, 1),
        "documents": source.stats["created"],
        "seconds": round(took, 1),
        "messages_per_s": round(messages / took),
        "peak_rss_mb": round(rss_mb()),
    }


def make_table(path: Path, rows: int) -> None:
    import random

    rng = random.Random(3)
    words = [
        "notice",
        "period",
        "termination",
        "renewal",
        "indemnity",
        "liability",
        "cap",
        "invoice",
        "payment",
        "delivery",
        "warranty",
        "audit",
        "escrow",
        "governing",
        "law",
        "arbitration",
        "confidentiality",
        "breach",
        "consent",
    ]
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE contracts (id INTEGER PRIMARY KEY, title TEXT, counterparty TEXT, terms TEXT)"
    )
    db.executemany(
        "INSERT INTO contracts VALUES (?, ?, ?, ?)",
        (
            (
                i,
                f"Contract {i}",
                f"Party {i % 997}",
                " ".join(rng.choice(words) for _ in range(rng.randint(20, 60))) + ".",
            )
            for i in range(1, rows + 1)
        ),
    )
    db.commit()
    db.close()


def bench_table(tenant, rows: int, folder: Path) -> dict:
    from django.conf import settings

    from accounts.scoping import tenant_scope
    from ingest.connectors.database import TableSpec
    from ingest.models import Source
    from ingest.sources import source_create_database, source_request_sync

    path = folder / "crm.db"
    make_table(path, rows)
    settings.CONNECTORS_SQLITE_DIRS = [str(folder)]
    spec = TableSpec(
        table="contracts",
        key_column="id",
        text_columns=["counterparty", "terms"],
        title_column="title",
    )
    started = time.perf_counter()
    with tenant_scope(tenant):
        source = source_create_database(
            tenant=tenant, name="CRM", connection_url=f"sqlite:///{path}", spec=spec
        )
    full = time.perf_counter() - started
    with tenant_scope(tenant):
        source = Source.objects.get(pk=source.pk)
    assert source.status == "ready", source.error
    db = sqlite3.connect(path)
    changed = max(1, rows // 100)
    db.execute("UPDATE contracts SET terms = terms || ' Amended.' WHERE id % 100 = 0")
    db.commit()
    db.close()
    started = time.perf_counter()
    with tenant_scope(tenant):
        source_request_sync(source=source)
    partial = time.perf_counter() - started
    with tenant_scope(tenant):
        source = Source.objects.get(pk=source.pk)
    assert source.stats["updated"] == changed, source.stats
    return {
        "rows": rows,
        "full_sync_s": round(full, 1),
        "rows_per_s": round(rows / full),
        "changed_rows": changed,
        "one_percent_sync_s": round(partial, 2),
        "one_percent_over_full": round(partial / full, 3),
        "peak_rss_mb": round(rss_mb()),
    }


def bench_search(tenant, rounds: int) -> dict:
    from ingest.search import search_chunks

    out = {}
    for mode in ("fts", "hybrid"):
        times = []
        for _ in range(rounds):
            for q in QUESTIONS:
                t0 = time.perf_counter()
                search_chunks(tenant, q, k=8, mode=mode)
                times.append((time.perf_counter() - t0) * 1000)
        out[mode] = {
            "p50_ms": round(percentile(times, 50), 1),
            "p95_ms": round(percentile(times, 95), 1),
            "n": len(times),
        }
    return out


def _title_text(page) -> tuple[str, str]:
    return page.title, page.text


def bench_extractors(corpus: Path) -> dict:
    """Article extractors on Readability's test pages (word recall/precision
    against expected.html, title equal to expected-metadata.json's)."""
    import json

    from bs4 import BeautifulSoup

    from ingest.connectors.web import article
    from ingest.extractors.html import parse_html

    def words(text: str) -> Counter:
        return Counter(re.findall(r"\w+", text.lower()))

    candidates = {
        "visible text (ingest.extractors.html)": lambda h: _title_text(parse_html(h)),
        "trafilatura over visible markup (chosen)": lambda h: article(h)[:2],
    }
    try:
        from readability import Document as Readability

        candidates["readability-lxml"] = lambda h: (
            Readability(h).short_title(),
            BeautifulSoup(Readability(h).summary(), "lxml").get_text("\n"),
        )
    except ImportError:
        pass
    pages = sorted(
        p for p in (corpus / "html").iterdir() if (p / "source.html").exists()
    )
    result = {}
    for name, run in candidates.items():
        recalls, precisions, titles, took = [], [], 0, 0.0
        for page in pages:
            html = (page / "source.html").read_bytes()
            expected = words(
                BeautifulSoup((page / "expected.html").read_text(), "lxml").get_text(
                    "\n"
                )
            )
            meta = json.loads((page / "expected-metadata.json").read_text())
            t0 = time.perf_counter()
            title, text = run(html)
            took += time.perf_counter() - t0
            got = words(text)
            common = sum((got & expected).values())
            recalls.append(common / max(1, sum(expected.values())))
            precisions.append(common / max(1, sum(got.values())))
            titles += " ".join(title.split()) == " ".join(meta["title"].split())
        n = len(pages)
        result[name] = {
            "pages": n,
            "word_recall": round(sum(recalls) / n, 3),
            "min_recall": round(min(recalls), 3),
            "word_precision": round(sum(precisions) / n, 3),
            "titles_right": f"{titles}/{n}",
            "ms_per_page": round(1000 * took / n, 1),
        }
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="2,000 messages and rows: runs only"
    )
    parser.add_argument(
        "--pg",
        action="store_true",
        help="on PostgreSQL (DATABASE_URL's server, a bench database)",
    )
    parser.add_argument("--corpus", default=os.environ.get("DOCUIQ_CORPUS", ""))
    args = parser.parse_args()
    url = None
    if args.pg:
        url = "postgres://postgres@127.0.0.1:5432/docuiq_bench_connectors"
        if not _django.reset_postgres(url):
            print("PostgreSQL is not reachable", file=sys.stderr)
            return 1
    database = _django.setup(url)
    from django.conf import settings

    from accounts.services import tenant_create

    settings.CELERY_TASK_ALWAYS_EAGER = True
    from docuiq.celery import app

    app.conf.task_always_eager = True
    messages, threads, rows = (
        (2_000, 40, 2_000) if args.quick else (100_000, 2_000, 100_000)
    )
    tenant = tenant_create(slug="bench-connectors", name="Bench")
    result = {"database": "postgresql" if args.pg else "sqlite", "quick": args.quick}
    result["slack"] = bench_slack(tenant, messages, threads)
    print("slack", result["slack"], flush=True)
    with tempfile.TemporaryDirectory(prefix="docuiq-bench-table-") as folder:
        result["table"] = bench_table(tenant, rows, Path(folder))
    print("table", result["table"], flush=True)
    result["search"] = bench_search(tenant, 2 if args.quick else 10)
    print("search", result["search"], flush=True)
    corpus = Path(args.corpus) if args.corpus else None
    if corpus and (corpus / "html").is_dir():
        result["extractors"] = bench_extractors(corpus)
        for name, figures in result["extractors"].items():
            print(f"{name}: {figures}")
    del database
    path = write_results("connectors" + ("_pg" if args.pg else "") + ".json", result)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
