"""Reviewing cells (issue 25): approve, flag, edit with a note (checked
against the quote), revert; who and when in the history; filters; exports
carry the original and edited values, the review state and the reviewer;
the same over REST; another tenant cannot touch a cell."""

from __future__ import annotations

import csv
import io

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from openpyxl import load_workbook

from accounts.scoping import tenant_scope
from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures
from tabular import export
from tabular.cell_review import (
    cell_approve,
    cell_clear,
    cell_edit,
    cell_flag,
    cell_history,
    cell_revert,
)
from tabular.executor import review_run
from tabular.models import Cell, CellEvent
from tabular.services import ColumnSpec, ReviewError, cell_rerun, review_create

pytestmark = pytest.mark.django_db

COLUMNS = [
    ColumnSpec(
        "Payment", "Within how many days must invoices be paid?", type="duration"
    ),
    ColumnSpec("Liability cap", "What is the cap on liability?", type="money"),
]


@pytest.fixture
def review(tenant_a, contracts):
    review = review_create(
        tenant=tenant_a,
        name="Review me",
        document_ids=[d.pk for d in contracts],
        columns=COLUMNS,
    )
    review_run(review_id=review.pk, concurrency=1)
    return review


def _cell(review, title, column):
    with tenant_scope(review.tenant):
        return (
            Cell.objects.select_related("row", "column", "citation")
            .filter(review=review, row__title=title, column__name=column)
            .get()
        )


def test_approve_flag_and_clear_are_recorded_with_who_and_when(review, alice, bob):
    cell = _cell(review, "Acme supply agreement", "Payment")
    with tenant_scope(review.tenant):
        cell = cell_approve(cell=cell, user=alice)
        assert cell.review_state == "approved" and cell.reviewed_by == alice
        assert cell.reviewed_at is not None
        cell_approve(cell=cell, user=alice)  # already approved: nothing more
        cell = cell_flag(cell=cell, user=bob, note="Check the schedule")
        assert cell.review_state == "flagged" and cell.reviewed_by == bob
        cell = cell_clear(cell=cell, user=bob)
        assert cell.review_state == "unreviewed" and cell.reviewed_by is None
        history = cell_history(cell)
    assert [(e.action, e.user_name) for e in history] == [
        ("clear", "bob"),
        ("flag", "bob"),
        ("approve", "alice"),
    ]
    assert history[1].note == "Check the schedule"
    # "Verified" stays the engine's word.
    assert cell.citation.verification_status == "verified"


def test_an_edit_keeps_the_original_and_is_checked_against_the_quote(review, alice):
    cell = _cell(review, "Acme supply agreement", "Payment")
    with tenant_scope(review.tenant):
        edited = cell_edit(
            cell=cell, user=alice, value="thirty days", note="house style"
        )
        assert edited.value == "30 days"  # the engine's, kept
        assert edited.shown_value == "thirty days" and edited.edited_by == alice
        assert edited.edited_support == "supported"
        assert edited.edited_typed_value == {
            "kind": "duration",
            "amount": 30,
            "unit": "day",
        }
        wrong = cell_edit(cell=cell, user=alice, value="45 days", note="per email")
        assert wrong.edited_support == "unsupported"
        assert "45 days" in wrong.edited_support_reason
        back = cell_revert(cell=cell, user=alice)
        assert not back.is_edited and back.shown_value == "30 days"
        history = cell_history(cell)
    assert [e.action for e in history] == ["revert", "edit", "edit"]
    assert (history[1].value_before, history[1].value_after) == (
        "thirty days",
        "45 days",
    )


def test_a_not_found_cell_can_be_given_a_value_that_nothing_checks(review, alice):
    cell = _cell(review, "Gamma licence", "Liability cap")
    assert cell.is_not_found
    with tenant_scope(review.tenant):
        cell = cell_edit(
            cell=cell, user=alice, value="USD 1,000,000", note="side letter"
        )
    assert cell.shown_value == "USD 1,000,000"
    assert cell.edited_support == "unsupported"  # no verified quote states it


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"value": "", "note": "x"}, "value_required"),
        ({"value": "30 days", "note": " "}, "note_required"),
        ({"value": "x" * 2001, "note": "n"}, "value_too_long"),
    ],
)
def test_bad_edits_are_clear_errors(review, alice, kwargs, code):
    cell = _cell(review, "Acme supply agreement", "Payment")
    with tenant_scope(review.tenant), pytest.raises(ReviewError) as error:
        cell_edit(cell=cell, user=alice, **kwargs)
    assert error.value.code == code


def test_an_unfinished_cell_cannot_be_reviewed(review, alice):
    cell = _cell(review, "Acme supply agreement", "Payment")
    with tenant_scope(review.tenant):
        Cell.objects.filter(pk=cell.pk).update(status="pending")
        with pytest.raises(ReviewError):
            cell_approve(cell=cell, user=alice)
        with pytest.raises(ReviewError):
            cell_flag(cell=cell, user=alice)


def test_a_rerun_resets_the_review_and_keeps_its_history(
    review, alice, django_capture_on_commit_callbacks
):
    cell = _cell(review, "Acme supply agreement", "Payment")
    with tenant_scope(review.tenant):
        cell_edit(cell=cell, user=alice, value="31 days", note="typo?")
        cell_flag(cell=cell, user=alice)
    with django_capture_on_commit_callbacks(execute=True):
        cell_rerun(cell=cell, user=alice)
    cell = _cell(review, "Acme supply agreement", "Payment")
    assert cell.review_state == "unreviewed" and not cell.is_edited
    assert cell.value == "30 days"
    with tenant_scope(review.tenant):
        assert [e.action for e in cell_history(cell)] == ["rerun", "flag", "edit"]


def test_the_panel_reviews_a_cell_and_updates_its_grid_cell(alice_client, review):
    cell = _cell(review, "Acme supply agreement", "Payment")
    url = f"/tabular/{review.pk}/cells/{cell.pk}"
    body = alice_client.post(
        f"{url}/edit/",
        {"value": "thirty days", "note": "house style"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert 'data-testid="cell-panel-edited"' in body and "alice" in body
    assert 'data-testid="cell-panel-original"' in body and "30 days" in body
    assert f'id="cell-{cell.pk}"' in body and 'hx-swap-oob="true"' in body
    assert "house style" in body  # the history
    body = alice_client.post(
        f"{url}/flag/", {"note": "ask legal"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert 'data-testid="cell-flagged"' in body
    # A missing note is shown in the panel, and what was typed is kept.
    body = alice_client.post(
        f"{url}/edit/", {"value": "31 days", "note": ""}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert 'data-testid="cell-panel-form-error"' in body and 'value="31 days"' in body
    # Without JavaScript: a redirect to the cell's page.
    response = alice_client.post(f"{url}/approve/")
    assert response.status_code == 302
    assert alice_client.post(f"{url}/explode/").status_code == 404


def test_the_grid_filters_flagged_and_unreviewed_cells(alice_client, review, alice):
    cell = _cell(review, "Gamma licence", "Payment")
    with tenant_scope(review.tenant):
        cell_flag(cell=cell, user=alice)
    flagged = alice_client.get(f"/tabular/{review.pk}/?show=flagged").content.decode()
    assert flagged.count('data-testid="grid-row"') == 1 and "Gamma licence" in flagged
    unreviewed = alice_client.get(
        f"/tabular/{review.pk}/?show=unreviewed"
    ).content.decode()
    assert unreviewed.count('data-testid="grid-row"') == 2
    nothing = alice_client.get(f"/tabular/{review.pk}/?show=bogus").content.decode()
    assert nothing.count('data-testid="grid-row"') == 2  # an unknown filter shows all


def test_the_grid_sorts_rows_by_a_typed_column(alice_client, review):
    with tenant_scope(review.tenant):
        column = review.columns.get(name="Payment")
    body = alice_client.get(f"/tabular/{review.pk}/?sort={column.pk}").content.decode()
    assert body.index("Acme supply agreement") < body.index("Gamma licence")  # 30 < 45
    body = alice_client.get(
        f"/tabular/{review.pk}/?sort={column.pk}&order=desc"
    ).content.decode()
    assert body.index("Gamma licence") < body.index("Acme supply agreement")


def test_exports_carry_original_and_edited_values_review_state_and_reviewer(
    review, alice
):
    cell = _cell(review, "Acme supply agreement", "Payment")
    with tenant_scope(review.tenant):
        cell_edit(cell=cell, user=alice, value="thirty days", note="style")
        cell_approve(cell=cell, user=alice)
        text = export.review_csv(review)
        workbook = load_workbook(export.review_xlsx(review))
    rows = list(csv.reader(io.StringIO(text[1:])))
    head = rows[0]
    acme = rows[1]
    assert acme[head.index("Payment")] == "thirty days"
    assert acme[head.index("Payment · original value")] == "30 days"
    assert acme[head.index("Payment · edited value")] == "thirty days"
    assert acme[head.index("Payment · edited by")] == "alice"
    assert acme[head.index("Payment · review")] == "approved"
    assert acme[head.index("Payment · reviewer")] == "alice"
    sheet = workbook["Review"]
    header = [c.value for c in sheet[1]]
    original = sheet.cell(row=2, column=header.index("Payment · original value") + 1)
    assert original.value == 30 and original.number_format == '0 "days"'
    gamma = sheet.cell(row=3, column=header.index("Payment") + 1)
    assert gamma.value == 45  # a number a spreadsheet can sort
    history = workbook["History"]
    actions = [row[4].value for row in history.iter_rows(min_row=2)]
    assert actions == ["Edited the value", "Approved"]


def test_cells_are_reviewed_over_rest(a_key_api, alice_key_api_review):
    review, cell = alice_key_api_review
    base = f"/api/tabular/reviews/{review.pk}/cells/{cell.pk}"
    response = a_key_api.post(
        f"{base}/edit", {"value": "thirty days", "note": "style"}, format="json"
    )
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["value"] == "thirty days"
    assert data["review"]["original_value"] == "30 days"
    assert data["review"]["support"] == "supported"
    flagged = a_key_api.post(f"{base}/flag", {"note": "ask"}, format="json").json()
    assert flagged["review"]["review_state"] == "flagged"
    bad = a_key_api.post(f"{base}/edit", {"value": "x", "note": ""}, format="json")
    assert bad.status_code == 400
    assert a_key_api.post(f"{base}/explode", {}, format="json").status_code == 404


def test_another_tenant_cannot_review_a_cell(b_key_api, alice_key_api_review):
    review, cell = alice_key_api_review
    base = f"/api/tabular/reviews/{review.pk}/cells/{cell.pk}"
    assert b_key_api.post(f"{base}/approve", {}, format="json").status_code == 404
    with tenant_scope(review.tenant):
        assert Cell.objects.get(pk=cell.pk).review_state == "unreviewed"


@pytest.fixture
def alice_key_api_review(review):
    return review, _cell(review, "Acme supply agreement", "Payment")


def test_the_database_refuses_an_event_for_another_tenants_cell(review, tenant_b):
    cell = _cell(review, "Acme supply agreement", "Payment")
    with (
        pytest.raises((IntegrityError, DatabaseError)),
        transaction.atomic(),
        tenant_scope(tenant_b),
    ):
        CellEvent.objects.create(tenant=tenant_b, cell=cell, action="approve")
        if connection.vendor == "postgresql":
            # The composite key is deferred: check it now, not at commit.
            connection.cursor().execute("SET CONSTRAINTS ALL IMMEDIATE")
