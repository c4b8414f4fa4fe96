"""REST API benchmark (issue 5): with 1,000,000 citation rows on PostgreSQL,
latency (median, p95) of the citation list with filters, of stats, and of the
chat citation status endpoint, through the whole Django/DRF stack in-process
(middleware, X-API-Key lookup, serializers). Target: p95 < 50 ms each.
Prints the figures; writes bench/results/api.json.

    .venv/bin/python bench/api.py [--rows 1000000] [--pg URL] [--quick]

--quick: 2,000 rows, 3 requests per endpoint; only proves the script runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _django


def _fill(rows: int, document_count: int = 200):
    from django.db import connection

    from accounts.scoping import tenant_scope
    from accounts.services import api_key_create, tenant_create
    from chat.models import ChatSession, Message
    from docuiq.testing.factories import make_document

    tenant = tenant_create(slug="bench-api")
    other = tenant_create(slug="bench-api-other")
    with tenant_scope(tenant):
        _, raw_key = api_key_create(tenant=tenant, name="bench")
        documents = [
            make_document(
                tenant, f"Clause {i}. The parties agree.", title=f"Contract {i:03d}"
            )
            for i in range(document_count)
        ]
        session = ChatSession.objects.create(tenant=tenant)
        messages = Message.objects.bulk_create(
            [
                Message(tenant=tenant, session=session, role="assistant", content="x")
                for _ in range(1000)
            ]
        )
        doc_rows = [
            (n, d.pk, d.file_id, d.current_revision_id, d.chunks.first().uid, d.title)
            for n, d in enumerate(documents)
        ]
    with tenant_scope(other):
        other_doc = make_document(other, "Other tenant's clause.", title="Other")
        other_session = ChatSession.objects.create(tenant=other)
        other_message = Message.objects.create(
            tenant=other, session=other_session, role="assistant"
        )
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE bench_docs (n int, doc uuid, file uuid, rev uuid, chunk uuid, name text)"
        )
        cursor.executemany(
            "INSERT INTO bench_docs VALUES (%s, %s, %s, %s, %s, %s)", doc_rows
        )
        cursor.execute("CREATE TEMP TABLE bench_msgs (n int, id uuid)")
        cursor.executemany(
            "INSERT INTO bench_msgs VALUES (%s, %s)",
            [(n, m.pk) for n, m in enumerate(messages)],
        )

        def insert(tenant_id, count, message_sql, doc_sql):
            cursor.execute(
                f"""
                INSERT INTO message_citations (
                    id, message_id, source_file_id, source_offset_start, source_offset_end, source_page,
                    source_text, verified, verification_method, verification_confidence, created_at,
                    tenant_id, quoted_text, match_type, match_score, verification_status, reason,
                    mis_attributed_to, chunk_id, revision_id, document_id, document_name, revision_length,
                    execution_context_type, execution_context_id, ref_label, candidate_text, verified_at,
                    updated_at, failure_kind, is_stale, other_document, relevance_method,
                    relevance_reason)
                SELECT gen_random_uuid(), {message_sql}, d.file, 0, 10, 1, 'Clause 1. ',
                       (g %% 10) < 7,
                       CASE WHEN (g %% 10) < 6 THEN 'exact_match' WHEN (g %% 10) = 6 THEN 'tolerant_match'
                            WHEN (g %% 10) < 9 THEN 'failed' END,
                       CASE WHEN (g %% 10) < 7 THEN 1.00 END,
                       now() - make_interval(secs => g * 30),
                       %s, 'Clause 1. ', CASE WHEN (g %% 10) < 7 THEN 'exact' ELSE 'not_found' END, 1.0,
                       CASE WHEN (g %% 10) < 7 THEN 'verified' WHEN (g %% 10) < 9 THEN 'failed' ELSE 'pending' END,
                       '', '', d.chunk, d.rev, d.doc, d.name, 40, 'chat', %s, 'S1', '',
                       CASE WHEN (g %% 10) < 7 THEN now() END, now(),
                       CASE WHEN (g %% 10) BETWEEN 7 AND 8 THEN 'not_found' ELSE '' END,
                       false, false, '', ''
                FROM generate_series(1, %s) AS g
                JOIN {doc_sql}
                """,
                [tenant_id, str(session.pk), count],
            )

        started = time.perf_counter()
        insert(
            tenant.pk,
            rows,
            "(SELECT id FROM bench_msgs WHERE n = g %% 1000)",
            f"bench_docs d ON d.n = g %% {document_count}",
        )
        cursor.execute(
            "CREATE TEMP TABLE bench_other AS SELECT %s::uuid AS doc, %s::uuid AS file, %s::uuid AS rev, "
            "gen_random_uuid() AS chunk, 'Other'::text AS name",
            [other_doc.pk, other_doc.file_id, other_doc.current_revision_id],
        )
        insert(
            other.pk, rows // 10, f"'{other_message.pk}'::uuid", "bench_other d ON true"
        )
        cursor.execute("ANALYZE")
        print(
            f"  inserted {rows:,} + {rows // 10:,} citation rows in {time.perf_counter() - started:.0f} s"
        )
    return tenant, raw_key, session, documents


def _measure(client, url: str, headers: dict, repeats: int) -> dict:
    times = []
    for i in range(repeats + 3):
        t0 = time.perf_counter()
        response = client.get(url, **headers)
        elapsed = (time.perf_counter() - t0) * 1000
        assert response.status_code == 200, (
            url,
            response.status_code,
            response.content[:300],
        )
        if i >= 3:
            times.append(elapsed)
    return {
        "median_ms": round(_django.percentile(times, 50), 2),
        "p95_ms": round(_django.percentile(times, 95), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=60)
    parser.add_argument(
        "--pg", default="postgres://postgres@127.0.0.1:5432/docuiq_bench_api"
    )
    parser.add_argument("--quick", action="store_true", help="a few rows: runs only")
    args = parser.parse_args()
    documents_made = 200
    if args.quick:
        args.rows, args.repeats, documents_made = 2_000, 3, 20
    if not _django.reset_postgres(args.pg):
        print("PostgreSQL not reachable: skipped")
        _write({"skipped": "PostgreSQL not reachable", "quick": args.quick})
        return
    _django.setup(args.pg)
    from django.conf import settings
    from rest_framework.test import APIClient

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_CLASSES": [],
    }
    tenant, raw_key, session, documents = _fill(args.rows, documents_made)
    client = APIClient()
    headers = {"HTTP_X_API_KEY": raw_key}
    doc = documents[17]
    from accounts.scoping import tenant_scope

    with tenant_scope(tenant):
        chunk = doc.chunks.first()
    cases = {
        "list_newest": "/api/citations?tenant_id=bench-api&limit=50",
        "list_status_failed": "/api/citations?tenant_id=bench-api&verification_status=failed&limit=50",
        "list_document_name": "/api/citations?tenant_id=bench-api&document_name=contract%20017&limit=50",
        "list_document_and_dates": (
            f"/api/citations?tenant_id=bench-api&document_id={doc.pk}"
            "&date_from=2025-01-01T00:00:00Z&date_to=2026-12-31T00:00:00Z&limit=50"
        ),
        "list_deep_page": "/api/citations?tenant_id=bench-api&skip=5000&limit=50",
        "stats": "/api/citations/stats?tenant_id=bench-api",
        # Filtered stats (issue 27 item 5): the daily summary plus the rows of
        # the days a range cuts.
        "stats_last_90_days": (
            "/api/citations/stats?tenant_id=bench-api"
            f"&date_from={_ago(90)}&date_to={_ago(0)}"
        ),
        "stats_method_tolerant": (
            "/api/citations/stats?tenant_id=bench-api&verification_method=tolerant_match"
        ),
        "stats_failed_in_a_month": (
            "/api/citations/stats?tenant_id=bench-api&verification_status=failed"
            f"&date_from={_ago(200, 7)}&date_to={_ago(170, 19)}"
        ),
        "chat_status": f"/api/chat/{session.pk}/citation/{chunk.uid}/{doc.current_revision_id}/status",
    }
    result = {
        "rows": args.rows,
        "quick": args.quick,
        "target_p95_ms": 50,
        "endpoints": {},
    }
    for name, url in cases.items():
        figures = _measure(client, url, headers, args.repeats)
        result["endpoints"][name] = figures
        print(
            f"  {name:<26} median {figures['median_ms']:7.2f} ms   p95 {figures['p95_ms']:7.2f} ms"
        )
    result["stats_in_process"] = _stats_in_process(tenant, args.repeats)
    _write(result)


def _ago(days: int, hour: int = 13) -> str:
    """An ISO time `days` ago at `hour`:17 UTC (off midnight: the range cuts
    its first and last day), URL-safe."""
    import datetime as dt

    when = dt.datetime.now(dt.UTC).replace(
        hour=hour, minute=17, second=3, microsecond=0
    )
    return (when - dt.timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _stats_in_process(tenant, repeats: int) -> dict:
    """The same filtered counts two ways in one run: citation_stats (the
    summary) and the GROUP BY over the tenant's rows it replaced (baseline)."""
    import datetime as dt

    from django.db.models import Count

    from accounts.scoping import tenant_scope
    from citations.selectors import CitationFilters, citation_list, citation_stats

    def parse(text: str) -> dt.datetime:
        return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)

    cases = {
        "last_90_days": CitationFilters(
            date_from=parse(_ago(90)), date_to=parse(_ago(0))
        ),
        "method_tolerant": CitationFilters(verification_method="tolerant_match"),
        "failed_in_a_month": CitationFilters(
            verification_status="failed",
            date_from=parse(_ago(200, 7)),
            date_to=parse(_ago(170, 19)),
        ),
    }
    out = {}
    with tenant_scope(tenant):
        for name, filters in cases.items():

            def summary(filters=filters):
                return citation_stats(tenant=tenant, filters=filters)

            def group_by(filters=filters):
                return list(
                    citation_list(tenant=tenant, filters=filters)
                    .order_by()
                    .values("verification_status")
                    .annotate(n=Count("id"))
                )

            fast, slow = _time(summary, repeats), _time(group_by, max(5, repeats // 4))
            out[name] = {
                "summary": fast,
                "group_by_baseline": slow,
                "p95_ratio": round(slow["p95_ms"] / max(fast["p95_ms"], 1e-6), 1),
            }
            print(
                f"  stats {name:<20} summary p95 {fast['p95_ms']:7.2f} ms   "
                f"GROUP BY p95 {slow['p95_ms']:8.2f} ms   x{out[name]['p95_ratio']}"
            )
    return out


def _time(call, repeats: int) -> dict:
    times = []
    for i in range(repeats + 2):
        t0 = time.perf_counter()
        call()
        if i >= 2:
            times.append((time.perf_counter() - t0) * 1000)
    return {
        "median_ms": round(_django.percentile(times, 50), 2),
        "p95_ms": round(_django.percentile(times, 95), 2),
    }


def _write(result: dict) -> None:
    _django.RESULTS.mkdir(parents=True, exist_ok=True)
    path = _django.RESULTS / "api.json"
    path.write_text(json.dumps(result, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
