"""The executor against real demo documents and the scripted model server
(real HTTP through the openai SDK): every cell answered or failed alone."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.db.models import F

from accounts.scoping import tenant_scope
from chat.models import Message
from citations.models import CitationVerification, MessageCitation, UnsourcedCitation
from docuiq.testing.llm_server import Reply
from ingest.models import Document
from ingest.services import document_soft_delete
from tabular import executor
from tabular.executor import cost_usd, review_run
from tabular.models import Cell, Review, ReviewDocument
from tabular.services import ColumnSpec, cell_rerun, review_cancel, review_create
from tabular.tests.conftest import (
    COLUMNS,
    cell_answer,
    every_question,
    passages_of,
    read_reply,
    shared_database,
)

pytestmark = pytest.mark.django_db


def _review(tenant, documents, columns=COLUMNS, **kw):
    return review_create(
        tenant=tenant,
        name="Q2 review",
        document_ids=[d.pk for d in documents],
        columns=columns,
        **kw,
    )


def _cells(review):
    with tenant_scope(review.tenant):
        return list(
            Cell.objects.filter(review=review)
            .select_related("row", "column", "citation")
            .order_by("row__order", "column__order")
        )


def test_a_run_over_demo_documents_answers_every_cell_with_a_verified_citation(
    tenant_a, demo_docs, llm
):
    llm.respond_with(every_question)
    review = _review(tenant_a, demo_docs)
    outcome = review_run(review_id=review.pk, concurrency=1)

    assert outcome.status == Review.Status.COMPLETED
    cells = _cells(review)
    assert len(cells) == len(demo_docs) * len(COLUMNS)
    assert all(c.status == Cell.Status.DONE and c.value for c in cells)
    # One structured call per document: its columns asked together, the
    # document read whole (it fits the context).
    assert len(llm.chat_requests) == len(demo_docs)
    first = llm.chat_requests[0]
    assert first.response_format["type"] == "json_schema"
    assert "Who are the parties" in first.user_prompt
    assert "When must invoices be paid" in first.user_prompt
    assert "You have the whole document" in first.user_prompt
    with tenant_scope(tenant_a):
        for cell in cells:
            citation = cell.citation
            assert citation is not None and citation.verified, cell.error
            assert citation.execution_context_type == "tabular"
            assert citation.execution_context_id == str(review.pk)
            assert citation.document_id == cell.row.document_uid
            revision = Document.objects.get(pk=cell.row.document_uid).current_revision
            text = revision.normalized_content
            assert (
                text[citation.source_offset_start : citation.source_offset_end]
                == citation.source_text
            )
            assert citation.source_page == revision.page_for_offset(
                citation.source_offset_start
            )
            assert cell.cited_chunk_ids and cell.cited_chunk_ids[0] == str(
                citation.chunk_id
            )
            assert (
                cell.message.role == Message.Role.CELL
                and cell.message.session_id is None
            )
            read = cell.searched["read"]
            assert read["whole"] and read["sections_read"] == read["sections_total"]
            assert cell.message.sources.count() == len(cell.retrieved_chunk_ids)
            assert len(cell.retrieved_chunk_ids) == read["sections_total"]
        assert CitationVerification.objects.filter(
            citation__in=[c.citation for c in cells]
        ).count() == len(cells)
        review.refresh_from_db()
    # Cost from the server's reported usage and the price table (1 and 2 USD per 1M).
    prompt = sum(c.prompt_tokens for c in cells)
    completion = sum(c.completion_tokens for c in cells)
    assert prompt > 0 and review.prompt_tokens == prompt
    assert review.cost_actual_usd == (
        Decimal(prompt) + 2 * Decimal(completion)
    ) / Decimal(10**6)
    assert review.results["counts"] == {
        "total": len(cells),
        "done": len(cells),
        "failed": 0,
    }
    assert [d["title"] for d in review.results["documents"]] == [
        d.title for d in demo_docs
    ]


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply.error(503, "overloaded"), "HTTP 503"),
        (Reply.answer('{"value": "x"}').with_delay(3.0), "did not answer within"),
        (Reply.garbage(), "not valid JSON"),
        (Reply.answer("Sure! The parties are Acme and Beta."), "not valid JSON"),
        (
            Reply.object({"value": 42, "confidence": "sure"}),
            "does not match the expected format",
        ),
        (Reply.drop(), "Could not reach"),
    ],
    ids=[
        "http-503",
        "timeout",
        "garbage-body",
        "prose-not-json",
        "schema-invalid",
        "dropped",
    ],
)
def test_a_cell_whose_model_call_fails_fails_alone(
    tenant_a, demo_docs, llm, reply, error
):
    """A failed call costs the cells it asked (the first document's row
    call: its three columns), nothing else; a malformed row reply is asked
    again column by column, so only a dead call fails the row."""
    llm.script(reply)  # the first call only; the rest answer normally
    llm.respond_with(every_question)
    review = _review(tenant_a, demo_docs)
    outcome = review_run(review_id=review.pk, concurrency=1)

    assert outcome.status == Review.Status.COMPLETED
    cells = _cells(review)
    failed = [c for c in cells if c.status == Cell.Status.FAILED]
    malformed = error in ("not valid JSON", "does not match the expected format")
    assert failed == ([] if malformed else cells[: len(COLUMNS)])
    for cell in failed:
        assert cell.confidence == Cell.Confidence.FAILED
        assert error in cell.error
        assert cell.citation is None and cell.message is None
    assert all(
        c.status == Cell.Status.DONE and c.value for c in cells if c not in failed
    )


def test_every_cell_has_a_value_or_a_failure_reason(tenant_a, demo_docs, llm):
    llm.script(
        Reply.error(500),  # the first document's row call: its cells fail
        Reply.garbage(),  # the second's: asked again column by column
        read_reply(cell_answer("", confidence="low", justification="not stated")),
    )
    review = _review(tenant_a, demo_docs)
    review_run(review_id=review.pk, concurrency=1)
    for cell in _cells(review):
        assert cell.status in Cell.FINISHED
        assert (
            (cell.status == Cell.Status.DONE and cell.value)
            or cell.is_not_found
            or (cell.status == Cell.Status.FAILED and cell.error)
        ), cell
    # A model that finds nothing says so: the cell is "not found", not failed,
    # and keeps why and what was read.
    empty = _cells(review)[3]
    assert empty.status == Cell.Status.DONE and empty.is_not_found
    assert empty.value == "" and empty.citation is None
    assert "not stated" in empty.justification
    assert empty.searched["read"]["whole"]


def test_deleted_and_missing_documents_are_reported_and_their_rows_kept(
    tenant_a, demo_docs, llm
):
    ghost = uuid.uuid4()
    review = review_create(
        tenant=tenant_a,
        name="r",
        document_ids=[demo_docs[0].pk, ghost, demo_docs[1].pk],
        columns=COLUMNS,
    )
    with tenant_scope(tenant_a):
        document_soft_delete(document=demo_docs[1])
    review_run(review_id=review.pk, concurrency=1)

    with tenant_scope(tenant_a):
        rows = list(ReviewDocument.objects.filter(review=review).order_by("order"))
    assert [r.state for r in rows] == ["ready", "missing", "deleted"]
    assert rows[2].title == demo_docs[1].title  # still named
    cells = _cells(review)
    by_row = {r.pk: [c for c in cells if c.row_id == r.pk] for r in rows}
    assert all(c.status == Cell.Status.DONE for c in by_row[rows[0].pk])
    assert all(
        c.status == Cell.Status.FAILED and "No such document" in c.error
        for c in by_row[rows[1].pk]
    )
    assert all(
        c.status == Cell.Status.FAILED and "deleted" in c.error
        for c in by_row[rows[2].pk]
    )
    review.refresh_from_db()
    assert review.status == Review.Status.COMPLETED
    assert [d["state"] for d in review.results["documents"]] == [
        "ready",
        "missing",
        "deleted",
    ]


def test_another_tenants_document_is_just_missing(tenant_a, tenant_b, demo_docs, llm):
    from tabular.tests.conftest import ingest_demo

    theirs = ingest_demo(tenant_b, ["board-minutes-2024-06.txt"])[0]
    review = review_create(
        tenant=tenant_a, name="r", document_ids=[theirs.pk], columns=COLUMNS[:1]
    )
    review_run(review_id=review.pk, concurrency=1)
    (cell,) = _cells(review)
    assert cell.row.state == "missing" and cell.row.title == ""
    assert cell.status == Cell.Status.FAILED
    assert llm.chat_requests == []


@pytest.mark.django_db(transaction=True)  # pool threads have their own connections
def test_cells_run_in_parallel_up_to_the_concurrency(
    tenant_a, demo_docs, llm, settings
):
    if not shared_database():
        pytest.skip(
            "pool threads cannot share an in-memory SQLite test database; runs on PostgreSQL"
        )
    llm.latency_s = 0.2
    settings.TABULAR_CONCURRENCY = 4
    review = _review(tenant_a, demo_docs)
    outcome = review_run(review_id=review.pk)
    assert outcome.status == Review.Status.COMPLETED and outcome.done == 9
    assert 2 <= llm.max_in_flight <= 4


def test_a_second_delivery_is_a_no_op(tenant_a, demo_docs, llm):
    review = _review(tenant_a, demo_docs)
    review_run(review_id=review.pk, concurrency=1)
    calls = len(llm.chat_requests)
    with tenant_scope(tenant_a):
        messages = Message.objects.filter(role=Message.Role.CELL).count()
    again = review_run(review_id=review.pk, concurrency=1)
    assert again.status == Review.Status.COMPLETED and again.ran == 0
    assert len(llm.chat_requests) == calls
    with tenant_scope(tenant_a):
        assert Message.objects.filter(role=Message.Role.CELL).count() == messages


class Killed(BaseException):
    """Stands in for SIGKILL: nothing after it runs, no handler sees it."""


def test_a_killed_delivery_is_resumed_without_duplicating_a_cell(
    tenant_a, demo_docs, llm, monkeypatch
):
    llm.respond_with(every_question)
    review = _review(tenant_a, demo_docs)
    original = executor._run_row

    def dies_in_the_second_row(run, items):
        if run.ran == len(COLUMNS):  # a cell claimed, then the worker dies
            Cell.objects.filter(pk=items[0][0]).update(
                status=Cell.Status.RUNNING,
                run_token=run.token,
                attempts=F("attempts") + 1,
            )
            raise Killed
        return original(run, items)

    monkeypatch.setattr(executor, "_run_row", dies_in_the_second_row)
    with pytest.raises(Killed):
        review_run(review_id=review.pk, concurrency=1)
    cells = _cells(review)
    assert [c.status for c in cells[:4]] == ["done", "done", "done", "running"]
    review.refresh_from_db()
    assert review.status == Review.Status.RUNNING  # as the dead worker left it

    monkeypatch.setattr(executor, "_run_row", original)
    calls_before = len(llm.chat_requests)
    outcome = review_run(review_id=review.pk, concurrency=1)  # the redelivery

    assert outcome.status == Review.Status.COMPLETED
    assert outcome.done == len(cells)
    assert (
        len(llm.chat_requests) - calls_before == len(demo_docs) - 1
    )  # only the unfinished rows' cells, one call per row
    with tenant_scope(tenant_a):
        per_cell = [
            m.payload["tabular"]["cell_id"]
            for m in Message.objects.filter(role=Message.Role.CELL)
        ]
        assert sorted(per_cell) == sorted(c.pk for c in cells)  # one message per cell
        assert MessageCitation.objects.filter(
            execution_context_id=str(review.pk)
        ).count() == len(cells)
        assert Cell.objects.get(pk=cells[3].pk).attempts == 2
        assert Cell.objects.filter(review=review).count() == len(cells)


def test_a_cell_lost_too_often_fails_instead_of_looping(tenant_a, demo_docs, llm):
    review = _review(tenant_a, demo_docs[:1], columns=COLUMNS[:1])
    (cell,) = _cells(review)
    with tenant_scope(tenant_a):
        Cell.objects.filter(pk=cell.pk).update(
            status=Cell.Status.RUNNING,
            run_token=uuid.uuid4(),
            attempts=executor.MAX_CELL_ATTEMPTS,
        )
    review_run(review_id=review.pk, concurrency=1)
    (cell,) = _cells(review)
    assert cell.status == Cell.Status.FAILED and "worker was lost" in cell.error
    assert llm.chat_requests == []


def test_a_late_write_from_a_replaced_delivery_is_refused(tenant_a, demo_docs, llm):
    """Another delivery took the run over while this one waited on the model:
    its answer is discarded, nothing of it is stored."""
    review = _review(tenant_a, demo_docs[:1], columns=COLUMNS[:1])
    (cell,) = _cells(review)
    real = executor._store

    def take_over_then_store(run, cell_id, *args):
        Cell.objects.filter(pk=cell_id).update(run_token=uuid.uuid4())
        return real(run, cell_id, *args)

    executor._store = take_over_then_store
    try:
        review_run(review_id=review.pk, concurrency=1)
    finally:
        executor._store = real
    (cell,) = _cells(review)
    assert cell.status == Cell.Status.RUNNING and cell.message is None
    with tenant_scope(tenant_a):
        assert not Message.objects.filter(role=Message.Role.CELL).exists()
        assert not MessageCitation.objects.exists()


def test_cancel_stops_between_cells_and_keeps_finished_ones(
    tenant_a, demo_docs, llm, monkeypatch, django_capture_on_commit_callbacks
):
    from tabular.services import review_start

    llm.respond_with(every_question)
    review = _review(tenant_a, demo_docs)
    monkeypatch.setattr(executor, "STATUS_CHECK_S", 0.0)  # check before every row
    original = executor._run_row

    def cancel_after_the_first_row(run, items):
        finished = original(run, items)
        if run.ran == 3:
            review_cancel(review=review)
        return finished

    monkeypatch.setattr(executor, "_run_row", cancel_after_the_first_row)
    outcome = review_run(review_id=review.pk, concurrency=1)

    assert outcome.status == Review.Status.CANCELLED
    cells = _cells(review)
    assert [c.status for c in cells] == ["done"] * 3 + ["pending"] * (len(cells) - 3)
    review.refresh_from_db()
    assert review.results["counts"]["done"] == 3  # exports show what ran

    # A cancelled review resumes with only the cells that did not run.
    monkeypatch.setattr(executor, "_run_row", original)
    with django_capture_on_commit_callbacks(execute=True):
        review_start(review=review)  # eager Celery: runs on commit
    review.refresh_from_db()
    assert review.status == Review.Status.COMPLETED
    assert len(llm.chat_requests) == len(demo_docs)  # one call per row


def test_a_cell_can_be_rerun(
    tenant_a, demo_docs, llm, django_capture_on_commit_callbacks
):
    # The row call answers the second column only; the first, asked alone, fails.
    llm.script(
        read_reply(cell_answer("PAYMENT", "PAYMENT", question=2)), Reply.error(500)
    )
    review = _review(tenant_a, demo_docs[:1], columns=COLUMNS[:2])
    review_run(review_id=review.pk, concurrency=1)
    failed, done = _cells(review)
    assert failed.status == Cell.Status.FAILED and done.status == Cell.Status.DONE
    old_message = done.message_id

    with django_capture_on_commit_callbacks(execute=True):
        cell_rerun(cell=failed)  # eager Celery: the review runs again on commit
    with django_capture_on_commit_callbacks(execute=True):
        cell_rerun(cell=done)

    failed_again, done_again = _cells(review)
    assert failed_again.status == Cell.Status.DONE and failed_again.citation.verified
    assert (
        done_again.status == Cell.Status.DONE and done_again.message_id != old_message
    )
    with tenant_scope(tenant_a):
        assert Message.objects.filter(pk=old_message).exists()  # history is kept
    review.refresh_from_db()
    assert review.status == Review.Status.COMPLETED
    assert review.results["counts"]["done"] == 2


def test_a_quote_not_in_the_document_is_stored_as_a_failed_citation(
    tenant_a, demo_docs, llm
):
    llm.script(
        read_reply(
            cell_answer("Acme", "The parties agree that payment is due within 60 days.")
        )
    )
    review = _review(tenant_a, demo_docs[:1], columns=COLUMNS[:1])
    review_run(review_id=review.pk, concurrency=1)
    (cell,) = _cells(review)
    assert cell.status == Cell.Status.DONE  # the answer stays, flagged
    assert cell.citation.verification_status == "failed"
    assert cell.citation.verified is False


def test_sections_the_model_was_not_shown_are_flagged_out_of_provenance(
    tenant_a, demo_docs, llm
):
    def answer(body):
        _, text = passages_of(body)[0]
        line = text.splitlines()[0].strip()
        return read_reply(cell_answer("x", line, section=999, confidence="medium"))

    llm.respond_with(answer)
    review = _review(tenant_a, demo_docs[:1], columns=COLUMNS[:1])
    review_run(review_id=review.pk, concurrency=1)
    (cell,) = _cells(review)
    assert cell.status == Cell.Status.DONE
    with tenant_scope(tenant_a):
        unsourced = UnsourcedCitation.objects.get(message=cell.message)
    assert unsourced.ref_label == "section 999"
    # The quote is looked for in the whole revision: it is the document's.
    assert cell.citation.verified
    assert unsourced.execution_context_type == "tabular"


def test_the_offline_extractive_responder_answers_cells_at_no_cost(tenant_a, demo_docs):
    review = _review(tenant_a, demo_docs)
    outcome = review_run(review_id=review.pk)
    review.refresh_from_db()
    assert outcome.status == Review.Status.COMPLETED
    assert review.cost_actual_usd == 0
    done = [c for c in _cells(review) if c.status == Cell.Status.DONE]
    answered = [c for c in done if not c.is_not_found]
    assert answered and all(c.citation.verified for c in answered)  # verbatim quotes
    assert all(c.citation is None for c in done if c.is_not_found)
    assert all(c.model_name == "extractive" for c in done)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o-mini", Decimal("0.000750")),  # 1000 x 0.15 + 1000 x 0.60 per 1M
        ("gpt-4o-mini-2024-07-18", Decimal("0.000750")),  # dated name: longest prefix
        ("gpt-4o", Decimal("0.012500")),
        ("llama-3-local", Decimal("0")),
    ],
)
def test_cost_comes_from_token_usage_and_the_price_table(model, expected):
    assert cost_usd(model, 1000, 1000) == expected


def test_a_document_not_ready_fails_its_cells_with_the_reason(tenant_a, demo_docs, llm):
    with tenant_scope(tenant_a):
        Document.objects.filter(pk=demo_docs[0].pk).update(
            status=Document.Status.PROCESSING
        )
    review = _review(tenant_a, demo_docs[:1], columns=COLUMNS[:1])
    review_run(review_id=review.pk, concurrency=1)
    (cell,) = _cells(review)
    assert cell.row.state == "not_ready"
    assert "not ready" in cell.error and cell.confidence == "failed"


def test_columns_need_a_name_and_a_question(tenant_a, demo_docs):
    from tabular.services import ReviewError

    with pytest.raises(ReviewError):
        _review(tenant_a, demo_docs, columns=[ColumnSpec(name="", question="?")])
    with pytest.raises(ReviewError):
        _review(
            tenant_a,
            demo_docs,
            columns=[ColumnSpec(name="A", question="q", type="colour")],
        )
    with pytest.raises(ReviewError):
        review_create(tenant=tenant_a, name="r", document_ids=[], columns=COLUMNS)
