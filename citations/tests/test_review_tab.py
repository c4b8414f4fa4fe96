"""The staff citations review tab at /review/ (SPEC §5, seed 003): stats,
filters, paging, the slide-over detail, reviews, re-verification, export,
tenant isolation (TEN-02/03), CSRF (SEC-03) and escaping (SEC-07)."""

from __future__ import annotations

import csv
import datetime as dt
import io

import html5lib
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, given, settings

from accounts.scoping import tenant_scope, unscoped
from citations.models import CitationReview, CitationVerification, MessageCitation
from citations.tests.review_helpers import CONTRACT, make_citation, make_unsourced
from docuiq.testing.factories import make_document
from lib.spreadsheets import FORMULA_LEADS
from lib.tests import strategies

pytestmark = pytest.mark.django_db

REVIEW = reverse("citations:review")
XSS_QUOTE = (
    '<script>alert("q")</script>"><img src=x onerror=alert(1)>'
    '<a hx-get="/review/export.csv" hx-on:click="alert(2)">{{ request }}</a>\u202egnp.exe'
)
HX_ALLOWED = {
    "hx-get",
    "hx-post",
    "hx-target",
    "hx-swap",
    "hx-trigger",
    "hx-push-url",
    "hx-headers",
}
XSS_TITLE = '"><img src=x onerror=alert(1)><script>alert("t")</script>'


def _tree(response):
    return html5lib.parse(response.content.decode(), namespaceHTMLElements=False)


def _by_testid(tree, testid):
    return [el for el in tree.iter() if el.get("data-testid") == testid]


def _text(el) -> str:
    return "".join(el.itertext()).strip()


def _stat(tree, key) -> tuple[int, str | None]:
    count = int(_text(_by_testid(tree, f"stat-{key}-count")[0]))
    pct = _by_testid(tree, f"stat-{key}-pct")
    return count, (_text(pct[0]) if pct else None)


def _rows(tree) -> list[str]:
    return [_text(r) for r in _by_testid(tree, "review-row")]


def _csrf_client(user) -> Client:
    c = Client(enforce_csrf_checks=True)
    c.force_login(user)
    c.get(REVIEW)  # sets the csrftoken cookie
    return c


@pytest.fixture
def contract_a(tenant_a):
    return make_document(tenant_a, CONTRACT, title="Master Services Agreement")


@pytest.fixture
def lease_a(tenant_a):
    return make_document(
        tenant_a,
        "The Tenant shall pay rent monthly. The lease ends in 2030.",
        title="Office Lease",
    )


@pytest.fixture
def rows_a(tenant_a, contract_a, lease_a):
    return {
        "verified": make_citation(
            tenant_a,
            contract_a,
            quote="The Supplier shall deliver the goods within 30 days",
        ),
        "tolerant": make_citation(
            tenant_a,
            contract_a,
            quote="Payment is due within 45 days",
            method="tolerant_match",
            score=0.93,
        ),
        "failed": make_citation(
            tenant_a, lease_a, quote="The lease ends in 2040.", status="failed"
        ),
        "pending": make_citation(
            tenant_a, lease_a, quote="rent monthly", status="pending"
        ),
    }


@pytest.fixture
def rows_b(tenant_b):
    doc = make_document(
        tenant_b, "Tenant B's secret plan: expand to Mars.", title="B Secret Plan"
    )
    return [make_citation(tenant_b, doc, quote="expand to Mars")]


# ---------------------------------------------------------------- access


def test_anonymous_users_are_sent_to_log_in(client):
    response = client.get(REVIEW)
    assert response.status_code == 302
    assert reverse("accounts:login") in response["Location"]


def test_members_who_are_not_staff_are_forbidden(client, bob, rows_a):
    client.force_login(bob)
    assert client.get(REVIEW).status_code == 403
    citation = rows_a["verified"]
    assert (
        client.get(reverse("citations:detail", args=[citation.pk])).status_code == 403
    )
    assert client.get(reverse("citations:export")).status_code == 403
    response = client.post(
        reverse("citations:decide", args=[citation.pk]), {"decision": "accept"}
    )
    assert response.status_code == 403
    with unscoped():
        assert not CitationReview.objects.exists()


def test_staff_without_a_workspace_get_a_clear_404(client, db):
    from django.contrib.auth import get_user_model

    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(root)
    response = client.get(REVIEW)
    assert response.status_code == 404


def test_the_nav_shows_review_to_staff_only(alice_client, client, bob, rows_a):
    page = alice_client.get(reverse("ingest:document-list")).content.decode()
    assert f'href="{REVIEW}"' in page
    other = Client()
    other.force_login(bob)
    assert (
        f'href="{REVIEW}"'
        not in other.get(reverse("ingest:document-list")).content.decode()
    )


# ---------------------------------------------------------------- page, stats, filters


def test_the_page_lists_citations_newest_first_with_stats_and_percentages(
    alice_client, tenant_a, rows_a
):
    make_unsourced(tenant_a)
    tree = _tree(alice_client.get(REVIEW))
    assert _stat(tree, "total") == (5, None)
    assert _stat(tree, "verified") == (2, "40.0%")
    assert _stat(tree, "failed") == (1, "20.0%")
    assert _stat(tree, "pending") == (1, "20.0%")
    assert _stat(tree, "unverified") == (0, "0.0%")
    assert _stat(tree, "out_of_provenance") == (1, "20.0%")
    rows = _rows(tree)
    assert len(rows) == 5
    assert "An invented clause." in rows[0]  # the newest
    assert "Out of provenance" in rows[0]
    assert "rent monthly" in rows[1]
    assert "Tolerant match" in rows[3] and "0.93" in rows[3]


def test_percentages_are_of_the_filtered_total(alice_client, rows_a):
    tree = _tree(alice_client.get(REVIEW, {"document": "lease"}))
    assert _stat(tree, "total") == (2, None)
    assert _stat(tree, "failed") == (1, "50.0%")
    assert _stat(tree, "pending") == (1, "50.0%")
    assert _stat(tree, "verified") == (0, "0.0%")


def test_an_empty_workspace_shows_zeros_not_an_error(alice_client):
    tree = _tree(alice_client.get(REVIEW))
    assert _stat(tree, "total") == (0, None)
    assert _stat(tree, "verified") == (0, "0.0%")
    assert _rows(tree) == []


def test_filter_by_document_name_is_a_case_insensitive_partial_match(
    alice_client, rows_a
):
    rows = _rows(_tree(alice_client.get(REVIEW, {"document": "sERVICES agr"})))
    assert len(rows) == 2
    assert all("Master Services Agreement" in r for r in rows)


def test_filter_by_status_and_method(alice_client, tenant_a, rows_a):
    make_unsourced(tenant_a)
    failed = _rows(_tree(alice_client.get(REVIEW, {"status": "failed"})))
    assert len(failed) == 1 and "2040" in failed[0]
    tolerant = _rows(_tree(alice_client.get(REVIEW, {"method": "tolerant_match"})))
    assert len(tolerant) == 1 and "45 days" in tolerant[0]
    oop = _rows(_tree(alice_client.get(REVIEW, {"status": "out_of_provenance"})))
    assert len(oop) == 1 and "An invented clause." in oop[0]


def test_filter_by_date_range_includes_both_end_days(
    alice_client, tenant_a, contract_a
):
    def at(day):
        return dt.datetime(2026, 3, day, 12, tzinfo=dt.UTC)

    for day in (1, 10, 20):
        make_citation(
            tenant_a, contract_a, quote="Master Services Agreement", created_at=at(day)
        )
    rows = _rows(
        _tree(
            alice_client.get(
                REVIEW, {"date_from": "2026-03-10", "date_to": "2026-03-20"}
            )
        )
    )
    assert [r.split()[-2] for r in rows] == ["2026-03-20", "2026-03-10"]
    assert len(_rows(_tree(alice_client.get(REVIEW, {"date_to": "2026-03-05"})))) == 1


def test_bad_filter_values_are_reported_not_a_server_error(alice_client, rows_a):
    response = alice_client.get(
        REVIEW,
        {"date_from": "yesterday", "status": "nonsense", "date_to": "2026-01-01"},
    )
    assert response.status_code == 200
    tree = _tree(response)
    assert [el for el in tree.iter("ul") if "errorlist" in (el.get("class") or "")]
    assert _rows(tree) == []  # the valid date_to still applies: every row is newer
    reversed_range = alice_client.get(
        REVIEW, {"date_from": "2026-02-01", "date_to": "2026-01-01"}
    )
    assert "before the start date" in reversed_range.content.decode()


def test_an_htmx_filter_request_gets_only_the_results_fragment(alice_client, rows_a):
    response = alice_client.get(
        REVIEW, {"status": "failed"}, headers={"HX-Request": "true"}
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and 'id="review-results"' in body
    assert "HX-Request" in response["Vary"]
    assert "2040" in body and "rent monthly" not in body


def test_paging_is_by_keyset_and_every_link_has_href_and_hx_get(
    alice_client, tenant_a, contract_a
):
    start = timezone.now() - dt.timedelta(days=1)
    for i in range(30):
        make_citation(
            tenant_a,
            contract_a,
            quote=f"Quote number {i:02d}",
            created_at=start + dt.timedelta(minutes=i),
        )
    first = _tree(alice_client.get(REVIEW))
    rows = _rows(first)
    assert (
        len(rows) == 25
        and "Quote number 29" in rows[0]
        and "Quote number 05" in rows[-1]
    )
    assert not _by_testid(first, "page-newer")
    older = _by_testid(first, "page-older")[0]
    assert older.get("href") == older.get("hx-get")
    second = _tree(alice_client.get(older.get("href")))
    rows2 = _rows(second)
    assert [r.split("Quote number ")[1][:2] for r in rows2] == [
        "04",
        "03",
        "02",
        "01",
        "00",
    ]
    assert not _by_testid(second, "page-older")
    newer = _by_testid(second, "page-newer")[0]
    assert newer.get("href") == newer.get("hx-get")
    back = _rows(_tree(alice_client.get(newer.get("href"))))
    assert back == rows
    for tree in (first, second):
        for link in tree.iter("a"):
            if link.get("hx-get"):
                assert link.get("href"), link.get("hx-get")


def test_a_malformed_cursor_shows_the_first_page(alice_client, rows_a):
    response = alice_client.get(REVIEW, {"after": "not-a-cursor"})
    assert response.status_code == 200
    assert len(_rows(_tree(response))) == 4


# ---------------------------------------------------------------- detail


def test_the_detail_shows_badge_score_source_quote_highlighted_passage_and_history(
    alice_client, tenant_a, rows_a
):
    citation = rows_a["tolerant"]
    with tenant_scope(tenant_a):
        CitationVerification.objects.create(
            tenant=tenant_a, citation=citation, verification_status="verified",
            verification_method="tolerant_match", match_type="normalized", trigger="initial",
        )  # fmt: skip
    url = reverse("citations:detail", args=[citation.pk])
    response = alice_client.get(url, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert "Verified: tolerant match" in body
    assert "score 0.93" in body
    assert "Master Services Agreement" in body
    assert '<mark class="span-highlight">Payment is due within 45 days</mark>' in body
    assert "Verification history (1)" in body
    assert "No review yet" in body
    # Without htmx the same URL is the whole page with the panel open.
    page = alice_client.get(url).content.decode()
    assert (
        "<html" in page
        and 'data-testid="review-detail"' in page
        and 'data-testid="review-row"' in page
    )


def test_an_out_of_provenance_reference_opens_with_its_reason(alice_client, tenant_a):
    unsourced = make_unsourced(tenant_a, quote="Clause 99 says so.")
    body = alice_client.get(
        reverse("citations:detail", args=[unsourced.pk]), headers={"HX-Request": "true"}
    ).content.decode()
    assert "Clause 99 says so." in body
    assert "names no source given to the model" in body
    assert 'data-testid="review-form"' not in body


# ---------------------------------------------------------------- reviews


def _verdict(citation):
    with unscoped():
        row = MessageCitation.objects.get(pk=citation.pk)
    return (
        row.verification_status, row.verified, row.verification_method, row.match_type,
        row.match_score, row.verification_confidence, row.source_offset_start,
        row.source_offset_end, row.source_text, row.verified_at,
    )  # fmt: skip


def test_accept_and_reject_are_recorded_with_reviewer_and_note_and_keep_the_machine_verdict(
    alice_client, alice, rows_a
):
    citation = rows_a["verified"]
    before = _verdict(citation)
    url = reverse("citations:decide", args=[citation.pk])
    response = alice_client.post(
        url,
        {"decision": "reject", "note": "Clause 4.2 was superseded."},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert "citationReviewed" in response["HX-Trigger"]
    body = response.content.decode()
    assert (
        "Rejected" in body and "Clause 4.2 was superseded." in body and "alice" in body
    )
    alice_client.post(url, {"decision": "accept", "note": ""})
    with unscoped():
        reviews = list(
            CitationReview.objects.filter(citation=citation).order_by(
                "created_at", "id"
            )
        )
    assert [(r.decision, r.reviewer, r.note) for r in reviews] == [
        ("reject", alice, "Clause 4.2 was superseded."),
        ("accept", alice, ""),
    ]
    assert all(
        r.created_at is not None and r.tenant_id == citation.tenant_id for r in reviews
    )
    assert _verdict(citation) == before
    # The table shows the latest decision.
    rows = _rows(_tree(alice_client.get(REVIEW, {"document": "services"})))
    assert any("Accepted" in r and "30 days" in r for r in rows)


def test_a_rejection_needs_a_note(alice_client, rows_a):
    citation = rows_a["failed"]
    response = alice_client.post(
        reverse("citations:decide", args=[citation.pk]),
        {"decision": "reject", "note": "   "},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200  # re-rendered for htmx, not a 4xx
    assert "Say why the citation is rejected." in response.content.decode()
    with unscoped():
        assert not CitationReview.objects.exists()


def test_without_javascript_a_review_redirects_back_to_the_detail(alice_client, rows_a):
    citation = rows_a["pending"]
    response = alice_client.post(
        reverse("citations:decide", args=[citation.pk]),
        {"decision": "accept", "note": "ok", "return_query": "status=pending"},
    )
    assert response.status_code == 302
    assert (
        response["Location"]
        == reverse("citations:detail", args=[citation.pk]) + "?status=pending"
    )


def test_an_unknown_decision_records_nothing(alice_client, rows_a):
    citation = rows_a["pending"]
    alice_client.post(
        reverse("citations:decide", args=[citation.pk]), {"decision": "maybe"}
    )
    with unscoped():
        assert not CitationReview.objects.exists()


def test_reverify_runs_the_cascade_again_and_records_a_verification(
    alice_client, rows_a, django_capture_on_commit_callbacks
):
    citation = rows_a["failed"]  # "The lease ends in 2040." against "... ends in 2030."
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            reverse("citations:reverify", args=[citation.pk]),
            headers={"HX-Request": "true"},
        )
    assert response.status_code == 200
    assert "Re-verification queued." in response.content.decode()
    with unscoped():
        attempts = list(CitationVerification.objects.filter(citation=citation))
        row = MessageCitation.objects.get(pk=citation.pk)
    assert len(attempts) == 1 and attempts[0].trigger == "reverify"
    assert row.verification_status == "failed"  # 2040 is not 2030: still fails


# ---------------------------------------------------------------- export


def _csv(response):
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.reader(io.StringIO(body)))


def test_export_has_the_filtered_rows_and_defuses_formulas(
    alice_client, tenant_a, contract_a, rows_a
):
    make_citation(
        tenant_a, contract_a, quote='=HYPERLINK("http://evil.example","click")'
    )
    make_citation(
        tenant_a, contract_a, quote="@SUM(A1:A2)", document_name="+Injected name"
    )
    response = alice_client.get(reverse("citations:export"), {"document": "agreement"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = _csv(response)
    header, data = rows[0], rows[1:]
    assert header[:3] == ["id", "created_at", "document_name"]
    quotes = [r[header.index("quoted_text")] for r in data]
    assert quotes[0] == '\'=HYPERLINK("http://evil.example","click")'
    assert (
        len(data) == 3
    )  # the Office Lease rows and the +Injected one are filtered out
    all_rows = _csv(alice_client.get(reverse("citations:export")))
    names = [r[header.index("document_name")] for r in all_rows[1:]]
    assert "'+Injected name" in names
    assert "'@SUM(A1:A2)" in [r[header.index("quoted_text")] for r in all_rows[1:]]


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=strategies.HOSTILE)
def test_no_exported_cell_starts_a_formula(alice_client, tenant_a, contract_a, text):
    citation = make_citation(tenant_a, contract_a, quote=text, document_name=text)
    rows = _csv(alice_client.get(reverse("citations:export")))
    header = rows[0]
    (row,) = [r for r in rows if r[0] == str(citation.pk)]
    assert row[header.index("quoted_text")] == "'" + text
    assert not any(c.startswith(FORMULA_LEADS) for r in rows for c in r)


# ---------------------------------------------------------------- tenant isolation


def test_another_tenants_staff_see_none_of_its_citations(
    charlie_client, rows_a, rows_b
):
    tree = _tree(charlie_client.get(REVIEW))
    rows = _rows(tree)
    assert len(rows) == 1 and "expand to Mars" in rows[0]
    assert _stat(tree, "total") == (1, None)
    body = charlie_client.get(REVIEW, {"document": "Master"}).content.decode()
    assert "Master Services" not in body
    for citation in rows_a.values():
        assert (
            charlie_client.get(
                reverse("citations:detail", args=[citation.pk])
            ).status_code
            == 404
        )
        assert (
            charlie_client.post(
                reverse("citations:decide", args=[citation.pk]),
                {"decision": "reject", "note": "x"},
            ).status_code
            == 404
        )
        assert (
            charlie_client.post(
                reverse("citations:reverify", args=[citation.pk])
            ).status_code
            == 404
        )
    with unscoped():
        assert not CitationReview.objects.exists()
        assert not CitationVerification.objects.exists()
    exported = _csv(charlie_client.get(reverse("citations:export")))
    assert len(exported) == 2 and "expand to Mars" in exported[1]


def test_a_missing_id_and_another_tenants_id_look_the_same(charlie_client, rows_a):
    import uuid

    other = charlie_client.get(
        reverse("citations:detail", args=[rows_a["verified"].pk])
    )
    missing = charlie_client.get(reverse("citations:detail", args=[uuid.uuid4()]))
    assert other.status_code == missing.status_code == 404
    assert other.content == missing.content


# ---------------------------------------------------------------- CSRF (SEC-03)


@pytest.mark.parametrize("action", ["decide", "reverify"])
def test_unsafe_requests_need_the_csrf_token(alice, rows_a, action):
    c = _csrf_client(alice)
    url = reverse(f"citations:{action}", args=[rows_a["pending"].pk])
    data = {"decision": "accept", "note": "checked"}
    assert c.post(url, data, headers={"HX-Request": "true"}).status_code == 403
    token = c.cookies["csrftoken"].value
    response = c.post(url, data, headers={"HX-Request": "true", "X-CSRFToken": token})
    assert response.status_code == 200


def test_the_page_carries_the_csrf_header_for_htmx(alice_client, rows_a):
    body = alice_client.get(REVIEW).content.decode()
    assert 'hx-headers=\'{"X-CSRFToken": "' in body


# ---------------------------------------------------------------- escaping (SEC-07)


def _assert_inert(response, *payload_parts):
    body = response.content.decode()
    tree = html5lib.parse(body, namespaceHTMLElements=False)
    for el in tree.iter():
        if el.tag == "script":
            assert el.get("src"), "an inline script reached the page"
        assert el.tag != "img", "an injected <img> reached the page"
        for name in el.attrib:
            assert not name.lower().startswith("on"), f"event handler attribute {name}"
            if name.startswith("hx-"):
                assert name in HX_ALLOWED, f"unexpected htmx attribute {name}"
                if name in {"hx-get", "hx-post"}:
                    assert "export.csv" not in el.attrib[name], (
                        "an injected htmx request"
                    )
    for raw in payload_parts:
        assert raw not in body


def test_quotes_and_document_names_with_markup_are_escaped_everywhere(
    alice_client, tenant_a, django_capture_on_commit_callbacks
):
    doc = make_document(
        tenant_a, "Clause one. " + XSS_QUOTE + " Clause two.", title=XSS_TITLE
    )
    citation = make_citation(tenant_a, doc, quote=XSS_QUOTE)
    make_citation(tenant_a, doc, quote=XSS_QUOTE, status="failed")
    raw = ("<script>alert", "<img src=x", "<a hx-get", 'hx-on:click="alert')
    _assert_inert(alice_client.get(REVIEW), *raw)
    _assert_inert(alice_client.get(REVIEW, {"document": XSS_TITLE}), *raw)
    detail_url = reverse("citations:detail", args=[citation.pk])
    _assert_inert(alice_client.get(detail_url, headers={"HX-Request": "true"}), *raw)
    _assert_inert(alice_client.get(detail_url), *raw)
    _assert_inert(
        alice_client.post(
            reverse("citations:decide", args=[citation.pk]),
            {"decision": "reject", "note": XSS_QUOTE},
            headers={"HX-Request": "true"},
        ),
        *raw,
    )
    _assert_inert(
        alice_client.get(reverse("ingest:document-detail", args=[doc.pk])), *raw
    )
    assert (
        "&lt;script&gt;alert(&quot;q&quot;)&lt;/script&gt;"
        in alice_client.get(REVIEW).content.decode()
    )


# ---------------------------------------------------------------- document page


def test_a_document_page_summarises_its_citations(
    alice_client, client, bob, contract_a, rows_a
):
    page = _tree(
        alice_client.get(reverse("ingest:document-detail", args=[contract_a.pk]))
    )
    summary = _text(_by_testid(page, "document-citations")[0])
    assert "2 total" in summary and "Verified 2 (100.0%)" in summary
    assert "within 30 days" in summary and "Payment is due" in summary
    assert "2040" not in summary  # a citation of the lease, not of this contract
    review_all = _by_testid(page, "review-document-citations")[0].get("href")
    assert review_all == f"{REVIEW}?document_id={contract_a.pk}"
    filtered = _tree(alice_client.get(review_all))
    assert len(_rows(filtered)) == 2
    assert "Master Services Agreement" in _text(
        _by_testid(filtered, "document-filter")[0]
    )
    # A member who is not staff sees the summary but no review links.
    other = Client()
    other.force_login(bob)
    page = _tree(other.get(reverse("ingest:document-detail", args=[contract_a.pk])))
    assert _by_testid(page, "document-citations")
    assert not _by_testid(page, "review-document-citations")


def test_a_document_without_citations_says_so(alice_client, lease_a):
    body = alice_client.get(
        reverse("ingest:document-detail", args=[lease_a.pk])
    ).content.decode()
    assert "No answer has cited this document yet." in body


def test_the_tab_filters_by_relevance_and_lists_stale_citations(
    alice_client, tenant_a, contract_a
):
    on_topic = make_citation(
        tenant_a, contract_a, quote="The notice period is 90 days."
    )
    off = make_citation(tenant_a, contract_a, quote="The office closes at 6 pm.")
    stale = make_citation(tenant_a, contract_a, quote="Fees are due within 30 days.")
    with tenant_scope(tenant_a):
        MessageCitation.objects.filter(pk=on_topic.pk).update(relevance="answers")
        MessageCitation.objects.filter(pk=off.pk).update(relevance="off_topic")
        MessageCitation.objects.filter(pk=stale.pk).update(
            is_stale=True,
            verification_status="failed",
            verified=False,
            verification_method="failed",
            verified_at=None,
        )
    page = alice_client.get(reverse("citations:review"), {"relevance": "off_topic"})
    body = page.content.decode()
    assert "The office closes at 6 pm." in body and "90 days" not in body
    assert "Does not answer the question" in body
    stale_page = alice_client.get(reverse("citations:review"), {"stale": "on"})
    body = stale_page.content.decode()
    assert "Fees are due within 30 days." in body and "6 pm" not in body
    assert "Stale" in body
    rows = _csv(alice_client.get(reverse("citations:export"), {"stale": "on"}))
    header = rows[0]
    assert [r[header.index("stale")] for r in rows[1:]] == ["yes"]
