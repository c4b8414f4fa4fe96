"""REST API for documents and search: upload (several files), list, detail
with text and pages, soft delete, search; tenant isolation (TEN-02, TEN-04)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.scoping import tenant_scope, unscoped
from docuiq.testing import pdfgen
from docuiq.testing.factories import make_document
from docuiq.tests.api_fixtures import *  # noqa: F403 - fixtures
from docuiq.tests.api_fixtures import B_SECRET, CONTRACT, random_id, tenant_row_counts
from ingest.models import Document

pytestmark = pytest.mark.django_db


def upload(client, *files, **fields):
    return client.post(
        "/api/documents/upload", {"files": list(files), **fields}, format="multipart"
    )


def text_file(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/plain")


@pytest.fixture
def contract(tenant_a):
    return make_document(
        tenant_a, ["Page one: " + CONTRACT, "Page two: signatures."], title="MSA"
    )


@pytest.fixture
def ledger(tenant_b):
    return make_document(tenant_b, B_SECRET, title="Falcon Ledger")


# ---------------------------------------------------------------- upload


def test_upload_several_files_ingests_each_into_a_document(
    a_user_api, tenant_a, tmp_path, django_capture_on_commit_callbacks
):
    pdf = pdfgen.text_pages_pdf(
        tmp_path / "lease.pdf",
        {1: "Lease between the parties.", 2: "Rent is due monthly."},
    )
    with django_capture_on_commit_callbacks(
        execute=True
    ):  # the ingest task runs on commit
        response = upload(
            a_user_api,
            text_file("notes.txt", "Board notes: the budget was approved."),
            SimpleUploadedFile(
                "lease.pdf", pdf.read_bytes(), content_type="application/pdf"
            ),
        )
    assert response.status_code == 201, response.content
    items = response.json()["items"]
    assert [i["filename"] for i in items] == ["notes.txt", "lease.pdf"]
    assert all(i["status"] == "queued" for i in items)  # as of the response
    with tenant_scope(tenant_a):
        documents = {
            d.file.filename: d for d in Document.objects.select_related("file")
        }
    assert (
        documents["notes.txt"].status == "ready"
        and documents["lease.pdf"].status == "ready"
    )
    assert documents["notes.txt"].uploaded_by.username == "alice"
    detail = a_user_api.get(f"/api/documents/{documents['lease.pdf'].pk}").json()
    assert detail["status"] == "ready" and detail["source_type"] == "pdf"
    assert detail["page_count"] == 2
    assert [p["number"] for p in detail["pages"]] == [1, 2]
    second = detail["pages"][1]
    assert "Rent is due monthly." in detail["text"][second["start"] : second["end"]]


def test_upload_into_a_collection(a_key_api, tenant_a):
    from accounts.services import collection_get_or_create

    deals = collection_get_or_create(tenant=tenant_a, name="Deals")
    response = upload(a_key_api, text_file("a.txt", "alpha"), collection_id=deals.pk)
    assert response.status_code == 201
    assert response.json()["items"][0]["collection_ids"] == [deals.pk]
    listed = a_key_api.get("/api/documents", {"collection_id": deals.pk}).json()[
        "items"
    ]
    assert [d["filename"] for d in listed] == ["a.txt"]


def test_upload_into_another_tenants_collection_is_refused_and_stores_nothing(
    b_key_api, b_user_api, tenant_a, tenant_b
):
    from accounts.services import collection_get_or_create

    foreign = collection_get_or_create(tenant=tenant_a, name="Deals")
    before = tenant_row_counts(tenant_a), tenant_row_counts(tenant_b)
    for client in (b_key_api, b_user_api):
        refused = upload(client, text_file("x.txt", "x"), collection_id=foreign.pk)
        unknown = upload(client, text_file("x.txt", "x"), collection_id=999_999)
        assert refused.status_code == unknown.status_code == 400
        assert refused.content == unknown.content
    assert (tenant_row_counts(tenant_a), tenant_row_counts(tenant_b)) == before


def test_upload_without_files_is_400(a_key_api):
    assert (
        a_key_api.post("/api/documents/upload", {}, format="multipart").status_code
        == 400
    )
    assert (
        a_key_api.post(
            "/api/documents/upload", {"files": "not a file"}, format="multipart"
        ).status_code
        == 400
    )
    assert (
        a_key_api.post(
            "/api/documents/upload", {"files": ["x"]}, format="json"
        ).status_code
        == 415
    )


def test_upload_the_same_bytes_twice_returns_the_same_document(a_key_api, tenant_a):
    first = upload(a_key_api, text_file("a.txt", "same bytes")).json()["items"][0]
    again = upload(a_key_api, text_file("renamed.txt", "same bytes")).json()["items"][0]
    assert again["id"] == first["id"]
    with tenant_scope(tenant_a):
        assert Document.objects.count() == 1


def test_an_empty_file_becomes_a_failed_document_and_the_others_go_through(
    a_key_api, tenant_a, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(
            a_key_api, text_file("empty.txt", ""), text_file("ok.txt", "fine text")
        )
    assert response.status_code == 201
    by_name = {
        d["filename"]: d for d in a_key_api.get("/api/documents").json()["items"]
    }
    assert by_name["empty.txt"]["status"] == "failed" and by_name["empty.txt"]["error"]
    assert by_name["ok.txt"]["status"] == "ready"


def test_a_filename_is_data_not_a_path(a_key_api, tenant_a):
    item = upload(a_key_api, text_file("../../etc/passwd", "root")).json()["items"][0]
    assert item["filename"] == "passwd"


# ---------------------------------------------------------------- list


def test_list_shows_only_the_callers_documents(
    a_key_api, b_key_api, b_user_api, contract, ledger
):
    assert [d["id"] for d in a_key_api.get("/api/documents").json()["items"]] == [
        str(contract.pk)
    ]
    for client in (b_key_api, b_user_api):
        assert [d["id"] for d in client.get("/api/documents").json()["items"]] == [
            str(ledger.pk)
        ]


def test_list_filters_and_pages(a_key_api, tenant_a):
    for i in range(5):
        make_document(tenant_a, f"text {i}", title=f"Report {i}")
    make_document(tenant_a, "memo", title="Memo")
    assert {
        d["title"]
        for d in a_key_api.get("/api/documents", {"q": "rEpOrT"}).json()["items"]
    } == {f"Report {i}" for i in range(5)}
    assert (
        len(a_key_api.get("/api/documents", {"status": "ready"}).json()["items"]) == 6
    )
    assert a_key_api.get("/api/documents", {"status": "failed"}).json()["items"] == []
    page = a_key_api.get("/api/documents", {"limit": 4}).json()
    rest = a_key_api.get(
        "/api/documents", {"limit": 4, "skip": page["next_skip"]}
    ).json()
    assert (
        len(page["items"]),
        page["next_skip"],
        len(rest["items"]),
        rest["next_skip"],
    ) == (4, 4, 2, None)
    for bad in ({"limit": 0}, {"skip": -1}, {"status": "lost"}, {"collection_id": "x"}):
        assert a_key_api.get("/api/documents", bad).status_code == 400


# ---------------------------------------------------------------- detail


def test_detail_has_the_text_and_the_page_boundaries(a_user_api, contract):
    body = a_user_api.get(f"/api/documents/{contract.pk}").json()
    revision = contract.current_revision
    assert body["text"] == revision.normalized_content
    assert body["revision_number"] == 1
    assert body["current_revision_id"] == str(revision.pk)
    assert body["pages"] == [
        {"number": 1, "start": 0, "end": revision.page_starts[1]},
        {
            "number": 2,
            "start": revision.page_starts[1],
            "end": len(revision.normalized_content),
        },
    ]
    assert body["text"][body["pages"][1]["start"] :].startswith("Page two")
    without = a_user_api.get(
        f"/api/documents/{contract.pk}", {"include_text": "false"}
    ).json()
    assert without["text"] is None and without["pages"] == body["pages"]


def test_detail_of_another_tenants_document_is_404_like_an_unknown_one(
    b_key_api, b_user_api, contract
):
    responses = [
        b_key_api.get(f"/api/documents/{contract.pk}"),
        b_user_api.get(f"/api/documents/{contract.pk}"),
        b_key_api.get(f"/api/documents/{random_id()}"),
        b_key_api.get("/api/documents/not-a-uuid"),
    ]
    assert {r.status_code for r in responses} == {404}
    assert len({r.content for r in responses}) == 1


# ---------------------------------------------------------------- delete


def test_delete_is_soft_and_hides_the_document(a_key_api, contract, tenant_a):
    response = a_key_api.post(f"/api/documents/{contract.pk}/delete")
    assert response.status_code == 204
    assert a_key_api.get(f"/api/documents/{contract.pk}").status_code == 404
    assert a_key_api.get("/api/documents").json()["items"] == []
    assert (
        a_key_api.get("/api/search", {"q": "Supplier deliver goods"}).json()["items"]
        == []
    )
    with unscoped():
        assert Document.objects.get(
            pk=contract.pk
        ).is_deleted  # kept for citation history
    assert a_key_api.post(f"/api/documents/{contract.pk}/delete").status_code == 404


def test_another_tenant_cannot_delete_a_document(
    b_key_api, b_user_api, contract, tenant_a
):
    before = tenant_row_counts(tenant_a)
    for client in (b_key_api, b_user_api):
        foreign = client.post(f"/api/documents/{contract.pk}/delete")
        unknown = client.post(f"/api/documents/{random_id()}/delete")
        assert foreign.status_code == unknown.status_code == 404
        assert foreign.content == unknown.content
    assert tenant_row_counts(tenant_a) == before


# ---------------------------------------------------------------- search


def test_search_finds_the_chunk_with_its_ids_and_offsets(a_key_api, contract):
    body = a_key_api.get(
        "/api/search", {"q": "When must the supplier deliver goods?"}
    ).json()
    hit = body["items"][0]
    assert (
        hit["rank"] == 1
        and hit["document_id"] == str(contract.pk)
        and hit["document_title"] == "MSA"
    )
    text = contract.current_revision.normalized_content
    assert text[hit["start_offset"] : hit["end_offset"]] == hit["content"]
    assert "deliver the goods" in hit["content"]
    # The chunk id is what /api/citations/resolve takes.
    resolved = a_key_api.post(
        "/api/citations/resolve", {"chunk_id": hit["chunk_id"]}, format="json"
    )
    assert resolved.status_code == 201


def test_search_never_returns_another_tenants_chunks(
    a_key_api, b_key_api, contract, ledger
):
    assert (
        a_key_api.get("/api/search", {"q": "Zanzibar falcon ledger"}).json()["items"]
        == []
    )
    assert (
        b_key_api.get("/api/search", {"q": "Supplier deliver goods"}).json()["items"]
        == []
    )
    # Narrowing to another tenant's document or collection finds nothing, like an unknown id.
    assert (
        b_key_api.get(
            "/api/search", {"q": "Supplier", "document_id": str(contract.pk)}
        ).json()["items"]
        == []
    )
    assert b_key_api.get(
        "/api/search", {"q": "Zanzibar", "document_id": str(ledger.pk)}
    ).json()["items"]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"q": ""},
        {"q": "x" * 501},
        {"q": "a", "k": 0},
        {"q": "a", "k": 51},
        {"q": "a", "document_id": "z"},
    ],
)
def test_search_rejects_bad_parameters(a_key_api, params):
    assert a_key_api.get("/api/search", params).status_code == 400


@pytest.mark.parametrize(
    "q",
    [
        '"',
        "AND OR NOT",
        "*",
        "a:b",
        "(",
        "NEAR(x y)",
        "'; DROP TABLE x; --",
        "ü̈ 𝕏 \u200b",
    ],
)
def test_search_syntax_characters_never_fail(a_key_api, contract, q):
    assert a_key_api.get("/api/search", {"q": q}).status_code == 200


def test_more_files_than_django_accepts_is_a_json_400(a_key_api, tenant_a, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 3
    files = [text_file(f"f{i}.txt", f"file {i}") for i in range(4)]
    response = upload(a_key_api, *files)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert "DATA_UPLOAD_MAX_NUMBER_FILES" in response.json()["detail"]
    with tenant_scope(tenant_a):
        assert not Document.objects.exists()
