"""Negations a quote leaves out: just before its span, or inside its elisions.

"amendment of this Agreement shall be effective" is verbatim in "No amendment
of this Agreement shall be effective", and "The Supplier shall ... deliver
goods" elides the "not" of "The Supplier shall not deliver goods". Every word
of both quotations is in the source, and both say the opposite of it. The
guard compares a quote with its span; these checks look at the source text
the quotation leaves out, where a negation reverses what the quote says.

A word counts as a negation as the guard counts it (guards.features: not,
no, never, neither, nor, none, without, unless, except, "n't", cannot). So
does OCR's damage of one, as the guard would read it: a token that is no word
and most likely was a negation ("uot", "lnot", "zithout"; of two letters, one
edit from "not" or "nor" and no glyph from a common word: "nt"), pieces OCR split
("W ithout", "no,t") or a line break hyphenated ("un-/less"), and in a
scanned text a real word one misread glyph away ("riot").
A negation governs a span that starts up to NEGATION_REACH words after it in
its sentence ("In no event shall the | Supplier be liable"), across page
breaks, commas, colons, abbreviations' full stops, invisible characters and
an aside set off right after it ("shall not, directly or indirectly, |
sublicense"); "without", "unless" and "except", which open a condition, only
just before it; idioms ("not limited to") govern nothing. A word OCR ran into
the span's first word ("Neithcrparty") or split off it ("N either") counts.
After a sentence's end the quote starts something new: quoting a main clause
without its qualifier is ordinary quoting.
A quote that opens with an ellipsis or a bracketed insertion ("... shall
deliver", "[It] shall deliver") has replaced the start of its clause, so the
words back to the clause's start are read instead.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from rapidfuzz.distance import Levenshtein

from citations.cascade import lexicon
from citations.cascade.folding import IGNORABLE, fold_text, ocr_skeleton
from citations.cascade.glyphs import DIGITS_AS_LETTERS
from citations.cascade.guards import (
    NEGATION,
    damage_cost,
    features,
    ocr_letters,
    plausible_ocr,
)
from citations.cascade.memo import memo
from citations.cascade.prepared import prepare
from citations.cascade.refusal import Check, first_refusal
from citations.cascade.scope import opening_aside_end, reach, stands_before_verb
from lib.negations import NEGATION_WORDS

# How far back a quote opening with an ellipsis or insertion is read: the
# start of its clause, but never more than this.
CLAUSE_REACH = 120
_CLAUSE_END = re.compile(r"[.;:!?,()\[\]\u2014]|\n[^\S\n]*\n")
_WORD = re.compile(r"[\w'\u2019]+")
_LINE_HYPHEN = re.compile(r"[-\u00ad\u2010\u2011][^\S\n]*\n[^\S\n]*")
_SPACES = re.compile(r"[^\S\n]*\n?[^\S\n]*")


class Dropped(NamedTuple):
    """A negation the quote leaves out, and where its clause starts."""

    reason: str
    start: int  # offset in the source: the negation, or its clause


class _At:
    """What a rule of a negation at one place reads: the source `text` and
    the span's (or an elided gap's) `start` and `end`. A rule that refuses
    sets `where`, the offset the refused passage is shown from."""

    def __init__(self, text: str, start: int, end: int | None) -> None:
        self.text, self.start, self.where = text, start, start
        self.end = start if end is None else end


def _dropped(checks: tuple[Check[_At], ...], at: _At) -> Dropped | None:
    """The first of `checks` to refuse `at`, as the Dropped negation its
    Refusal names the rule of; None when none refuses."""
    refused = first_refusal(checks, at)
    return None if refused is None else Dropped(refused, at.where)


# The negations OCR may have damaged in the source ("uot", "Neithcr"): one
# list with sentence splitting's (lib.negations).
_NEGATION_WORDS = NEGATION_WORDS


_NEGATION_SKELETONS = frozenset(ocr_skeleton(w) for w in _NEGATION_WORDS)
_RUN_INTO = tuple(ocr_skeleton(w) for w in ("not", "never"))


def _run_into(skeleton: str) -> bool:
    """A negation OCR ran into a common word before or after it ("isnot",
    "shouldnot", "notbe", "donot"; not "cannot", "knot" or "notice", which
    are words). Counted even where a look-alike word is as near ("donot" may
    be "donor"): reading a negation only ever refuses."""
    if not skeleton.isalpha() or lexicon.is_word(skeleton):
        return False
    return any(
        (skeleton.endswith(tail) and lexicon.is_common_word(skeleton[: -len(tail)]))
        or (skeleton.startswith(tail) and lexicon.is_common_word(skeleton[len(tail) :]))
        for tail in _RUN_INTO
    )


def _as_letters(folded: str) -> str:
    # "n0t", "r0t": a 0 or 1 among letters is a letter, as the guard reads it.
    return folded.translate(DIGITS_AS_LETTERS) if ocr_letters(folded) else folded


@lru_cache(maxsize=4096)
def _is_negation(word: str, damaged: bool = True) -> bool:
    """Is `word` a negation as the guard reads one? With `damaged`, also a
    token that is no word and most likely was a negation before OCR damaged
    it ("uot", "lnot", "Neithcr", "zithout"; lexicon.likeliest_reading): the
    guard would accept it as a quote's negation, so it must count here too."""
    folded = _as_letters(fold_text(word))
    if any(f.kind == NEGATION for f in features(folded)):
        return True
    # OCR strews apostrophes and marks ("N'either", "no,t").
    folded = re.sub(r"['.,]", "", folded)
    if any(f.kind == NEGATION for f in features(folded)):
        return True
    skeleton = ocr_skeleton(folded)
    if not damaged or not folded.isalpha() or lexicon.is_word(skeleton):
        return False
    if _run_into(skeleton):
        return True
    if len(folded) == 2:
        # Too short for the reading to weigh: "nt" is a "not" that lost its
        # o (and the guard will not let a quote drop it either), unless one
        # glyph makes it a common word ("ot" is "of" before it is "not").
        return (
            any(Levenshtein.distance(folded, n) == 1 for n in ("not", "nor"))
            and lexicon.common_lookalike(skeleton) is None
        )
    best = lexicon.likeliest_reading(skeleton) if len(folded) >= 3 else None
    if best is not None:
        return best in _NEGATION_SKELETONS
    # Beyond the reading's reach ("lnot" needs a thin stroke dropped): a
    # token that OCR's own kinds of damage could have made from a negation.
    return any(plausible_ocr(negation, folded) for negation in _NEGATION_WORDS)


# Pieces of one word that OCR split apart ("W ithout", "Witho ut").
_MOST_PIECES = 3


@memo(4096)
def _lookalike_negation(word: str) -> bool:
    """A real word that OCR could have made from a negation by one misread
    glyph ("riot" for "not": ri is n; "nol" for "not"; "r0t")."""
    folded = _as_letters(fold_text(word))
    return folded.isalpha() and any(
        folded != negation
        and plausible_ocr(negation, folded)
        # One glyph misread, not two: "home" and "more" are no "none", nor
        # "into" (a glyph added and two moved) "not"; "riot" is (ri for n).
        and (
            damage_cost(ocr_skeleton(negation), ocr_skeleton(folded))
            <= lexicon.LOOKALIKE_COST
            if len(folded) != len(negation)
            else sum(a != b for a, b in zip(folded, negation, strict=True)) == 1
        )
        for negation in _NEGATION_WORDS
    )


def _scanned(text: str) -> bool:
    # Only in a scanned text may a real word stand for a negation, as in the
    # guard (lexicon.looks_scanned); asked rarely, so prepared lazily.
    return lexicon.looks_scanned(prepare(text).vocabulary)


def _joined_negation(run: tuple[str, ...]) -> bool:
    """Do two or three words OCR split apart spell a negation, one of them at
    least no word ("W ithout"; "with out" are two words as they stand)?"""
    if not all(w.replace("'", "").replace("\u2019", "").isalpha() for w in run):
        return False
    # Joined pieces must spell the negation: a damaged reading of letters
    # run together from several words would find negations everywhere.
    return _is_negation("".join(run), damaged=False) and not all(
        lexicon.is_word(ocr_skeleton(fold_text(w))) for w in run
    )


@memo(4096)
def _cheaply_negation(word: str) -> bool:
    """A negation as spelled, or within two look-alike glyphs or thin strokes
    of one ("uot", "lnot", "n0t"), or run into a common word ("SHALLNOT")."""
    if _is_negation(word, damaged=False):
        return True
    skeleton = ocr_skeleton(fold_text(re.sub(r"['.,]", "", word)))
    if _run_into(skeleton):
        return True
    return any(
        damage_cost(negation, skeleton) <= 2 * lexicon.LOOKALIKE_COST
        for negation in _NEGATION_SKELETONS
    )


def _split_tail(words: tuple[str, ...], i: int) -> bool:
    """Is words[i], two letters and a negation only as damage ("nt"), the
    end of the word before it that OCR split ("Agreeme nt")?"""
    word = words[i]
    if i == 0 or len(word) > 2 or _is_negation(word, damaged=False):
        return False
    return lexicon.is_word(ocr_skeleton(fold_text(words[i - 1] + word)))


@memo(8192)
def _negations_in(words: tuple[str, ...]) -> tuple[tuple[int, int, bool], ...]:
    """The negations among consecutive words that only spaces separate, as
    (first word, number of words, whether it takes a scanned text: a real
    word, or a capitalized token damaged past look-alikes, read as a
    negation), in order. Cached: the same words recur at every quote."""
    found = []
    for k in range(1, _MOST_PIECES + 1):
        for i in range(len(words) - k + 1):
            run = words[i : i + k]
            if k > 1:
                if _joined_negation(run):
                    found.append((i, k, False))
            elif _is_negation(run[0]) and not _split_tail(words, i):
                # A capitalized token damaged beyond look-alike glyphs and
                # thin strokes is read as a negation only in a scanned text:
                # "NBT" of a web page is a name, not a misread "not"; "lnot",
                # "uot" and "zithout" are misreadings anywhere.
                plain = run[0].islower() or _cheaply_negation(run[0])
                found.append((i, 1, not plain))
            elif _lookalike_negation(run[0]):
                found.append((i, 1, True))
    found.sort()
    return tuple(found)


def _negation_among(
    pieces: list[tuple[str, int]], text: str, *, prefixes: bool = True
) -> tuple[str, int] | None:
    """The first negation among consecutive words (text, offset) that only
    spaces separate (see `_negations_in`), as its words and offset. Without
    `prefixes`, a "non" held to its word by a hyphen ("non-exclusive") is
    no negation of the words around it."""
    words = tuple(w for w, _ in pieces)
    for i, k, needs_scan in _negations_in(words):
        if not prefixes and k == 1 and _hyphenated_prefix(text, *pieces[i]):
            continue
        if not needs_scan or _scanned(text):
            return " ".join(words[i : i + k]), pieces[i][1]
    return None


_PREFIX_HYPHEN = re.compile(r"[-\u2010\u2011][^\S\n]*\n?[^\S\n]*[^\W\d_]")


def _hyphenated_prefix(text: str, word: str, at: int) -> bool:
    """Is `word` at `at` the prefix "non" of a hyphenated word ("non-
    exclusive", "non-\ntransferable")?"""
    return word.lower() == "non" and bool(_PREFIX_HYPHEN.match(text, at + len(word)))


def _runs(source: str, offset: int) -> list[list[tuple[str, int]]]:
    """The words of `source` in runs that only spaces (or one line break) or
    a lone mark separate, with their offsets plus `offset`."""
    runs: list[list[tuple[str, int]]] = []
    last_end: int | None = None
    for m in _WORD.finditer(source):
        between = source[last_end : m.start()] if last_end is not None else None
        if (
            between
            and runs
            and (
                all(c in IGNORABLE for c in between)
                or _LINE_HYPHEN.fullmatch(between)
                # "1,000" and "12.50" are one number.
                or (
                    between in (",", ".")
                    and runs[-1][-1][0][-1:].isdigit()
                    and m.group()[:1].isdigit()
                )
            )
        ):
            # A soft hyphen or zero-width mark inside a word ("Recipie\xadnt"),
            # or a hyphen at a line's end ("not-\nify"), is no boundary: the
            # pieces are one word.
            word, at = runs[-1][-1]
            runs[-1][-1] = (word + between + m.group(), at)
            last_end = m.end()
            continue
        # A lone mark between letters is OCR noise ("no,t"), as in
        # guards.features; the words either side may be one word.
        if between is None or not (_SPACES.fullmatch(between) or between in (".", ",")):
            runs.append([])
        runs[-1].append((m.group(), offset + m.start()))
        last_end = m.end()
    return runs


def _first_negation(
    text: str, start: int, end: int, *, prefixes: bool = True
) -> tuple[str, int] | None:
    for run in _runs(text[start:end], start):
        found = _negation_among(run, text, prefixes=prefixes)
        if found:
            return found
    return None


def negation_before(
    text: str, start: int, end: int | None = None, *, opens_elided: bool = False
) -> Dropped | None:
    """The negation governing the span that starts at `start`, which the
    quote leaves out, or None. `end`: where the span ends, if known (a span
    may start inside an aside after a negation and go on past it);
    `opens_elided`: the quote begins with an ellipsis or an insertion."""
    if start <= 0:
        return None
    if opens_elided:
        return _dropped(OPENING_ELISION_CHECKS, _At(text, start, end))
    # A word run into the span's first word by OCR ("Neithcr|party", where
    # stage 2 may start a match at the join) is the word before, too, and
    # so is one a mark touches ("not,be"); a quote that itself starts with
    # a mark ("(b) ...", ": ...") starts something new.
    if not (text[start].isalnum() or text[start - 1].isspace()):
        return None
    before_span = _BeforeSpan(text, start, end)
    refused = first_refusal(BEFORE_CHECKS, before_span)
    return None if refused is None else Dropped(refused, before_span.where)


class _BeforeSpan:
    """What the rules of a negation left out before a span read: the words
    of its clause (of its list, when a negated list runs on past
    semicolons) before it. A rule that refuses sets `where`, the offset the
    refused passage is shown from."""

    def __init__(self, text: str, start: int, end: int | None) -> None:
        self.text, self.start, self.end = text, start, end
        # Only the last few dozen characters can hold the words; a regex
        # anchored at the end still tries every start.
        tail_at = max(0, start - _CLAUSE_CHARS)
        ends = sentence_ends(text, tail_at, start)
        # A negated list may run on past semicolons ("shall not: (i) sell;
        # (ii) lease; or | sublicense"); any other reach ends at one.
        full_stops = [m.end() for m in ends if ";" not in m.group()]
        self.clause_at = ends[-1].end() if ends else tail_at
        list_at = full_stops[-1] if full_stops else tail_at
        self.words = _words(text, list_at, start)
        self.where = start

    def shown(self, dropped: Dropped | None) -> str | None:
        if dropped is None:
            return None
        self.where = dropped.start
        return dropped.reason


def _governing_negation(b: _BeforeSpan) -> str | None:
    """A negation in the span's clause whose reach the span starts in."""
    text, start, end, words = b.text, b.start, b.end, b.words
    clause_at = b.clause_at
    if not words:
        return None
    # The clause's last words, and pieces OCR split one of them into.
    near = words[-_CLAUSE_WORDS:]
    pieces = tuple(w for w, _ in near)
    # The shortest reading nearest the span: "doesn't", not "The Buyer
    # doesn't" spelled as one word.
    found = sorted(_negations_in(pieces), key=lambda f: (f[1], -f[0]))
    for i, k, needs_scan in found:
        if _split_piece(pieces, i, k):
            continue
        back = len(near) - (i + k)
        if back and (
            _introduces_a_condition("".join(pieces[i : i + k])) or _idiom(pieces, i, k)
        ):
            continue
        word_end = near[i + k - 1][1] + len(pieces[i + k - 1])
        if pieces[i + k - 1].lower() == "no" and _NUMBER_LABEL.match(text, word_end):
            continue  # "No. 5", "Fax No.: 905", "Contract No: 4471": Number
        if needs_scan and not _scanned(text):
            continue
        if _closed_before(text, word_end, start):
            continue  # "(none of which may have subparts) | of the following"
        word = _LINE_HYPHEN.sub("", " ".join(pieces[i : i + k]))
        negation = (text[near[i][1] : word_end], near[i][1])
        after = reach(text, near[:i], negation, near[i + k :], start)
        list_at = opening_aside_end(text, near[i + k :], word_end, start)
        in_list = any(
            _LIST.match(text, at, start) is not None for at in {word_end, list_at}
        )
        in_clause = near[i][1] >= clause_at
        in_aside = (
            in_clause and end is not None and _across_aside(text, word_end, start, end)
        )
        governs = in_clause and after is not None and after < NEGATION_REACH
        if governs or in_list or in_aside:
            where = near[i][1]
            still = ""
            if in_aside and not governs:
                said = "inside an aside after"
            elif in_list:
                said = "in a list after"
            elif back == 0:
                said = "just after"
            elif after is not None and after < back:
                said = f"{back + 1} words after"
                still = " still"
            else:
                said = f"{back + 1} words after"
            b.where = where
            return (
                f"the quote starts {said} “{word}”, which{still} negates it "
                f"(source: “{_words_around(text, where, start, reach=0)}”)"
            )
    return None


def _opening_elision(a: _At) -> str | None:
    """A negation between the clause's start and a span whose quote opens
    with an ellipsis or an insertion: the quote left it out there."""
    text, start = a.text, a.start
    lo = max(0, start - CLAUSE_REACH)
    ends = list(_CLAUSE_END.finditer(text, lo, start))
    at = ends[-1].end() if ends else lo
    found = _first_negation(text, at, start)
    if found is None:
        return None
    word, a.where = found
    return (
        f"the quote's opening elision leaves out “{word}” "
        f"(source: “{_words_around(text, a.where, start, reach=0)}”)"
    )


# A quote that opens with an ellipsis or an insertion meets this rule
# instead of BEFORE_CHECKS (a table of one: what it left out is any
# negation of the clause, wherever it stands).
OPENING_ELISION_CHECKS: tuple[Check[_At], ...] = (
    Check("negation.opening_elision", _opening_elision),
)


def _reversing_verb(b: _BeforeSpan) -> str | None:
    in_clause = [w for w in b.words if w[1] >= b.clause_at]
    return b.shown(_reversed(b.text, in_clause, b.start))


def _split_off(b: _BeforeSpan) -> str | None:
    return b.shown(_straddled(b.text, b.start, b.words))


# The rules of a negation left out before a span (a quote that opens with
# an ellipsis meets negation.opening_elision instead), in order; the first
# to refuse decides.
BEFORE_CHECKS: tuple[Check[_BeforeSpan], ...] = (
    Check("negation.before", _governing_negation),
    Check("negation.reversing_verb", _reversing_verb),
    Check("negation.split_off", _split_off),
)


# After a negation, at most two words, then a list of single words the
# quote's first word is in: "shall not sell, lease or | sublicense", "No
# Party may assign, transfer, or | pledge", "shall not: (i) sell; (ii)
# lease; or (iii) | sublicense", "shall not use or disclose, or | permit",
# "shall not sell, rent, lease, | assign". Every item is negated. Not an
# idiom ("not limited to").
_LABEL = r"(?:\(\w{1,4}\)\s*)?"
_ITEM = _LABEL + r"[\w'\u2019/-]+"
_SEP = r"(?:\s*[,;]\s*|\s+(?:or|and)\s+)"
_LIST = re.compile(
    r"\s*:?\s+(?!(?:be\s+)?limit|only\b)(?:[\w'\u2019]+\s+){0,2}"
    rf"(?:(?:{_ITEM}{_SEP})+{_ITEM}\s*[,;]?\s+(?:and/or|or|and|nor)\s+(?:otherwise\s+)?"
    rf"|(?:{_ITEM}\s*[,;]\s*){{3,}}){_LABEL}\Z",
    re.IGNORECASE,
)


# "No" as the abbreviation of "Number": a full stop after it, or a colon and
# a figure or code ("Contract No: 4471", "Ref No:#12").
_NUMBER_LABEL = re.compile(r"\.|:[^\S\n]*[#\w]*\d")
# A negation governs a quote that starts up to this many words after it, in
# its sentence: "shall not be required to deliver" (quote "required to
# deliver"), "In no event shall the Supplier be liable", "Neither the Buyer
# nor the Supplier shall" (but see _CONDITIONS).
NEGATION_REACH = 3
# How far back the clause is read for a negation governing the span, in
# characters and words (scope.py decides which words between them count).
_CLAUSE_CHARS = 200
_CLAUSE_WORDS = 30
# Punctuation that ends a sentence or clause, with a space after it and none
# before ("shall not. The Buyer"; a full stop after a closing bracket or
# quotation mark too: "terms of this Agreement). 18.6 Headings"), closing
# quotes allowed; a mark between
# spaces or between letters is OCR noise ("not . be", "not.be"). Not a colon:
# "shall not: (a) disclose" goes on.
_SENTENCE_END = re.compile(
    r"(?<=[\w)\]\"\u201d])[.;!?]+[\"'\u201d\u2019)\]]*(?=\s)"
    r"|\n[^\S\n]*[.;!?][^\S\n]*\n"
)
# After a bracket or quotation mark only a full stop ends a sentence
# (`sentence_ends`): "(as defined below);" goes on.


_ABBREVIATIONS = frozenset(
    [
        "inc",
        "ltd",
        "co",
        "corp",
        "llc",
        "plc",
        "no",
        "nos",
        "sec",
        "art",
        "para",
        "cl",
        "etc",
        "vs",
        "mr",
        "ms",
        "mrs",
        "dr",
        "st",
        "jr",
        "sr",
        "approx",
        "dept",
        "est",
        "fig",
        "ibid",
    ]
)


def sentence_ends(text: str, lo: int, hi: int) -> list[re.Match[str]]:
    """The marks that end a sentence or clause in text[lo:hi], not an
    abbreviation's full stop."""
    return [
        m
        for m in _SENTENCE_END.finditer(text, lo, hi)
        if not _abbreviation(text, m.start())
        and (
            text[m.start()] in ".\n"
            or text[m.start() - 1].isalnum()
            or text[m.start() - 1] == "_"
        )
    ]


def _abbreviation(text: str, mark: int) -> bool:
    """Is the full stop at text[mark] an abbreviation's ("U.S.", "e.g.",
    "No.", "Inc."), which ends no sentence?"""
    if text[mark] != ".":
        return False
    lo = mark
    while lo > 0 and (text[lo - 1].isalpha() or text[lo - 1] == "."):
        lo -= 1
    word = text[lo:mark].lower()
    last = word.rsplit(".", 1)[-1]
    return len(last) == 1 or word in _ABBREVIATIONS or "." in word


def _words(text: str, lo: int, hi: int) -> list[tuple[str, int]]:
    """The words of text[lo:hi], with a word that an invisible character
    splits ("no\u200bt") kept whole."""
    return [w for run in _runs(text[lo:hi], lo) for w in run]


# Negations that open a condition rather than negate a clause: a quote that
# starts a few words after one quotes a phrase of the condition ("the prior
# written consent of the other Party" after "without the"), and only one
# that starts just after it leaves it out.
_CONDITIONS = frozenset(ocr_skeleton(w) for w in ("without", "unless", "except"))


# Words after a negation that make it an idiom negating nothing the quote
# says: "including, but not limited to, securities laws", "not only ... but
# also", "without limitation"; and "non" is a prefix ("Non-Breaching Party").
_IDIOM_AFTER = frozenset(ocr_skeleton(w) for w in ("limited", "limitation", "only"))
# ... and bounds and prices: "No later than thirty days after ..., the
# Company shall | deliver", "at no charge".
_BOUND_AFTER = frozenset(
    ocr_skeleton(w)
    for w in ("later", "less", "more", "sooner", "earlier", "fewer", "greater")
)
_PRICE_AFTER = frozenset(ocr_skeleton(w) for w in ("charge", "cost", "expense"))
_PREFIX = ocr_skeleton("non")


def _idiom(pieces: tuple[str, ...], i: int, k: int) -> bool:
    if k == 1 and ocr_skeleton(fold_text(pieces[i])) == _PREFIX:
        return True
    after = i + k
    if after >= len(pieces):
        return False
    following = ocr_skeleton(fold_text(pieces[after]))
    if following in _IDIOM_AFTER:
        return True
    if following in _BOUND_AFTER:
        return after + 1 < len(pieces) and fold_text(pieces[after + 1]) == "than"
    return (
        following in _PRICE_AFTER and i > 0 and fold_text(pieces[i - 1]).lower() == "at"
    )


def _introduces_a_condition(word: str) -> bool:
    skeleton = ocr_skeleton(fold_text(word))
    if skeleton in _CONDITIONS:
        return True
    return lexicon.likeliest_reading(skeleton) in _CONDITIONS


def _split_piece(pieces: tuple[str, ...], i: int, k: int) -> bool:
    """Is the negation pieces[i:i + k] part of a word OCR split, with a short
    piece after it ("not e" is "note") or before it ("p rior" is "prior")?"""
    after = i + k
    if after < len(pieces) and len(pieces[after]) <= 2:
        whole = "".join(pieces[i : after + 1])
        if lexicon.is_word(ocr_skeleton(fold_text(whole))):
            return True
    if i > 0 and len(pieces[i - 1]) <= 2 and pieces[i - 1].isalpha():
        whole = "".join(pieces[i - 1 : after])
        if lexicon.is_word(ocr_skeleton(fold_text(whole))):
            return True
    # Its first piece ends the word before ("retur n or": return or).
    if i > 0 and len(pieces[i]) <= 2 and k > 1:
        whole = pieces[i - 1] + pieces[i]
        return lexicon.is_word(ocr_skeleton(fold_text(whole)))
    return False


# Verbs that reverse the verb after them: "is prohibited from | disclosing",
# "may refuse to | disclose", "fails to | pay". Shared with the words an
# ellipsis may not drop (elision.REVERSING_NEAR_END).
_REVERSING_TO = r"fail|refus|neglect|omit|ceas|declin|unable"
_REVERSING_FROM = (
    r"refrain|prohibit|forbid|barred|preclud|prevent|restrict|enjoin|exempt"
    r"|excus|reliev|releas|abstain|desist"
)
REVERSING_VERBS = rf"(?:{_REVERSING_TO})\w*\s+to|(?:{_REVERSING_FROM})\w*\s+from"
_STEM = {
    "to": re.compile(rf"(?:{_REVERSING_TO}|waiv|disclaim)\w*\Z", re.IGNORECASE),
    "from": re.compile(rf"(?:{_REVERSING_FROM})\w*\Z", re.IGNORECASE),
}
# Words a waiver names between its verb and "to": "waives its right to".
_WAIVED = frozenset(
    ["its", "his", "her", "their", "any", "all", "the", "right", "rights", "obligation"]
)
# How many words a reversing verb may stand before its "to" or "from"
# ("fails, within thirty (30) days after written notice, to").
_STEM_REACH = 16


def _reversed(text: str, words: list[tuple[str, int]], start: int) -> Dropped | None:
    """A verb that reverses the span's first verb just before it, asides,
    adverbs and phrases before that verb aside ("is prohibited by law from
    directly or indirectly | soliciting"); or "absent", a condition like
    "without", only just before. `words`: the clause's words before the
    span."""
    if (
        words
        and words[-1][0].lower() == "absent"
        and not text[words[-1][1] + len(words[-1][0]) : start].strip()
    ):
        return _reverses(text, words[-1][1], start, "absent")
    for p in range(len(words) - 1, max(-1, len(words) - 8), -1):
        particle = words[p][0].lower()
        if particle not in _STEM:
            continue
        if not stands_before_verb(text, words[p + 1 :], _end(words[p]), start):
            return None
        for j in range(p - 1, max(-1, p - _STEM_REACH), -1):
            if _STEM[particle].match(words[j][0]):
                between = [w for w in words[j + 1 : p] if w[0].lower() not in _WAIVED]
                if stands_before_verb(text, between, _end(words[j]), words[p][1]):
                    phrase = (
                        f"{words[j][0]} … {particle}"
                        if p > j + 1
                        else f"{words[j][0]} {particle}"
                    )
                    return _reverses(text, words[j][1], start, phrase)
        return None
    return None


def _end(word: tuple[str, int]) -> int:
    return word[1] + len(word[0])


def _reverses(text: str, at: int, start: int, phrase: str) -> Dropped:
    # The rule that refuses is the row of BEFORE_CHECKS that called this.
    return Dropped(
        f"the quote starts just after “{phrase}”, which reverses it "
        f"(source: “{_words_around(text, at, start, reach=0)}”)",
        at,
    )


def _closed_before(text: str, negation_end: int, start: int) -> bool:
    """Does a bracket the negation stands in close before the span?"""
    depth = 0
    for c in text[negation_end:start]:
        if c in "([":
            depth += 1
        elif c in ")]":
            if not depth:
                return True
            depth -= 1
    return False


def _across_aside(text: str, negation_end: int, start: int, end: int) -> bool:
    """Does the span start inside an aside right after a negation and go on
    past it, to the words the negation governs ("shall not, without the
    consent of | Licensor, assign this Agreement")?"""
    closes = opening_aside_end(text, _words(text, negation_end, end), negation_end, end)
    return start < closes < end and bool(_WORD.search(text, closes, end))


def _straddled(text: str, start: int, words: list[tuple[str, int]]) -> Dropped | None:
    """A negation whose first letters OCR split off before the span ("N
    either party": the span starts at "either")."""
    first = _WORD.match(text, start)
    if not words or first is None:
        return None
    piece, at = words[-1]
    if (
        len(piece) > 2
        or not piece.isalpha()
        or not text[at + len(piece) : start].isspace()
        or _is_negation(first.group(), damaged=False)
    ):
        return None
    joined = piece + first.group()
    if not _is_negation(joined, damaged=False):
        return None
    # The rule that refuses is the row of BEFORE_CHECKS that called this.
    return Dropped(
        f"the quote starts inside “{piece} {first.group()}”, which negates it "
        f"(source: “{_words_around(text, at, start, reach=0)}”)",
        at,
    )


# Words after a "no" or "not" that make a bound or an idiom, not a
# negation of what comes before: "shall pay | no later than", "| not
# limited to", "| not only".
_NOT_NEGATING_AFTER = frozenset(
    [
        "later",
        "less",
        "more",
        "sooner",
        "earlier",
        "fewer",
        "greater",
        "limited",
        "only",
        "withstanding",
    ]
)


def _within_a_line_or_two(gap: str) -> bool:
    # Spaces, a comma, and a line break (PDF lines end mid-sentence), not a
    # blank line.
    return (
        not "".join(c for c in gap if c not in IGNORABLE).replace(",", "").strip()
        and gap.count("\n") <= 1
        and gap.count(",") <= 1
    )


def negation_after(text: str, end: int) -> Dropped | None:
    """A negation just after the span, which the quote cuts off: "the
    Licensee may | not sublicense", "shall be liable | under no
    circumstances", "The Buyer shall pay | no interest" (AFTER_CHECKS)."""
    return _dropped(AFTER_CHECKS, _At(text, end, end))


def _stops_inside_nt(a: _At) -> str | None:
    if not re.match(r"n?['\u2019]t\b", a.text[a.end : a.end + 4]):
        return None
    return (
        "the quote stops inside “n't”, which negates it "
        f"(source: “{_words_around(a.text, a.end, a.end, reach=3)}”)"
    )


def _stops_before_negation(a: _At) -> str | None:
    text, end = a.text, a.end
    words = _words(text, end, min(len(text), end + 60))[:3]
    if (
        not words
        or not _within_a_line_or_two(text[end : words[0][1]])
        or text[end - 1 : end] in ".;:!?"
        or text[end - 3 : end].lower() == " or"  # "whether patentable or | not"
    ):
        return None
    first = words[0][0].lower()
    if first in ("under", "in", "at", "on") and len(words) > 1:
        words = words[1:]
    negation, at = words[0]
    following = words[1][0].lower() if len(words) > 1 else ""
    # Read as spelled: a damaged token after the span is as often a word OCR
    # split ("not ice", "no tices") as a negation.
    if not _is_negation(negation, damaged=False) or following in _NOT_NEGATING_AFTER:
        return None
    if following and lexicon.is_word(ocr_skeleton(fold_text(negation + following))):
        return None
    after = text[at + len(negation) : at + len(negation) + 1]
    if (
        _introduces_a_condition(negation)
        or fold_text(negation).lower() in ("nor", "none", "non")
        or (after and after in "-.")  # "non-exclusive", "No. 5"
    ):
        return None
    a.where = at
    return (
        f"the quote stops just before “{negation}”, which negates it "
        f"(source: “{_words_around(text, at, at + len(negation))}”)"
    )


# The rules of a negation the quote cuts off after its span, in order; the
# first to refuse decides (negation_after).
AFTER_CHECKS: tuple[Check[_At], ...] = (
    Check("negation.after", _stops_inside_nt),
    Check("negation.after", _stops_before_negation),
)


def dropped_negation(
    text: str, start: int, end: int, *, opens_elided: bool = False
) -> Dropped | None:
    """A negation governing the span text[start:end] that the quote leaves
    out before it or cuts off after it (negation_before, negation_after)."""
    return negation_before(
        text, start, end, opens_elided=opens_elided
    ) or negation_after(text, end)


def negation_elided(text: str, gap_start: int, gap_end: int) -> Dropped | None:
    """The negation an ellipsis over text[gap_start:gap_end] leaves out. A
    "non-" word is no negation of the words around it: it negates its own
    word, which the ellipsis leaves out with it, and one that governs the
    words after the gap is elision.REVERSING_NEAR_END's ("a non-exclusive,
    royalty-free licence": "a ... royalty-free licence" leaves out a
    qualifier; "shall be ... transferable" over "non-" cuts a word)."""
    return _dropped(ELIDED_CHECKS, _At(text, gap_start, gap_end))


def _negation_in_gap(a: _At) -> str | None:
    found = _first_negation(a.text, a.start, a.end, prefixes=False)
    if found is None:
        return None
    word, a.where = found
    return (
        f"the elision leaves out “{word}” "
        f"(source: “{_words_around(a.text, a.start, a.end)}”)"
    )


# The rule of a negation an ellipsis leaves out (a table of one: the gap's
# other rules are elision.GAP_CHECKS, which read no negation the gap holds).
ELIDED_CHECKS: tuple[Check[_At], ...] = (Check("elision.negation", _negation_in_gap),)


def _words_around(text: str, start: int, end: int, reach: int = 3) -> str:
    """text[start:end] with up to `reach` words before and 3 after, on one
    line."""
    left = text[max(0, start - 60) : start].split()[-reach:] if reach else []
    middle = text[start:end].split()
    following = text[end : end + 60].split()
    more = "…" if len(following) > 3 else ""
    return " ".join(left + middle + following[:3]) + more
