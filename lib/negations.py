"""The words that negate or condition what follows them: one list, read by
the verification cascade (citations.cascade.context: a negation a quote leaves
out) and by sentence splitting (lib.sentences: no sentence starts right after
one of these). Pure Python, no Django.
"""

from __future__ import annotations

__all__ = ["CONDITIONING_WORDS", "HOLDING_WORDS", "NEGATION_WORDS"]

# The negations OCR may have damaged in a source ("uot", "Neithcr"): the
# guard's whole words (citations.cascade.guards._NEGATIONS), less "non" (a
# prefix, held to its word by a hyphen) and the rare "nobody" and "nowhere",
# plus "cannot".
NEGATION_WORDS: tuple[str, ...] = (
    "not",
    "no",
    "never",
    "neither",
    "nor",
    "none",
    "nothing",
    "without",
    "unless",
    "except",
    "cannot",
)

# Words that make what follows a condition or a limit ("if", "provided",
# "only", "than", "that"): a clause cut after one reads as the opposite.
CONDITIONING_WORDS: tuple[str, ...] = (
    "if",
    "provided",
    "until",
    "save",
    "only",
    "than",
    "that",
)

# A sentence never starts right after one of these (lib.sentences).
HOLDING_WORDS = frozenset(NEGATION_WORDS + CONDITIONING_WORDS)
