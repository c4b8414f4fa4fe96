"""Cell retrieval: query expansion from the column's name, question and
description, phrase and proximity ranking, and the fallback to the first chunks."""

from __future__ import annotations

import pytest

from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from ingest.search import rerank, search_chunks
from tabular import retrieval
from tabular.retrieval import build_query, document_stats, score_chunk

FILLER = (
    "The parties shall cooperate in good faith on the business plan, and each party "
    "shall keep records of its activities under this agreement. "
)
NON_COMPETE = (
    "During the Term, the Distributor shall not, directly or indirectly, engage in any "
    "business that competes with the Products in the Territory."
)


def _stems(text):
    return rerank._stems(text)


def test_the_query_is_expanded_from_name_question_and_description():
    query = build_query(
        name="Non-compete",
        question="Is a party restricted from operating in a sector?",
        description="restrictions on competing",
    )
    assert "non-compete" in query.expanded_with or "compete" in query.expanded_with
    assert "engage" in query.fts_expansion  # the contract's wording
    assert query.weights[_stems("compete")[0]] == rerank.W_NAME
    assert ("directly", "indirectly") in query.phrases or any(
        "directly" in p for p in query.phrases
    )


def test_identity_questions_prefer_the_documents_head():
    assert build_query(name="Parties", question="Who signed?").prefers_head
    assert build_query(
        name="Document name", question="The name of the contract"
    ).prefers_head
    assert not build_query(
        name="Governing law", question="Which law governs?"
    ).prefers_head


def test_phrase_and_proximity_rank_the_clause_above_scattered_words():
    query = build_query(
        name="Governing law", question="Which law governs the agreement?"
    )
    clause = "This Agreement is governed by the laws of England and Wales."
    scattered = (
        "The law firm reviewed the schedule. Payment terms are set out in Annex 2. "
        "Nothing here governs pricing, which the parties agree each year."
    )
    stats = document_stats([clause, scattered, FILLER, FILLER])
    assert score_chunk(_stems(clause), query, stats) > score_chunk(
        _stems(scattered), query, stats
    )


def test_a_date_column_prefers_passages_with_dates():
    query = build_query(name="Expiry", question="When does the term end?", kind="date")
    with_date = "The term ends on 28 February 2027."
    without = "The term ends when the parties so agree."
    stats = document_stats([with_date, without])
    assert score_chunk(_stems(with_date), query, stats, text=with_date) > score_chunk(
        _stems(without), query, stats, text=without
    )


@pytest.mark.django_db
def test_expansion_finds_a_clause_the_question_does_not_name(tenant_a):
    """Seed 002's known gap: the question's words are not the contract's."""
    pages = [
        FILLER * 4,
        FILLER * 3 + NON_COMPETE,
        FILLER * 4,
        FILLER * 4,
        FILLER * 4,
        FILLER * 4,
    ]
    document = make_document(
        tenant_a, pages, title="Distribution agreement", target_chars=600
    )
    question = "Is there a restriction on the ability of a party to operate in a certain sector?"
    query = build_query(name="Non-Compete", question=question)
    with tenant_scope(tenant_a):
        plain = [
            h.chunk.content
            for h in search_chunks(tenant_a, question, document=document, k=4)
        ]
        got = retrieval.retrieve(tenant_a, document, query)
    assert not any(
        "competes" in text for text in plain
    )  # full-text search alone misses
    assert "competes" in got.chunks[0].content and not got.fallback


@pytest.mark.django_db
def test_no_match_falls_back_to_the_first_chunks(tenant_a):
    document = make_document(tenant_a, [FILLER * 12], title="Plain", target_chars=400)
    query = build_query(name="Escrow", question="Is source code deposited in escrow?")
    with tenant_scope(tenant_a):
        got = retrieval.retrieve(tenant_a, document, query)
    assert got.fallback
    assert [c.chunk_index for c in got.chunks] == [0, 1, 2, 3]
