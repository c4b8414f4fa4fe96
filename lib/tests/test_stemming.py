"""The light stemmer (lib.stemming): forms of one word read as one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lib.stemming import ENDINGS, MIN_SHARED_STEM, same_word, stem, terms

_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=14)


def test_forms_of_a_word_share_its_terms() -> None:
    assert terms("terminated") == terms("terminate") == terms("terminates")
    assert terms("classes") == terms("class")


def test_a_ligature_reads_as_its_letters() -> None:
    assert terms("Conﬁdential") == terms("Confidential")


@given(_WORDS)
def test_a_stem_never_grows(word: str) -> None:
    assert len(stem(word)) <= len(word)


@given(_WORDS, _WORDS)
def test_same_word_is_symmetric_and_reflexive(a: str, b: str) -> None:
    assert same_word(a, a)
    assert same_word(a, b) == same_word(b, a)


@given(_WORDS, st.sampled_from(sorted(ENDINGS)))
def test_a_stem_plus_an_ending_is_the_same_word(base: str, ending: str) -> None:
    assert same_word(base, base + ending) == (len(base) >= MIN_SHARED_STEM)
