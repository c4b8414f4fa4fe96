"""The tabular pages: list and create, the grid with its fragments, the cell
panel, run / cancel / re-run, exports; another tenant's review is a 404."""

from __future__ import annotations

import time

import pytest

from accounts.scoping import tenant_scope
from tabular.executor import review_run
from tabular.models import Cell, Review
from tabular.services import ColumnSpec, review_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def review(tenant_a, contracts):
    review = review_create(
        tenant=tenant_a,
        name="Contracts <Q3>",
        document_ids=[d.pk for d in contracts],
        columns=[
            ColumnSpec(
                name="Governing law", question="Which law governs the agreement?"
            ),
            ColumnSpec(
                name="Payment", question="Within how many days must invoices be paid?"
            ),
        ],
    )
    review_run(review_id=review.pk)
    return review


def _cells(review):
    with tenant_scope(review.tenant):
        return list(
            Cell.objects.filter(review=review).order_by("row__order", "column__order")
        )


def test_the_list_page_offers_ready_documents(alice_client, contracts):
    page = alice_client.get("/tabular/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Acme supply agreement" in body and "Gamma licence" in body
    assert 'href="/tabular/"' in body  # the nav link


def test_create_from_the_form_runs_and_opens_the_grid(
    alice_client, contracts, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            "/tabular/new/",
            {
                "name": "From the form",
                "documents": [str(contracts[1].pk), str(contracts[0].pk)],
                "columns": "Law: Which law governs?\nFee (money): What fee is payable?",
            },
        )
    assert response.status_code == 302
    grid = alice_client.get(response["Location"])
    body = grid.content.decode()
    assert grid.status_code == 200
    # Rows in the operator's order.
    assert body.index("Gamma licence") < body.index("Acme supply agreement")
    assert "Completed" in body
    with tenant_scope(contracts[0].tenant):
        review = Review.objects.get(name="From the form")
        assert [c.type for c in review.columns.order_by("order")] == ["text", "money"]


def test_a_bad_form_is_shown_again_with_the_error(alice_client, contracts):
    response = alice_client.post(
        "/tabular/new/",
        {"name": "x", "documents": [str(contracts[0].pk)], "columns": "no colon here"},
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "is not" in body and "no colon here" in body  # what was typed is kept


def test_the_grid_shows_values_confidence_and_citation_badges(alice_client, review):
    body = alice_client.get(f"/tabular/{review.pk}/").content.decode()
    assert "Contracts &lt;Q3&gt;" in body  # escaped
    assert body.count('data-testid="cell"') == 4
    assert "England and Wales" in body
    assert 'class="badge badge--verified"' in body
    assert (
        'data-testid="review-progress"' in body
        and "hx-trigger"
        not in body.split('data-testid="review-progress"')[1].split(">")[0]
    )
    assert "<script>" not in body.split("</head>")[1].replace(
        "<script src=", ""
    )  # no inline script


def test_the_cell_panel_opens_the_cited_passage(alice_client, review):
    cell = _cells(review)[0]
    fragment = alice_client.get(
        f"/tabular/{review.pk}/cells/{cell.pk}/", HTTP_HX_REQUEST="true"
    )
    body = fragment.content.decode()
    assert fragment.status_code == 200 and "<html" not in body
    assert 'data-testid="cell-panel"' in body
    assert '<mark class="span-highlight">' in body and "England and Wales" in body
    assert "Verified" in body
    page = alice_client.get(
        f"/tabular/{review.pk}/cells/{cell.pk}/"
    )  # without JS: a page
    assert "<html" in page.content.decode()


def test_progress_polls_while_running_and_brings_changed_cells(alice_client, review):
    with tenant_scope(review.tenant):
        Review.objects.filter(pk=review.pk).update(status=Review.Status.RUNNING)
    since = time.time() - 60
    body = alice_client.get(
        f"/tabular/{review.pk}/progress/?since={since}"
    ).content.decode()
    assert 'hx-trigger="every 2s"' in body  # keeps polling while running
    assert body.count('hx-swap-oob="true"') == 4  # the cells changed since then
    later = alice_client.get(
        f"/tabular/{review.pk}/progress/?since={time.time() + 60}"
    ).content.decode()
    assert 'hx-swap-oob="true"' not in later
    with tenant_scope(review.tenant):
        Review.objects.filter(pk=review.pk).update(status=Review.Status.COMPLETED)
    done = alice_client.get(
        f"/tabular/{review.pk}/progress/?since={since}"
    ).content.decode()
    assert "hx-trigger" not in done  # finished: polling stops


def test_rerun_and_cancel_from_the_page(
    alice_client, review, django_capture_on_commit_callbacks
):
    cell = _cells(review)[1]
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            f"/tabular/{review.pk}/cells/{cell.pk}/rerun/", HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200 and 'id="grid-body"' in response.content.decode()
    assert _cells(review)[1].status == Cell.Status.DONE
    response = alice_client.post(f"/tabular/{review.pk}/cancel/")
    assert response.status_code == 302  # already finished: nothing to cancel


def test_exports_download(alice_client, review):
    csv_response = alice_client.get(f"/tabular/{review.pk}/export.csv")
    assert csv_response.status_code == 200
    assert csv_response["Content-Disposition"].startswith("attachment;")
    xlsx = alice_client.get(f"/tabular/{review.pk}/export.xlsx")
    assert xlsx.status_code == 200 and xlsx["Content-Type"].startswith(
        "application/vnd.openxml"
    )


@pytest.mark.parametrize(
    "path",
    ["/", "/progress/", "/export.csv", "/export.xlsx", "/cells/{cell}/"],
)
def test_another_tenants_review_is_a_404(charlie_client, review, path):
    cell = _cells(review)[0]
    response = charlie_client.get(f"/tabular/{review.pk}{path.format(cell=cell.pk)}")
    assert response.status_code == 404


def test_another_tenant_cannot_run_cancel_or_rerun(charlie_client, review):
    cell = _cells(review)[0]
    for path in ("/run/", "/cancel/", f"/cells/{cell.pk}/rerun/"):
        assert charlie_client.post(f"/tabular/{review.pk}{path}").status_code == 404
    with tenant_scope(review.tenant):
        assert Review.objects.get(pk=review.pk).status == Review.Status.COMPLETED
