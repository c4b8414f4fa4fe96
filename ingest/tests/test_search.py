"""search_chunks behaves the same on SQLite FTS5 and PostgreSQL tsvector."""

from __future__ import annotations

import pytest

from accounts.scoping import tenant_scope
from accounts.services import collection_get_or_create
from docuiq.testing.factories import make_document
from ingest.models import Document
from ingest.search import query_terms, search_chunks

pytestmark = pytest.mark.django_db

PAYMENT = (
    "Payment terms. The Buyer shall pay each invoice within thirty days of receipt."
)
TERMINATION = (
    "Termination. Either party may terminate this Agreement for convenience on notice."
)
WEATHER = "The weather in the harbour was mild, with light winds from the west."


def _titles(hits):
    return [h.chunk.document.title for h in hits]


def test_a_question_finds_the_chunk_that_answers_it(tenant_a):
    make_document(tenant_a, PAYMENT, title="Payment")
    make_document(tenant_a, TERMINATION, title="Termination")
    make_document(tenant_a, WEATHER, title="Weather")
    hits = search_chunks(tenant_a, "When must the buyer pay invoices?")
    assert _titles(hits)[0] == "Payment"
    assert all(h.score > 0 for h in hits)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_stemming_matches_other_word_forms(tenant_a):
    make_document(tenant_a, TERMINATION, title="Termination")
    assert _titles(search_chunks(tenant_a, "terminating the agreement")) == [
        "Termination"
    ]


def test_another_tenants_perfect_match_is_never_returned(tenant_a, tenant_b):
    """LLM-05: retrieval isolation."""
    make_document(tenant_b, PAYMENT, title="B payment")
    make_document(tenant_a, WEATHER, title="A weather")
    assert search_chunks(tenant_a, "buyer pay invoice thirty days") == []
    assert _titles(search_chunks(tenant_b, "buyer pay invoice")) == ["B payment"]


def test_deleted_and_unready_documents_are_not_searched(tenant_a):
    deleted = make_document(tenant_a, PAYMENT, title="Deleted")
    failed = make_document(tenant_a, PAYMENT + " Again.", title="Failed")
    with tenant_scope(tenant_a):
        Document.objects.filter(pk=deleted.pk).update(is_deleted=True)
        Document.objects.filter(pk=failed.pk).update(status=Document.Status.FAILED)
    assert search_chunks(tenant_a, "invoice") == []


def test_search_within_one_document_or_a_collection(tenant_a):
    one = make_document(tenant_a, PAYMENT, title="One")
    two = make_document(tenant_a, PAYMENT, title="Two")
    assert _titles(search_chunks(tenant_a, "invoice", document=two)) == ["Two"]
    collection = collection_get_or_create(tenant=tenant_a, name="Deals")
    with tenant_scope(tenant_a):
        one.collections.add(collection)
    assert _titles(search_chunks(tenant_a, "invoice", collection=collection)) == ["One"]


def test_only_the_current_revision_is_searched(tenant_a):
    from ingest.models import DocumentRevision

    old = make_document(tenant_a, "Obsolete clause about widgets.", title="Doc")
    newer = make_document(tenant_a, "Fresh clause about gadgets.", title="Doc v2")
    with tenant_scope(tenant_a):
        # Point the first document at the second one's text, as a new revision would.
        revision = DocumentRevision.objects.get(document=newer)
        Document.objects.filter(pk=newer.pk).update(is_deleted=True)
        DocumentRevision.objects.filter(pk=revision.pk).update(document=old, number=2)
        from ingest.models import DocumentChunk

        DocumentChunk.objects.filter(revision=revision).update(document=old)
        Document.objects.filter(pk=old.pk).update(current_revision=revision)
    assert search_chunks(tenant_a, "widgets") == []
    assert _titles(search_chunks(tenant_a, "gadgets")) == ["Doc"]


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "AND OR NOT",
        "* ( ) : ^",
        "NEAR(a b)",
        "col:value",
        "'; DROP TABLE files; --",
        "",
        "   ",
        "the of and",
    ],
)
def test_queries_with_syntax_characters_never_raise(tenant_a, query):
    make_document(tenant_a, PAYMENT, title="Payment")
    assert isinstance(search_chunks(tenant_a, query), list)


def test_query_terms_drop_stopwords_and_keep_order():
    assert query_terms("What is the notice period for termination?") == [
        "notice",
        "period",
        "termination",
    ]
    assert query_terms("Who's liable? Who’s liable!") == ["liable"]


def test_k_limits_the_hits(tenant_a):
    for i in range(6):
        make_document(
            tenant_a, f"Invoice number {i} is payable in thirty days.", title=f"D{i}"
        )
    assert len(search_chunks(tenant_a, "invoice payable", k=4)) == 4


def test_written_in_knows_a_words_other_forms_and_nothing_else(tenant_a):
    """What the documents write, in the forms the light stemmer leaves apart
    ("assignable" / "assign", "commitment" / "commit"); a word written in no
    document is not, though its letters start another ("France" and
    "franchise"); without documents everything counts as written."""
    from ingest.search.within import written_in
    from lib.stemming import terms

    document = make_document(
        tenant_a,
        "Neither party may assign this Agreement. The minimum commitment is "
        "five hundred units. The franchise fee is due monthly.",
        title="Supply",
    )
    with tenant_scope(tenant_a):
        written = written_in([document])
        (assignable,) = terms("assignable")
        (commit,) = terms("commit")
        (france,) = terms("France")
        assert written(assignable) and written(commit)
        assert not written(france)
        assert written_in([])(france)


def test_equal_scores_come_in_the_order_the_chunks_were_stored(tenant_a):
    """The same clause in several documents (a contract and its copy) ranks
    alike in each: the hits come in the order the documents were stored,
    whatever order they are asked in, never in the order of their random
    ids (a re-ingest then reordered the sources a reader sees)."""
    copies = [make_document(tenant_a, PAYMENT, title=f"Copy {n}") for n in range(6)]
    for n in range(6):
        make_document(tenant_a, f"{WEATHER} Day {n}.", title=f"Weather {n}")
    asked = copies[3:] + copies[:3]
    hits = search_chunks(
        tenant_a, "buyer pay invoice", documents=asked, k=6, mode="fts"
    )
    assert len({h.score for h in hits}) == 1
    assert _titles(hits) == [f"Copy {n}" for n in range(6)]
