"""Ligatures and compatibility letters (issue 32 item 4): the folded text maps
back to the original characters exactly (property), search finds
"Conﬁdential" by "confidential" while the stored text keeps its ligature,
the "never mention" reading sees the word, and a quote of the ligature text
verifies with offsets on the original characters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounts.scoping import tenant_scope
from citations.cascade import verify_quote
from docuiq.testing.factories import make_document
from ingest.search import search_chunks
from ingest.search.within import written_in
from lib.stemming import terms
from lib.textfold import FOLDED_CHARS, SQL_LIGATURES, fold_compat, fold_with_map

LIGATURE_TEXT = (
    "Conﬁdential Information. The Recipient shall keep all Conﬁdential "
    "Information conﬁdential and shall not ﬁle it with any oﬃce."
)

_ALPHABET = st.sampled_from(
    [*"abc fil1 .,-", "ﬁ", "ﬂ", "ﬀ", "ﬃ", "ﬄ", "ﬅ", "ﬆ", "ĳ", "ſ", "Ａ", "𝐁", "é", "½"]
)


@given(text=st.text(alphabet=_ALPHABET, max_size=60), data=st.data())
def test_a_span_of_the_folded_text_maps_back_to_the_characters_it_came_from(text, data):
    folded = fold_with_map(text)
    assert folded.text == fold_compat(text)
    assert len(folded.origin) == len(folded.text) + 1
    start = data.draw(st.integers(0, len(folded.text)))
    end = data.draw(st.integers(start, len(folded.text)))
    o_start, o_end = folded.original(start, end)
    assert 0 <= o_start <= o_end <= len(text)
    # The original characters, folded, hold the folded span (a span that
    # begins or ends inside an expanded ligature maps to the whole ligature).
    assert folded.text[start:end] in fold_compat(text[o_start:o_end])
    # And every span of whole original characters maps back exactly.
    i = data.draw(st.integers(0, len(text)))
    j = data.draw(st.integers(i, len(text)))
    f_start = len(fold_compat(text[:i]))
    f_end = f_start + len(fold_compat(text[i:j]))
    if i < j:
        assert folded.original(f_start, f_end) == (i, j)


def test_a_quote_found_in_the_folded_text_lands_on_the_ligature():
    folded = fold_with_map(LIGATURE_TEXT)
    at = folded.text.index("file it with any office")
    start, end = folded.original(at, at + len("file it with any office"))
    assert LIGATURE_TEXT[start:end] == "ﬁle it with any oﬃce"


def test_only_letters_are_folded_never_signs():
    assert fold_compat("½ ™ № … “x” — é") == "½ ™ № … “x” — é"
    assert fold_compat("Ｆｕｌｌ ĳ ſ 𝐁") == "Full ij s B"
    assert dict(SQL_LIGATURES)["ﬁ"] == "fi" and all(FOLDED_CHARS.values())


def test_relevance_and_silence_read_the_ligature_word():
    assert terms("Conﬁdential") == terms("confidential")


@pytest.mark.django_db
def test_search_finds_ligature_text_and_the_quote_keeps_its_offsets(tenant_a):
    document = make_document(tenant_a, LIGATURE_TEXT, title="NDA")
    make_document(tenant_a, "The weather was mild with light winds.", title="Other")
    hits = search_chunks(tenant_a, "Is the information confidential?", mode="fts")
    assert hits and hits[0].chunk.document_id == document.pk
    assert "Conﬁdential" in hits[0].chunk.content  # the stored text keeps it
    assert search_chunks(tenant_a, "ﬁle office", mode="fts")[0].chunk.document_id == (
        document.pk
    )
    with tenant_scope(tenant_a):
        written = written_in([document])
        assert all(written(stem) for stem in terms("confidential office"))
        text = document.current_revision.normalized_content
    verdict = verify_quote(text, "keep all Confidential Information confidential")
    assert verdict.verified
    assert text[verdict.start : verdict.end] == (
        "keep all Conﬁdential Information conﬁdential"
    )
