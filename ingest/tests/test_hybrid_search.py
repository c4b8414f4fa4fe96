"""Dense and hybrid search: vectors made at ingestion, searched exactly,
per tenant and per scope, and full-text results whenever the embedder fails.

Documents go through the real ingestion (upload -> task -> chunks -> vectors);
the embedding server is the scripted one over real HTTP, whose vectors are
bags of words with synonyms declared by the test (`same_meaning`), so a test
can make dense search find what full text cannot.
"""

from __future__ import annotations

import io
import itertools
import logging

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from accounts.scoping import tenant_scope
from accounts.services import collection_get_or_create
from docuiq.testing.llm_server import EmbeddingReply, ScriptedLLMServer
from ingest.embedding import embed_revision, vector_bytes
from ingest.models import ChunkEmbedding, Document
from ingest.search import search_chunks
from ingest.services import Upload, document_process, document_upload

pytestmark = pytest.mark.django_db

CANCEL = "The Licensee may cancel the contract whenever it likes."
PAYMENT = "The Buyer shall pay each invoice within thirty days of receipt."
WEATHER = "Gulls circled the harbour while the tide went out."
QUESTION = "Can the agreement be terminated?"  # shares no word with CANCEL


@pytest.fixture
def server(settings):
    """The scripted server as the configured embedder ("terminated" and
    "cancel" embed alike, "agreement" and "contract" too)."""
    with ScriptedLLMServer() as s:
        s.same_meaning("cancel", "terminated").same_meaning("contract", "agreement")
        config = s.embeddings_config()
        settings.EMBEDDINGS = "server"
        settings.EMBEDDINGS_BASE_URL = config.base_url
        settings.EMBEDDINGS_MODEL = config.model
        settings.EMBEDDINGS_DIM = config.dim
        settings.EMBEDDINGS_TIMEOUT_S = 0.5
        settings.EMBEDDINGS_MAX_RETRIES = 0
        settings.EMBEDDINGS_COOLDOWN_S = 0
        yield s


MODEL = "scripted-embedder-64"


@pytest.fixture
def upload(django_capture_on_commit_callbacks):
    """Upload as a request would, running the on-commit work (the task) too."""

    def run(tenant, text: str, name: str) -> Document:
        with django_capture_on_commit_callbacks(execute=True):
            document = document_upload(
                tenant=tenant,
                upload=Upload(filename=f"{name}.txt", stream=io.BytesIO(text.encode())),
            )
        with tenant_scope(tenant):
            return Document.objects.select_related("current_revision").get(
                pk=document.pk
            )

    return run


def vectors(tenant, document=None) -> int:
    with tenant_scope(tenant):
        rows = ChunkEmbedding.objects.all()
        if document is not None:
            rows = rows.filter(document=document)
        return rows.count()


def titles(hits) -> list[str]:
    return [h.chunk.document.title for h in hits]


# ---------------------------------------------------------------- ingestion


def test_ingestion_stores_a_vector_per_chunk_with_its_model(tenant_a, server, upload):
    document = upload(tenant_a, CANCEL, "cancel")
    with tenant_scope(tenant_a):
        row = ChunkEmbedding.objects.get(document=document)
        chunk = document.current_revision.chunks.get()
    assert (row.chunk_id, row.model, row.dim) == (chunk.pk, MODEL, 64)
    vector = np.frombuffer(bytes(row.vector), dtype="<f4")
    assert vector.shape == (64,) and np.isclose(np.linalg.norm(vector), 1.0)
    assert server.embedding_requests[0].body["input"] == [chunk.content]


def test_the_offline_embedder_is_the_default(tenant_a, upload):
    document = upload(tenant_a, CANCEL, "cancel")
    with tenant_scope(tenant_a):
        row = ChunkEmbedding.objects.get(document=document)
    assert (row.model, row.dim) == ("wordllama-l2supercat-256", 256)


def test_embeddings_off_stores_none_and_search_is_full_text(tenant_a, settings, upload):
    settings.EMBEDDINGS = "off"
    upload(tenant_a, PAYMENT, "payment")
    assert vectors(tenant_a) == 0
    hits = search_chunks(tenant_a, "When is the invoice paid?", mode="hybrid")
    assert titles(hits) == ["payment"] and hits[0].mode == "fts"
    assert hits[0].dense_score is None


FAILURES = {
    "down": EmbeddingReply.error(503),
    "slow": EmbeddingReply.ok().with_delay(2.0),
    "wrong-dimension": EmbeddingReply.wrong_dim(),
    "garbage": EmbeddingReply.garbage(),
    "nan": EmbeddingReply.nan(),
    "fewer-vectors": EmbeddingReply.fewer(),
}


@pytest.mark.parametrize("failure", FAILURES.values(), ids=FAILURES.keys())
def test_a_failing_embedding_server_never_fails_a_document(
    tenant_a, server, caplog, failure, upload
):
    server.script_embeddings(failure)
    with caplog.at_level(logging.WARNING, logger="ingest.embedding"):
        document = upload(tenant_a, PAYMENT + "\n\n" + CANCEL, "contract")
    assert document.status == Document.Status.READY
    assert vectors(tenant_a) == 0
    assert f"Document {document.pk}: no vectors for dense search" in caplog.text
    assert "manage.py reembed" in caplog.text
    # Full text still finds it.
    assert titles(search_chunks(tenant_a, "invoice", mode="fts")) == ["contract"]


def test_a_server_that_cannot_be_reached_never_fails_a_document(
    tenant_a, settings, caplog, upload
):
    settings.EMBEDDINGS = "server"
    settings.EMBEDDINGS_BASE_URL = "http://127.0.0.1:9/v1"  # discard port: refused
    settings.EMBEDDINGS_MODEL = "m"
    settings.EMBEDDINGS_DIM = 8
    settings.EMBEDDINGS_MAX_RETRIES = 0
    with caplog.at_level(logging.WARNING):
        document = upload(tenant_a, PAYMENT, "payment")
        hits = search_chunks(tenant_a, "invoice payment", mode="hybrid")
    assert document.status == Document.Status.READY
    assert titles(hits) == ["payment"] and hits[0].mode == "fts"
    assert "Could not reach" in caplog.text


def test_a_redelivered_task_fills_vectors_a_lost_worker_never_stored(
    tenant_a, server, upload
):
    server.script_embeddings(EmbeddingReply.error(503))
    document = upload(tenant_a, CANCEL, "cancel")
    assert vectors(tenant_a) == 0
    document_process(document_id=document.pk)  # the broker delivers it again
    assert vectors(tenant_a) == 1


# ---------------------------------------------------------------- searching


def test_dense_search_finds_what_full_text_cannot(tenant_a, server, upload):
    upload(tenant_a, CANCEL, "cancel")
    upload(tenant_a, WEATHER, "weather")
    assert search_chunks(tenant_a, QUESTION, mode="fts") == []
    hits = search_chunks(tenant_a, QUESTION, mode="dense", k=1)
    assert titles(hits) == ["cancel"]
    assert hits[0].mode == "dense" and hits[0].dense_rank == 1
    assert hits[0].lexical_rank is None
    assert 0.2 < hits[0].dense_score <= 1.0 and hits[0].score == hits[0].dense_score


def test_hybrid_keeps_the_full_text_match_first_and_reports_both_signals(
    tenant_a, server, upload
):
    upload(tenant_a, PAYMENT, "payment")
    upload(tenant_a, CANCEL, "cancel")
    hits = search_chunks(tenant_a, "When is the invoice paid?", mode="hybrid")
    assert titles(hits)[0] == "payment"
    first = hits[0]
    assert first.mode == "hybrid" and first.lexical_rank == 1
    assert first.lexical_score > 0 and first.dense_score is not None
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))


def test_full_text_mode_still_reports_each_hits_cosine(tenant_a, server, upload):
    upload(tenant_a, PAYMENT, "payment")
    hit = search_chunks(tenant_a, "invoice", mode="fts")[0]
    assert hit.mode == "fts" and hit.dense_rank is None
    assert hit.dense_score is not None and -1.0 <= hit.dense_score <= 1.0


def test_hybrid_is_the_default_mode(tenant_a, server, settings, upload):
    upload(tenant_a, CANCEL, "cancel")
    assert settings.SEARCH_MODE == "hybrid"
    assert titles(search_chunks(tenant_a, QUESTION)) == ["cancel"]


def test_an_unknown_mode_is_refused(tenant_a):
    with pytest.raises(ValueError, match="not one of fts, dense, hybrid"):
        search_chunks(tenant_a, "invoice", mode="semantic")


@pytest.mark.parametrize("failure", FAILURES.values(), ids=FAILURES.keys())
def test_a_failing_embedding_server_gives_full_text_results(
    tenant_a, server, caplog, failure, upload
):
    upload(tenant_a, PAYMENT, "payment")
    upload(tenant_a, CANCEL, "cancel")
    server.script_embeddings(failure)
    with caplog.at_level(logging.WARNING, logger="ingest.search._api"):
        hits = search_chunks(tenant_a, "invoice thirty days", mode="hybrid")
    assert titles(hits) == ["payment"]
    assert hits[0].mode == "fts" and hits[0].dense_score is None
    assert "Dense search unavailable, full-text results only" in caplog.text


def test_an_outage_is_logged_once_a_minute_not_at_every_search(
    tenant_a, server, upload, caplog
):
    upload(tenant_a, PAYMENT, "payment")
    server.script_embeddings(*[EmbeddingReply.error(503)] * 3)
    with caplog.at_level(logging.WARNING, logger="ingest.search._api"):
        for _ in range(3):
            assert titles(search_chunks(tenant_a, "invoice", mode="hybrid")) == [
                "payment"
            ]
    assert caplog.text.count("Dense search unavailable") == 1


def test_another_tenants_nearest_vector_is_never_returned(
    tenant_a, tenant_b, server, upload
):
    upload(tenant_b, CANCEL, "b-cancel")
    upload(tenant_a, WEATHER, "a-weather")
    for _ in range(2):  # cold, then from the loaded cache
        assert titles(search_chunks(tenant_a, QUESTION, mode="dense")) == ["a-weather"]
    assert titles(search_chunks(tenant_b, QUESTION, mode="dense")) == ["b-cancel"]


@pytest.mark.parametrize("direct_read", [20, 0], ids=["direct-reads", "from-the-cache"])
def test_scoped_dense_search_is_exact_with_or_without_the_cache(
    tenant_a, server, upload, monkeypatch, direct_read
):
    from ingest.search import _vectors

    monkeypatch.setattr(_vectors, "DIRECT_READ_DOCUMENTS", direct_read)
    near = upload(tenant_a, CANCEL, "near")
    far = upload(tenant_a, WEATHER, "far")
    collection = collection_get_or_create(tenant=tenant_a, name="Far only")
    with tenant_scope(tenant_a):
        far.collections.add(collection)
    for _ in range(2):  # cold, then with the cache the tenant-wide search loaded
        assert titles(
            search_chunks(tenant_a, QUESTION, document=far, mode="dense")
        ) == ["far"]
        assert titles(
            search_chunks(tenant_a, QUESTION, documents=[far], mode="dense")
        ) == ["far"]
        assert titles(
            search_chunks(tenant_a, QUESTION, collection=collection, mode="dense")
        ) == ["far"]
        assert titles(search_chunks(tenant_a, QUESTION, mode="dense", k=1)) == [
            near.title
        ]


def test_the_cache_sees_a_new_revisions_chunks_and_drops_the_old(
    tenant_a, server, upload
):
    upload(tenant_a, PAYMENT, "deal")
    upload(tenant_a, WEATHER, "other")
    assert titles(search_chunks(tenant_a, QUESTION, mode="dense", k=1)) != ["deal"]
    document = upload(tenant_a, CANCEL, "deal")  # same name: a new revision
    assert document.current_revision.number == 2
    hits = search_chunks(tenant_a, QUESTION, mode="dense", k=5)
    assert titles(hits)[0] == "deal"
    assert all(h.chunk.revision_id == document.current_revision_id for h in hits[:1])
    assert "invoice" not in " ".join(h.chunk.content for h in hits)
    # The old revision's vectors are gone; the new one's are there.
    with tenant_scope(tenant_a):
        kept = ChunkEmbedding.objects.filter(document=document)
        assert {e.chunk.revision_id for e in kept} == {document.current_revision_id}


def test_a_deleted_document_is_not_returned_from_the_cache(tenant_a, server, upload):
    gone = upload(tenant_a, CANCEL, "gone")
    upload(tenant_a, WEATHER, "kept")
    assert titles(search_chunks(tenant_a, QUESTION, mode="dense", k=1)) == ["gone"]
    with tenant_scope(tenant_a):
        Document.objects.filter(pk=gone.pk).update(is_deleted=True)
    assert titles(search_chunks(tenant_a, QUESTION, mode="dense")) == ["kept"]


def test_vectors_of_another_model_are_never_compared(tenant_a, server, upload):
    document = upload(tenant_a, WEATHER, "weather")
    question = server.embeddings_config()
    from llm.embeddings import ServerEmbedder

    query = ServerEmbedder(question).embed([QUESTION])[0]
    with tenant_scope(tenant_a):
        chunk = document.current_revision.chunks.get()
        ChunkEmbedding.objects.filter(chunk=chunk).delete()
        # The question's own vector, stored under another model's name.
        ChunkEmbedding.objects.create(
            tenant=tenant_a,
            document=document,
            chunk=chunk,
            model="another-model-64",
            dim=64,
            vector=vector_bytes(query),
        )
    assert search_chunks(tenant_a, QUESTION, mode="dense") == []
    hit = search_chunks(tenant_a, "gulls harbour", mode="hybrid")[0]
    assert hit.dense_score is None  # no vector of the configured model


# ---------------------------------------------------------------- reembed


def test_reembed_fills_missing_vectors_and_removes_other_models(
    tenant_a, tenant_b, server, settings, upload
):
    settings.EMBEDDINGS = "off"
    upload(tenant_a, CANCEL, "cancel")
    upload(tenant_b, WEATHER, "weather")
    settings.EMBEDDINGS = "wordllama"
    call_command("reembed", "--tenant", "tenant-a", stdout=io.StringIO())
    assert vectors(tenant_a) == 1 and vectors(tenant_b) == 0
    settings.EMBEDDINGS = "server"  # a model change
    out = io.StringIO()
    call_command("reembed", stdout=out, stderr=io.StringIO())
    assert "tenant-a: 1 vectors computed, 1 of other models" in out.getvalue()
    assert "tenant-b: 1 vectors computed, 0 of other models" in out.getvalue()
    with tenant_scope(tenant_a):
        assert set(ChunkEmbedding.objects.values_list("model", flat=True)) == {MODEL}
    assert titles(search_chunks(tenant_a, QUESTION, mode="dense")) == ["cancel"]
    # Nothing missing: nothing to do, unless --all.
    out = io.StringIO()
    call_command("reembed", "--tenant", "tenant-a", stdout=out, stderr=io.StringIO())
    assert "tenant-a: 0 vectors computed" in out.getvalue()
    before = len(server.embedding_requests)
    call_command(
        "reembed", "--tenant", "tenant-a", "--all", stdout=out, stderr=io.StringIO()
    )
    assert len(server.embedding_requests) == before + 1


def test_reembed_reports_a_failing_server_and_keeps_what_it_stored(
    tenant_a, server, upload
):
    server.script_embeddings(EmbeddingReply.error(503))
    upload(tenant_a, CANCEL, "cancel")
    server.script_embeddings(EmbeddingReply.wrong_dim())
    with pytest.raises(CommandError, match=r"65-dimension vectors.*run reembed again"):
        call_command("reembed", stdout=io.StringIO(), stderr=io.StringIO())
    call_command("reembed", stdout=io.StringIO(), stderr=io.StringIO())
    assert vectors(tenant_a) == 1


def test_reembed_refuses_an_unknown_tenant_or_embeddings_off(settings):
    with pytest.raises(CommandError, match="No tenant 'nope'"):
        call_command("reembed", "--tenant", "nope")
    settings.EMBEDDINGS = "off"
    with pytest.raises(CommandError, match="Embeddings are off"):
        call_command("reembed")


def test_embed_revision_is_idempotent(tenant_a, server, upload):
    document = upload(tenant_a, CANCEL, "cancel")
    calls = len(server.embedding_requests)
    assert embed_revision(document.current_revision) == 0
    assert len(server.embedding_requests) == calls


# ---------------------------------------------------------------- PostgreSQL


@pytest.mark.pg
def test_postgres_reads_vectors_as_bytes_through_a_binary_cursor(
    tenant_a, server, upload
):
    from ingest.search import _vectors

    document = upload(tenant_a, CANCEL, "cancel")
    rows = _vectors._rows(
        "SELECT vector FROM ingest_chunkembedding WHERE document_id = %s",
        [document.pk],
    )
    with tenant_scope(tenant_a):
        stored = ChunkEmbedding.objects.get(document=document)
    assert bytes(rows[0][0]) == bytes(stored.vector)
    assert len(rows[0][0]) == 64 * 4


def test_equal_cosines_come_in_the_order_the_chunks_were_stored(
    tenant_a, server, upload
):
    """Five documents writing the same words in other orders embed alike
    (the scripted embedder reads a bag of words; identical files would be
    one document): the dense hits come in the order the documents were
    stored, whichever order they are asked in, so a re-run shows the
    sources in the same order."""
    words = CANCEL.rstrip(".").split()
    copies = [
        upload(tenant_a, " ".join(words[n:] + words[:n]) + ".", f"copy{n}")
        for n in range(5)
    ]
    upload(tenant_a, WEATHER, "weather")
    for asked in (copies, copies[::-1], None):
        hits = search_chunks(tenant_a, QUESTION, documents=asked, mode="dense", k=5)
        assert len({h.dense_score for h in hits}) == 1
        assert titles(hits) == [f"copy{n}" for n in range(5)]
