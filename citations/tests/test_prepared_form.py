"""A large revision's prepared form, stored once and read by every process
(issue 27 item 5): the stored form is the built one, a form of other code or
another text is never read, and a verification on a read form reaches the
verdict a built one does."""

from __future__ import annotations

import io
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts.scoping import tenant_scope
from citations.cascade import SourceText, prepared, verify_cited_quote
from citations.models import PreparedForm
from citations.prepared_store import STORE_MIN_CHARS, prepared_store
from citations.verdicts import RevisionText
from ingest.models import Document
from ingest.services import Upload, document_upload

CLAUSE = (
    "Either party may terminate this Agreement upon ninety (90) days prior "
    "written notice; fees of $12,500 are payable within thirty days. "
)


def _same(a: prepared.PreparedText, b: prepared.PreparedText) -> None:
    assert a.folded.text == b.folded.text
    assert (a.folded.f_starts, a.folded.o_starts, a.folded.o_lens) == (
        b.folded.f_starts,
        b.folded.o_starts,
        b.folded.o_lens,
    )
    assert a.folded.identity == b.folded.identity
    assert a.skeleton == b.skeleton
    assert a.vocabulary == b.vocabulary
    assert a._index() == b._index()
    assert a._numbers == b._numbers


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from([*"abc fil1 0O\n\t-ﬁ’“.,;9", "\u00a0", "é"]),
        max_size=400,
    )
)
def test_a_read_form_is_the_built_form_for_any_text(text):
    built = prepared.PreparedText(
        text=text,
        folded=prepared.fold(text),
        skeleton=prepared.fold(text).text.translate(prepared.OCR_SAME_LENGTH),
    )
    read = prepared.loads(text, prepared.dumps(built))
    assert read is not None
    _same(read, built)


def test_other_code_another_text_or_damage_is_never_read():
    text = CLAUSE * 20
    blob = prepared.dumps(prepared.prepare(text))
    assert prepared.loads(text[:-1], blob) is None  # another text
    assert prepared.loads(text, blob[: len(blob) // 2]) is None  # damaged
    assert prepared.loads(text, b"not a form") is None
    import marshal

    body = list(marshal.loads(zlib.decompress(blob)))
    body[0] = "other-code"
    assert prepared.loads(text, zlib.compress(marshal.dumps(tuple(body)))) is None


def _big_upload(tenant, title="big.txt") -> Document:
    text = "".join(
        f"Section {i}. {CLAUSE}Clause {i} binds the Distributor in region {i % 97}.\n\n"
        for i in range(STORE_MIN_CHARS // 120 + 50)
    )
    with tenant_scope(tenant):
        document = document_upload(
            tenant=tenant,
            upload=Upload(filename=title, stream=io.BytesIO(text.encode())),
        )
        return Document.objects.select_related("current_revision").get(pk=document.pk)


@pytest.mark.django_db(transaction=True)
def test_a_large_revision_is_stored_after_ingestion_and_read_by_the_next_verification(
    tenant_a, tenant_b
):
    document = _big_upload(tenant_a)
    revision = document.current_revision
    text = revision.normalized_content
    assert len(text) >= STORE_MIN_CHARS
    with tenant_scope(tenant_a):
        row = PreparedForm.objects.get(revision=revision)
        assert row.format == prepared.FORMAT and row.chars == len(text)
    with tenant_scope(tenant_b):
        assert not PreparedForm.objects.exists()  # another tenant sees none

    # A new process: nothing cached. Reading the revision loads the stored form.
    prepared.clear_cache()
    with tenant_scope(tenant_a):
        RevisionText.of(revision)
    loaded = prepared.cached(text)
    assert loaded is not None
    at = text.index("Either party", 150_000)
    clean = text[at : at + 160].rsplit(" ", 1)[0]
    quote = clean.replace(" ", "  ")
    damaged = clean.replace("ninety (90)", "ninety (60)")
    assert damaged != clean
    source = SourceText(label="S1", text=text, within=None, page_starts=[])
    on_loaded = [verify_cited_quote(q, cited=source) for q in (quote, damaged)]
    prepared.clear_cache()
    prepared.prepare(text)  # built here, as without a stored form
    on_built = [verify_cited_quote(q, cited=source) for q in (quote, damaged)]
    assert [(v.verified, v.start, v.end, v.method) for v in on_loaded] == [
        (v.verified, v.start, v.end, v.method) for v in on_built
    ]
    assert on_loaded[0].verified and not on_loaded[1].verified


@pytest.mark.django_db
def test_a_form_of_other_code_is_rebuilt_and_a_small_text_is_not_stored(
    tenant_a, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        document = _big_upload(tenant_a)
    with tenant_scope(tenant_a):
        revision = Document.objects.get(pk=document.pk).current_revision
    assert revision is not None, (document.status, document.error)
    with tenant_scope(tenant_a):
        PreparedForm.objects.filter(revision=revision).delete()
        PreparedForm.objects.create(
            tenant=tenant_a, revision=revision, format="old", data=b"x", chars=1
        )
        prepared.clear_cache()
        with django_capture_on_commit_callbacks() as queued:
            RevisionText.of(revision)  # the old form is not read...
        assert prepared.cached(revision.normalized_content) is None
        assert len(queued) == 1  # ...and a worker is asked for a new one
        queued[0]()
        row = PreparedForm.objects.get(revision=revision)
        assert row.format == prepared.FORMAT
        assert prepared_store(revision) is False  # current: nothing to do
        with django_capture_on_commit_callbacks(execute=True):
            small = _small(tenant_a)
        small_revision = Document.objects.get(pk=small.pk).current_revision
        assert prepared_store(small_revision) is False
        assert not PreparedForm.objects.filter(revision=small_revision).exists()


def _small(tenant) -> Document:
    with tenant_scope(tenant):
        document = document_upload(
            tenant=tenant,
            upload=Upload(filename="small.txt", stream=io.BytesIO(CLAUSE.encode())),
        )
        return Document.objects.select_related("current_revision").get(pk=document.pk)


@pytest.mark.django_db
def test_a_stored_form_goes_with_its_document(
    tenant_a, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        document = _big_upload(tenant_a)
    with tenant_scope(tenant_a):
        assert PreparedForm.objects.filter(revision__document=document).exists()
        Document.objects.filter(pk=document.pk).delete()
        assert not PreparedForm.objects.exists()
