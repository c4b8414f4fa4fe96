"""Teams channel exports (issue 29 item 1): each post and its replies is a
document; HTML bodies read as text; webUrl is the message's permalink."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest

from accounts.scoping import tenant_scope
from docuiq.testing.exports import BASE, teams_export
from ingest.locations import location_for, segment_at
from ingest.models import Document, DocumentChunk, Source
from ingest.sources import source_create_export

pytestmark = pytest.mark.django_db

POSTS = [
    {
        "id": "1772546520000",
        "from": "Ana Ruiz",
        "at": BASE,
        "subject": "Acme renewal",
        "text": "<p>Do we renew <b>Acme</b>?</p>",
        "replies": [
            {
                "id": "1772546700000",
                "from": "Ben Okafor",
                "at": BASE + timedelta(minutes=3),
                "text": "<div>Yes: the renewal term is <i>two years</i>.</div><script>x()</script>",
            }
        ],
    }
]


def sync(tenant, data: bytes, capture, *, source=None) -> Source:
    with capture(execute=True), tenant_scope(tenant):
        source = source_create_export(
            tenant=tenant,
            kind="teams",
            filename="general.json",
            stream=io.BytesIO(data),
            source=source,
        )
    with tenant_scope(tenant):
        return Source.objects.get(pk=source.pk)


def test_a_post_and_its_replies_become_one_located_document(
    tenant_a, django_capture_on_commit_callbacks
):
    source = sync(tenant_a, teams_export(POSTS), django_capture_on_commit_callbacks)
    assert source.status == "ready", source.error
    with tenant_scope(tenant_a):
        document = Document.objects.get()
        assert document.source_type == "teams"
        text = document.current_revision.normalized_content
        assert (
            "Ana Ruiz · 2026-03-03 14:02 UTC\nAcme renewal\nDo we renew Acme?" in text
        )
        assert "Yes: the renewal term is two years." in text and "x()" not in text
        chunk = DocumentChunk.objects.get(document=document)
        at = text.index("two years")
        segment = segment_at(chunk.metadata["segments"], at, at + 9)
        location = location_for(
            source_type="teams",
            title=document.title,
            metadata=document.metadata,
            segment=segment,
        )
    assert location.label == "#General · Ben Okafor · 3 Mar 2026 14:05 UTC"
    assert location.fields["message_id"] == "1772546700000"
    assert location.fields["thread_id"] == "1772546520000"
    assert (
        location.original_url
        == "https://teams.example.com/l/message/19%3Achannel/1772546700000"
    )
    assert location.extra["workspace"] == "Legal"


def test_a_deleted_reply_in_a_later_export_makes_a_new_revision(
    tenant_a, django_capture_on_commit_callbacks
):
    source = sync(tenant_a, teams_export(POSTS), django_capture_on_commit_callbacks)
    posts = [
        {
            **POSTS[0],
            "replies": [{**POSTS[0]["replies"][0], "deleted": "2026-03-04T10:00:00Z"}],
        }
    ]
    source = sync(
        tenant_a, teams_export(posts), django_capture_on_commit_callbacks, source=source
    )
    assert source.stats["updated"] == 1
    with tenant_scope(tenant_a):
        document = Document.objects.get()
        assert document.current_revision.number == 2
        assert "(message deleted)" in document.current_revision.normalized_content
        assert "two years" not in document.current_revision.normalized_content


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b'{"value": [{"id": "1", "body": {"content": "x"', "corrupt"),
        (b'{"hello": "world"}', "not_teams_export"),
        (b"PK\x03\x04 truncated", "corrupt"),
    ],
)
def test_a_bad_teams_export_fails_clearly(
    tenant_a, django_capture_on_commit_callbacks, data, code
):
    source = sync(tenant_a, data, django_capture_on_commit_callbacks)
    assert (source.status, source.error_code) == ("failed", code)
    with tenant_scope(tenant_a):
        assert not Document.objects.exists()
