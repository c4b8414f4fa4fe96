"""Running a playbook on contracts: one tabular review, findings from its cells."""

from __future__ import annotations

import pytest

from accounts.scoping import tenant_scope
from playbook.models import Finding, FindingEvent, RunPosition
from playbook.runs import (
    RunError,
    finding_accept,
    finding_clear,
    finding_override,
    findings_sync,
    run_create,
)
from playbook.schema import spec_from_data
from playbook.selectors import contract_report, run_view
from playbook.services import playbook_create
from tabular.executor import review_run
from tabular.models import Cell, ReviewColumn
from tabular.tests.conftest import cell_answer, read_reply

pytestmark = pytest.mark.django_db


def run_now(tenant, playbook, documents, user=None):
    with tenant_scope(tenant):
        run = run_create(
            tenant=tenant,
            playbook=playbook,
            document_ids=[d.pk for d in documents],
            user=user,
            start=False,
        )
        review_run(review_id=run.review_id)
        findings_sync(run)
        return run


def by_position(run, row):
    report = contract_report(run, row)
    return {v.position.title: v for g in report.groups for v in g.items}


def test_a_run_is_a_tabular_review_whose_columns_are_the_positions(
    tenant_a, alice, sample, contracts
):
    with tenant_scope(tenant_a):
        run = run_create(
            tenant=tenant_a,
            playbook=sample,
            document_ids=[d.pk for d in contracts],
            user=alice,
            start=False,
        )
        columns = list(ReviewColumn.objects.filter(review=run.review).order_by("order"))
        positions = list(RunPosition.objects.filter(run=run).order_by("order"))
    assert [c.name for c in columns] == [p.title for p in positions]
    assert [c.type for c in columns][:3] == ["jurisdiction", "duration", "money"]
    # Offline, the text position stays text (quoted for review, never judged).
    data = next(p for p in positions if p.title == "Data protection")
    assert data.column.type == "text" and not data.judged_by_model


def test_findings_on_two_contracts_offline(tenant_a, alice, sample, contracts):
    run = run_now(tenant_a, sample, contracts, alice)
    with tenant_scope(tenant_a):
        rows = list(run.review.rows.order_by("order"))
        acme, gamma = by_position(run, rows[0]), by_position(run, rows[1])
        view = run_view(run)
    law = acme["Governing law"]
    assert (law.kind, law.value, law.verified) == ("meets", "England and Wales", True)
    assert "governed by the laws of England and Wales" in law.quote and law.page == 2
    assert law.link.startswith(f"/documents/{contracts[0].pk}/?at=")
    assert (gamma["Governing law"].kind, gamma["Governing law"].value) == (
        "fallback",
        "New York",
    )
    assert (acme["Payment terms"].kind, gamma["Payment terms"].kind) == (
        "meets",
        "meets",
    )
    # A cap in GBP against a USD rule: not comparable, so a person decides.
    cap = acme["Limitation of liability"]
    assert cap.kind == "needs_review" and cap.finding.rule == "not_comparable"
    # No cap at all in the licence: missing, with the position's high severity.
    missing = gamma["Limitation of liability"]
    assert (missing.kind, missing.severity, missing.finding.rule) == (
        "missing",
        "high",
        "clause_missing",
    )
    assert "Searched for" in missing.finding.reason and missing.quote == ""
    # The summary line counts every position once.
    line = view.contracts[0].summary
    assert sum(line.as_dict().values()) == 10
    assert line.line.startswith(f"{line.meets} meet, ")


def test_nothing_meets_the_standard_without_a_verified_quote(
    tenant_a, sample, contracts
):
    run = run_now(tenant_a, sample, contracts)
    with tenant_scope(tenant_a):
        for f in Finding.objects.filter(
            run=run, kind__in=["meets", "fallback", "deviates"]
        ).select_related("cell__citation"):
            assert f.cell.citation is not None and f.cell.citation.verified


def test_sync_is_idempotent_and_follows_an_edited_cell(
    tenant_a, alice, sample, contracts
):
    from tabular.cell_review import cell_edit

    run = run_now(tenant_a, sample, contracts, alice)
    with tenant_scope(tenant_a):
        assert findings_sync(run) == 0
        finding = Finding.objects.get(
            run=run, row__order=0, position__title="Payment terms"
        )
        finding_accept(finding=finding, user=alice, note="fine")
        cell_edit(
            cell=finding.cell, user=alice, value="10 days", note="the schedule says 10"
        )
        assert findings_sync(run) == 1
        finding.refresh_from_db()
        # The edit is not in the quote: the finding now needs review, and the
        # reviewer's decision on the old finding was reset, with an event.
        assert finding.kind == "needs_review" and finding.decision == "unreviewed"
        assert list(finding.events.values_list("action", flat=True)) == [
            "reset",
            "accept",
        ]


def test_accept_override_and_clear_are_recorded(tenant_a, alice, sample, contracts):
    run = run_now(tenant_a, sample, contracts, alice)
    with tenant_scope(tenant_a):
        finding = Finding.objects.get(
            run=run, row__order=1, position__title="Governing law"
        )
        with pytest.raises(RunError, match="note"):
            finding_override(
                finding=finding, user=alice, kind="deviates", severity="high", note=""
            )
        with pytest.raises(RunError, match="severity"):
            finding_override(finding=finding, user=alice, kind="deviates", note="why")
        finding_override(
            finding=finding,
            user=alice,
            kind="deviates",
            severity="high",
            note="NY is not OK for this client",
        )
        finding.refresh_from_db()
        assert (finding.shown_kind, finding.shown_severity, finding.kind) == (
            "deviates",
            "high",
            "fallback",
        )
        assert finding.decided_by == alice
        finding_clear(finding=finding, user=alice)
        finding.refresh_from_db()
        assert finding.shown_kind == "fallback" and finding.decision == "unreviewed"
        events = list(
            FindingEvent.objects.filter(finding=finding).order_by("created_at", "id")
        )
    assert [(e.action, e.kind_before, e.kind_after, e.user_name) for e in events] == [
        ("override", "fallback", "deviates", "alice"),
        ("clear", "deviates", "fallback", "alice"),
    ]
    assert events[0].note == "NY is not OK for this client"


def test_a_contract_that_failed_to_ingest_says_so_and_the_others_run(
    tenant_a, sample, contracts
):
    from ingest.models import Document

    with tenant_scope(tenant_a):
        Document.objects.filter(pk=contracts[1].pk).update(
            status=Document.Status.FAILED, error="The PDF is encrypted."
        )
    run = run_now(tenant_a, sample, contracts)
    with tenant_scope(tenant_a):
        rows = list(run.review.rows.order_by("order"))
        bad = by_position(run, rows[1])
        good = by_position(run, rows[0])
    assert {v.kind for v in bad.values()} == {"needs_review"}
    assert all(
        "could not be read" in v.finding.reason and "encrypted" in v.finding.reason
        for v in bad.values()
    )
    assert good["Governing law"].kind == "meets"


def test_a_run_resumes_only_unfinished_cells(tenant_a, sample, contracts):
    with tenant_scope(tenant_a):
        run = run_create(
            tenant=tenant_a,
            playbook=sample,
            document_ids=[d.pk for d in contracts],
            start=False,
        )
        review_run(
            review_id=run.review_id, budget_s=0.0001
        )  # stops early, like a lost worker's slice
        done_before = Cell.objects.filter(review=run.review, status="done").count()
        findings_sync(run)
        review_run(review_id=run.review_id)
        findings_sync(run)
        assert Cell.objects.filter(review=run.review, status="done").count() == 20
        assert Finding.objects.filter(run=run).count() == 20
    assert done_before < 20


def test_an_empty_playbook_cannot_run(tenant_a, contracts):
    with tenant_scope(tenant_a):
        playbook = playbook_create(
            tenant=tenant_a,
            spec=spec_from_data(
                {
                    "name": "x",
                    "positions": [{"title": "a", "question": "q", "standard": "s"}],
                }
            ),
        )
        playbook.positions.all().delete()
        with pytest.raises(RunError, match="no positions"):
            run_create(
                tenant=tenant_a, playbook=playbook, document_ids=[contracts[0].pk]
            )


def test_with_a_model_a_text_position_is_judged_and_a_deviation_gets_a_suggestion(
    tenant_a, alice, contracts, llm
):
    """The model judges the text position (an options column of verdicts)
    and drafts replacement wording for the deviation, marked as a suggestion."""
    quote = "The Buyer shall pay each invoice within 30 days of receipt."
    with tenant_scope(tenant_a):
        playbook = playbook_create(
            tenant=tenant_a,
            spec=spec_from_data(
                {
                    "name": "Payments",
                    "positions": [
                        {
                            "title": "Payment",
                            "question": "When must invoices be paid?",
                            "standard": "Payment within 60 days of receipt",
                            "severity": "high",
                            "guidance": "Ask for 60 days.",
                        }
                    ],
                }
            ),
        )
        run = run_create(
            tenant=tenant_a,
            playbook=playbook,
            document_ids=[contracts[0].pk],
            start=False,
        )
        position = RunPosition.objects.get(run=run)
        assert position.judged_by_model and position.column.type == "options"
        assert (
            "Our standard position: Payment within 60 days"
            in position.column.description
        )
        llm.script(
            read_reply(
                cell_answer(
                    "Deviates from the standard",
                    quote,
                    justification="30 days, not 60.",
                )
            ),
            "The Buyer shall pay each invoice within 60 days of receipt.",
        )
        review_run(review_id=run.review_id)
        from django.test import TestCase

        with TestCase.captureOnCommitCallbacks(execute=True):
            findings_sync(run)
        finding = Finding.objects.select_related("cell__citation").get(run=run)
    assert (finding.kind, finding.severity, finding.rule) == (
        "deviates",
        "high",
        "deviates",
    )
    assert finding.cell.citation.verified
    assert (
        finding.suggestion
        == "The Buyer shall pay each invoice within 60 days of receipt."
    )
    assert finding.suggestion_status == "done" and finding.suggestion_model
    prompt = llm.chat_requests[-1].user_prompt
    assert (
        "<clause>" in prompt
        and quote in prompt
        and "Standard: Payment within 60 days" in prompt
    )


def test_offline_there_is_no_suggestion(tenant_a, sample, contracts):
    run = run_now(tenant_a, sample, contracts)
    with tenant_scope(tenant_a):
        assert (
            not Finding.objects.filter(run=run).exclude(suggestion_status="").exists()
        )
