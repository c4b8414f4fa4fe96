"""Typed cells end to end (issue 25): a short value with its verified quote,
"not found" with what was searched, a model value its quote does not support,
the ensemble running for cells (high stakes), stale citations."""

from __future__ import annotations

import json

import pytest

from accounts.scoping import tenant_scope
from citations.models import CitationVerification
from docuiq.testing.llm_server import Reply
from tabular import export
from tabular.executor import review_run
from tabular.models import Cell
from tabular.services import ColumnSpec, review_create
from tabular.tests.conftest import cell_answer, read_reply

pytestmark = pytest.mark.django_db

TYPED = [
    ColumnSpec(
        "Governing law", "Which law governs the agreement?", type="jurisdiction"
    ),
    ColumnSpec(
        "Payment", "Within how many days must invoices be paid?", type="duration"
    ),
    ColumnSpec("Liability cap", "What is the cap on liability?", type="money"),
    ColumnSpec("Non-compete", "Is there a non-compete?", type="yes_no"),
]


def _run(tenant, documents, columns=TYPED):
    review = review_create(
        tenant=tenant,
        name="Typed",
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
    return review, {(c.row.title, c.column.name): c for c in cells}


def test_offline_cells_hold_a_short_typed_value_beside_their_verified_quote(
    tenant_a, contracts
):
    _, cells = _run(tenant_a, contracts)
    law = cells[("Acme supply agreement", "Governing law")]
    assert law.value == "England and Wales" and law.outcome == "answered"
    assert law.typed_value == {"kind": "jurisdiction", "name": "England and Wales"}
    assert law.citation.verified and "England and Wales" in law.quote
    assert law.support == "supported" and law.confidence == "high"
    assert law.confidence_rule == "governing_law_clause"
    pay = cells[("Gamma licence", "Payment")]
    assert pay.value == "45 days"
    assert pay.typed_value == {"kind": "duration", "amount": 45, "unit": "day"}
    cap = cells[("Acme supply agreement", "Liability cap")]
    assert cap.typed_value == {"kind": "money", "currency": "GBP", "amount": "250000"}
    # The citation is rated for relevance, as chat's are.
    assert law.citation.relevance == "answers"


def test_a_clause_the_contract_lacks_is_not_found_never_a_random_sentence(
    tenant_a, contracts
):
    _, cells = _run(tenant_a, contracts)
    cap = cells[("Gamma licence", "Liability cap")]
    assert cap.status == "done" and cap.outcome == "not_found"
    assert cap.value == "" and cap.quote == "" and cap.citation is None
    assert cap.typed_value is None and cap.searched["passages"]
    assert {"liability", "cap"} <= set(cap.searched["terms"])
    nc = cells[("Acme supply agreement", "Non-compete")]
    assert nc.outcome == "not_found" and nc.value == "No"
    assert nc.typed_value == {"kind": "yes_no", "value": False}


def test_the_grid_and_exports_show_values_and_not_found(
    alice_client, tenant_a, contracts
):
    review, cells = _run(tenant_a, contracts)
    body = alice_client.get(f"/tabular/{review.pk}/").content.decode()
    assert "England and Wales" in body and "GBP 250,000" in body
    assert body.count('data-testid="cell-not-found"') == sum(
        c.is_not_found for c in cells.values()
    )
    panel = alice_client.get(
        f"/tabular/{review.pk}/cells/{cells[('Gamma licence', 'Liability cap')].pk}/",
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "What was searched" in panel and "liability" in panel
    with tenant_scope(tenant_a):
        text = export.review_csv(review)
    assert "not found" in text and "England and Wales" in text


def _cell_reply(value, quote, confidence="high"):
    return read_reply(
        cell_answer(value, quote, confidence=confidence, justification="read it")
    )


def test_a_model_value_its_quote_does_not_support_is_never_shown_verified(
    alice_client, tenant_a, contracts, llm
):
    llm.script(
        _cell_reply(
            "60 days", "The Buyer shall pay each invoice within 30 days of receipt."
        )
    )
    review, cells = _run(tenant_a, contracts[:1], TYPED[1:2])
    (cell,) = cells.values()
    assert cell.citation.verified  # the quote is in the document...
    assert cell.support == "unsupported"  # ...but says 30 days, not 60
    assert "60 days" in cell.support_reason
    assert cell.confidence == "low" and cell.model_confidence == "high"
    body = alice_client.get(f"/tabular/{review.pk}/").content.decode()
    assert 'data-testid="cell-unsupported"' in body
    assert 'data-testid="cell-badge"' not in body  # no verified tick beside it


def test_a_supported_model_value_is_normalised_and_typed(tenant_a, contracts, llm):
    llm.script(
        _cell_reply(
            "thirty (30) days",
            "The Buyer shall pay each invoice within 30 days of receipt.",
        )
    )
    _, cells = _run(tenant_a, contracts[:1], TYPED[1:2])
    (cell,) = cells.values()
    assert cell.value == "30 days" and cell.support == "supported"
    assert cell.typed_value == {"kind": "duration", "amount": 30, "unit": "day"}


def test_a_model_that_finds_nothing_makes_a_not_found_cell(tenant_a, contracts, llm):
    llm.script(_cell_reply("", "", confidence="low"))
    _, cells = _run(tenant_a, contracts[:1], TYPED[2:3])
    (cell,) = cells.values()
    assert cell.status == "done" and cell.is_not_found and cell.citation is None


def test_an_option_outside_the_columns_options_is_unsupported(tenant_a, contracts, llm):
    llm.script(
        _cell_reply("Sometimes", "This Agreement continues until 28 February 2027.")
    )
    column = ColumnSpec(
        "Term type",
        "Is the term fixed?",
        type="options",
        options=("Fixed", "Evergreen"),
    )
    _, cells = _run(tenant_a, contracts[:1], [column])
    (cell,) = cells.values()
    assert cell.support == "unsupported" and "options" in cell.support_reason
    prompt = llm.chat_requests[0].user_prompt
    assert "Fixed | Evergreen" in prompt  # the model is told the options


PAYMENT = "The Buyer shall pay each invoice within 30 days of receipt."
PARAPHRASE = "Invoices are payable by the Buyer within 30 days of their receipt"


def _judging(span: str, confidence: float = 0.8):
    """Cells get a paraphrased quote (stages 1-2 fail); every judge finds it
    supported by the payment sentence."""

    def respond(body):
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get(
            "name"
        )
        if name == "citation_judgement":
            return Reply.object(
                {
                    "supported": True,
                    "span": span,
                    "confidence": confidence,
                    "explanation": "same obligation",
                }
            )
        return read_reply(
            cell_answer("30 days", PARAPHRASE, justification="payment clause")
        )

    return respond


def test_cells_are_high_stakes_so_a_configured_ensemble_decides(
    alice_client, tenant_a, contracts, llm, settings
):
    settings.LLM_JUDGE_MODEL = "judge-a"
    settings.LLM_ENSEMBLE_MODELS = ["judge-a", "judge-b"]
    settings.LLM_ENSEMBLE_QUORUM = 2
    llm.respond_with(_judging(PAYMENT))
    review, cells = _run(tenant_a, contracts[:1], TYPED[1:2])
    (cell,) = cells.values()
    citation = cell.citation
    assert citation.verified and citation.verification_method == "ensemble"
    judged = [r for r in llm.chat_requests if "<claim>" in r.user_prompt]
    assert sorted(r.model for r in judged) == ["judge-a", "judge-b"]
    with tenant_scope(tenant_a):
        record = CitationVerification.objects.get(citation=citation)
    ensemble = [s for s in record.stages if s["stage"] == "ensemble"]
    assert ensemble and "2 of 2 judges agree" in ensemble[0]["detail"]
    # Each judge's vote is kept, and the record names both models.
    assert sorted(v["judge"] for v in ensemble[0]["votes"]) == ["judge-a", "judge-b"]
    assert all(v["supported"] for v in ensemble[0]["votes"])
    assert sorted(record.models_used) == ["judge-a", "judge-b"]
    assert citation.verification_confidence == 1  # the quorum's share
    panel = alice_client.get(
        f"/tabular/{review.pk}/cells/{cell.pk}/", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert 'data-testid="cell-panel-stages"' in panel and "2 of 2 judges agree" in panel
    assert 'data-testid="ensemble-votes"' in panel and "judge-b: supported" in panel


def test_a_judged_cell_citation_stores_the_judges_confidence(
    tenant_a, contracts, llm, settings
):
    settings.LLM_JUDGE_MODEL = "judge-a"
    settings.LLM_ENSEMBLE_MODELS = []
    llm.respond_with(_judging(PAYMENT, confidence=0.8))
    _, cells = _run(tenant_a, contracts[:1], TYPED[1:2])
    (cell,) = cells.values()
    assert cell.citation.verification_method == "llm_judge"
    assert str(cell.citation.verification_confidence) == "0.80"


def test_a_cell_whose_citation_went_stale_says_so_in_the_grid_and_exports(
    alice_client, tenant_a, contracts
):
    review, cells = _run(tenant_a, contracts[:1], TYPED[:1])
    (cell,) = cells.values()
    with tenant_scope(tenant_a):
        type(cell.citation).objects.filter(pk=cell.citation_id).update(
            is_stale=True, verification_status="failed", verified=False
        )
        head, rows = export.rows(review)
    stale = head.index("Governing law · stale")
    assert rows[0][stale] == "stale"
    body = alice_client.get(f"/tabular/{review.pk}/?show=stale").content.decode()
    assert 'data-testid="cell-stale"' in body
    api = alice_client.get(f"/api/tabular/reviews/{review.pk}/cells").json()
    assert api["items"][0]["citation"]["stale"] is True


def test_typed_values_reach_the_api(alice_client, tenant_a, contracts):
    review, _ = _run(tenant_a, contracts)
    items = alice_client.get(f"/api/tabular/reviews/{review.pk}/cells").json()["items"]
    law = next(i for i in items if i["column"] == "Governing law")
    assert law["value"] == "England and Wales" and law["outcome"] == "answered"
    assert law["typed_value"]["kind"] == "jurisdiction"
    assert law["review"]["review_state"] == "unreviewed"
    json.dumps(items)  # plain JSON throughout
