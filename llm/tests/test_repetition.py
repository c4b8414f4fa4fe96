"""find_repetition: a reply stuck in a loop, told from a normal answer."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from llm.repetition import MIN_REPEATS, find_repetition

LOOP = "The term of this agreement is one year."


def test_one_sentence_many_times_is_a_loop() -> None:
    found = find_repetition("The answer is below. " + " ".join([LOOP] * 20))
    assert found is not None
    assert found.rule == "same sentence"
    assert found.count == 20
    assert "one year" in found.describe()


def test_one_line_many_times_is_a_loop() -> None:
    found = find_repetition("\n".join(["- Section 4.2 applies"] * 8))
    assert found is not None and found.count == 8


def test_a_phrase_without_punctuation_repeated_at_the_end_is_a_loop() -> None:
    found = find_repetition("The parties agree that " + "the party and the " * 30)
    assert found is not None
    assert found.rule == "periodic tail"


def test_normal_answers_are_not_loops() -> None:
    assert find_repetition("The notice period is thirty days.") is None
    assert find_repetition("") is None
    # A list whose items share words, and a quote given twice, are answers.
    answer = "\n".join(
        f"- Clause {n}: the Supplier shall deliver goods within {n} days."
        for n in range(12)
    )
    assert find_repetition(answer) is None
    assert find_repetition(f'"{LOOP}" (Source: [S1]). As quoted: "{LOOP}"') is None


def test_punctuation_and_numbers_are_not_loops() -> None:
    assert find_repetition("| --- | --- | --- | --- | --- | --- | --- |") is None
    assert find_repetition("0, " * 40) is None
    assert find_repetition("No. No. No. No. No. No.") is None  # too short to matter


def test_a_loop_that_is_a_small_part_of_a_long_answer_is_not_one() -> None:
    long_answer = " ".join(
        f"Paragraph {n} explains a different obligation of party {n}."
        for n in range(40)
    )
    assert find_repetition(long_answer + " " + " ".join([LOOP] * 5)) is None


sentences = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=15, max_size=60
).filter(lambda s: len(s.split()) >= 3)


@given(sentence=sentences, times=st.integers(min_value=MIN_REPEATS, max_value=40))
def test_any_sentence_repeated_enough_is_found(sentence: str, times: int) -> None:
    unit = " ".join(sentence.split()).capitalize() + "."
    assert find_repetition(" ".join([unit] * times)) is not None


@given(
    st.lists(
        sentences, min_size=1, max_size=30, unique_by=lambda s: " ".join(s.split())
    )
)
def test_distinct_sentences_are_never_a_loop(parts: list[str]) -> None:
    text = " ".join(" ".join(p.split()).capitalize() + "." for p in parts)
    assert find_repetition(text) is None
