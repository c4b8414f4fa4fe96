"""Does a passage bear on the question? The second signal beside verification.

A verified quote is faithful to its source; it may still not answer what was
asked. `RelevanceJudge(question)` rates passages as

- `answers`: it covers what the question asks about (and holds a value of
  the kind asked for, when the question asks for one: a period, an amount,
  a date, a place);
- `related`: it touches the question's concepts without covering them;
- `off_topic`: it does not bear on the question.

Offline the rating is measured: the share of the question's concepts the
passage holds (words stemmed, each concept with the other words contracts use
for it: "terminate for convenience" is also "without cause"), blended with the
embedding similarity of question and passage when an embedder gave one. The
thresholds were chosen on the tune half of the retrieval evaluation
(bench/retrieval_eval.py). The labels come from `RELEVANCE_RULES`, an ordered
table of named rules; `Relevance.rule` says which decided. Pure: no Django.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from citations import values
from llm.extractive import terms

# Kinds of value read from a passage's words (not yes/no).
VALUE_KINDS = frozenset(
    {values.DURATION, values.MONEY, values.DATE_KIND, values.JURISDICTION}
)

ANSWERS = "answers"
RELATED = "related"
OFF_TOPIC = "off_topic"
LABELS = (ANSWERS, RELATED, OFF_TOPIC)

# Blend of the lexical coverage and the embedding similarity.
DENSE_WEIGHT = 0.3
# Embedding cosines below FLOOR mean nothing in common; above CEILING, the same topic.
DENSE_FLOOR = 0.2
DENSE_CEILING = 0.7
# Chosen on the tune half of the CUAD development contracts (bench/
# retrieval_eval.py): a passage relates from 0.3 of the question's concepts
# and 0.2 of their weight; it answers from 0.6 and 0.5.
ANSWERS_AT = 0.6
ANSWERS_WEIGHT_AT = 0.5
RELATED_AT = 0.3
RARE_AT = 0.2
# The documents are silent when the question's words they never write carry
# more than this share of its weight. Stems shorter than SILENT_MIN_CHARS never
# count: fragments and abbreviations ("post-", "auto-", "IP") are written in
# other forms.
SILENT_AT = 0.5
SILENT_MIN_CHARS = 5

# Words of a question that say nothing about what to find in a contract.
QUESTION_NOISE = frozenset(
    terms(
        """
        agreement agreements contract contracts document documents clause clauses
        section sections provision provisions term terms party parties either
        both any there what which who whom whose when where how does do did is
        are was were can could may might must shall should will would have has
        had any anything something say says said state states mention mentioned
        include includes including contain contains provide provides provided
        exist exists regarding concerning about under this that these those
        our we us their them they it its one ones kind type sort apply applies
        allowed permitted happen happens non period time long much many
        summarise summarize summary overview outline key main need needed
        compare comparison contrast difference differences differ list
        explain describe show tell give find identify quote cite detail
        details specify specific exact exactly please whether mean means
        """
    )
)

# The other words contracts use for a concept. General legal vocabulary, one
# line a concept: a question word finds a passage that uses any of them.
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("terminate", "termination", "cancel", "cancellation", "end"),
    ("convenience", "without cause", "any reason", "no reason", "at will"),
    ("assign", "assignment", "transfer", "delegate"),
    ("govern", "governing", "laws", "law", "construed", "jurisdiction"),
    ("compete", "competition", "competitive", "competitor", "noncompete"),
    ("solicit", "solicitation", "hire", "employ", "recruit", "poach"),
    ("liability", "liable", "damages"),
    ("cap", "exceed", "limit", "limitation", "maximum", "aggregate"),
    ("uncapped", "unlimited", "exclusion", "exclude"),
    ("renew", "renewal", "extend", "extension", "successive"),
    ("notice", "notify", "notification", "written notice"),
    ("warranty", "warrant", "warrants", "guarantee"),
    ("audit", "inspect", "inspection", "examine", "records", "books"),
    ("insurance", "insure", "insured", "coverage", "policy", "insurer"),
    ("exclusive", "exclusivity", "exclusively", "sole"),
    ("confidential", "confidentiality", "nondisclosure", "proprietary"),
    ("indemnify", "indemnification", "indemnity", "hold harmless"),
    ("royalty", "royalties"),
    ("effective", "commence", "commencement", "start"),
    ("expire", "expiration", "expiry", "term"),
    ("intellectual property", "patent", "copyright", "trademark", "invention"),
    ("own", "ownership", "title", "vest", "belong"),
    ("price", "pricing", "fee", "fees", "charge", "cost"),
    ("minimum", "at least", "purchase requirement"),
    ("license", "licence", "licensed", "sublicense"),
    ("acquire", "acquired", "change of control", "merger", "acquisition"),
    ("disparage", "disparagement", "derogatory"),
    ("escrow", "deposit"),
    ("sue", "suit", "claim", "action", "proceeding"),
    ("beneficiary", "beneficiaries", "third party", "third-party"),
    ("first refusal", "first offer", "first negotiation", "rofr"),
    ("revenue", "profit", "sharing", "share"),
    ("volume", "quantity", "usage", "units"),
    ("perpetual", "irrevocable", "forever"),
    ("affiliate", "affiliates", "subsidiary", "subsidiaries"),
    ("signed", "executed", "dated", "date"),
    ("liquidated", "penalty", "penalties"),
    ("survive", "survival", "after termination", "post-termination"),
)


def _stems(text: str) -> tuple[str, ...]:
    return tuple(terms(text))


# Drafting boilerplate whose words are no concept: "including, but not limited
# to" limits nothing, so it must not read as a cap or a limitation.
BOILERPLATE_RE = re.compile(
    r"\b(?:including,?\s+(?:but\s+|and\s+)?(?:not|without)\s+(?:being\s+)?"
    r"limit(?:ed|ation)(?:\s+to)?|without\s+limit(?:ation|ing)(?:\s+of)?)\b",
    re.IGNORECASE,
)


def _passage_stems(text: str) -> tuple[str, ...]:
    return _stems(BOILERPLATE_RE.sub(" ", text))


_SYNONYM_STEMS: dict[str, set[tuple[str, ...]]] = {}
for _group in SYNONYMS:
    _forms = {_stems(w) for w in _group} - {()}
    for _form in _forms:
        if len(_form) == 1:
            _SYNONYM_STEMS.setdefault(_form[0], set()).update(_forms)


@dataclass(frozen=True)
class Concept:
    """A question word as the passage may write it: its stem, or any of its
    synonyms' stems (one word or a phrase)."""

    word: str
    forms: frozenset[tuple[str, ...]]


@dataclass(frozen=True)
class Relevance:
    label: str
    score: float
    rule: str
    matched: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    value: values.Value | None = None
    weighted: float = 0.0  # share of the concepts' weight the passage holds
    unwritten: tuple[str, ...] = ()  # concepts the searched documents never write

    @property
    def stated(self) -> str | None:
        """The short value an answering passage states ("90 days"), if the
        question asks for one."""
        if self.label != ANSWERS or self.value is None:
            return None
        return self.value.display


@dataclass
class _Reading:
    """What the rules look at for one passage."""

    concepts: int
    coverage: float
    score: float
    weighted: float  # share of the concepts' weight (rare words weigh more)
    value_kind: str | None
    value: values.Value | None
    matched: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    unwritten_weight: float = (
        0.0  # share of the concepts' weight no searched document writes
    )


@dataclass(frozen=True)
class RelevanceRule:
    """A named rule: when it decides, and the label it gives."""

    name: str
    applies: Callable[[_Reading], bool]
    label: Callable[[_Reading], str]
    doc: str


def _by_score(r: _Reading) -> str:
    if r.score >= ANSWERS_AT and r.weighted >= ANSWERS_WEIGHT_AT:
        return ANSWERS
    return RELATED if r.score >= RELATED_AT else OFF_TOPIC


RELEVANCE_RULES: tuple[RelevanceRule, ...] = (
    RelevanceRule(
        "no_concepts",
        lambda r: r.concepts == 0,
        lambda r: RELATED,
        'the question names nothing to look for ("summarise this"): any '
        "passage of the searched documents relates, none is known to answer",
    ),
    RelevanceRule(
        "documents_silent",
        lambda r: r.unwritten_weight > SILENT_AT,
        lambda r: OFF_TOPIC,
        "the words that carry most of the question's weight appear nowhere in "
        "the searched documents, in any of their forms ('the capital of "
        "France' in contracts that never write 'France', though one mentions "
        "capital equipment): no passage of them can answer",
    ),
    RelevanceRule(
        "rare_concepts_missing",
        lambda r: r.weighted < RARE_AT,
        lambda r: OFF_TOPIC,
        "the passage holds only the question's common words: in a contract "
        "every chunk says 'party' and 'agreement'; the rare words say what "
        "the question is about (weights: the words' rarity in the documents)",
    ),
    RelevanceRule(
        "value_missing",
        lambda r: r.value_kind is not None and r.value is None,
        lambda r: RELATED if r.score >= RELATED_AT else OFF_TOPIC,
        "the question asks for a value (a period, an amount, a date, a place) "
        "and the passage holds none of that kind: it cannot answer",
    ),
    RelevanceRule(
        "score",
        lambda r: True,
        _by_score,
        "the passage's share of the question's concepts, blended with the "
        "embedding similarity: answers from 0.6 (and half the concepts' "
        "weight), related from 0.3",
    ),
)


class RelevanceJudge:
    """Rates passages against one question (its concepts are read once)."""

    def __init__(
        self,
        question: str,
        weights: Mapping[str, float] | None = None,
        written: Callable[[str], bool] | None = None,
    ) -> None:
        """`weights`: how rare each question word (stem) is in the documents
        searched (an IDF); without them every concept weighs alike.
        `written`: whether the searched documents write a stem at all
        (`ingest.search.within.written_in`); without it every word counts
        as written."""
        self.question = question
        kind = values.value_kind(question)
        # A yes/no is read from what a passage is about, not from its words.
        self.value_kind = kind if kind in VALUE_KINDS else None
        self.concepts = _concepts(question)
        self.weights = {
            c.word: max(0.0, float((weights or {}).get(c.word, 1.0)))
            for c in self.concepts
        }
        self.unwritten = tuple(
            c.word
            for c in self.concepts
            if written is not None
            and len(c.word) >= SILENT_MIN_CHARS
            and not any(all(written(s) for s in form) for form in c.forms)
        )
        total = sum(self.weights.values())
        self.unwritten_weight = (
            sum(self.weights[w] for w in self.unwritten) / total if total else 0.0
        )

    def __call__(self, passage: str, *, dense: float | None = None) -> Relevance:
        return self.rate(passage, dense=dense)

    def rate(self, passage: str, *, dense: float | None = None) -> Relevance:
        stems = _passage_stems(passage)
        have = set(stems)
        text = " " + " ".join(stems) + " "
        matched, missing = [], []
        for concept in self.concepts:
            if any(
                (form[0] in have) if len(form) == 1 else (f" {' '.join(form)} " in text)
                for form in concept.forms
            ):
                matched.append(concept.word)
            else:
                missing.append(concept.word)
        coverage = len(matched) / len(self.concepts) if self.concepts else 0.0
        total = sum(self.weights.values())
        weighted = sum(self.weights[w] for w in matched) / total if total else coverage
        score = coverage
        if dense is not None and not math.isnan(dense):
            scaled = (dense - DENSE_FLOOR) / (DENSE_CEILING - DENSE_FLOOR)
            score = (1 - DENSE_WEIGHT) * coverage + DENSE_WEIGHT * min(
                1.0, max(0.0, scaled)
            )
        value = None
        if self.value_kind is not None:
            found = values.find_values(passage, self.value_kind)
            value = found[0] if found else None
        reading = _Reading(
            concepts=len(self.concepts),
            coverage=coverage,
            score=score,
            weighted=weighted,
            value_kind=self.value_kind,
            value=value,
            matched=tuple(matched),
            missing=tuple(missing),
            unwritten_weight=self.unwritten_weight,
        )
        rule = next(r for r in RELEVANCE_RULES if r.applies(reading))
        return Relevance(
            label=rule.label(reading),
            score=round(score, 4),
            rule=rule.name,
            matched=reading.matched,
            missing=reading.missing,
            value=value,
            weighted=round(weighted, 4),
            unwritten=self.unwritten,
        )


def _concepts(question: str) -> list[Concept]:
    words = [w for w in _stems(question) if w not in QUESTION_NOISE and not w.isdigit()]
    seen: set[str] = set()
    concepts: list[Concept] = []
    for word in words:
        if word in seen:
            continue
        seen.add(word)
        forms = {(word,)} | _SYNONYM_STEMS.get(word, set())
        concepts.append(Concept(word=word, forms=frozenset(forms)))
    return concepts


def best_first(
    ratings: Iterable[tuple[object, Relevance]],
) -> list[tuple[object, Relevance]]:
    """Answering passages first, then related, then off-topic; by score within."""
    order = {label: i for i, label in enumerate(LABELS)}
    return sorted(ratings, key=lambda p: (order[p[1].label], -p[1].score))


__all__ = [
    "ANSWERS",
    "LABELS",
    "OFF_TOPIC",
    "RELATED",
    "RELEVANCE_RULES",
    "Relevance",
    "RelevanceJudge",
    "best_first",
]
