"""One list of negating and conditioning words (lib.negations)."""

from __future__ import annotations

from lib.negations import HOLDING_WORDS
from lib.sentences import split_sentences


def test_no_sentence_starts_after_a_holding_word_at_a_blank_line() -> None:
    for word in sorted(HOLDING_WORDS):
        text = f"The Supplier shall pay {word}\n\nthe Buyer delivers."
        assert len(split_sentences(text)) == 1, word
