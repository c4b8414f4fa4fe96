"""Cells read by a model (tabular.model_reading): the whole document when it
fits, else its best sections; "not found" only as far as it read; a value
supported only by a verified quote that states it. Real HTTP to the scripted
model server."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from ingest.sections import Section
from llm.types import LLMConfig
from tabular import export, model_reading
from tabular.executor import review_run
from tabular.models import Cell
from tabular.services import ColumnSpec, review_create
from tabular.tests.conftest import (
    LICENCE,
    SUPPLY,
    cell_answer,
    every_question,
    passages_of,
    questions_of,
    read_reply,
)

pytestmark = pytest.mark.django_db

THREE = [
    ColumnSpec(
        "Governing law", "Which law governs the agreement?", type="jurisdiction"
    ),
    ColumnSpec(
        "Payment", "Within how many days must invoices be paid?", type="duration"
    ),
    ColumnSpec("Liability cap", "What is the cap on liability?", type="money"),
]
CAP = "The Supplier's aggregate liability shall not exceed GBP 250,000."


def _run(tenant, documents, columns):
    review = review_create(
        tenant=tenant,
        name="Read",
        document_ids=[d.pk for d in documents],
        columns=columns,
    )
    review_run(review_id=review.pk, concurrency=1)
    with tenant_scope(tenant):
        cells = list(
            Cell.objects.filter(review=review)
            .select_related("row", "column", "citation")
            .order_by("row__order", "column__order")
        )
    return review, cells


def _filler(page: int, chars: int = 4000) -> str:
    """A page of contract-like text that answers none of the questions."""
    sentence = (
        f"Schedule {page} sets out the delivery locations, the packaging and the "
        f"labelling of the goods described in annex {page}. "
    )
    return (sentence * (chars // len(sentence) + 1))[:chars].rsplit(" ", 1)[0] + "."


def _long_contract(tenant, pages: int, clause_page: int | None):
    texts = [_filler(n) for n in range(1, pages + 1)]
    if clause_page is not None:
        texts[clause_page - 1] += f"\n\n9. Liability. {CAP}"
    return make_document(tenant, texts, title="Long supply", source_type="pdf")


def _one_section_budget(settings, document):
    """A context that fits about one section per call."""
    from ingest.sections import document_sections

    with tenant_scope(document.tenant):
        sections = document_sections(document)
    asked = [
        model_reading.Asked(key=1, question=THREE[2].question * 3, column_type="money")
    ]
    overhead = -model_reading.reading_budget(
        LLMConfig(context_tokens=0),
        title=document.title,
        source_type=document.source_type,
        asked=asked,
    )
    one = max(model_reading.section_tokens([s]) for s in sections)
    settings.LLM_CONTEXT_TOKENS = overhead + int(one * 1.5)
    return sections


def test_a_document_that_fits_is_read_whole_and_its_columns_asked_in_one_call(
    tenant_a, contracts, llm
):
    llm.respond_with(every_question)
    _, cells = _run(tenant_a, contracts, THREE)

    assert len(llm.chat_requests) == len(contracts)  # one call per row
    for request, pages in zip(llm.chat_requests, (SUPPLY, LICENCE), strict=True):
        prompt = request.user_prompt
        assert "You have the whole document" in prompt
        assert questions_of(request.body) == [1, 2, 3]
        # Every word of the document is in the request, section by section.
        read = "\n".join(text for _, text in passages_of(request.body))
        assert all(page.strip() in read for page in pages)
    assert all(c.status == "done" for c in cells)
    for cell in cells:
        read = cell.searched["read"]
        assert read["whole"] and read["calls"] == 1
        assert read["sections_read"] == read["sections_total"]
    # The row call's tokens are shared by its three cells, exactly.
    first_row = [c for c in cells if c.row.title == contracts[0].title]
    usage = llm.chat_requests[0]
    assert sum(c.prompt_tokens for c in first_row) == _usage_of(usage)
    assert (
        max(c.prompt_tokens for c in first_row)
        - min(c.prompt_tokens for c in first_row)
        <= 1
    )


def _usage_of(request) -> int:
    """The prompt tokens the scripted server reports for a request."""
    from docuiq.testing.llm_server import _estimate_tokens

    return _estimate_tokens("\n\n".join(m["content"] for m in request.messages))


def test_over_budget_the_best_sections_are_read_and_not_found_there_is_not_missing(
    alice_client, tenant_a, llm, settings
):
    document = _long_contract(tenant_a, pages=6, clause_page=None)
    sections = _one_section_budget(settings, document)
    assert len(sections) == 6
    llm.respond_with(
        lambda body: read_reply(cell_answer("", found=False, confidence="low"))
    )
    review, (cell,) = _run(tenant_a, [document], THREE[2:])

    calls = llm.chat_requests
    assert len(calls) == model_reading.MAX_READS  # then it stops, and says so
    seen = [i for call in calls for i, _ in passages_of(call.body)]
    assert len(seen) == len(set(seen)) == model_reading.MAX_READS  # never twice
    assert all("You have only sections" in c.user_prompt for c in calls)
    assert cell.status == "done" and cell.outcome == "not_found"
    read = cell.searched["read"]
    assert not read["whole"]
    assert (read["sections_read"], read["sections_total"]) == (3, 6)
    assert "the rest was not read" in read["summary"]
    assert cell.confidence == "low" and cell.confidence_rule == "not_found_in_part"
    body = alice_client.get(f"/tabular/{review.pk}/").content.decode()
    assert "Not found in the sections read" in body
    with tenant_scope(tenant_a):
        assert "not found in the sections read" in export.review_csv(review)


def test_over_budget_the_section_holding_the_clause_is_read_first(
    tenant_a, llm, settings
):
    document = _long_contract(tenant_a, pages=6, clause_page=5)
    _one_section_budget(settings, document)

    def answer(body):
        for index, text in passages_of(body):
            if CAP in text:
                return read_reply(cell_answer("GBP 250,000", CAP, section=index))
        return read_reply(cell_answer("", found=False, confidence="low"))

    llm.respond_with(answer)
    _, (cell,) = _run(tenant_a, [document], THREE[2:])
    assert len(llm.chat_requests) == 1  # the retrieval's best section first
    assert cell.outcome == "answered" and cell.citation.verified
    assert cell.support == "supported"
    assert cell.citation.source_page == 5
    assert cell.searched["read"]["labels"] == ["Page 5"]


def test_reading_every_section_over_several_calls_makes_a_real_not_found(
    tenant_a, llm, settings
):
    document = _long_contract(tenant_a, pages=3, clause_page=None)
    _one_section_budget(settings, document)
    llm.respond_with(
        lambda body: read_reply(cell_answer("", found=False, confidence="low"))
    )
    _, (cell,) = _run(tenant_a, [document], THREE[2:])
    assert len(llm.chat_requests) == 3
    assert cell.outcome == "not_found" and cell.searched["read"]["whole"]
    assert cell.confidence == "medium"  # never high: nothing verified backs it
    assert cell.confidence_rule == "model_read_all_not_found"


@pytest.mark.parametrize(
    ("column", "value"),
    [
        (ColumnSpec("Law", "Which law governs?", type="text"), "California"),
        (ColumnSpec("Convenience", "Can it end for convenience?", type="yes_no"), "No"),
        (
            ColumnSpec("Law", "Which law governs?", type="text"),
            "The agreement is governed by the laws of California.",
        ),
    ],
    ids=["one-word", "yes-no", "sentence"],
)
def test_an_unquoted_value_of_any_length_is_unsupported(
    alice_client, tenant_a, contracts, llm, column, value
):
    llm.script(read_reply(cell_answer(value, "", found=True)))
    review, (cell,) = _run(tenant_a, contracts[:1], [column])
    assert cell.outcome == "answered" and cell.citation is None
    assert cell.support == "unsupported" and cell.confidence == "low"
    body = alice_client.get(f"/tabular/{review.pk}/").content.decode()
    assert 'data-testid="cell-unsupported"' in body


CONVENIENCE = ColumnSpec(
    "Termination for convenience",
    "Can the buyer terminate the agreement for convenience?",
    type="yes_no",
)
PAYMENT = "The Buyer shall pay each invoice within 30 days of receipt."


def test_a_yes_no_with_an_off_question_quote_is_not_a_verified_yes(
    alice_client, tenant_a, contracts, llm
):
    """The quote is real (verified) but the model itself says it does not
    answer the question: the Yes is unsupported, never 'Yes ✓'."""
    llm.script(read_reply(cell_answer("Yes", PAYMENT, quote_answers=False)))
    review, (cell,) = _run(tenant_a, contracts[:1], [CONVENIENCE])
    assert cell.citation.verified  # the words are the document's
    assert cell.value == "Yes" and cell.support == "unsupported"
    assert cell.confidence == "low"
    assert cell.citation.relevance == "related"
    assert cell.citation.relevance_method == "model"
    body = alice_client.get(f"/tabular/{review.pk}/").content.decode()
    assert 'data-testid="cell-unsupported"' in body


def test_the_models_own_relevance_is_stored_never_the_word_raters(
    tenant_a, contracts, llm
):
    """A clause the word rater would not call an answer (it shares no word
    with the question), read by the model as answering: the model decides."""
    quote = "Late payments bear interest at 1% per month."
    question = ColumnSpec("Overdue", "What happens if the buyer is overdue?")
    llm.script(read_reply(cell_answer("Interest at 1% per month", quote)))
    _, (cell,) = _run(tenant_a, contracts[:1], [question])
    assert cell.citation.verified
    assert cell.citation.relevance == "answers"
    assert cell.citation.relevance_method == "model"
    assert cell.support == "supported"


def test_a_not_found_that_quotes_is_flagged_as_a_contradiction(
    alice_client, tenant_a, contracts, llm
):
    llm.script(read_reply(cell_answer("", PAYMENT, found=False, confidence="high")))
    review, (cell,) = _run(tenant_a, contracts[:1], THREE[1:2])
    assert cell.outcome == "answered"  # never "not found"
    assert cell.support == "unsupported" and cell.confidence == "low"
    assert cell.confidence_rule == "model_contradiction"
    assert "found nothing, yet quoted" in cell.searched["contradiction"]
    assert cell.citation.verified  # the quote is checked all the same
    panel = alice_client.get(
        f"/tabular/{review.pk}/cells/{cell.pk}/", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert 'data-testid="cell-panel-contradiction"' in panel


def test_a_three_by_three_review_completes_one_call_per_document(
    tenant_a, demo_docs, llm
):
    llm.respond_with(every_question)
    review, cells = _run(tenant_a, demo_docs, THREE)
    review.refresh_from_db()
    assert review.status == "completed" and len(cells) == 9
    assert all(c.status == "done" for c in cells)
    assert len(llm.chat_requests) == 3
    assert review.prompt_tokens == sum(_usage_of(r) for r in llm.chat_requests)
    # Each cell says how many cells shared each of its calls.
    assert sum(1 / n for c in cells for n in c.searched["read"]["shared"]) == 3


# ------------------------------------------------------------ pure reading


def _sections(sizes: list[int]) -> list[Section]:
    out, start = [], 0
    for index, size in enumerate(sizes):
        out.append(
            Section(
                document=None,  # type: ignore[arg-type]
                revision_id=uuid.uuid4(),
                file_id=uuid.uuid4(),
                index=index,
                count=len(sizes),
                start=start,
                end=start + size,
                page_start=index + 1,
                page_end=index + 1,
                text="x" * size,
                chunk=None,  # type: ignore[arg-type]
            )
        )
        start += size
    return out


@given(
    sizes=st.lists(st.integers(1, 9000), min_size=1, max_size=25),
    ranked=st.lists(st.integers(0, 250_000), max_size=10),
    budget=st.integers(1, 12_000),
)
def test_batches_read_every_section_once_best_first_within_budget(
    sizes, ranked, budget
):
    sections = _sections(sizes)
    order = model_reading.section_order(sections, ranked)
    assert sorted(s.index for s in order) == list(range(len(sections)))
    done: set[int] = set()
    while len(done) < len(sections):
        batch = model_reading.next_batch(order, done, budget)
        assert batch, "a batch always holds a section while some are unread"
        assert not {s.index for s in batch} & done
        assert len(batch) == 1 or model_reading.section_tokens(batch) <= budget
        assert [s.index for s in batch] == sorted(s.index for s in batch)
        # The best unread section is always in the next batch.
        best = next(s for s in order if s.index not in done)
        assert best in batch
        done |= {s.index for s in batch}
    assert model_reading.next_batch(order, done, budget) == []


def test_a_reply_is_read_by_question_number_first_answer_winning():
    sections = _sections([10, 10])
    asked = [
        model_reading.Asked(key=7, question="a", column_type="text"),
        model_reading.Asked(key=9, question="b", column_type="text"),
    ]
    got = model_reading.parse_answers(
        {
            "answers": [
                cell_answer("B", "xx", question=2, section=1),
                cell_answer("B2", "xx", question=2, section=0),
                cell_answer("Z", "xx", question=5),
                cell_answer("A", "xx", question=1, section=4),
            ]
        },
        asked,
        sections,
    )
    assert got[9].value == "B" and got[9].section is sections[1]
    assert got[7].section is None and got[7].invalid_section == 4
    assert set(got) == {7, 9}
    with pytest.raises(model_reading.ReplyProblem):
        model_reading.parse_answers({"value": "x"}, asked, sections)


@given(
    found=st.booleans(),
    verified=st.booleans(),
    method=st.sampled_from(
        ["exact_match", "tolerant_match", "llm_judge", "failed", ""]
    ),
    support=st.sampled_from(["supported", "unsupported", "unchecked", ""]),
    relevance=st.sampled_from(["answers", "related", "off_topic", ""]),
    model_confidence=st.sampled_from(["high", "medium", "low"]),
    kind=st.sampled_from([None, "yes_no", "duration", "money", "jurisdiction", "date"]),
    read_whole=st.booleans(),
    contradiction=st.booleans(),
)
def test_a_model_cell_is_high_only_with_a_verified_quote_that_supports_it(**facts):
    from tabular.confidence import CellFacts, calibrate

    band, _ = calibrate(CellFacts(source="model", **facts))
    if band == "high":
        assert facts["found"] and facts["verified"]
        assert facts["support"] == "supported" and not facts["contradiction"]
