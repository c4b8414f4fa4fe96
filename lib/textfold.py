"""Compatibility folding for the text search, naming and relevance read
(issue 32 item 4). Pure (no Django), on the ground floor so every app may use it.

A PDF that sets "Conﬁdential" with the U+FB01 ligature writes the word
"confidential" as far as a reader is concerned, but a tokenizer sees
"conﬁdential". `fold_compat` replaces typographic ligatures (U+FB00-FB06,
"ĳ", "ŀ"), the long s, fullwidth and halfwidth forms and styled
mathematical letters by the letters they stand for; nothing else changes
(case, accents, quotes, dashes and spacing are other readers' business).

The stored text is never folded: a citation's offsets point into the
document's own characters. `fold_with_map` gives the folded text with, for
each of its characters, the index of the original character it came from,
so a span found in the folded text maps back exactly (`Folded.original`):
"ﬁnal" folds to "final", and "fi" in it maps back to "ﬁ".
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

__all__ = [
    "FOLDED_CHARS",
    "SQL_LIGATURES",
    "Folded",
    "fold_compat",
    "fold_with_map",
    "sql_fold",
]

# Where compatibility letters live: Latin Extended (ĳ, ŀ, ſ, ǆ), letterlike
# symbols (ℓ, ℌ), the alphabetic presentation forms (ﬁ, ﬂ, ﬀ, ﬃ, ﬄ, ﬅ, ﬆ),
# fullwidth and halfwidth forms, mathematical alphanumerics.
_RANGES = (
    (0x0100, 0x024F),
    (0x2100, 0x214F),
    (0xFB00, 0xFB06),
    (0xFF01, 0xFFEF),
    (0x1D400, 0x1D7FF),
)
_TAGS = ("<compat>", "<wide>", "<narrow>", "<font>")


def _folds() -> dict[str, str]:
    table: dict[str, str] = {}
    for low, high in _RANGES:
        for code in range(low, high + 1):
            char = chr(code)
            decomposition = unicodedata.decomposition(char)
            if not decomposition.startswith(_TAGS):
                continue
            folded = unicodedata.normalize("NFKC", char)
            # Letters and digits only: "½" -> "1⁄2" or "™" -> "TM" would put
            # words where the document has a sign.
            # A letterlike sign stands for one letter ("ℓ"), never a word ("№").
            if (
                folded != char
                and folded.isalnum()
                and (len(folded) == 1 or not 0x2100 <= code <= 0x214F)
            ):
                table[char] = folded
    return table


FOLDED_CHARS: dict[str, str] = _folds()
_TABLE = {ord(char): folded for char, folded in FOLDED_CHARS.items()}

# The ligatures the full-text index folds in SQL (SQLite and PostgreSQL both
# have replace(); ingest migration 0011): the ones PDF text layers carry.
SQL_LIGATURES: tuple[tuple[str, str], ...] = tuple(
    (chr(code), FOLDED_CHARS[chr(code)]) for code in range(0xFB00, 0xFB07)
)


def sql_fold(column: str) -> str:
    """An SQL expression: `column` with SQL_LIGATURES replaced."""
    expression = column
    for char, letters in SQL_LIGATURES:
        expression = f"replace({expression}, '{char}', '{letters}')"
    return expression


def fold_compat(text: str) -> str:
    """`text` with compatibility letters folded (see the module docstring);
    one `str.translate`, so it costs little on the hot paths."""
    return text.translate(_TABLE)


@dataclass(frozen=True)
class Folded:
    """Folded text and, per character, the index in the original it came
    from (`origin[i]`); `origin` has one more entry, len(original)."""

    text: str
    origin: tuple[int, ...]

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span of folded `text[start:end]`: from the start of
        the character `start` came from to the end of the one `end - 1` came
        from (a span inside one expanded ligature maps to the whole ligature)."""
        if not 0 <= start <= end <= len(self.text):
            raise ValueError(f"span {start}:{end} outside 0:{len(self.text)}")
        if start == end:
            return self.origin[start], self.origin[start]
        last = self.origin[end - 1]
        following = next(
            (o for o in self.origin[end - 1 :] if o != last), self.origin[-1]
        )
        return self.origin[start], following


def fold_with_map(text: str) -> Folded:
    """`fold_compat(text)` with the offset map back into `text`."""
    pieces: list[str] = []
    origin: list[int] = []
    for i, char in enumerate(text):
        folded = FOLDED_CHARS.get(char, char)
        pieces.append(folded)
        origin.extend([i] * len(folded))
    origin.append(len(text))
    return Folded(text="".join(pieces), origin=tuple(origin))
