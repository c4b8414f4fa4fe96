"""How a cell is read offline, and whether a value is supported by its quote.

With no model configured, a cell's answer is read from the passages the
cell retrieved, by the same two signals chat uses:

- relevance (`citations.relevance.RelevanceJudge`): does a passage answer
  the column's question, relate to it, or not;
- typed values (`citations.values`): the duration, amount, date, place,
  number, party or option a sentence states, with its offsets.

`read_cell` returns a `Reading`: the short value, the quote (a sentence of
one passage, copied character for character, so the cascade verifies it
exactly), and the facts the confidence calibration reads. The rules are an
ordered table (`READING_RULES`): the first that applies to the column's kind
and reads the cell decides; `Reading.rule` names it:

- a typed column answers with the value of its kind that the best
  answering sentence states, nearest to the question's words;
- a yes/no column answers "Yes" when a passage answers the question, with
  its best sentence as the quote;
- a text column answers with the best sentence of an answering passage;
- otherwise, while a passage shares the question's words, the cell states
  no value and quotes the closest sentence (word rules prove neither the
  value nor an absence: issue 35);
- otherwise the cell is "not found", with the passages that were read.

`value_support` checks any value (the model's, the reader's, a reviewer's)
against a quote, the way the citation guard compares figures.

Pure: no database.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from citations import values
from citations.relevance import ANSWERS, OFF_TOPIC, RELATED, Relevance, RelevanceJudge
from lib.sentences import split_sentences
from lib.stemming import terms
from tabular import column_types
from tabular.column_types import OPTIONS, Typed
from tabular.column_types.base import Support

# A quote longer than this is cut to the clause around its value.
MAX_QUOTE_CHARS = 400
# A sentence of fewer words is a heading or a fragment.
HEADING_WORDS = 5
# Whether a passage that answers only across its sentences makes a yes/no
# "Yes" (measured on the tune contracts: bench/tabular_eval.py, it does not).
PASSAGE_IS_PRESENCE = False
# A yes/no "Yes" needs a sentence rated this high: every concept of the
# question (or of the column's name) in that one sentence.
WHOLE_QUESTION = 0.99
_LABEL_ORDER = {ANSWERS: 0, RELATED: 1, OFF_TOPIC: 2}


@dataclass(frozen=True)
class Passage:
    """A retrieved chunk as a cell reads it."""

    index: int  # chunk_index in its revision
    text: str
    rank: int = 0  # 0: the best retrieved


@dataclass(frozen=True)
class Candidate:
    """A sentence that may answer: where it is, how it rates, what it states."""

    passage: Passage
    start: int
    end: int
    rating: Relevance  # of the sentence
    passage_rating: Relevance  # of its whole passage
    value: Any = None  # a typed value (offsets into the passage), or None
    distance: int = 0  # characters from the value to the nearest question word

    @property
    def heading(self) -> bool:
        """A heading or a fragment ("3. Governing Law."): it names the
        subject, the clause after it says something about it. So is a
        passage's first words when they continue a sentence the passage cut
        ("any customer of Company to purchase ..."): a quote from them may
        leave out the negation that governs them, which the cascade refuses."""
        text = self.passage.text[self.start : self.end]
        continues = self.start == 0 and text[:1].islower()
        return continues or len(text.split()) < HEADING_WORDS

    @property
    def order(self) -> tuple:
        return (
            _LABEL_ORDER[self.passage_rating.label],
            _LABEL_ORDER[self.rating.label],
            self.heading,
            -self.rating.score,
            self.passage.rank,
            self.distance,
            self.start,
            self.value.start if self.value is not None else 0,
        )


@dataclass(frozen=True)
class Reading:
    """What an offline cell says. `typed` is the value (citations.values
    type, True/False for yes/no, a list of parties), None when not found."""

    found: bool
    value: str
    typed: Typed | bool | list[values.Party] | None
    quote: str
    chunk_index: int | None
    rule: str
    justification: str
    passage_label: str = ""
    passage_score: float = 0.0
    sentence_score: float = 0.0
    rank: int | None = None
    agree: int = 0  # answering passages that state the same value
    rivals: int = 0  # other values of the kind among answering sentences
    role: str = ""  # a jurisdiction's role (governing_law, forum, ...)
    searched: list[dict] = field(default_factory=list)


# ------------------------------------------------------------------ sentences


def _question_positions(text: str, stems: set[str]) -> list[int]:
    """Offsets of the words of `text` whose stem is one of the question's."""
    return [
        m.start()
        for m in re.finditer(r"[A-Za-z][\w'-]*", text)
        if any(t in stems for t in terms(m.group()))
    ]


def _distance(positions: list[int], start: int, end: int) -> int:
    if not positions:
        return 0
    return min(
        0 if start <= p < end else min(abs(p - start), abs(p - end)) for p in positions
    )


def _clip(text: str, start: int, end: int, focus: tuple[int, int]) -> tuple[int, int]:
    """A sentence cut to MAX_QUOTE_CHARS around `focus` (the value), at word
    boundaries; still a slice of `text`."""
    if end - start <= MAX_QUOTE_CHARS:
        return start, end
    centre = (focus[0] + focus[1]) // 2
    lo = max(start, centre - MAX_QUOTE_CHARS // 2)
    hi = min(end, lo + MAX_QUOTE_CHARS)
    lo = max(start, hi - MAX_QUOTE_CHARS)
    if lo > start:
        space = text.find(" ", lo, focus[0])
        lo = space + 1 if space != -1 else lo
    if hi < end:
        space = text.rfind(" ", focus[1], hi)
        hi = space if space != -1 else hi
    # No dangling spaces: the quote is the document's words.
    while lo < hi and text[lo].isspace():
        lo += 1
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    return lo, hi


def _question_stems(judge: ColumnJudge) -> set[str]:
    return {form[0] for concept in judge.concepts for form in concept.forms if form}


def _values_in(kind: str, sentence: str, options: Sequence[str]) -> list[Any]:
    if kind == OPTIONS:
        return values.find_options(sentence, options)
    if kind == values.YES_NO:
        return []
    return values.find_values(sentence, kind)


def _candidates(
    judge: ColumnJudge,
    kind: str | None,
    passages: Sequence[Passage],
    ratings: dict[int, Relevance],
    options: Sequence[str],
) -> list[Candidate]:
    """Every sentence of the passages that answer or relate, rated, with the
    value of `kind` it states nearest to the question's words (typed kinds:
    only sentences that state one)."""
    stems = _question_stems(judge)
    # The kind whose values a sentence must state; None for text and yes/no.
    typed = None if kind in (None, values.YES_NO) else kind
    found = []
    for passage in passages:
        rated = ratings[passage.rank]
        if rated.label == OFF_TOPIC:
            continue
        for start, end in split_sentences(passage.text):
            sentence = passage.text[start:end]
            rating = judge.rate(sentence)
            positions = _question_positions(sentence, stems)
            if typed is None:
                found.append(Candidate(passage, start, end, rating, rated))
                continue
            for value in _values_in(typed, sentence, options):
                distance = _distance(positions, value.start, value.end)
                found.append(
                    Candidate(
                        passage,
                        start,
                        end,
                        rating,
                        rated,
                        value=_shifted(value, start),
                        distance=distance,
                    )
                )
    return found


def _shifted(value: Any, by: int) -> Any:
    """The value with offsets into its passage instead of its sentence."""
    return dataclasses.replace(value, start=value.start + by, end=value.end + by)


# ------------------------------------------------------------------ rules


@dataclass(frozen=True)
class ReadingRule:
    """A named way of reading a cell: when it applies, and what it reads."""

    name: str
    applies: Callable[[str | None], bool]
    read: Callable[..., Reading | None]
    doc: str


def _with_value(rating: Relevance) -> bool:
    """Answers, or would but for holding the question by one word: a typed
    candidate's value of the column's kind is the second piece of evidence
    ("Termination is mutual" for "Who may terminate?", options Mutual/...);
    a yes/no's "Yes" is the value it reads."""
    return rating.label == ANSWERS or rating.rule == "one_word"


def _typed_answer(kind: str, candidates: list[Candidate], **_: Any) -> Reading | None:
    # The value's own sentence must answer (half the question's concepts and
    # the value): on the tune contracts a period or date read from a sentence
    # of an answering passage that does not itself answer was mostly another
    # clause's ("ten (10) days to cure" for a renewal notice).
    answering = [
        c for c in candidates if _with_value(c.passage_rating) and _with_value(c.rating)
    ]
    if not answering:
        return None
    if kind == values.JURISDICTION:
        # The governing-law clause names the law; a forum or an address is
        # weaker evidence, whatever its sentence's score.
        def role_rank(c: Candidate) -> int:
            return values.JURISDICTION_ROLES.index(c.value.role)

        best = min(answering, key=lambda c: (role_rank(c), *c.order))
    else:
        best = min(answering, key=lambda c: c.order)
    value = best.value
    key = getattr(value, "key", None)
    agree = len(
        {c.passage.rank for c in answering if getattr(c.value, "key", None) == key}
    )
    rivals = len({getattr(c.value, "key", None) for c in answering} - {key})
    lo, hi = _clip(best.passage.text, best.start, best.end, (value.start, value.end))
    return _reading(
        best,
        lo,
        hi,
        typed=value,
        value=value.display,
        rule="typed_value",
        agree=agree,
        rivals=rivals,
        role=getattr(value, "role", ""),
        why=f"The passage states {value.display!r} where it answers the question.",
    )


def _party_answer(kind: str, candidates: list[Candidate], **_: Any) -> Reading | None:
    """Parties: the companies named by the sentence that names most of them
    (two at most count: "between A and B"), in an answering passage first,
    else the earliest in the document (contracts name their parties first)."""
    if not candidates:
        return None
    named: dict[tuple[int, int], int] = {}
    for c in candidates:
        key = (c.passage.rank, c.start)
        named[key] = named.get(key, 0) + 1

    def order(c: Candidate) -> tuple:
        return (
            -min(named[(c.passage.rank, c.start)], 2),
            _LABEL_ORDER[c.passage_rating.label],
            c.passage.index,
            c.start,
        )

    best = min(candidates, key=order)
    same = [
        c
        for c in candidates
        if (c.passage.rank, c.start) == (best.passage.rank, best.start)
    ]
    parties = [c.value for c in sorted(same, key=lambda c: c.value.start)]
    lo = min(p.start for p in parties)
    hi = max(p.end for p in parties)
    lo, hi = _clip(best.passage.text, best.start, best.end, (lo, hi))
    parties = [p for p in parties if lo <= p.start and p.end <= hi]
    shown = "; ".join(p.name + (f' ("{p.role}")' if p.role else "") for p in parties)
    return _reading(
        best,
        lo,
        hi,
        typed=parties,
        value=shown,
        rule="parties",
        agree=1,
        rivals=0,
        why="The passage names the parties.",
    )


def _presence(kind: str, candidates: list[Candidate], **_: Any) -> Reading | None:
    # A clause is present when a sentence of an answering passage answers by
    # itself ("answering_clause"); a passage that covers the question's words
    # only across its sentences ("third party" here, "beneficiary" there) is
    # weaker evidence ("answering_passage").
    in_passage = [c for c in candidates if c.passage_rating.label == ANSWERS]
    answering = [c for c in in_passage if c.rating.label == ANSWERS]
    rule = "answering_sentence"
    if kind == values.YES_NO:
        # A "Yes" needs one sentence that holds everything the question
        # asks about: on the tune contracts a sentence covering only part
        # of it was as often a false "Yes" as a true one. One word may hold
        # it ("assign" for "Is it assignable?"): chat marks no such sentence
        # "answers", a yes/no column's "Yes" keeps it (issue 28's positions
        # lose a third of their present clauses without it).
        answering = [
            c
            for c in candidates
            if _with_value(c.passage_rating)
            and _with_value(c.rating)
            and c.rating.score >= WHOLE_QUESTION
        ]
        rule = "answering_clause"
    if not answering and in_passage and PASSAGE_IS_PRESENCE:
        answering, rule = in_passage, "answering_passage"
    if not answering and kind is None:
        # A text question that names nothing to look for ("Who are the
        # parties?"): every passage only relates; the best retrieved one is
        # read, and the confidence says how little that is.
        answering = [c for c in candidates if c.passage_rating.rule == "no_concepts"]
        rule = "first_passage"
    if not answering:
        return None
    best = min(answering, key=lambda c: c.order)
    lo, hi = _clip(best.passage.text, best.start, best.end, (best.start, best.start))
    return _reading(
        best,
        lo,
        hi,
        typed=True if kind == values.YES_NO else None,
        value="Yes" if kind == values.YES_NO else best.passage.text[lo:hi],
        rule=rule,
        agree=len({c.passage.rank for c in answering}),
        rivals=0,
        why="A passage answers the question: "
        + (", ".join(best.passage_rating.matched) or "its words")
        + ".",
    )


def _closest_passage(
    kind: str | None,
    candidates: list[Candidate],
    *,
    judge: ColumnJudge,
    passages: Sequence[Passage],
    ratings: dict[int, Relevance],
    **_: Any,
) -> Reading | None:
    # Word rules cannot prove an absence while a passage shares the
    # question's words (issue 35): the cell states no value and quotes the
    # closest sentence for a person (or a model) to judge.
    closest = _closest(judge, passages, ratings)
    if closest is None:
        return None
    lo, hi = _clip(
        closest.passage.text, closest.start, closest.end, (closest.start, closest.start)
    )
    return _reading(
        closest,
        lo,
        hi,
        typed=None,
        value="",
        rule="closest_passage",
        agree=0,
        rivals=0,
        why="No model read this document, and no sentence holds the whole "
        "question: the closest one is quoted, unjudged (it shares: "
        + (", ".join(closest.rating.matched) or "its words")
        + ").",
    )


READING_RULES: tuple[ReadingRule, ...] = (
    ReadingRule(
        "parties",
        lambda kind: kind == values.PARTY,
        _party_answer,
        "a party column: the companies the best answering sentence names",
    ),
    ReadingRule(
        "typed_value",
        lambda kind: kind not in (None, values.YES_NO, values.PARTY),
        _typed_answer,
        "a typed column: the value of its kind the best answering sentence "
        "states, nearest the question's words (a governing-law place first)",
    ),
    ReadingRule(
        "presence",
        lambda kind: kind in (None, values.YES_NO),
        _presence,
        'yes/no: "Yes" when a passage answers the question; text: its best sentence',
    ),
    ReadingRule(
        "closest_passage",
        lambda kind: True,
        _closest_passage,
        "no rule above read the cell, but a passage shares the question's "
        "words: no value is stated (word rules cannot prove it, nor an "
        "absence), the closest sentence is quoted for a person to judge",
    ),
)


def _reading(
    best: Candidate,
    lo: int,
    hi: int,
    *,
    typed: Any,
    value: str,
    rule: str,
    agree: int,
    rivals: int,
    why: str,
    role: str = "",
) -> Reading:
    return Reading(
        found=True,
        value=value,
        typed=typed,
        quote=best.passage.text[lo:hi],
        chunk_index=best.passage.index,
        rule=rule,
        justification=why,
        passage_label=best.passage_rating.label,
        passage_score=best.passage_rating.score,
        sentence_score=best.rating.score,
        rank=best.passage.rank,
        agree=agree,
        rivals=rivals,
        role=role,
    )


class ColumnJudge:
    """Relevance to a column: a passage answers the column when it answers
    its question or its name read as one ("Effective date" / "When was the
    agreement made?"), by `citations.relevance.RelevanceJudge` each; a typed
    column's passages must state a value of its kind."""

    def __init__(
        self,
        question: str,
        column_type: str,
        name: str = "",
        weights: Mapping[str, float] | None = None,
    ) -> None:
        """`weights`: how rare each word is in the document read (an IDF,
        `ingest.search.within.term_weights`); the judge counts rare words
        more ("renew" says more than "agreement")."""
        kind = column_types.type_of(column_type).value_kind
        self.phrasings = phrasings = [question]
        if name.strip() and name.strip().lower() not in question.lower():
            phrasings.append(name)
        self.judges: list[RelevanceJudge] = []
        for phrasing in phrasings:
            judge = RelevanceJudge(phrasing, weights=weights)
            # The column's type says what answers, whatever the wording.
            judge.value_kind = kind if kind in _JUDGED_KINDS else None
            if judge.concepts or not self.judges:
                self.judges.append(judge)
        self.concepts = [c for j in self.judges for c in j.concepts]

    def rate(self, passage: str) -> Relevance:
        ratings = [j.rate(passage) for j in self.judges]
        return min(ratings, key=lambda r: (_LABEL_ORDER[r.label], -r.score))


def judge_for(
    question: str,
    column_type: str,
    name: str = "",
    weights: Mapping[str, float] | None = None,
) -> ColumnJudge:
    return ColumnJudge(question, column_type, name, weights)


def column_text(question: str, name: str = "") -> str:
    """The words a column's judges read (for their rarity weights)."""
    return f"{name} {question}".strip()


_JUDGED_KINDS = frozenset(
    {values.DURATION, values.MONEY, values.DATE_KIND, values.JURISDICTION}
)


def read_cell(
    *,
    question: str,
    column_type: str,
    passages: Sequence[Passage],
    options: Sequence[str] = (),
    name: str = "",
    weights: Mapping[str, float] | None = None,
) -> Reading:
    """Read a cell from its retrieved passages (see the module docstring).
    `weights`: the rarity of the column's words in the document
    (ColumnJudge)."""
    judge = judge_for(question, column_type, name, weights)
    kind = column_types.type_of(column_type).value_kind
    ratings = {p.rank: judge.rate(p.text) for p in passages}
    searched = [
        {
            "chunk_index": p.index,
            "label": ratings[p.rank].label,
            "score": ratings[p.rank].score,
        }
        for p in passages
    ]
    candidates = _candidates(judge, kind, passages, ratings, options)
    for rule in READING_RULES:
        if rule.applies(kind):
            reading = rule.read(
                kind, candidates, judge=judge, passages=passages, ratings=ratings
            )
            if reading is not None:
                return _with(reading, searched=searched)
    best = min(
        ratings.values(), key=lambda r: (_LABEL_ORDER[r.label], -r.score), default=None
    )
    closest = (
        f" The closest passage only {'relates to' if best.label == RELATED else 'shares words with'} it."
        if best is not None and best.label != OFF_TOPIC
        else ""
    )
    return Reading(
        found=False,
        value="",
        typed=False if kind == values.YES_NO else None,
        quote="",
        chunk_index=None,
        rule="not_found",
        justification="No passage read answers the question." + closest,
        passage_label=best.label if best else "",
        passage_score=best.score if best else 0.0,
        searched=searched,
    )


def _closest(
    judge: ColumnJudge, passages: Sequence[Passage], ratings: dict[int, Relevance]
) -> Candidate | None:
    """The sentence that bears most on the question among the passages that
    relate: a clause before a heading, title or preamble, then the share of
    the question's rarer words it holds, then the better-retrieved passage."""
    found = [
        c
        for c in _candidates(judge, None, passages, ratings, ())
        if c.rating.label != OFF_TOPIC
    ]
    if not found:
        return None
    return min(
        found,
        key=lambda c: (
            _LABEL_ORDER[c.rating.label],
            c.heading or c.rating.rule == "not_a_clause",
            -round(c.rating.weighted, 2),
            c.passage.rank,
            c.start,
        ),
    )


def _with(reading: Reading, **changes: Any) -> Reading:
    return Reading(**{**reading.__dict__, **changes})


# ------------------------------------------------------------------ support


def value_support(
    column_type: str, value: str, quote: str, options: Sequence[str] = ()
) -> Support:
    """Is `value` (what the model, the reader or a reviewer wrote) consistent
    with `quote` (the verified passage's own text)?

    Typed columns: the value must read as its type, and that value must be
    one the quote states (`citations.values.value_supported`: the same
    duration, amount, date, place, number; a party's name in the quote; one
    of the column's options). Text: any figure, amount, date or period in it
    must be the quote's; text without one is not checkable (`unchecked`).
    Yes/no is consistent with any quote: whether a clause answers is the
    relevance signal's to say.
    """
    value = value.strip()
    if not value:
        return Support("unchecked", "No value.")
    if not quote.strip():
        return Support("unsupported", "No verified quote supports this value.")
    return column_types.type_of(column_type).support(value, quote, options)
