"""Glyphs OCR engines mistake for one another (after the OCR skeleton of
folding.py has merged l/1/i, o/0, rn/m, cl/d and vv/w)."""

from __future__ import annotations

from collections.abc import Iterator

# Glyph pairs OCR engines confuse (after the skeleton has already merged
# l/1/i, o/0, rn/m, cl/d, vv/w). Deliberately short: "Licensor"/"Licensee"
# and "employer"/"employee" differ by r/e, which is not here, and must fail.
CONFUSABLE = frozenset(
    frozenset(pair)
    for pair in (
        *("ec", "eo", "co", "ao", "ae", "sa"),  # round glyphs; s/a in old faces
        *("hb", "hn", "hl", "nu", "nr", "nm", "uv", "vy"),
        *("ft", "tl", "fl", "jl", "gq", "rt"),
        "lu",  # "ll" read as "U" (with a dropped l): "shall" -> "shaU"
    )
)
# A 0 or 1 standing for a letter ("n0t", "r0t", "sha1l").
DIGITS_AS_LETTERS = str.maketrans("01", "ol")
# Thin glyphs OCR drops or invents.
THIN = frozenset("ljtf")
# Capitals OCR confuses, which can only be told at a word's first letter in
# folded text: "Company" read as "Gompany" (while "force" and "forge" stay
# two words).
INITIAL_CONFUSABLE = frozenset({frozenset("cg")})
# One glyph read as two (in OCR_SAME_LENGTH space, where i and 1 are l).
SPLIT_GLYPHS = frozenset(
    {("rn", "m"), ("nn", "m"), ("ln", "m"), ("cl", "d"), ("vv", "w"), ("rl", "n")}
    | {("ll", "h"), ("ll", "u"), ("ll", "d")}
)

# The same tables as the edit distances of guards.py read them in their inner
# loops: a two-letter string, in either order, is cheaper to build and look up
# than a frozenset, and a split glyph is looked up by the two it was read as.
CONFUSABLE_PAIRS = frozenset(
    x + y for pair in CONFUSABLE for x in pair for y in pair - {x}
)
INITIAL_CONFUSABLE_PAIRS = frozenset(
    x + y for pair in INITIAL_CONFUSABLE for x in pair for y in pair - {x}
)
MERGED: dict[str, frozenset[str]] = {
    two: frozenset(one for t, one in SPLIT_GLYPHS if t == two)
    for two, _ in SPLIT_GLYPHS
}


def merged_once(word: str) -> Iterator[str]:
    """`word` with one glyph OCR read as two put back, in every way it can
    be ("rlow" -> "now", "nnust" -> "must")."""
    for two, one in SPLIT_GLYPHS:
        at = word.find(two)
        while at >= 0:
            yield word[:at] + one + word[at + 2 :]
            at = word.find(two, at + 1)
