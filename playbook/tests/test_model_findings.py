"""Findings from cells a model read (tabular.model_reading): meets, fallback
or deviates only with a verified quote the model reads as answering; missing
only after the whole contract was read; a self-contradicting answer goes to
review. Real HTTP to the scripted model server."""

from __future__ import annotations

import pytest

from accounts.scoping import tenant_scope
from docuiq.testing.factories import make_document
from playbook.models import Finding
from playbook.runs import findings_sync, run_create
from playbook.schema import spec_from_data
from playbook.services import playbook_create
from tabular.executor import review_run
from tabular.tests.conftest import cell_answer, every_question, read_reply
from tabular.tests.test_model_reading import _long_contract, _one_section_budget

pytestmark = pytest.mark.django_db

EXCLUSIVITY = {
    "title": "Exclusivity",
    "question": "Does the agreement grant exclusive rights?",
    "type": "yes_no",
    "standard": "No exclusivity.",
    "rule": "no",
    "severity": "high",
    "if_absent": "acceptable",
}
CAP = {
    "title": "Limitation of liability",
    "question": "What is the cap on the supplier's aggregate liability?",
    "type": "money",
    "standard": "A cap of at least GBP 100,000.",
    "rule": "at least GBP 100,000",
    "severity": "high",
    "if_absent": "high",
}
GRANT = "Licensor grants Licensee a non-exclusive, non-transferable licence to use the Software."


def _playbook(tenant, *positions):
    with tenant_scope(tenant):
        return playbook_create(
            tenant=tenant,
            spec=spec_from_data({"name": "Ours", "positions": list(positions)}),
        )


def _findings(tenant, playbook, documents):
    with tenant_scope(tenant):
        run = run_create(
            tenant=tenant,
            playbook=playbook,
            document_ids=[d.pk for d in documents],
            start=False,
        )
        review_run(review_id=run.review_id)
        findings_sync(run)
        return list(
            Finding.objects.filter(run=run)
            .select_related("cell__citation", "position")
            .order_by("row__order", "position__order")
        )


@pytest.fixture
def licence(tenant_a):
    return make_document(
        tenant_a,
        [
            "SOFTWARE LICENCE\n\nThis Licence is made between Gamma Software Inc. "
            f'("Licensor") and Delta Bank N.A. ("Licensee").\n\n1. Grant. {GRANT}\n\n'
            "2. Fees. The Licensee shall pay the annual fee within 45 days."
        ],
        title="Gamma licence",
    )


def test_a_non_exclusive_grant_read_as_no_exclusivity_meets(tenant_a, licence, llm):
    llm.script(read_reply(cell_answer("No", GRANT)))
    (finding,) = _findings(tenant_a, _playbook(tenant_a, EXCLUSIVITY), [licence])
    assert (finding.kind, finding.rule) == ("meets", "meets_standard")
    assert finding.cell.citation.verified
    # The model is told that a non-exclusive grant is no exclusivity.
    assert '"non-exclusive" licence' in llm.chat_requests[0].system_prompt


def test_a_verdict_whose_quote_the_model_says_is_off_question_needs_review(
    tenant_a, licence, llm
):
    """'Yes, exclusive', quoting the non-exclusive grant the model itself does
    not read as answering: never a deviation (or a meet) on that quote."""
    llm.script(read_reply(cell_answer("Yes", GRANT, quote_answers=False)))
    (finding,) = _findings(tenant_a, _playbook(tenant_a, EXCLUSIVITY), [licence])
    assert (finding.kind, finding.rule) == ("needs_review", "value_unsupported")


def test_missing_only_after_the_whole_contract_was_read(tenant_a, licence, llm):
    llm.script(read_reply(cell_answer("", found=False, confidence="low")))
    (finding,) = _findings(tenant_a, _playbook(tenant_a, CAP), [licence])
    assert (finding.kind, finding.severity, finding.rule) == (
        "missing",
        "high",
        "clause_missing",
    )
    assert "read the whole document" in finding.reason


def test_not_found_in_the_sections_read_is_never_missing(tenant_a, llm, settings):
    document = _long_contract(tenant_a, pages=6, clause_page=None)
    _one_section_budget(settings, document)
    llm.respond_with(
        lambda body: read_reply(cell_answer("", found=False, confidence="low"))
    )
    (finding,) = _findings(tenant_a, _playbook(tenant_a, CAP), [document])
    assert (finding.kind, finding.rule) == ("needs_review", "not_found_in_part")
    assert "the rest was not read" in finding.reason


def test_a_not_found_that_quotes_needs_review(tenant_a, licence, llm):
    llm.script(read_reply(cell_answer("", GRANT, found=False)))
    (finding,) = _findings(tenant_a, _playbook(tenant_a, EXCLUSIVITY), [licence])
    assert (finding.kind, finding.rule) == ("needs_review", "model_contradiction")


def test_the_sample_playbook_runs_on_two_contracts_with_a_model(
    tenant_a, sample, contracts, llm
):
    llm.respond_with(every_question)
    findings = _findings(tenant_a, sample, contracts)
    assert len(findings) == 2 * 10
    assert all(f.kind for f in findings)
    # One call per contract for its ten positions (four per call).
    assert len([r for r in llm.chat_requests if "<question" in r.user_prompt]) == 6
    for f in findings:
        if f.kind in ("meets", "fallback", "deviates"):
            assert f.cell.citation is not None and f.cell.citation.verified
            assert f.cell.support == "supported"
