"""The guard's two OCR edit distances: `damage_cost` (the noisy channel's
weighted distance) and `plausible_ocr` (could OCR have made one word from the
other). Both decide whether a damaged span word still reads as the quote's,
so a wrong answer is a wrong verdict."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from citations.cascade import lexicon
from citations.cascade.folding import OCR_SAME_LENGTH
from citations.cascade.glyphs import CONFUSABLE_PAIRS, SPLIT_GLYPHS, THIN
from citations.cascade.guards import damage_cost, plausible_ocr

CHEAP, DEAR = lexicon.LOOKALIKE_COST, lexicon.ARBITRARY_COST

# Letters that take part in look-alikes, thin strokes and split glyphs, and
# some that take part in none.
_LETTERS = "abcdeghlmnorstuvwyfjqkpx"
_words = st.text(_LETTERS, max_size=9)


@pytest.mark.parametrize(
    ("a", "b", "cost"),
    [
        ("shall", "shall", 0.0),
        ("the", "tbe", CHEAP),  # h/b
        ("agreement", "agreenent", CHEAP),  # m/n
        ("form", "forrn", CHEAP),  # m read as rn
        ("forrn", "form", CHEAP),  # and back
        ("day", "clay", CHEAP),  # d read as cl
        ("often", "ofen", CHEAP),  # a thin t dropped
        ("ofen", "often", CHEAP),  # and added
        ("pay", "pat", DEAR),  # y/t: an arbitrary edit
        ("licensor", "licensee", CHEAP + DEAR),  # o/e looks alike, r/e does not
    ],
)
def test_damage_cost_of_known_pairs(a: str, b: str, cost: float) -> None:
    assert damage_cost(a, b) == cost


def test_a_capital_misread_is_cheap_only_at_the_first_letter() -> None:
    # c/g: "Company" read as "Gompany", but "force" and "forge" are words.
    assert damage_cost("company", "gompany") == CHEAP
    assert damage_cost("force", "forge") == DEAR


@settings(max_examples=400, deadline=None)
@given(_words, _words)
def test_damage_cost_is_symmetric_and_bounded_by_plain_edits(a: str, b: str) -> None:
    cost = damage_cost(a, b)
    assert cost == damage_cost(b, a)
    plain = Levenshtein.distance(a, b)
    # Every plain edit is at most dear; a split glyph, the cheapest way to
    # cover two plain edits, costs one look-alike.
    assert cost <= DEAR * plain
    assert cost >= CHEAP * plain / 2
    assert (cost == 0) == (a == b)


@settings(max_examples=400, deadline=None)
@given(_words, _words)
def test_plausible_ocr_is_symmetric_and_loosens_with_each_arbitrary_edit(
    a: str, b: str
) -> None:
    assert plausible_ocr(a, a)
    answers = [plausible_ocr(a, b, arbitrary) for arbitrary in range(3)]
    assert answers == [plausible_ocr(b, a, arbitrary) for arbitrary in range(3)]
    # An answer never turns from yes to no when an edit more is allowed.
    assert answers == sorted(answers)


@settings(max_examples=300, deadline=None)
@given(st.text("abcdeghmnorstuvwy", min_size=4, max_size=9), st.data())
def test_a_glyph_read_as_two_is_plausible_damage(word: str, data) -> None:
    pairs = [(two, one) for two, one in SPLIT_GLYPHS if one in word]
    if not pairs:
        return
    two, one = data.draw(st.sampled_from(sorted(pairs)))
    at = word.index(one)
    damaged = word[:at] + two + word[at + 1 :]
    assert plausible_ocr(word, damaged)
    assert damage_cost(word, damaged) == CHEAP


@pytest.mark.parametrize(
    ("a", "b", "plausible"),
    [
        ("hand", "harid", True),  # n read as ri: r for n, and an i
        ("agreement", "agreernent", True),
        ("without", "wlthout", True),  # i and l: one glyph to OCR
        ("licensor", "licensee", False),  # r/e is no OCR confusion
        ("employer", "employee", False),
        ("shall", "will", False),
        ("not", "now", False),
        ("company", "gompany", True),  # c/g only at a word's first letter
        ("force", "forge", False),
    ],
)
def test_plausible_ocr_of_known_pairs(a: str, b: str, plausible: bool) -> None:
    assert plausible_ocr(a, b) is plausible


@pytest.mark.parametrize(
    ("a", "b", "needed"),
    [
        ("pay", "pat", 1),  # y/t: no look-alike
        ("employer", "employee", 1),  # r/e
        ("licensor", "licensee", 1),  # o/e looks alike, r/e needs one
        ("cat", "dog", 2),  # a/o looks alike, c/d and t/g do not
    ],
)
def test_arbitrary_edits_are_spent_on_what_no_misread_glyph_explains(
    a: str, b: str, needed: int
) -> None:
    assert [plausible_ocr(a, b, k) for k in range(3)] == [k >= needed for k in range(3)]


@st.composite
def _ocr_damaged(draw) -> tuple[str, str]:
    """A word, and the word with one or two of OCR's own edits: a look-alike
    glyph, a thin stroke dropped or added, one glyph read as two or two as
    one."""
    word = draw(st.text(_LETTERS, min_size=1, max_size=9))
    damaged = word
    for _ in range(draw(st.integers(1, 2))):
        at = draw(st.integers(0, len(damaged)))
        here = damaged[at : at + 1]
        edits = [y for x, y in CONFUSABLE_PAIRS if x == here]
        edits = [damaged[:at] + y + damaged[at + 1 :] for y in edits]
        edits += [damaged[:at] + t + damaged[at:] for t in sorted(THIN)]
        if here in THIN:
            edits.append(damaged[:at] + damaged[at + 1 :])
        for two, one in sorted(SPLIT_GLYPHS):
            if here == one:
                edits.append(damaged[:at] + two + damaged[at + 1 :])
            if damaged[at : at + 2] == two:
                edits.append(damaged[:at] + one + damaged[at + 2 :])
        damaged = draw(st.sampled_from(edits))
    return word, damaged


@settings(max_examples=500, deadline=None)
@given(_ocr_damaged())
def test_plausible_ocr_agrees_with_the_cost_of_the_damage(pair) -> None:
    # plausible_ocr allows 1 + length // 4 of OCR's own edits, damage_cost
    # prices each at one look-alike: a word either call finds within one or
    # two such edits, the other must too.
    word, damaged = pair
    longest = max(len(word), len(damaged))
    cost = damage_cost(*(w.translate(OCR_SAME_LENGTH) for w in (word, damaged)))
    if plausible_ocr(word, damaged):
        assert cost <= CHEAP * (1 + longest // 4)
    if cost == CHEAP or (cost == 2 * CHEAP and longest >= 4):
        assert plausible_ocr(word, damaged)
        assert plausible_ocr(damaged, word)
