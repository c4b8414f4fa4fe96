"""Beat's source sweep: a scheduled source whose time has come is synced, a
sync whose worker vanished is queued again, and a delivery that finds its
source already claimed does nothing."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts.scoping import tenant_scope, unscoped
from ingest.models import Source
from ingest.sources import source_sync, sources_sweep

pytestmark = pytest.mark.django_db


def _source(tenant, **fields) -> Source:
    with tenant_scope(tenant):
        return Source.objects.create(
            tenant=tenant, kind="db", name="CRM", secret="x", **fields
        )


def test_a_due_scheduled_source_and_a_stale_sync_are_queued_again(
    tenant_a, django_capture_on_commit_callbacks
):
    past = timezone.now() - timezone.timedelta(minutes=5)
    due = _source(tenant_a, status="ready", schedule_minutes=60, next_sync_at=past)
    not_due = _source(
        tenant_a,
        status="ready",
        schedule_minutes=60,
        next_sync_at=past + timezone.timedelta(hours=2),
    )
    stale = _source(tenant_a, status="syncing")
    with unscoped():
        Source.objects.filter(pk=stale.pk).update(updated_at=past)
    with django_capture_on_commit_callbacks(execute=False) as sent:
        assert sources_sweep() == 2
    assert len(sent) == 2
    with unscoped():
        assert Source.objects.get(pk=due.pk).status == "queued"
        assert Source.objects.get(pk=stale.pk).status == "queued"
        assert Source.objects.get(pk=not_due.pk).status == "ready"


def test_a_second_delivery_finds_nothing_to_claim(tenant_a):
    busy = _source(tenant_a, status="syncing")
    source_sync(source_id=busy.pk)  # fresh heartbeat: another worker has it
    with unscoped():
        busy.refresh_from_db()
    assert busy.status == "syncing" and busy.attempts == 0


def test_a_failed_sync_records_its_error_and_next_time(tenant_a, settings):
    source = _source(tenant_a, status="queued", schedule_minutes=30)
    source_sync(source_id=source.pk)  # the secret is not a Fernet token
    with unscoped():
        source.refresh_from_db()
    assert (source.status, source.error_code) == ("failed", "secret_unreadable")
    assert "enter them again" in source.error
    assert source.next_sync_at > timezone.now() + timezone.timedelta(minutes=29)
