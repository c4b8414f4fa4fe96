"""Slack exports as documents (issue 29 item 1): one document per thread,
the channel's other messages one per day; every message's offsets and
location in the chunk metadata; a later export revises and deletes; bad
exports fail clearly and lose nothing else."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from accounts.scoping import tenant_scope
from docuiq.testing.exports import BASE, SlackMessage, slack_export
from ingest.connectors.chat import ChatMessage, channel_items
from ingest.locations import location_for, segment_at
from ingest.models import Document, DocumentChunk, Source, SourceItem
from ingest.source_kinds.base import SourceError
from ingest.sources import source_create_export

pytestmark = pytest.mark.django_db

USERS = {"U1": "Ana Ruiz", "U2": "Ben Okafor"}
CHANNELS = {"C1": "deals", "C2": "general"}


@pytest.fixture(autouse=True)
def _run_on_commit(django_capture_on_commit_callbacks):
    global _capture
    _capture = django_capture_on_commit_callbacks


_capture = None


def deals_thread(notice: str = "90 days") -> list[SlackMessage]:
    root = BASE
    return [
        SlackMessage(
            "C1",
            "U1",
            "Acme wants to renew. What notice period did we agree?",
            root,
            root,
        ),
        SlackMessage(
            "C1",
            "U2",
            f"The notice period is {notice} before the renewal date.",
            root + timedelta(minutes=3),
            root,
        ),
        SlackMessage(
            "C1", "U1", "Thanks <@U2>, noted.", root + timedelta(minutes=5), root
        ),
        SlackMessage(
            "C2", "U2", "Lunch is at noon on Friday.", root + timedelta(hours=1)
        ),
    ]


def sync(
    tenant, data: bytes, *, source=None, kind="slack", filename="acme-slack.zip"
) -> Source:
    with _capture(execute=True), tenant_scope(tenant):
        source = source_create_export(
            tenant=tenant,
            kind=kind,
            filename=filename,
            stream=io.BytesIO(data),
            source=source,
        )
    with tenant_scope(tenant):
        return Source.objects.get(pk=source.pk)


def test_a_thread_becomes_a_document_whose_messages_have_their_offsets(tenant_a):
    source = sync(
        tenant_a, slack_export(deals_thread(), users=USERS, channels=CHANNELS)
    )
    assert source.status == "ready", source.error
    assert source.stats["created"] == 2
    with tenant_scope(tenant_a):
        thread = Document.objects.get(
            source_type="slack", metadata__thread_id__isnull=False
        )
        assert thread.status == "ready"
        assert thread.title.startswith(
            "#deals · thread of 3 Mar 2026: Acme wants to renew"
        )
        text = thread.current_revision.normalized_content
        assert "Ben Okafor · 2026-03-03 14:05 UTC\nThe notice period is 90 days" in text
        assert "Thanks @Ben Okafor, noted." in text  # mentions read by name
        chunk = DocumentChunk.objects.get(revision=thread.current_revision)
        segments = chunk.metadata["segments"]
        assert [s["sender"] for s in segments] == ["Ana Ruiz", "Ben Okafor", "Ana Ruiz"]
        for s in segments:
            block = text[s["start"] : s["end"]]
            assert block.startswith(s["sender"] + " · ")
        at = text.index("90 days")
        segment = segment_at(segments, at, at + 7)
        assert (
            segment["message_id"] == f"{(BASE + timedelta(minutes=3)).timestamp():.6f}"
        )
        assert segment["thread_id"] == f"{BASE.timestamp():.6f}"
        location = location_for(
            source_type="slack",
            title=thread.title,
            metadata=thread.metadata,
            segment=segment,
        )
        assert location.label == "#deals · Ben Okafor · 3 Mar 2026 14:05 UTC"
        assert location.extra == {
            "channel": "deals",
            "sender": "Ben Okafor",
            "workspace": "acme-slack",
        }
        day = Document.objects.get(source_type="slack", title="#general · 3 Mar 2026")
        assert "Lunch is at noon" in day.current_revision.normalized_content


def test_a_later_export_revises_the_changed_thread_and_deletes_the_gone_one(tenant_a):
    source = sync(
        tenant_a, slack_export(deals_thread(), users=USERS, channels=CHANNELS)
    )
    with tenant_scope(tenant_a):
        thread = Document.objects.get(metadata__channel="deals")
        first = thread.current_revision
    edited = deals_thread("60 days")[:3]  # the #general message is gone
    edited[1].extra = {"edited": {"user": "U2", "ts": "1772546900.000000"}}
    source = sync(
        tenant_a, slack_export(edited, users=USERS, channels=CHANNELS), source=source
    )
    assert source.status == "ready", source.error
    assert source.stats == {
        "created": 0,
        "updated": 1,
        "unchanged": 0,
        "deleted": 1,
        "items": 1,
    }
    with tenant_scope(tenant_a):
        thread.refresh_from_db()
        assert thread.current_revision.number == first.number + 1
        assert "60 days before" in thread.current_revision.normalized_content
        assert "(edited)" in thread.current_revision.normalized_content
        gone = Document.objects.get(metadata__channel="general")
        assert gone.is_deleted
    # The same export again changes nothing.
    source = sync(
        tenant_a, slack_export(edited, users=USERS, channels=CHANNELS), source=source
    )
    assert source.stats["unchanged"] == 1 and source.stats["updated"] == 0


def test_an_export_of_other_dates_deletes_nothing(tenant_a):
    source = sync(
        tenant_a, slack_export(deals_thread(), users=USERS, channels=CHANNELS)
    )
    later = [SlackMessage("C1", "U1", "A new week.", BASE + timedelta(days=7))]
    source = sync(
        tenant_a, slack_export(later, users=USERS, channels=CHANNELS), source=source
    )
    assert source.stats["deleted"] == 0
    with tenant_scope(tenant_a):
        assert (
            Document.objects.filter(source_type="slack", is_deleted=False).count() == 3
        )


def test_files_in_the_export_become_children_of_their_message_document(tenant_a):
    messages = deals_thread()
    messages[1].extra = {
        "files": [{"id": "F1", "name": "terms.txt", "mimetype": "text/plain"}]
    }
    data = slack_export(
        messages,
        users=USERS,
        channels=CHANNELS,
        files={
            "__uploads/F1/terms.txt": b"Renewal terms: ninety days' notice in writing."
        },
    )
    sync(tenant_a, data)
    with tenant_scope(tenant_a):
        thread = Document.objects.get(metadata__channel="deals", parent__isnull=True)
        child = thread.attachments.get()
        assert child.file.filename == "terms.txt" and child.status == "ready", (
            child.error
        )
        assert "[files: terms.txt]" in thread.current_revision.normalized_content


def test_an_unknown_user_id_is_named_by_its_id_with_a_warning(tenant_a):
    messages = [SlackMessage("C1", "U9", "Who am I?", BASE)]
    source = sync(tenant_a, slack_export(messages, users=USERS, channels=CHANNELS))
    assert source.status == "ready"
    assert any("U9 is not in users.json" in w["message"] for w in source.warnings)
    with tenant_scope(tenant_a):
        assert (
            "U9 · 2026-03-03"
            in Document.objects.get().current_revision.normalized_content
        )


def test_a_truncated_export_fails_clearly_and_makes_no_document(tenant_a):
    data = slack_export(deals_thread(), users=USERS, channels=CHANNELS)
    source = sync(tenant_a, data[: len(data) // 2])
    assert source.status == "failed"
    assert source.error_code == "corrupt"
    assert "not a readable ZIP" in source.error
    with tenant_scope(tenant_a):
        assert not Document.objects.exists()


def test_a_zip_that_is_not_a_slack_export_is_refused(tenant_a):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("notes.txt", "hello")
    source = sync(tenant_a, out.getvalue())
    assert (source.status, source.error_code) == ("failed", "not_slack_export")


def test_a_damaged_day_file_skips_its_channel_and_keeps_the_others(tenant_a):
    data = slack_export(deals_thread(), users=USERS, channels=CHANNELS)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename.startswith("deals/"):
                body = body[: len(body) // 2]  # a truncated day file
            dst.writestr(info.filename, body)
    source = sync(tenant_a, out.getvalue())
    assert source.status == "ready"
    assert any(
        "#deals" in w["message"] and "damaged" in w["message"] for w in source.warnings
    )
    with tenant_scope(tenant_a):
        titles = list(Document.objects.values_list("title", flat=True))
    assert titles == ["#general · 3 Mar 2026"]  # no partial #deals thread


def test_a_channel_over_the_limit_is_skipped_whole_with_a_clear_warning(
    tenant_a, settings
):
    settings.CONNECTORS_MAX_CHANNEL_MESSAGES = 2
    source = sync(
        tenant_a, slack_export(deals_thread(), users=USERS, channels=CHANNELS)
    )
    assert source.status == "ready"
    assert any(
        "#deals has more than 2 messages" in w["message"] for w in source.warnings
    )
    with tenant_scope(tenant_a):
        assert list(Document.objects.values_list("metadata__channel", flat=True)) == [
            "general"
        ]


def test_an_empty_upload_is_refused(tenant_a):
    with pytest.raises(SourceError, match="empty"), tenant_scope(tenant_a):
        source_create_export(
            tenant=tenant_a, kind="slack", filename="x.zip", stream=io.BytesIO(b"")
        )


def test_another_tenant_sees_none_of_the_source(tenant_a, tenant_b):
    sync(tenant_a, slack_export(deals_thread(), users=USERS, channels=CHANNELS))
    with tenant_scope(tenant_b):
        assert not Source.objects.exists()
        assert not SourceItem.objects.exists()
        assert not Document.objects.exists()


@hsettings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(min_size=0, max_size=80),
            st.sampled_from(["Ana", "Bé", "O'Neil", "x" * 30]),
            st.booleans(),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_every_message_segment_slices_its_own_block(rows):
    """Property: whatever a message says (blank, spaces, control characters,
    combining marks), each segment's offsets slice that message's block of
    the document text."""
    messages = [
        ChatMessage(
            message_id=str(i),
            thread_id="0" if threaded else None,
            ts=BASE + timedelta(minutes=i),
            sender=sender,
            text=text,
        )
        for i, (text, sender, threaded) in enumerate(rows)
    ]
    items = list(
        channel_items(
            kind="slack",
            workspace="w",
            channel_id="C1",
            channel_name="deals",
            messages=messages,
            max_messages=5,
        )
    )
    from ingest.normalize import normalize_page

    seen = set()
    for item in items:
        assert normalize_page(item.text) == item.text
        previous_end = -1
        for segment in item.segments:
            block = item.text[segment["start"] : segment["end"]]
            assert block.startswith(
                segment["sender"].strip() + " · "
            ) or block.startswith(segment["sender"])
            assert segment["start"] > previous_end
            previous_end = segment["end"]
            seen.add(segment["message_id"])
    assert seen == {str(i) for i in range(len(rows))}
    assert json.dumps([i.segments for i in items])  # JSON-safe
