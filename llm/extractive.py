"""The built-in responder used when no model server is configured.

It answers by quoting: it picks the sentences of the retrieved sources that
share the most (weighted) terms with the question and returns 1-3 of them as
``"<exact sentence>" (Source: [S2])`` (up to five, rated by the chat's relevance
judge, in a rated answer). Every quote is a slice of the source
text, copied character for character, so every citation it makes verifies as
an exact match. It never paraphrases and never invents; when no sentence
shares a term with the question it says the documents don't contain an answer.

No network, no tokens: ``Completion`` token counts are 0 (cost 0).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from lib.sentences import split_sentences
from lib.stemming import terms
from llm import prompting
from llm.errors import LLMRequestRejected
from llm.types import ChatMessage, Completion, CompletionStream

__all__ = ["ExtractiveProvider"]

MODEL_NAME = "extractive"
MAX_QUOTES = 3
# A rated answer (issue 35) quotes up to this many passages, best first: on
# both corpora the experts' clause is among the first five quoted far more
# often than among the first three (docs/evaluation.md), and five is a list
# a lawyer reads, not a wall. One quote per retrieved passage at most cited
# the clause less often.
MAX_RATED_QUOTES = 5

# ------------------------------------------------------------------ scoring


@dataclass(frozen=True)
class _Candidate:
    source_pos: int  # position of the source in retrieval order
    start: int
    end: int
    text: str
    matched: frozenset[str]
    score: float


def _weight(matched: Iterable[str], n: int, df: Mapping[str, int]) -> float:
    """The summed rarity of the question's words a sentence holds.

    fsum, not sum: `matched` is a set, whose order follows each process's
    string hashing, and a float sum taken in another order can differ in its
    last bit. Two sentences holding the same words then won or lost their tie
    by that bit, and swapped places between runs (CUAD's iPass "parties"
    question, an NDA's "limited use"). fsum is exactly rounded: any order of
    the same words gives the same number, so a tie stays a tie and the
    reading order breaks it."""
    return math.fsum(math.log(1 + n / df[w]) for w in matched)


def _rank(
    question: str, texts: Sequence[str]
) -> tuple[list[_Candidate], frozenset[str]]:
    """Score every sentence of every text against the question's terms."""
    query = frozenset(terms(question))
    sentences: list[tuple[int, int, int, str, frozenset[str], int]] = []
    for pos, text in enumerate(texts):
        for start, end in split_sentences(text):
            sentence = text[start:end]
            words = terms(sentence)
            # Skip fragments and anything that already looks like a citation:
            # a document must not be able to plant a fake "(Source: [S9])".
            if len(words) < 2 or "(Source:" in sentence:
                continue
            sentences.append((pos, start, end, sentence, frozenset(words), len(words)))
    if not query or not sentences:
        return [], query
    df: dict[str, int] = {}
    for _pos, _start, _end, _sentence, held, _length in sentences:
        for word in held & query:
            df[word] = df.get(word, 0) + 1
    n = len(sentences)
    candidates = []
    for pos, start, end, sentence, held, length in sentences:
        matched = held & query
        if not matched:
            continue
        weight = _weight(matched, n, df)
        coverage = len(matched) / len(query)
        # Prefer sentences covering many query terms; mildly prefer short ones
        # and earlier (better-ranked) sources.
        score = weight * (0.5 + coverage)
        score /= 1 + max(0, length - 40) / 80
        score *= 1 + 0.05 / (1 + pos)
        candidates.append(_Candidate(pos, start, end, sentence, matched, score))
    candidates.sort(key=lambda c: (-c.score, c.source_pos, c.start))
    return candidates, query


def _pick(candidates: list[_Candidate]) -> list[_Candidate]:
    if not candidates:
        return []
    best = candidates[0].score
    chosen: list[_Candidate] = []
    seen: set[str] = set()
    for cand in candidates:
        if len(chosen) == MAX_QUOTES or cand.score < 0.6 * best:
            break
        key = " ".join(cand.text.split()).lower()
        if key in seen:  # the same sentence in two overlapping chunks
            continue
        seen.add(key)
        chosen.append(cand)
    return chosen


# ----------------------------------------------------------- rated answers


class Rating(Protocol):
    """How a passage bears on the question (citations.relevance gives these):
    `label` is "answers", "related" or "off_topic"; `stated` a short value the
    passage states when the question asks for one ("90 days"), else None;
    `weighted` the share of the question's word rarity the passage holds;
    `rule` the name of the rule that labelled it."""

    label: str
    score: float
    weighted: float
    rule: str

    @property
    def whole(self) -> bool:
        """It holds every concept of the question (shown as answering or not)."""
        ...

    @property
    def stated(self) -> str | None: ...


Rater = Callable[[str], Rating]
# Said first by every offline answer: no model read the documents, so the
# quotes are what matched the question's words, not what answers it. One
# sentence ending in a colon (a lead-in, not a claim to cite).
NO_MODEL = "No model is configured, so none has read your documents"
ALL_WORDS_LEAD = (
    NO_MODEL + "; {which} every word of your question{stated}, read them to judge:"
)
_COUNTS = ("", "", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _first(n: int) -> str:
    """The lead's words for the first n passages: "the first three passages hold"."""
    if n == 1:
        return "the first passage holds"
    return f"the first {_COUNTS[n] if n < len(_COUNTS) else n} passages hold"


SOME_WORDS_LEAD = (
    NO_MODEL
    + "; these passages match some of your question's words, read them to judge:"
)
# A title, heading, preamble or party description (citations.relevance's
# rule not_a_clause) is quoted last, never first.
NOT_A_CLAUSE = "not_a_clause"


def _whole(rating: Rating) -> bool:
    return rating.label == "answers" or bool(getattr(rating, "whole", False))


# A passage worth quoting: its rating, lexical score, source position, text.
_Rated = tuple[Rating, float, int, str]


def _quote_order(
    item: _Rated,
) -> tuple[bool, bool, bool, float, int, float, float]:
    """Passages holding the whole question first (a value stated in role
    before the others); then clauses before titles and preambles; then the
    share of the question's rarer words held; then the better-retrieved
    source, the better rating, the lexical score."""
    rating, lexical, pos = item[0], item[1], item[2]
    return (
        not _whole(rating),
        rating.label != "answers",
        getattr(rating, "rule", "") == NOT_A_CLAUSE,
        -round(getattr(rating, "weighted", 0.0), 2),
        pos,
        -rating.score,
        -lexical,
    )


def _rated_answer(
    question: str, sources: Sequence[prompting.PromptSource], rate: Rater
) -> str:
    """Quote the passages that bear on the question, those holding all of
    its words first, after a first line saying that no model read them; say
    there is no answer only when no passage holds any of the question's
    words. A value is stated only as read from the first quote, which holds
    it whole."""
    candidates, _query = _rank(question, [s.text for s in sources])
    lexical = {(c.source_pos, c.start): c.score for c in candidates}
    rated: list[_Rated] = []
    seen: set[str] = set()
    for pos, source in enumerate(sources):
        for start, end in split_sentences(source.text):
            sentence = source.text[start:end]
            key = " ".join(sentence.split()).lower()
            if len(terms(sentence)) < 2 or "(Source:" in sentence or key in seen:
                continue
            seen.add(key)
            rating = rate(sentence)
            if rating.label == "off_topic":
                continue
            rated.append((rating, lexical.get((pos, start), 0.0), pos, sentence))
    # `rated` is in reading order (source rank, then place in the source) and
    # the sort is stable, so passages that tie on every key keep that order.
    rated.sort(key=_quote_order)
    # Those holding every word first, the best of the others after them:
    # word rules cannot tell which one answers, a reader can.
    chosen = rated[:MAX_RATED_QUOTES]
    if not chosen:
        return prompting.NO_ANSWER
    whole = sum(_whole(r[0]) for r in chosen)
    if whole:
        stated = chosen[0][0].stated
        lead = ALL_WORDS_LEAD.format(
            which="these passages hold" if whole == len(chosen) else _first(whole),
            stated=f", and the first states {stated}" if stated else "",
        )
    else:
        lead = SOME_WORDS_LEAD
    lines = [lead]
    lines += [
        f'"{sentence}" (Source: [{sources[pos].ref}])' for _, _, pos, sentence in chosen
    ]
    return "\n\n".join(lines)


# ----------------------------------------------------------------- provider


def _parse_prompt(
    messages: Sequence[ChatMessage],
) -> tuple[str, list[prompting.PromptSource]]:
    """Recover question and sources from messages built by llm.prompting."""
    users = [m.content for m in messages if m.role == "user"]
    prompt = users[-1] if users else ""
    question = (
        prompt.rsplit("Question:", 1)[-1].strip() if "Question:" in prompt else prompt
    )
    sources = [
        prompting.PromptSource(
            ref=m.group(1), source_label="Text", title="", page=None, text=m.group(2)
        )
        for m in re.finditer(
            r'<source id="([^"]+)">\n(.*?)\n</source>', prompt, re.DOTALL
        )
    ]
    return question, sources


class ExtractiveProvider:
    """Quotes sentences from the retrieved sources; see the module docstring.

    Prefer :meth:`answer`, which works on structured
    sources. :meth:`complete` parses messages built by :mod:`llm.prompting`
    back, for callers written against the generic interface.
    """

    name = "extractive"
    model = MODEL_NAME

    def __init__(self, config: Any = None) -> None:
        self.config = config

    @staticmethod
    def _completion(text: str, started: float) -> Completion:
        return Completion(
            text=text,
            model=MODEL_NAME,
            prompt_tokens=0,
            completion_tokens=0,
            finish_reason="stop",
            latency_s=time.monotonic() - started,
        )

    def answer(
        self,
        question: str,
        sources: Sequence[prompting.PromptSource],
        *,
        history: Sequence[ChatMessage] = (),
        rate: Rater | None = None,
    ) -> Completion:
        """1-3 verbatim quotes with their source ids (rated: up to
        MAX_RATED_QUOTES), or a plain "no answer".

        With `rate`, only passages that bear on the question are quoted, those
        that answer first (see `_rated_answer`)."""
        started = time.monotonic()
        if rate is not None:
            return self._completion(_rated_answer(question, sources, rate), started)
        candidates, _query = _rank(question, [s.text for s in sources])
        chosen = _pick(candidates)
        if not chosen:
            return self._completion(prompting.NO_ANSWER, started)
        lines = ["The documents say:"]
        lines += [f'"{c.text}" (Source: [{sources[c.source_pos].ref}])' for c in chosen]
        return self._completion("\n\n".join(lines), started)

    def stream_answer(
        self,
        question: str,
        sources: Sequence[prompting.PromptSource],
        *,
        history: Sequence[ChatMessage] = (),
        rate: Rater | None = None,
    ) -> CompletionStream:
        return _stream_of(self.answer(question, sources, history=history, rate=rate))

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        response_format: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        if response_format is not None:
            raise self._no_json()
        question, sources = _parse_prompt(messages)
        return self.answer(question, sources)

    def stream(
        self, messages: Sequence[ChatMessage], *, max_tokens: int | None = None
    ) -> CompletionStream:
        return _stream_of(self.complete(messages))

    def complete_json(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: dict[str, Any],
        name: str,
        max_tokens: int | None = None,
    ) -> tuple[dict[str, Any], Completion]:
        raise self._no_json()

    @staticmethod
    def _no_json() -> LLMRequestRejected:
        return LLMRequestRejected(
            "The built-in extractive responder cannot produce free-form JSON; "
            "configure a model server (LLM_BASE_URL) for this."
        )


def _stream_of(completion: Completion) -> CompletionStream:
    # Emit word-sized pieces so the chat UI streams the same way for both providers.
    pieces = re.findall(r"\S+\s*|\s+", completion.text)
    return CompletionStream(iter(pieces), lambda: completion)
