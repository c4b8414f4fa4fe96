"""Folding: the tolerant comparison space, with a map back to the original text.

`fold(text)` lowercases and normalizes presentation-only differences (runs of
whitespace, line-break hyphenation, ligatures, smart quotes and dashes, soft
hyphens and zero-width characters, compatibility letters) and remembers, for
every folded character, which original characters produced it. A span found
in folded space is mapped back with `Folded.source_span`, so a tolerant match
always reports the document's own characters (SPEC §3: offsets point into
`normalized_content`).

Digits and symbols are deliberately left alone (superscripts, fractions,
non-ASCII digits): folding must never make two different numbers equal.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass

from citations.cascade.memo import memo

# Characters that only exist to shape or break text; they are dropped.
# U+FFFE is not here: pdfium emits it for a hyphen (see PUNCTUATION_FOLDS).
IGNORABLE = frozenset(
    "\u00ad\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\x02"
)

PUNCTUATION_FOLDS = {
    **dict.fromkeys(
        "\u2018\u2019\u201a\u201b\u2032\u2035\u2039\u203a\u02bc`\u00b4", "'"
    ),
    **dict.fromkeys(
        "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\u301d\u301e\uff02", '"'
    ),
    **dict.fromkeys(
        "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d\ufffe", "-"
    ),
    "\u2026": "...",
}

# A hyphen (or soft hyphen) at the end of a line between two letters is
# typesetting, not spelling: "termi-\nnation" reads "termination" (but see
# _HYPHENATED_PREFIXES).
_HYPHEN_BREAK = (
    r"(?<=[^\W\d_])[-\u00ad\u2010\u2011\x02][^\S\r\n]*"
    r"(?:\r\n|[\n\r\x0b\x0c\x85\u2028\u2029])\s*(?=[^\W\d_])"
)
_IGNORABLE_CLASS = "".join(re.escape(c) for c in sorted(IGNORABLE))
_RUN = rf"[\s{_IGNORABLE_CLASS}]{{2,}}"


def _small_capitals() -> dict[str, str]:
    # "ɴᴏᴛ": letters in small capitals have no compatibility decomposition.
    found = {}
    for ranges in ((0x0250, 0x02B0), (0x1D00, 0x1D30), (0xA730, 0xA740)):
        for code in range(*ranges):
            name = unicodedata.name(chr(code), "")
            letter = name.removeprefix("LATIN LETTER SMALL CAPITAL ")
            if letter != name and len(letter) == 1:
                found[chr(code)] = letter.lower()
    return found


_SMALL_CAPITALS = _small_capitals()


@memo(65536)
def fold_char(c: str) -> str:
    """The folded form of one character (possibly empty or several chars)."""
    if c in PUNCTUATION_FOLDS:
        return PUNCTUATION_FOLDS[c]
    if c in IGNORABLE:
        return ""
    if c.isspace():
        return " "
    if c in _SMALL_CAPITALS:
        return _SMALL_CAPITALS[c]
    category = unicodedata.category(c)
    if category[0] == "L":
        decomposed = unicodedata.normalize("NFKD", c)
        # Compatibility decomposition is only safe when it yields letters and
        # marks (ligatures, fullwidth and styled letters); "ǆ" yes, "㎏" no.
        if any(unicodedata.category(x)[0] not in "LM" for x in decomposed):
            decomposed = unicodedata.normalize("NFD", c)
        return "".join(PUNCTUATION_FOLDS.get(x, x) for x in decomposed.casefold())
    if category == "Nd":
        # Fullwidth and styled ASCII digits only; other scripts' digits stay.
        decomposed = unicodedata.normalize("NFKD", c)
        return decomposed if len(decomposed) == 1 and decomposed.isascii() else c
    if category[0] in "PS":
        # e.g. GREEK QUESTION MARK -> ";" (pdfium emits it), fullwidth commas.
        decomposed = unicodedata.normalize("NFKD", c)
        if len(decomposed) == 1 and decomposed.isascii():
            return decomposed
    return c


@dataclass(frozen=True, eq=False)
class Folded:
    """A folded string and its piecewise map back to the source string.

    Segment k covers folded [f_starts[k], f_starts[k+1]) and source
    [o_starts[k], o_starts[k] + o_lens[k]). Identity segments map one to one;
    other segments (a whitespace run, an expanded ligature) map every folded
    character to the whole source range. Dropped characters fall between
    segments.
    """

    text: str
    source_length: int
    f_starts: tuple[int, ...]
    o_starts: tuple[int, ...]
    o_lens: tuple[int, ...]
    identity: tuple[bool, ...]

    def source_start(self, f: int) -> int:
        """Source offset of the first character behind folded char `f`."""
        k = bisect_right(self.f_starts, f) - 1
        if self.identity[k]:
            return self.o_starts[k] + (f - self.f_starts[k])
        return self.o_starts[k]

    def source_end(self, f_end: int) -> int:
        """Source offset just past the characters behind folded char `f_end - 1`."""
        f = f_end - 1
        k = bisect_right(self.f_starts, f) - 1
        if self.identity[k]:
            return self.o_starts[k] + (f - self.f_starts[k]) + 1
        return self.o_starts[k] + self.o_lens[k]

    def source_span(self, f_start: int, f_end: int) -> tuple[int, int]:
        """Map a non-empty folded span to the source span that produced it."""
        if not 0 <= f_start < f_end <= len(self.text):
            raise ValueError(f"bad folded span [{f_start}, {f_end})")
        return self.source_start(f_start), self.source_end(f_end)

    def folded_offset(self, o: int) -> int:
        """The folded offset that corresponds to source offset `o` (for regions)."""
        if not self.f_starts:
            return 0
        k = bisect_right(self.o_starts, o) - 1
        if k < 0:
            return 0
        f_len = (
            self.f_starts[k + 1] if k + 1 < len(self.f_starts) else len(self.text)
        ) - self.f_starts[k]
        if o < self.o_starts[k] + self.o_lens[k]:
            if self.identity[k]:
                return self.f_starts[k] + (o - self.o_starts[k])
            return self.f_starts[k]
        return self.f_starts[k] + f_len


def _plan(text: str) -> tuple[dict[int, str], str]:
    """Translation table for 1:1 folds and a regex class of the other chars."""
    table: dict[int, str] = {}
    special: list[str] = []
    for c in set(text):
        if c.isascii() and c not in "\x02`":
            if "A" <= c <= "Z":
                table[ord(c)] = c.lower()
            elif c.isspace() and c != " ":
                table[ord(c)] = " "
            continue
        folded = fold_char(c)
        if len(folded) == 1 and c not in IGNORABLE:
            if folded != c:
                table[ord(c)] = folded
        else:
            special.append(c)
    return table, "".join(re.escape(c) for c in sorted(special))


# Prefixes whose hyphen is spelling, also at a line's end: "non-\nexclusive"
# is "non-exclusive", never "nonexclusive" (a "non" dropped from the word).
_HYPHENATED_PREFIXES = ("non",)


def _prefix_before(text: str, hyphen: int) -> bool:
    """Is the word before the line-break hyphen at `hyphen` one of
    _HYPHENATED_PREFIXES, whole?"""
    for prefix in _HYPHENATED_PREFIXES:
        start = hyphen - len(prefix)
        if (
            start >= 0
            and text[start:hyphen].lower() == prefix
            and not (start and text[start - 1].isalpha())
        ):
            return True
    return False


def fold(text: str) -> Folded:
    """Fold `text` (see module docstring). Linear; C-speed on ASCII text."""
    table, special = _plan(text)
    pattern = f"(?P<h>{_HYPHEN_BREAK})|(?P<r>{_RUN})"
    if special:
        pattern += f"|(?P<s>[{special}])"
    translated = text.translate(table) if table else text
    pieces: list[str] = []
    f_starts: list[int] = []
    o_starts: list[int] = []
    o_lens: list[int] = []
    identity: list[bool] = []
    f_pos = 0
    o_pos = 0
    for m in re.finditer(pattern, text):
        a, b = m.span()
        if a > o_pos:
            pieces.append(translated[o_pos:a])
            f_starts.append(f_pos)
            o_starts.append(o_pos)
            o_lens.append(a - o_pos)
            identity.append(True)
            f_pos += a - o_pos
        kind = m.lastgroup
        if kind == "h":
            replacement = "-" if _prefix_before(text, a) else ""
        elif kind == "r":
            replacement = " " if any(c.isspace() for c in m.group()) else ""
        else:
            replacement = fold_char(m.group())
        if replacement:
            pieces.append(replacement)
            f_starts.append(f_pos)
            o_starts.append(a)
            o_lens.append(b - a)
            identity.append(False)
            f_pos += len(replacement)
        o_pos = b
    if o_pos < len(text):
        pieces.append(translated[o_pos:])
        f_starts.append(f_pos)
        o_starts.append(o_pos)
        o_lens.append(len(text) - o_pos)
        identity.append(True)
    return Folded(
        text="".join(pieces),
        source_length=len(text),
        f_starts=tuple(f_starts),
        o_starts=tuple(o_starts),
        o_lens=tuple(o_lens),
        identity=tuple(identity),
    )


def fold_text(text: str) -> str:
    """Just the folded string (no offset map), for comparisons."""
    if len(text) <= 32:
        return _fold_word(text)
    return fold(text).text


@memo(65536)
def _fold_word(word: str) -> str:
    # The context and scope checks fold the words around every span.
    return fold(word).text


# OCR confusions that keep length: applied to folded text so positions stay
# shared with it. Only word characters map to word characters, so tokens split
# the same way in both spaces.
OCR_SAME_LENGTH = str.maketrans({"1": "l", "i": "l", "0": "o"})
_OCR_MULTI = re.compile(r"rn|cl|vv|ii")
_OCR_MULTI_MAP = {"rn": "m", "cl": "d", "vv": "w", "ii": "u"}


def ocr_skeleton(folded: str, *, remember: bool = True) -> str:
    """Collapse common OCR confusions (rn/m, cl/d, vv/w, l/1/I, 0/O) of a
    folded string. For comparing, never for offsets: it changes length.
    Words are remembered, as the guard looks every word of every quote up;
    `remember=False` for words looked at once, such as the word list's as
    it loads or a whole document's while its vocabulary is counted, which
    would crowd them out."""
    if remember and len(folded) <= 32:
        return _word_skeleton(folded)
    return _skeleton(folded)


def _skeleton(folded: str) -> str:
    same = _OCR_MULTI.sub(lambda m: _OCR_MULTI_MAP[m.group()], folded)
    return same.translate(OCR_SAME_LENGTH)


_word_skeleton = memo(65536)(_skeleton)
