"""The word index behind stages 1 and 2: longer keys where pairs are common."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from citations.cascade import prepared as prepared_module
from citations.cascade.prepared import SELECTIVE, prepare
from citations.cascade.verify import verify_quote

_WORD = re.compile(r"\w+")


def _occurrences(skeleton: str, words: list[str]) -> list[int]:
    """Offsets where `words` occur in a row as whole words, by brute force."""
    spans = [(m.start(), m.group()) for m in _WORD.finditer(skeleton)]
    n = len(words)
    return [
        spans[i][0]
        for i in range(len(spans) - n + 1)
        if [w for _, w in spans[i : i + n]] == words
    ]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=2, max_size=400))
def test_postings_list_every_occurrence_of_the_words_they_cover(words):
    # A tiny threshold makes most pairs "frequent", so keys get extended.
    saved = prepared_module.SELECTIVE
    prepared_module.SELECTIVE = 3
    try:
        prepared_module.clear_cache()
        prepared = prepare(" ".join(words))
        found = prepared.postings(words, 0, len(words) - 1, len(words), selective=3)
        for i, hits in enumerate(found):
            covered = 2
            while covered < prepared_module.MAX_KEY_WORDS and i + covered < len(words):
                if len(_occurrences(prepared.skeleton, words[i : i + covered])) <= 3:
                    break
                covered += 1
            expected = _occurrences(prepared.skeleton, words[i : i + covered])
            assert list(hits) == expected
    finally:
        prepared_module.SELECTIVE = saved
        prepared_module.clear_cache()


def test_a_damaged_passage_of_common_words_is_found():
    # Every word pair of this text occurs thousands of times: seeding needs
    # the longer keys to find the one damaged place.
    rng = random.Random(3)
    vocabulary = ["the", "of", "and", "to", "a", "in", "be", "party", "agreement"]
    words = [rng.choice(vocabulary) for _ in range(120_000)]
    text = " ".join(words)
    assert len(prepare(text).bigram_postings("the of")) > SELECTIVE
    start = text.index(" ", 300_000) + 1
    quote = text[start : text.index(" ", start + 120)]
    damaged = (
        text[:start]
        + quote.replace("agreement", "agreernent", 1).replace(" of ", " 0f ", 1)
        + text[start + len(quote) :]
    )
    if damaged == text:  # no word to damage in this draw
        damaged = text[:start] + "x" + text[start + 1 :]
    verdict = verify_quote(damaged, quote)
    assert verdict.verified, verdict.reason
    assert damaged[verdict.start : verdict.end] == verdict.source_text
    assert abs(verdict.start - start) <= 2


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["12", "123", "1162", "x42", "10", "100", "a", "on", "4,250"]),
        min_size=1,
        max_size=200,
    )
)
def test_number_postings_list_every_whole_number_token(words):
    prepared_module.clear_cache()
    prepared = prepare(" ".join(words))
    spans = [(m.start(), m.group()) for m in _WORD.finditer(prepared.skeleton)]
    for token in {w for _, w in spans}:
        expected = [at for at, w in spans if w == token]
        indexed = (
            len(token) >= prepared_module.NUMBER_MIN_CHARS
            and re.search("[2-9]", token) is not None
        )
        assert list(prepared.number_postings(token)) == (expected if indexed else [])
    prepared_module.clear_cache()
