"""On PostgreSQL, filtered stats read the daily summary (migration 0009) plus
the rows of the days a date range cuts: they must equal a plain GROUP BY for
every filter the summary answers, after inserts, updates (status, method,
relevance, staleness) and deletes (issue 27 item 5)."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.db import connection
from django.db.models import Count

from accounts.scoping import unscoped
from chat.models import ChatSession, Message
from citations.models import MessageCitation
from citations.selectors import (
    CitationFilters,
    _counted_by_day,
    citation_list,
    citation_stats,
)
from docuiq.testing.factories import make_document

pytestmark = [pytest.mark.pg, pytest.mark.django_db(transaction=True)]

NOW = dt.datetime(2026, 6, 15, 13, 30, tzinfo=dt.UTC)
KINDS = [
    ("verified", "exact_match", True),
    ("verified", "tolerant_match", True),
    ("failed", "failed", False),
    ("pending", None, False),
    ("unverified", "failed", False),
]


def _grouped(tenant, filters) -> dict[str, int]:
    rows = (
        citation_list(tenant=tenant, filters=filters)
        .order_by()
        .values("verification_status")
        .annotate(n=Count("id"))
    )
    return {r["verification_status"]: r["n"] for r in rows}


def _fill(tenant, rng: random.Random, count: int) -> list[MessageCitation]:
    document = make_document(tenant, "Text of the contract here.")
    session = ChatSession.objects.create(tenant=tenant)
    message = Message.objects.create(tenant=tenant, session=session, role="assistant")
    rows = []
    for _ in range(count):
        status, method, verified = rng.choice(KINDS)
        rows.append(
            MessageCitation(
                tenant=tenant,
                message=message,
                source_file=document.file,
                source_offset_start=0,
                source_offset_end=4,
                source_text="Text",
                verification_status=status,
                verification_method=method,
                verified=verified,
                verified_at=NOW if status == "verified" else None,
                created_at=NOW - dt.timedelta(minutes=rng.randrange(0, 20 * 24 * 60)),
                execution_context_type=rng.choice(["chat", "tabular"]),
                relevance=rng.choice([None, "answers", "related", "off_topic"]),
                is_stale=rng.random() < 0.2,
            )
        )
    return MessageCitation.objects.bulk_create(rows)


def _random_filters(rng: random.Random) -> CitationFilters:
    def maybe(values):
        return rng.choice([None, *values])

    start = NOW - dt.timedelta(minutes=rng.randrange(0, 22 * 24 * 60))
    end = start + dt.timedelta(minutes=rng.randrange(0, 12 * 24 * 60))
    midnight = rng.random() < 0.3  # ranges on day boundaries too
    if midnight:
        start = start.replace(hour=0, minute=0, second=0, microsecond=0)
        end = end.replace(hour=0, minute=0, second=0, microsecond=0)
    return CitationFilters(
        verification_status=maybe(["verified", "failed", "pending"]),
        verification_method=maybe(["exact_match", "tolerant_match", "failed"]),
        execution_context_type=maybe(["chat", "tabular"]),
        relevance=maybe(["answers", "off_topic", "unrated"]),
        stale=maybe([True, False]),
        date_from=rng.choice([None, start]),
        date_to=rng.choice([None, end]),
    )


def test_the_daily_summary_agrees_with_a_group_by_for_any_filter(tenant_a, tenant_b):
    rng = random.Random(27)
    with unscoped():
        rows = _fill(tenant_a, rng, 600)
        _fill(tenant_b, rng, 200)  # another tenant's rows never count
        # Updates that move keys, updates that move none, deletes.
        MessageCitation.objects.filter(pk__in=[r.pk for r in rows[:50]]).update(
            verification_status="verified",
            verification_method="exact_match",
            verified=True,
            verified_at=NOW,
        )
        MessageCitation.objects.filter(pk__in=[r.pk for r in rows[50:80]]).update(
            relevance="answers", is_stale=True
        )
        MessageCitation.objects.filter(pk__in=[r.pk for r in rows[80:120]]).update(
            reason="seen again"
        )
        MessageCitation.objects.filter(pk__in=[r.pk for r in rows[120:150]]).delete()
    answered = 0
    with unscoped():
        for _ in range(300):
            filters = _random_filters(rng)
            expected = _grouped(tenant_a, filters)
            active = {
                k: v
                for k, v in vars(filters).items()
                if v not in (None, "")  # as citation_stats reads them
            }
            via_summary = _counted_by_day(tenant_a, filters, active)
            if via_summary is not None:
                answered += 1
                got = {k: v for k, v in via_summary.items() if v}
                assert got == expected, filters
            stats = citation_stats(tenant=tenant_a, filters=filters)
            assert {
                k: v for k, v in stats.items() if v and k not in {"total"}
            } == expected, filters
    assert answered > 150  # most random filters are answered by the summary


def test_an_update_that_moves_no_key_writes_no_summary_row(tenant_a):
    rng = random.Random(3)
    with unscoped():
        rows = _fill(tenant_a, rng, 20)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT xmin::text, * FROM citation_stats_daily ORDER BY 2, 3"
            )
            before = cursor.fetchall()
            MessageCitation.objects.filter(pk__in=[r.pk for r in rows]).update(
                reason="nothing the summary keeps"
            )
            cursor.execute(
                "SELECT xmin::text, * FROM citation_stats_daily ORDER BY 2, 3"
            )
            assert cursor.fetchall() == before
