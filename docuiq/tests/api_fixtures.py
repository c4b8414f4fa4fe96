"""Fixtures shared by the REST API tests: API keys and DRF clients for each
identity, and a small world of tenant A objects (tenant B has its own).

Test modules take the fixtures with `from docuiq.tests.api_fixtures import *`
(pytest finds fixtures in a module's namespace; `__all__` lists only them)
and import the helpers by name."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.scoping import tenant_scope, unscoped
from ingest.chunking import chunk_text
from ingest.models import Document, DocumentChunk, DocumentRevision
from ingest.normalize import normalize_pages

CONTRACT = (
    "Master Services Agreement. "
    "The Supplier shall deliver the goods within 30 days of the order. "
    "Payment is due within 45 days of the invoice date. "
    "Either party may terminate this agreement with ninety days written notice."
)
CLIMATE = (
    "Climate Report 2023. Scope 1 emissions declined 10% year over year. "
    "Renewable electricity reached 62 percent of total consumption."
)
__all__ = [
    "_fresh_throttles",
    "a_key_api",
    "a_user_api",
    "anon_api",
    "b_key_api",
    "b_user_api",
    "key_a",
    "key_b",
    "world",
]

B_SECRET = "Zanzibar quarterly ledger: the falcon protocol budget is 7 million."


@pytest.fixture(autouse=True)
def _fresh_throttles():
    # DRF throttles count in the default cache, which outlives a test.
    cache.clear()
    yield
    cache.clear()


def _key(tenant, name: str = "test") -> str:
    from accounts.services import api_key_create

    _, raw = api_key_create(tenant=tenant, name=name)
    return raw


@pytest.fixture
def key_a(tenant_a) -> str:
    return _key(tenant_a)


@pytest.fixture
def key_b(tenant_b) -> str:
    return _key(tenant_b)


@pytest.fixture
def anon_api() -> APIClient:
    return APIClient()


@pytest.fixture
def a_key_api(key_a) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_a)
    return client


@pytest.fixture
def b_key_api(key_b) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key_b)
    return client


@pytest.fixture
def a_user_api(alice) -> APIClient:
    """Alice's browser session (not APIClient.force_authenticate, which would
    skip the middleware that resolves the tenant)."""
    client = APIClient()
    client.force_login(alice)
    return client


@pytest.fixture
def b_user_api(charlie) -> APIClient:
    client = APIClient()
    client.force_login(charlie)
    return client


def add_revision(document: Document, text: str) -> DocumentRevision:
    """A new current revision of `document` with `text`, chunked like
    ingestion does (what a re-upload with changed content ends in)."""
    content = normalize_pages([text])
    with tenant_scope(document.tenant):
        number = document.revisions.count() + 1
        revision = DocumentRevision.objects.create(
            tenant=document.tenant,
            document=document,
            number=number,
            file=document.file,
            normalized_content=content.content,
            page_starts=content.page_starts,
            content_sha256=hashlib.sha256(content.content.encode()).hexdigest(),
        )
        DocumentChunk.objects.bulk_create(
            [
                DocumentChunk(
                    tenant=document.tenant,
                    document=document,
                    revision=revision,
                    chunk_index=s.index,
                    content=content.content[s.start : s.end],
                    start_offset=s.start,
                    end_offset=s.end,
                    page_start=s.page_start,
                    page_end=s.page_end,
                )
                for s in chunk_text(
                    content.content,
                    content.page_starts,
                    target_chars=1200,
                    overlap_chars=0,
                )
            ]
        )
        Document.objects.filter(pk=document.pk).update(current_revision=revision)
        document.refresh_from_db()
    return revision


def first_chunk(document: Document) -> DocumentChunk:
    with tenant_scope(document.tenant):
        return (
            DocumentChunk.objects.filter(revision_id=document.current_revision_id)
            .order_by("chunk_index")
            .first()
        )


def tenant_row_counts(tenant) -> dict[str, int]:
    """Every tenant-owned table an API call could write to."""
    from chat.models import ChatSession, Message, MessageSource
    from citations.models import (
        CitationVerification,
        MessageCitation,
        UnsourcedCitation,
    )
    from ingest.models import File, Source, SourceItem
    from playbook.models import (
        Finding,
        FindingEvent,
        Playbook,
        PlaybookRun,
        Position,
        RunPosition,
    )
    from tabular.models import Cell, Review, ReviewColumn, ReviewDocument

    models = [
        ChatSession,
        Message,
        MessageSource,
        MessageCitation,
        UnsourcedCitation,
        CitationVerification,
        Document,
        DocumentRevision,
        DocumentChunk,
        File,
        Review,
        ReviewDocument,
        ReviewColumn,
        Cell,
        Playbook,
        Position,
        PlaybookRun,
        RunPosition,
        Finding,
        FindingEvent,
        Source,
        SourceItem,
    ]
    with unscoped():
        counts = {m.__name__: m.objects.filter(tenant=tenant).count() for m in models}
        counts["deleted_documents"] = Document.objects.filter(
            tenant=tenant, is_deleted=True
        ).count()
    return counts


@dataclass
class World:
    """Tenant A's objects every identity is tried against, and B's own."""

    tenant_a: object
    tenant_b: object
    collection_a: object
    document_a: Document
    chunk_a: DocumentChunk
    session_a: object
    answer_a: object
    citation_a: object
    review_a: object
    cell_a: object
    playbook_a: object
    run_a: object
    finding_a: object
    document_b: Document
    session_b: object
    collection_b: object
    source_a: object = None  # a database source (issue 29)


@pytest.fixture
def world(tenant_a, tenant_b, alice, charlie) -> World:
    from accounts.services import collection_get_or_create
    from chat.services import message_ask, session_create
    from citations.services import message_citations_verify
    from docuiq.testing.factories import make_document
    from tabular.services import ColumnSpec, review_create

    document_a = make_document(tenant_a, CONTRACT, title="Master Services Agreement")
    document_b = make_document(tenant_b, B_SECRET, title="Falcon Ledger")
    collection_a = collection_get_or_create(tenant=tenant_a, name="Deals")
    collection_b = collection_get_or_create(tenant=tenant_b, name="Ledgers")
    with tenant_scope(tenant_a):
        document_a.collections.add(collection_a)
        session_a = session_create(tenant=tenant_a, user=alice, title="Delivery terms")
        answer_a = message_ask(
            session=session_a, question="When shall the Supplier deliver the goods?"
        )
        message_citations_verify(message_id=answer_a.pk)
        citation_a = answer_a.citations.first()
        review_a = review_create(
            tenant=tenant_a,
            name="Contract terms",
            document_ids=[document_a.pk],
            columns=[
                ColumnSpec(name="Delivery", question="When must goods be delivered?")
            ],
            user=alice,
        )
        cell_a = review_a.cells.first()
        playbook_a, run_a, finding_a = _playbook_world(tenant_a, document_a, alice)
        source_a = _source_world(tenant_a, alice)
    with tenant_scope(tenant_b):
        document_b.collections.add(collection_b)
        session_b = session_create(tenant=tenant_b, user=charlie, title="Ledger")
    assert citation_a is not None, "the extractive responder should cite the contract"
    return World(
        tenant_a=tenant_a,
        tenant_b=tenant_b,
        collection_a=collection_a,
        document_a=document_a,
        chunk_a=first_chunk(document_a),
        session_a=session_a,
        answer_a=answer_a,
        citation_a=citation_a,
        review_a=review_a,
        cell_a=cell_a,
        playbook_a=playbook_a,
        run_a=run_a,
        finding_a=finding_a,
        document_b=document_b,
        session_b=session_b,
        collection_b=collection_b,
        source_a=source_a,
    )


def _source_world(tenant, user):
    """A database source whose file is outside the allowed folders: a sync
    fails at once (blocked_path) without touching any network."""
    from ingest.models import Source
    from ingest.secrets import secret_encrypt

    return Source.objects.create(
        tenant=tenant,
        kind=Source.Kind.DB,
        name="Matrix CRM",
        config={"table": "contracts", "key_column": "id", "text_columns": ["body"]},
        secret=secret_encrypt("sqlite:////nonexistent/crm.db"),
        connection_display="sqlite:////nonexistent/crm.db",
        status=Source.Status.READY,
        created_by=user,
    )


def random_id() -> str:
    return str(uuid.uuid4())


def _playbook_world(tenant, document, user):
    """A one-position playbook run on the contract, its one finding computed
    (the run is executed here, offline, so the finding exists)."""
    from playbook.models import Finding
    from playbook.runs import findings_sync, run_create
    from playbook.schema import spec_from_data
    from playbook.services import playbook_create
    from tabular.executor import review_run

    playbook = playbook_create(
        tenant=tenant,
        spec=spec_from_data(
            {
                "name": "Delivery terms",
                "positions": [
                    {
                        "title": "Delivery",
                        "question": "When must the Supplier deliver the goods?",
                        "type": "duration",
                        "standard": "Within 30 days",
                        "rule": "at most 30 days",
                    }
                ],
            }
        ),
        user=user,
    )
    run = run_create(
        tenant=tenant,
        playbook=playbook,
        document_ids=[document.pk],
        user=user,
        start=False,
    )
    review_run(review_id=run.review_id, concurrency=1)
    findings_sync(run)
    return playbook, run, Finding.objects.get(run=run)
