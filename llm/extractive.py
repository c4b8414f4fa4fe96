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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from llm import prompting
from llm.errors import LLMRequestRejected
from llm.textfold import fold_compat
from llm.types import ChatMessage, Completion, CompletionStream

__all__ = ["ENDINGS", "ExtractiveProvider", "same_word", "split_sentences", "terms"]

MODEL_NAME = "extractive"
MAX_QUOTES = 3
# A rated answer (issue 35) quotes up to this many passages, best first: on
# both corpora the experts' clause is among the first five quoted far more
# often than among the first three (docs/evaluation.md), and five is a list
# a lawyer reads, not a wall. One quote per retrieved passage at most cited
# the clause less often.
MAX_RATED_QUOTES = 5
# A quote longer than this is cut at a word boundary (still a verbatim slice):
# tables and lists without full stops would otherwise become one huge "sentence".
MAX_SENTENCE_CHARS = 400
WINDOW_CHARS = 300

# -------------------------------------------------------------------- terms

# A word list reads best as a paragraph.
_STOPWORD_TEXT = """
    a about above after again against all am an and any are aren as at be because
    been before being below between both but by can cannot could couldn did didn
    do does doesn doing don down during each either else ever few for from further
    had has hasn have haven having he her here hers herself him himself his how i
    if in into is isn it its itself just let me might more most much must mustn my
    myself neither nor of off on once only or other ought our ours ourselves out
    over own per same shan she should shouldn so some such than that the their
    theirs them themselves then there these they this those through to too under
    until up upon us very was wasn we were weren what whatever when where whether
    which while who whom whose why will with within won would wouldn you your
    yours yourself yourselves s t d ll m re ve
    also tell please say says said according document documents text source
    sources give show find list describe explain mention mentioned state stated
    kind anything something thing things
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_SUFFIXES = (
    ("ational", "ate"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("ities", "ity"),
    ("ments", ""),
    ("ment", ""),
    ("ings", ""),
    ("ing", ""),
    ("edly", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ed", ""),
)


def _stem(word: str) -> str:
    """A light stemmer: enough to match terminate/terminated/termination."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            break
    else:
        if (word.endswith("es") and word[-3] in "sxz") or word.endswith(
            ("ches", "shes")
        ):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


_WORD_RE = re.compile(r"\w+")

# Endings the light stemmer leaves on a word: a stem and a written word that
# differ only by one of them are one word in two forms ("assignabl" /
# "assign", "commit" / "commitment", "restrictiv" / "restrict"), while
# "franc" (France) and "franchis" are not. Both keep MIN_SHARED_STEM letters.
ENDINGS = frozenset(
    [
        "abl",
        "ibl",
        "able",
        "ible",
        "ment",
        "ments",
        "m",
        "ion",
        "ions",
        "iv",
        "ive",
        "ing",
        "ed",
        "er",
        "or",
        "ity",
        "iti",
        "al",
        "ly",
        "anc",
        "ance",
        "enc",
        "ence",
        "s",
        "e",
        "es",
        "ship",
        "ness",
        "it",
        "itiv",
        "itor",
        "ition",
    ]
)
MIN_SHARED_STEM = 4


def same_word(a: str, b: str) -> bool:
    """Two stems of one word: equal, or one is the other plus an ending."""
    if a == b:
        return True
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return (
        len(short) >= MIN_SHARED_STEM
        and long.startswith(short)
        and long[len(short) :] in ENDINGS
    )


def terms(text: str) -> list[str]:
    """Stemmed content words of ``text``, in order (stopwords removed);
    ligatures and other compatibility letters read as the letters they stand
    for ("Conﬁdential" is "confidential", issue 32)."""
    words = _WORD_RE.findall(fold_compat(text).lower())
    return [_stem(w) for w in words if w not in _STOPWORDS]


# ---------------------------------------------------------------- sentences

# Candidate boundary: sentence punctuation (plus closing quotes/brackets) then
# whitespace; a blank line; or a line break before a list bullet.
# A running header or footer line (issue 32): a page number, a
# confidential-treatment mark, an EDGAR "Source: FILER, FORM, DATE" line,
# a confidentiality legend set alone on its line. Never part of a sentence.
_FURNITURE_LINE = (
    r"(?:[Pp]age\s+\d+(?:\s+of\s+\d+)?|[-–]\s*\d+\s*[-–]|\d{1,4}"
    r"|\*{0,3}\s*(?i:confidential\s+treatment\s+requested)[^\n]{0,120}"
    r"|(?i:source):\s+[^\n]{0,160}?\d{1,2}/\d{1,2}/\d{2,4}"
    r"|(?i:(?:strictly\s+)?confidential(?:\s+(?:and|&)\s+proprietary)?)"
    r"|(?i:table\s+of\s+contents))"
)
_BOUNDARY_RE = re.compile(
    r"(?P<punct>(?<=[.!?])[\"'”’)\]]*\s+)"
    r"|\n[ \t]*\n\s*"
    rf"|(?P<furniture>(?:^|\n)[ \t]*{_FURNITURE_LINE}[ \t]*(?=\n|$))"
    r"|\n(?=[ \t]*(?:[-•*–]|\(?[0-9a-z]{1,3}[.)])\s)"
)
_PAGE_FURNITURE_RE = re.compile(_FURNITURE_LINE, re.IGNORECASE)
# A sentence never starts right after one of these: "... shall not be liable
# unless" / "the Distributor ..." is one condition, and a quote of its second
# half reads as the opposite (the verifier refuses it: dropped_negation).
# The cascade's negations (citations.cascade.context) and the words that make
# what follows a condition.
HOLDING_WORDS = frozenset(
    [
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
        "if",
        "provided",
        "until",
        "save",
        "only",
        "than",
        "that",
    ]
)
_LAST_WORD = re.compile(r"(\w+)\W*$")


def _holds(text: str, end: int) -> bool:
    """Does text[:end] end with a negating or conditioning word?"""
    match = _LAST_WORD.search(text, max(0, end - 30), end)
    return bool(match) and match.group(1).lower() in HOLDING_WORDS


_ABBREVIATION_TEXT = (
    "e.g i.e mr mrs ms dr prof st no nos sec art arts inc ltd co corp vs cf fig "
    "approx jan feb mar apr jun jul aug sep sept oct nov dec para pp p"
)
_ABBREVIATIONS = frozenset(_ABBREVIATION_TEXT.split())
_LAST_WORD_RE = re.compile(r"([\w.]+)\.[\"'”’)\]]*\s*$")


def _is_abbreviation(text: str, boundary: int) -> bool:
    match = _LAST_WORD_RE.search(text, max(0, boundary - 20), boundary)
    if not match:
        return False
    word = match.group(1).lower()
    # "J. Smith", "U.S. law", "e.g. this": not the end of a sentence.
    dotted = "." in word and not word.replace(".", "").isdigit()
    return word in _ABBREVIATIONS or len(word) == 1 or dotted


def _split_long(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    # Over-long "sentences" (tables, lists, a long clause): break at line ends
    # or semicolons, then at word boundaries. A PDF breaks a long clause at
    # every line, so a line that goes on in lower case is joined to the one
    # before while they fit WINDOW_CHARS: a quote is a clause's worth of
    # words, not one printed line of it ("the Distributor nor the Company
    # shall have a liability for"). Table rows (a capital or a digit next)
    # stay apart.
    pieces: list[tuple[int, int]] = []
    for m in re.finditer(r"[^\n;]+;?", text[start:end]):
        s, e = start + m.start(), start + m.end()
        if pieces:
            ps, pe = pieces[-1]
            joins = (
                text[pe - 1] != ";"
                and (text[s:e].lstrip()[:1].islower() or _holds(text, pe))
                and e - ps <= WINDOW_CHARS
            )
            if joins:
                pieces[-1] = (ps, e)
                continue
        pieces.append((s, e))
    for s, e in pieces:
        while e - s > MAX_SENTENCE_CHARS:
            cut = text.rfind(" ", s, s + WINDOW_CHARS)
            # Never leave "not" / "unless" as the last word before a cut.
            while cut > s and _holds(text, cut):
                cut = text.rfind(" ", s, cut)
            cut = cut if cut > s else s + WINDOW_CHARS
            yield s, cut
            s = cut
        yield s, e


def split_sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` spans of the sentences of ``text``.

    Each span is stripped of surrounding whitespace, so ``text[start:end]`` is
    a clean verbatim quote; line breaks *inside* a sentence are kept as they are.
    Running headers and footers (page numbers, "*Confidential treatment
    requested", "Source: FILER, N-6, 7/1/2019") are no part of any sentence,
    and no sentence starts right after a negating or conditioning word
    (HOLDING_WORDS): the boundary is passed over, or, where a running footer
    cut the sentence, its second half is not offered as a quote.
    """
    spans: list[tuple[int, int]] = []
    # Pieces that go on a sentence cut by a running header or footer after a
    # negating word: never quoted alone.
    held: set[int] = set()
    start = 0
    for match in _BOUNDARY_RE.finditer(text):
        if match.lastgroup == "punct" and _is_abbreviation(text, match.start()):
            continue
        furniture = match.lastgroup == "furniture"
        cut_off = match.lastgroup is None  # a blank line or a bullet, no full stop
        if cut_off and _holds(text, match.start()):
            continue  # "... unless" / "the Distributor ...": one sentence
        if furniture and _holds(text, match.start()) and start < match.start():
            held.add(match.end())
        kept = 0 if furniture else len(match.group(0).rstrip())
        spans.append((start, match.start() + kept))
        start = match.end()
    spans.append((start, len(text)))
    result: list[tuple[int, int]] = []
    for s, e in spans:
        if s in held:
            continue
        pieces = _split_long(text, s, e) if e - s > MAX_SENTENCE_CHARS else [(s, e)]
        for ps, pe in pieces:
            ps, pe = _without_furniture_lines(text, ps, pe)
            segment = text[ps:pe]
            stripped = segment.strip()
            if not stripped or _PAGE_FURNITURE_RE.fullmatch(stripped):
                continue
            lead = len(segment) - len(segment.lstrip())
            result.append((ps + lead, ps + lead + len(stripped)))
    return result


def _without_furniture_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """The span less the running header and footer lines at its start and end
    (after a sentence's full stop the boundary took the line break the
    furniture rule looks for)."""
    while start < end:
        line_end = text.find("\n", start, end)
        if line_end < 0 or not _PAGE_FURNITURE_RE.fullmatch(
            text[start:line_end].strip()
        ):
            break
        start = line_end + 1
    while start < end:
        line_start = text.rfind("\n", start, end)
        if line_start < 0 or not _PAGE_FURNITURE_RE.fullmatch(
            text[line_start + 1 : end].strip()
        ):
            break
        end = line_start
    return start, end


# ------------------------------------------------------------------ scoring


@dataclass(frozen=True)
class _Candidate:
    source_pos: int  # position of the source in retrieval order
    start: int
    end: int
    text: str
    matched: frozenset[str]
    score: float


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
    for *_, words, _n in sentences:
        for word in words & query:
            df[word] = df.get(word, 0) + 1
    n = len(sentences)
    candidates = []
    for pos, start, end, sentence, words, length in sentences:
        matched = words & query
        if not matched:
            continue
        weight = sum(math.log(1 + n / df[w]) for w in matched)
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


def _quote_order(item: tuple) -> tuple:
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
    rated = []
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


# -------------------------------------------------------------- cell values

_DATE_RE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b"
    r"|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4}\b"
    r"|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,? \d{4}\b",
    re.IGNORECASE,
)
_NUMBER_RE = re.compile(
    r"(?:(?:USD|EUR|GBP|CHF|JPY)\s?|[$€£¥]\s?)?\d[\d,]*(?:\.\d+)?"
    r"(?:\s?(?:%|percent|million|billion|thousand|USD|EUR|GBP))?",
    re.IGNORECASE,
)
_NUMERIC_TYPES = {"number", "integer", "currency", "amount", "percentage", "money"}


def _cell_value(sentence: str, column_type: str) -> str:
    kind = column_type.strip().lower()
    if kind == "date":
        match = _DATE_RE.search(sentence)
        return match.group(0) if match else sentence
    if kind in _NUMERIC_TYPES:
        match = _NUMERIC_RE_FOR.get(kind, _NUMBER_RE).search(sentence)
        return match.group(0).strip() if match else sentence
    if kind in {"boolean", "yes_no", "bool"}:
        # Deciding yes/no needs understanding; quoting the evidence is honest.
        return ""
    return sentence


_NUMERIC_RE_FOR = {
    "percentage": re.compile(r"\d[\d,]*(?:\.\d+)?\s?(?:%|percent)", re.IGNORECASE),
}


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
            ref=m.group(1), source_type="text", title="", page=None, text=m.group(2)
        )
        for m in re.finditer(
            r'<source id="([^"]+)">\n(.*?)\n</source>', prompt, re.DOTALL
        )
    ]
    return question, sources


class ExtractiveProvider:
    """Quotes sentences from the retrieved sources; see the module docstring.

    Prefer :meth:`answer` / :meth:`extract_cell`, which work on structured
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

    def extract_cell(
        self, question: str, column_type: str, chunks: Sequence[tuple[int, str]]
    ) -> tuple[dict[str, Any], Completion]:
        """The best-matching sentence as value and quote; confidence low/medium."""
        started = time.monotonic()
        candidates, query = _rank(question, [text for _, text in chunks])
        if not candidates:
            cell = {
                "value": "",
                "cited_chunk_indices": [],
                "confidence": "low",
                "justification": "No passage in this document matches the question.",
                "quote": "",
                "invalid_chunk_indices": [],
            }
            return cell, self._completion("", started)
        best = candidates[0]
        index = chunks[best.source_pos][0]
        coverage = len(best.matched) / len(query)
        # Heuristic matching is never "high": that is for a model that read it.
        confidence = "medium" if coverage >= 0.5 and len(best.matched) >= 2 else "low"
        cell = {
            "value": _cell_value(best.text, column_type),
            "cited_chunk_indices": [index],
            "confidence": confidence,
            "justification": (
                f"The passage shares {len(best.matched)} of {len(query)} key terms "
                "with the question (built-in extractive responder, no model)."
            ),
            "quote": best.text,
            "invalid_chunk_indices": [],
        }
        return cell, self._completion(best.text, started)


def _stream_of(completion: Completion) -> CompletionStream:
    # Emit word-sized pieces so the chat UI streams the same way for both providers.
    pieces = re.findall(r"\S+\s*|\s+", completion.text)
    return CompletionStream(iter(pieces), lambda: completion)
