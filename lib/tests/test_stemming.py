"""The light stemmer (lib.stemming): forms of one word read as one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lib.stemming import (
    ENDINGS,
    MIN_SHARED_STEM,
    adverb_bases,
    form_written,
    same_root,
    same_word,
    singular,
    stem,
    terms,
    without_possessive,
)

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


def test_plurals_and_possessives_read_as_the_word() -> None:
    for form in ("licensors", "licensor's", "licensors'", "licensor\u2019s"):
        assert singular(form) == "licensor"
    assert singular("cafés") == "café"


def test_short_words_and_numbers_keep_their_s() -> None:
    assert [singular(w) for w in ("its", "has", "1990s", "q4s")] == [
        "its",
        "has",
        "1990s",
        "q4s",
    ]


def test_a_possessive_goes_and_a_plural_stays() -> None:
    assert without_possessive("Seller's") == "Seller"
    assert without_possessive("Sellers\u2019") == "Seller"
    assert without_possessive("Sellers") == "Sellers"


def test_same_root_reads_the_opening_letters() -> None:
    assert same_root("deliver", "delivery")
    assert same_root("buy", "buyer")  # the shorter word whole
    assert not same_root("deliver", "delete")


_ENDS = st.sampled_from(["s", "'s", "s'", "\u2019s", "s\u2019"])


@given(_WORDS, _ENDS)
def test_singular_drops_exactly_the_ending_after_three_letters(
    word: str, ending: str
) -> None:
    assert singular(word + ending) == (word if len(word) >= 3 else word + ending)


@given(st.text(max_size=12))
def test_singular_only_ever_drops_an_ending(word: str) -> None:
    read = singular(word)
    assert word.startswith(read)
    assert word[len(read) :] in ("", "s", "'s", "s'", "\u2019s", "s\u2019")


@given(_WORDS, st.lists(_WORDS, max_size=30))
def test_form_written_is_same_word_against_each_written_stem(
    stem: str, written: list[str]
) -> None:
    vocabulary = tuple(sorted(set(written)))
    expected = any(same_word(stem, w) for w in vocabulary)
    assert form_written(stem, vocabulary, set(written)) == expected


def test_a_form_is_written_by_its_word() -> None:
    vocabulary = ("assign", "commitment")
    assert form_written("assignabl", vocabulary, set(vocabulary))
    assert form_written("commit", vocabulary, set(vocabulary))
    assert not form_written("franc", ("franchis",), {"franchis"})


def test_an_adverb_reads_as_the_words_it_may_come_from() -> None:
    assert "knowing" in adverb_bases("knowingly")
    assert "happy" in adverb_bases("happily")
    assert "true" in adverb_bases("truly")
    assert "full" in adverb_bases("fully")
    assert adverb_bases("only") == adverb_bases("ly2ly") == ()


@given(_WORDS, st.sampled_from(["'s", "\u2019s"]))
def test_without_possessive_drops_the_owners_ending_only(
    word: str, ending: str
) -> None:
    assert without_possessive(word + ending) == word
    assert without_possessive(word) == word


@given(_WORDS, _WORDS)
def test_same_root_is_symmetric_and_holds_for_a_word_and_its_longer_form(
    a: str, b: str
) -> None:
    assert same_root(a, b) == same_root(b, a)
    assert same_root(a, a + b)
