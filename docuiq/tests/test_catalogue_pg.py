"""Catalogue IDs that need PostgreSQL (issue 27 item 7): LOAD-04, the plans of
the hot queries for the oldest and the newest tenant, and DAT-08, a backup
and restore drill checked by an invariant checker."""

from __future__ import annotations

import datetime as dt
import io
import json
import shutil
import subprocess
import time
import uuid

import pytest
from django.db import connection

from accounts.scoping import tenant_scope, unscoped
from chat.models import ChatSession, Message
from citations.models import MessageCitation
from citations.selectors import CitationFilters, citation_list
from docuiq.testing.factories import make_document

pytestmark = [pytest.mark.pg, pytest.mark.django_db(transaction=True)]

ROWS = 5_000


def _fill(tenant, start: dt.datetime) -> tuple:
    document = make_document(tenant, "Clause one. The parties agree.", title="Deal")
    session = ChatSession.objects.create(tenant=tenant)
    message = Message.objects.create(tenant=tenant, session=session, role="assistant")
    chunk = document.chunks.first()
    MessageCitation.objects.bulk_create(
        [
            MessageCitation(
                tenant=tenant,
                message=message,
                source_file=document.file,
                source_offset_start=0,
                source_offset_end=6,
                source_text="Clause",
                verification_status=["verified", "failed", "pending"][i % 3],
                verification_method=["exact_match", "failed", None][i % 3],
                verified=i % 3 == 0,
                verified_at=start if i % 3 == 0 else None,
                created_at=start + dt.timedelta(seconds=i),
                document_id=document.pk,
                document_name=document.title,
                chunk_id=chunk.uid,
                revision_id=document.current_revision_id,
            )
            for i in range(ROWS)
        ],
        batch_size=1000,
    )
    return document, session, chunk


def _worst_filter_ratio(plan: dict) -> tuple[float, str]:
    """The largest rows-removed-by-filter over rows-returned of any node."""
    worst = (0.0, "")

    def walk(node: dict) -> None:
        nonlocal worst
        removed = node.get("Rows Removed by Filter", 0)
        returned = max(1, node.get("Actual Rows", 0) * node.get("Actual Loops", 1))
        if removed / returned > worst[0]:
            worst = (removed / returned, node.get("Node Type", ""))
        for child in node.get("Plans", []):
            walk(child)

    walk(plan["Plan"])
    return worst


def test_load04_hot_query_plans_filter_little_for_the_oldest_and_newest_tenant(
    tenant_a, tenant_b
):
    """The planner pitfall of RELIABILITY §0: a backward primary-key scan that
    filters away every newer tenant's rows for the oldest tenant. Each hot
    query, for both tenants, removes at most 10 rows per row it returns."""
    with unscoped():
        old = _fill(tenant_a, dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
        new = _fill(tenant_b, dt.datetime(2026, 6, 1, tzinfo=dt.UTC))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    for tenant, (document, _session, chunk) in ((tenant_a, old), (tenant_b, new)):
        with tenant_scope(tenant):
            queries = {
                "newest page": citation_list(tenant=tenant)[:20],
                "status page": citation_list(
                    tenant=tenant, filters=CitationFilters(verification_status="failed")
                )[:20],
                "document page": citation_list(
                    tenant=tenant, filters=CitationFilters(document_id=document.pk)
                )[:20],
                "date range page": citation_list(
                    tenant=tenant,
                    filters=CitationFilters(
                        date_from=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
                        date_to=dt.datetime(2026, 12, 31, tzinfo=dt.UTC),
                    ),
                )[:20],
                "chunk status": MessageCitation.objects.filter(
                    chunk_id=chunk.uid
                ).order_by("-created_at")[:50],
                "documents": document.__class__.objects.filter(
                    tenant=tenant, is_deleted=False
                ).order_by("-created_at")[:20],
            }
            for name, qs in queries.items():
                plan = json.loads(qs.explain(format="json", analyze=True))[0]
                ratio, node = _worst_filter_ratio(plan)
                assert ratio <= 10, (tenant.slug, name, node, ratio)


@pytest.mark.skipif(shutil.which("pg_dump") is None, reason="needs pg_dump")
def test_dat08_a_backup_restores_whole_and_passes_the_invariant_checker(
    tenant_a, tenant_b, alice, django_capture_on_commit_callbacks
):
    """pg_dump -Fc while the app is in use, restored into a scratch database
    with --single-transaction --exit-on-error; then every verified citation's
    offsets slice its revision's text to its source text, every stored file
    hashes to its checksum, and per-tenant row counts equal the source's.
    RTO is this restore's time (printed); RPO is the backup interval."""
    import hashlib

    import psycopg

    from chat.services import message_ask, session_create
    from ingest.services import Upload, document_upload

    # Real uploads: the test factory's files carry made-up checksums.
    for tenant, name, text in (
        (tenant_a, "terms.txt", b"Invoices are payable within thirty (30) days."),
        (tenant_b, "notice.txt", b"Notice is ninety (90) days."),
    ):
        with django_capture_on_commit_callbacks(execute=True), tenant_scope(tenant):
            document_upload(
                tenant=tenant, upload=Upload(filename=name, stream=io.BytesIO(text))
            )
    for tenant, user_question in ((tenant_a, "When are invoices payable?"),):
        with tenant_scope(tenant):
            session = session_create(tenant=tenant, user=alice)
            with django_capture_on_commit_callbacks(execute=True):
                message_ask(session=session, question=user_question)
    settings = connection.settings_dict
    source = settings["NAME"]
    scratch = f"dat08_{uuid.uuid4().hex[:8]}"
    base = f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}"
    dump = subprocess.run(
        ["pg_dump", "-Fc", f"{base}/{source}"], capture_output=True, check=True
    ).stdout
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{scratch}"')
    try:
        started = time.perf_counter()
        subprocess.run(
            [
                "pg_restore",
                "--single-transaction",
                "--exit-on-error",
                "--no-owner",
                "-d",
                f"{base}/{scratch}",
            ],
            input=dump,
            capture_output=True,
            check=True,
        )
        print(f"DAT-08 restore (RTO) {time.perf_counter() - started:.2f} s")
        tables = ["message_citations", "files", "ingest_document", "messages"]
        with (
            psycopg.connect(f"{base}/{source}") as a,
            psycopg.connect(f"{base}/{scratch}") as b,
        ):
            for table in tables:
                query = f"SELECT tenant_id, count(*) FROM {table} GROUP BY 1 ORDER BY 1"
                assert a.execute(query).fetchall() == b.execute(query).fetchall(), table
            rows = b.execute(
                "SELECT c.source_offset_start, c.source_offset_end, c.source_text, "
                "r.normalized_content FROM message_citations c "
                "JOIN ingest_documentrevision r ON r.id = c.revision_id "
                "WHERE c.verification_status = 'verified'"
            ).fetchall()
            assert rows, "the drill needs verified citations"
            for start, end, text, content in rows:
                assert content[start:end] == text
            with unscoped():
                from ingest.models import File

                for file in File.objects.all():
                    with file.blob.open("rb") as blob:
                        assert hashlib.sha256(blob.read()).hexdigest() == file.sha256
    finally:
        with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
