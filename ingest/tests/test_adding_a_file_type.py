"""docs/how-to-add-a-file-type.md, walked: a fake file type
(reStructuredText), one row of the table plus its extractor, is named in the
"supported" message, recognised by its extension and content type, read into
a document on upload, listed with its label, named by its prompt label in a
source's header, and cited in an answer with its locator's location."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import TestCase

from accounts.scoping import tenant_scope
from chat.models import Message
from chat.payload import payload_with_verdicts
from chat.retrieval import Retrieved
from chat.services import message_ask, session_create
from ingest import file_types, services
from ingest.errors import UnsupportedType
from ingest.extractors import Extracted, detect_source_type, extract
from ingest.extractors._common import decode_text, read_limited
from ingest.file_types import FileType
from ingest.locations import location_for
from ingest.models import Document
from ingest.search import search_chunks
from ingest.services import Upload, document_upload
from llm.prompting import format_source

pytestmark = pytest.mark.django_db


def extract_rst(path: Path, *, filename: str, limits, progress) -> Extracted:
    """What the type's extractor module would hold (ingest/extractors/rst.py):
    the title is the first line, underlined."""
    text, _encoding = decode_text(read_limited(path, limits.max_file_bytes))
    lines = text.splitlines()
    title = lines[0] if len(lines) > 1 and set(lines[1]) == {"="} else filename
    return Extracted(title=title, source_type="rst", pages=[text], metadata={})


RST = FileType(
    "rst",
    "reStructuredText",
    noun="reStructuredText",
    supported_as="reStructuredText (.rst)",
    extensions=(".rst",),
    content_types=("text/x-rst",),
    extractor=f"{__name__}:extract_rst",
    locator="page",
    prompt_label="RST",
)

TEXT = (
    "Supply terms\n============\n\n"
    "The escrow release window is fourteen business days after closing.\n"
)


@pytest.fixture
def rst(monkeypatch):
    # The sandbox child imports the shipped table; a type registered here
    # lives only in this process, so the test extracts in process.
    monkeypatch.setattr(services, "extract_in_child", extract)
    with file_types.registered(RST) as kind:
        yield kind


def test_a_new_type_is_recognised_and_named_as_supported(rst):
    assert detect_source_type(b"Title\n=====\n", "notes.rst", None) == "rst"
    assert detect_source_type(b"Title\n", "notes", "text/x-rst") == "rst"
    with pytest.raises(UnsupportedType) as raised:
        detect_source_type(b"\x89PNG\r\n\x1a\n", "scan.png", None)
    assert "reStructuredText (.rst)" in str(raised.value)


def _upload(tenant) -> Document:
    with TestCase.captureOnCommitCallbacks(execute=True):
        document = document_upload(
            tenant=tenant,
            upload=Upload(filename="terms.rst", stream=io.BytesIO(TEXT.encode())),
        )
    with tenant_scope(tenant):
        return Document.objects.get(pk=document.pk)


def test_an_upload_of_a_new_type_is_read_and_listed(rst, tenant_a, alice_client):
    document = _upload(tenant_a)
    assert document.status == Document.Status.READY, document.error
    assert (document.source_type, document.title) == ("rst", "Supply terms")
    # The field's choices are the shipped table's (its migration adds a new
    # type's); the label is the row's.
    assert file_types.file_type(document.source_type).label == "reStructuredText"
    page = alice_client.get("/documents/").content.decode()
    assert "Supply terms" in page


def test_a_new_types_passage_is_cited_with_its_locators_location(rst, tenant_a, alice):
    document = _upload(tenant_a)
    location = location_for(
        source_type="rst", title=document.title, metadata={}, page=1
    )
    assert location.label == "page 1"  # its locator, "page"
    with tenant_scope(tenant_a):
        session = session_create(tenant=tenant_a, user=alice)
        with TestCase.captureOnCommitCallbacks(execute=True):
            message = message_ask(
                session=session, question="What is the escrow release window?"
            )
        message = Message.objects.get(pk=message.pk)
        cited = [
            c
            for c in payload_with_verdicts(message)["citations"]
            if str(document.pk) in (c.get("url") or "")
        ]
    assert cited, message.content
    assert cited[0]["status"] == "verified"


def test_a_model_is_told_a_new_types_name_in_a_sources_header(rst, tenant_a):
    document = _upload(tenant_a)
    with tenant_scope(tenant_a):
        hit, *_ = search_chunks(tenant_a, "escrow release window", document=document)
        header = format_source(Retrieved("S1", hit).prompt_source()).splitlines()[0]
    assert header == '[S1] RST – "Supply terms"'


def test_a_types_name_in_a_prompt_is_the_rows():
    assert file_types.prompt_label("pdf") == "PDF"
    assert file_types.prompt_label("docx") == "DOCX"  # its label is "Word"
    assert file_types.prompt_label("db") == "DB"
    assert file_types.prompt_label("email") == "Email"  # its label
    assert file_types.prompt_label("gdrive") == "Google Drive"
    assert file_types.prompt_label("") == "Document"
    assert file_types.prompt_label("rst") == "Rst"  # not in the table (now)


def test_the_model_field_is_derived_from_the_table_and_the_docs_walk_it():
    assert file_types.file_type("rst") is None  # the fake is gone
    field = Document._meta.get_field("source_type")
    assert list(field.choices) == file_types.choices()
    how_to = (
        Path(django_settings.BASE_DIR) / "docs" / "how-to-add-a-file-type.md"
    ).read_text()
    assert "ingest/file_types.py" in how_to
    assert Path(__file__).name in how_to
