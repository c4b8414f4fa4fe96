"""The cascade's word memo: same answers, bounded, and nothing for the
garbage collector to walk."""

from __future__ import annotations

import gc

from citations.cascade.memo import memo


def test_remembers_each_argument_tuple_once():
    calls = []

    @memo(100)
    def joined(a: str, b: str = "-") -> str:
        calls.append((a, b))
        return a + b

    assert joined("x") == "x-"
    assert joined("x") == "x-"
    assert joined("x", "+") == "x+"
    assert joined("x", "+") == "x+"
    assert calls == [("x", "-"), ("x", "+")]


def test_empties_itself_when_full():
    calls = []

    @memo(3)
    def upper(word: str) -> str:
        calls.append(word)
        return word.upper()

    for word in "abc":
        upper(word)
    assert len(upper.entries) == 3
    assert upper("d") == "D"
    assert list(upper.entries) == ["d"]
    assert upper("a") == "A"
    assert calls == ["a", "b", "c", "d", "a"]


def test_a_memo_of_strings_is_not_walked_by_the_collector():
    @memo(1000)
    def folded(word: str) -> str:
        return word.lower()

    for i in range(500):
        folded(f"Word{i}")
    gc.collect()
    assert not gc.is_tracked(folded.entries)


def test_the_cascade_word_caches_answer_as_before():
    from citations.cascade.folding import fold_text, ocr_skeleton

    assert ocr_skeleton("rnay") == ocr_skeleton("may")
    assert fold_text("ﬁnal") == "final"
    assert fold_text("ﬁnal") == "final"


def test_counting_a_documents_vocabulary_leaves_the_word_memo_to_recurring_words():
    # A scan's vocabulary is mostly one-off damaged words, and the word list
    # (loaded with the first document) 160k words: remembering them would
    # empty the memo the guard reads for every quote.
    from citations.cascade import lexicon
    from citations.cascade.folding import _word_skeleton, ocr_skeleton
    from citations.cascade.prepared import prepare

    _word_skeleton.entries.clear()
    ocr_skeleton("agreemernt")
    words = [f"zq{i}x" for i in range(2_000)]
    vocabulary = prepare(" ".join(words) + " rnay").vocabulary
    lexicon.frequency("the")
    assert vocabulary["may"] == 1
    assert "zq7x" in vocabulary
    assert "agreemernt" in _word_skeleton.entries
    assert len(_word_skeleton.entries) < 100
