"""A Slack or Teams export given to `manage.py ingest` or the upload form is
recognised and added as a source (issue 32 item 6), not refused as an
unknown file; other ZIP and JSON files are not taken for one."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from accounts.scoping import tenant_scope
from docuiq.testing.exports import BASE, SlackMessage, slack_export, teams_export
from ingest.exports import export_kind, export_rules
from ingest.models import Document, Source

pytestmark = pytest.mark.django_db

SLACK = slack_export(
    [SlackMessage("C1", "U1", "The Acme renewal notice is 90 days.", BASE, BASE)],
    users={"U1": "Ana Ruiz"},
    channels={"C1": "deals"},
)
TEAMS = teams_export(
    [{"id": "1", "from": "Ana Ruiz", "at": BASE, "text": "Renew Acme?", "replies": []}]
)


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize(
    ("data", "filename", "kind"),
    [
        (SLACK, "workspace.zip", "slack"),
        (TEAMS, "general.json", "teams"),
        (_zip({"general.json": TEAMS}), "teams.zip", "teams"),
        (_zip({"notes.txt": b"hello", "channels.txt": b"x"}), "other.zip", ""),
        (json.dumps({"value": [{"id": 1}]}).encode(), "data.json", ""),
        (b"PK\x03\x04 truncated", "broken.zip", ""),
        (b"plain text", "notes.txt", ""),
    ],
)
def test_export_kind(data, filename, kind):
    stream = io.BytesIO(data)
    stream.seek(0)
    assert export_kind(stream, filename) == kind
    assert stream.tell() == 0  # the stream is left where it was
    assert {r.kind for r in export_rules()} == {"slack", "teams"}


@pytest.mark.django_db(transaction=True)  # the sync is queued on commit, as in use
def test_the_ingest_command_adds_an_export_as_a_source(tenant_a, tmp_path, capsys):
    (tmp_path / "workspace.zip").write_bytes(SLACK)
    (tmp_path / "general.json").write_bytes(TEAMS)
    (tmp_path / "notes.txt").write_text("Board notes: the budget was approved.")
    call_command("ingest", str(tmp_path), tenant="tenant-a", json=True)
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_file = {r["file"].rsplit("/", 1)[-1]: r for r in rows}
    assert by_file["workspace.zip"]["kind"] == "slack"
    assert by_file["workspace.zip"]["status"] == "ready"
    assert by_file["general.json"]["kind"] == "teams"
    assert by_file["notes.txt"]["status"] == "ready"
    with tenant_scope(tenant_a):
        assert sorted(Source.objects.values_list("kind", flat=True)) == [
            "slack",
            "teams",
        ]
        types = set(Document.objects.values_list("source_type", flat=True))
        assert {"slack", "teams", "text"} <= types
        assert not Document.objects.filter(status="failed").exists()


def test_the_upload_form_adds_an_export_as_a_source(
    alice_client, tenant_a, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            "/documents/upload/",
            {"files": [SimpleUploadedFile("workspace.zip", SLACK, "application/zip")]},
        )
    assert response.status_code == 302
    page = alice_client.get("/documents/").content.decode()
    assert "is a Slack export: added as the source" in page
    with tenant_scope(tenant_a):
        (source,) = Source.objects.all()
        assert source.kind == "slack" and source.status == "ready"
        assert Document.objects.filter(source_type="slack").exists()
        assert not Document.objects.filter(source_type="unknown").exists()
