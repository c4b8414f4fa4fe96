"""Does a passage bear on the question? The second signal beside verification.

A verified quote is faithful to its source; it may still not answer what was
asked. `RelevanceJudge(question)` rates passages as

- `answers`: it covers what the question asks about (and holds a value of
  the kind asked for, when the question asks for one: a period, an amount,
  a date, a place);
- `related`: it touches the question's concepts without covering them;
- `off_topic`: it does not bear on the question.

Offline, word rules label only what they can show (issue 35): a passage
answers when it holds every concept of the question (words stemmed, each
concept with the other words contracts use for it: "terminate for
convenience" is also "without cause"), and the value asked for, and is no
title, heading, preamble or party description; it is off-topic only when it
holds none of the question's concepts; anything between relates. Words that
name the searched documents (title, file name, parties) are no concepts:
inside a distribution agreement "distribution" says nothing. The score (the
share of the concepts held, blended with the embedding similarity when an
embedder gave one) and `weighted` (the share of the concepts' rarity) rank
passages; they label nothing. The labels come from `RELEVANCE_RULES`, an
ordered table of named rules; `Relevance.rule` says which decided.
Holding every word proves no meaning (a definition or a carve-out holds
them too): `shown` turns such an "answers" into "related" for display, and
keeps "answers" only where the question asks for a value that the passage
states in its role (PROVEN_RULES). Pure: no Django.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from citations import values
from lib.sentences import split_sentences
from lib.stemming import MIN_SHARED_STEM, same_word, terms

# Kinds of value read from a passage's words (not yes/no).
VALUE_KINDS = frozenset(
    {values.DURATION, values.MONEY, values.DATE_KIND, values.JURISDICTION}
)

ANSWERS = "answers"
RELATED = "related"
OFF_TOPIC = "off_topic"
LABELS = (ANSWERS, RELATED, OFF_TOPIC)
# The rules that find every concept of the question in the passage.
WHOLE_RULES = frozenset({"value_stated", "whole_question"})

# Blend of the lexical coverage and the embedding similarity.
DENSE_WEIGHT = 0.3
# Embedding cosines below FLOOR mean nothing in common; above CEILING, the same topic.
DENSE_FLOOR = 0.2
DENSE_CEILING = 0.7
# Stems shorter than SILENT_MIN_CHARS never count as unwritten: fragments
# and abbreviations ("post-", "auto-", "IP") are written in other forms.
SILENT_MIN_CHARS = 5
# A passage answers only when its words holding the question's concepts
# stand within this many content words (stopwords left out) of each other.
NEAR_WORDS = 12

# Words that name the kind of value a question asks for: "What date is the
# agreement dated?" asks for a date, which a passage holds by stating one
# ("made as of June 1, 2010"), whether or not it writes the word.
KIND_WORDS = {
    values.DATE_KIND: frozenset(terms("date dates dated day")),
    values.MONEY: frozenset(terms("amount amounts sum")),
}

# A question with one of these asks for a place as the law that governs.
LAW_WORDS = frozenset(terms("law laws govern governs governed governing"))

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
        nda ndas let lets
        """
    )
)

# The other words contracts use for a concept. General legal vocabulary, one
# line a concept: a question word finds a passage that uses any of them.
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("terminate", "termination", "cancel", "cancellation", "end"),
    ("convenience", "without cause", "any reason", "no reason", "at will"),
    ("assign", "assignment", "transfer", "delegate"),
    ("govern", "governing", "laws", "law", "construed"),
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
    ("exclusive", "exclusivity", "exclusively"),
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
    ("beneficiary", "beneficiaries"),
    ("first refusal", "first offer", "first negotiation", "rofr"),
    ("revenue", "profit"),
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
    # Sorted, not a set: the first form the passage writes is counted as the
    # concept's evidence ("one_word" needs two words), and a set's order
    # follows the process's string hashing, so a passage could be rated
    # "answers" on one run and "related" on the next.
    forms: tuple[tuple[str, ...], ...]


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
    def whole(self) -> bool:
        """It holds every concept of the question, near each other (it ranks
        as answering, whether or not it is shown so)."""
        return self.rule in WHOLE_RULES

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

    span: int  # fewest words of the passage that hold every concept it holds
    evidence: int  # distinct words of the passage holding concepts (+1: a value)
    concepts: int
    coverage: float
    score: float
    weighted: float  # share of the concepts' weight (rare words weigh more)
    value_kind: str | None
    value: values.Value | None
    matched: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    silent: bool = False  # the searched documents write none of the concepts
    shape: str = ""  # heading | signature | preamble | party (passage_shape)
    by_value: int = 0  # concepts held only by a value of the kind they name
    in_role: bool = False  # the value's reader read it in the role asked


@dataclass(frozen=True)
class RelevanceRule:
    """A named rule: when it decides, the label it gives, and (question,
    passage) pairs it decides (its examples; the tests check each)."""

    name: str
    applies: Callable[[_Reading], bool]
    label: Callable[[_Reading], str]
    doc: str
    examples: tuple[tuple[str, str], ...] = ()


# What a passage is, when it is no clause: a title or heading names the
# subject, a preamble names the parties and the agreement, a party
# description says where a party is incorporated ("a British Columbia
# corporation" is no governing law). None of them is quoted as the answer.
HEADING_WORDS = 5
_PREAMBLE_RE = re.compile(
    r"\b(?:is|are|was)\s+(?:made|entered\s+into|dated)\b[^.]{0,200}\b(?:between|among)\b"
    r"|\bby\s+and\s+(?:between|among)\b",
    re.IGNORECASE,
)
_PARTY_RE = re.compile(
    r"\b(?:organi[sz]ed|incorporated|existing|formed|registered)\s+"
    r"(?:and\s+existing\s+)?(?:under|in\s+accordance\s+with)\s+the\s+laws?\s+of\b"
    r"|\b(?:a|an)\s+(?:[A-Z][\w.&'-]*\s+){1,4}(?:corporation|company|limited\s+liability"
    r"\s+company|partnership|limited\s+partnership|société|gmbh|ltd|llc|b\.v\.)"
    r"|\bwith\s+(?:its|a)\s+(?:principal|registered)\s+(?:place\s+of\s+business|office)\b",
    re.IGNORECASE,
)


# A heading says no more than its words: short, in capitals or title case,
# without a verb that makes it a clause ("shall", "may", "is").
HEADING_MAX_WORDS = 15
_CLAUSE_VERB_RE = re.compile(
    r"\b(?:shall|will|may|must|is|are|was|were|be|has|have|does|do|agrees?|"
    r"means|includes?|grants?|warrants?)\b"
)
# A signature block: "By: /s/ ... Name: ... Title: ...".
_SIGNATURE_RE = re.compile(r"/s/|\b(?:By|Name|Title|Its|Dated)\s*:", re.IGNORECASE)


def _heading(words: list[str]) -> bool:
    if len(words) < HEADING_WORDS:
        return True
    if len(words) > HEADING_MAX_WORDS:
        return False
    alpha = [w for w in words if w[:1].isalpha()]
    capital = [w for w in alpha if w[:1].isupper()]
    short_ones = sum(len(w) <= 3 for w in alpha if not w[:1].isupper())
    titled = len(capital) + short_ones >= len(alpha)  # "Limitation of Liability"
    return bool(alpha) and titled and not _CLAUSE_VERB_RE.search(" ".join(words))


def passage_shape(text: str) -> str:
    """The passage's shape when it is no clause: "heading", "signature",
    "preamble" or "party" (of its first sentence), when every sentence of
    it is one of them; "" otherwise (a chunk that opens with the preamble
    holds clauses too)."""
    sentences = split_sentences(text) or [(0, len(text))]
    shapes = [_sentence_shape(text[a:b]) for a, b in sentences]
    return shapes[0] if all(shapes) else ""


def _sentence_shape(text: str) -> str:
    words = text.split()
    if _heading(words):
        return "heading"
    if len(_SIGNATURE_RE.findall(text)) >= 2:
        return "signature"
    if _PREAMBLE_RE.search(text):
        return "preamble"
    if _PARTY_RE.search(text):
        return "party"
    return ""


def _dates_the_agreement(r: _Reading) -> bool:
    """A preamble does answer when the agreement was made ("dated as of")."""
    return r.shape == "preamble" and r.value_kind == values.DATE_KIND


RELEVANCE_RULES: tuple[RelevanceRule, ...] = (
    RelevanceRule(
        "no_concepts",
        lambda r: r.concepts == 0,
        lambda r: RELATED,
        'the question names nothing to look for ("summarise this"): any '
        "passage of the searched documents relates, none is known to answer",
        examples=(("Summarise this", "The Customer shall pay each invoice."),),
    ),
    RelevanceRule(
        "documents_silent",
        lambda r: r.silent,
        lambda r: OFF_TOPIC,
        "the searched documents write none of the question's concepts, in any "
        "of their forms ('the capital of Singapore' in contracts that never "
        "write 'capital' nor 'Singapore'): no passage of them can answer. One "
        "word written is enough to keep them searched: inside one NDA "
        "'confidential' is everywhere and the rest is worded otherwise",
    ),
    RelevanceRule(
        "holds_no_concept",
        lambda r: not r.matched,
        lambda r: OFF_TOPIC,
        "the passage holds none of the question's concepts (the documents' "
        "own names are none): it does not bear on it",
        examples=(("Is there a non-compete?", "The Customer shall pay each invoice."),),
    ),
    RelevanceRule(
        "not_a_clause",
        lambda r: bool(r.shape) and not _dates_the_agreement(r),
        lambda r: RELATED,
        "a title, heading, preamble or party description ('XYZ Corp., a "
        "British Columbia corporation'): it may share the question's words, "
        "it is never the clause that answers (but a preamble's date, for a "
        "question asking when the agreement was made)",
        examples=(
            (
                "Which law governs the agreement?",
                "Acme Corp., a corporation organized under the laws of British "
                "Columbia, and Widget Ltd.",
            ),
            ("Which law governs the agreement?", "12. GOVERNING LAW"),
            (
                "Who made the agreement?",
                "This Agreement is made on 1 May 2020 by and between Acme Corp. and "
                "Widget Ltd.",
            ),
        ),
    ),
    RelevanceRule(
        "value_missing",
        lambda r: r.value_kind is not None and r.value is None,
        lambda r: RELATED,
        "the question asks for a value (a period, an amount, a date, a place) "
        "and the passage holds none of that kind: it cannot answer",
        examples=(
            (
                "How much notice is needed to terminate the agreement?",
                "The agreement may be terminated by the Board on notice.",
            ),
        ),
    ),
    RelevanceRule(
        "value_for_a_word",
        lambda r: r.coverage >= 1.0 and r.by_value > 0,
        lambda r: RELATED,
        "the passage holds the question's other concepts and, for the word "
        "that names the kind of value asked ('date'), a value of that kind: "
        "it ranks with the passages that hold the question, but a date is "
        "no proof that it is the date asked about",
        examples=(
            (
                "What date is the agreement dated?",
                "This Agreement is made as of June 1, 2010 by and between Acme "
                "Corp. and Widget Ltd.",
            ),
        ),
    ),
    RelevanceRule(
        "one_word",
        lambda r: r.coverage >= 1.0 and r.evidence < 2,
        lambda r: RELATED,
        "the passage holds the whole question by one word ('exclusive' for 'Is "
        "the agreement exclusive?', 'share' for 'profit sharing'): one word "
        "shows what it mentions, not that it answers ('exclusive remedy')",
        examples=(
            (
                "Is the agreement exclusive?",
                "This remedy is the exclusive remedy of the Customer.",
            ),
        ),
    ),
    RelevanceRule(
        "scattered",
        lambda r: r.coverage >= 1.0 and r.span > NEAR_WORDS,
        lambda r: RELATED,
        "the passage holds every concept, but far apart (more than NEAR_WORDS "
        "content words from the first to the last): a long sentence that "
        "mentions a licence here and a grant there is no licence grant",
        examples=(
            (
                "What licence is granted?",
                "Each party shall grant the other access to its premises for "
                "audits, inspections, tests, reviews and meetings during the term "
                "and for any reason whatsoever, in particular a review of the "
                "licence fees.",
            ),
        ),
    ),
    RelevanceRule(
        "value_stated",
        lambda r: r.coverage >= 1.0 and r.value is not None and r.in_role,
        lambda r: ANSWERS,
        "the question asks for a value whose reader reads the role it plays "
        "(a place named as the governing law, not a party's incorporation) "
        "and the passage holds every concept of the question and such a "
        "value in that role: the one answer word rules can prove "
        "(PROVEN_RULES). A date, a period or an amount has no role reader "
        "(another agreement's date, the cure period beside the notice): it "
        "ranks as the whole question, shown related",
        examples=(
            (
                "Which law governs the agreement?",
                "This Agreement shall be governed by the laws of the State of "
                "New York.",
            ),
        ),
    ),
    RelevanceRule(
        "whole_question",
        lambda r: r.coverage >= 1.0,
        lambda r: ANSWERS,
        "the passage holds every concept of the question, by two words or "
        "more: the most word rules can show, not that it answers (a "
        "definition, a carve-out or another clause's mention hold the words "
        "as well); it ranks as answering, it is shown as related (`shown`)",
        examples=(
            (
                "Can either party terminate for convenience?",
                "Either party may terminate this Agreement without cause upon "
                "ninety (90) days prior written notice.",
            ),
        ),
    ),
    RelevanceRule(
        "part_of_question",
        lambda r: True,
        lambda r: RELATED,
        "the passage holds some of the question's concepts, not all: it "
        "relates; whether it answers, word rules cannot show",
        examples=(
            (
                "Can the customer withhold payment of disputed amounts?",
                "The Customer shall pay each undisputed invoice within thirty (30) "
                "days of receipt.",
            ),
        ),
    ),
)


# The rules whose "answers" word rules can prove (issue 35): the value asked
# for, read from the passage in its role. Any other "answers" (the passage
# holds the question's words) ranks passages and is shown as related.
PROVEN_RULES = frozenset({"value_stated"})


def shown(rating: Relevance) -> Relevance:
    """The rating as the offline rater may show it: "answers" only where a
    rule of PROVEN_RULES decided; otherwise "related", the rule kept (it
    says what the passage holds)."""
    if rating.label == ANSWERS and rating.rule not in PROVEN_RULES:
        return dataclasses.replace(rating, label=RELATED)
    return rating


# "non-exclusive" is not "exclusive": a concept the passage writes only
# behind "non-" it does not hold (unless the question says "non-" too).
_NON_RE = re.compile(r"\bnon[-\u2010\u2011]\s?(?=[A-Za-z])", re.IGNORECASE)


def name_stems(names: Iterable[str]) -> frozenset[str]:
    """The stems of the words that name documents (titles, file names,
    parties): "LIMEENERGYCO_09_09_1999-EX-10-DISTRIBUTOR AGREEMENT" names by
    "limeenergyco" and "distributor"."""
    stems: set[str] = set()
    for name in names:
        name = re.sub(r"\.[A-Za-z0-9]{2,4}$", "", name or "")
        stems.update(_stems(re.sub(r"[_]+", " ", name)))
    return frozenset(s for s in stems if not s.isdigit())


class RelevanceJudge:
    """Rates passages against one question (its concepts are read once)."""

    def __init__(
        self,
        question: str,
        weights: Mapping[str, float] | None = None,
        written: Callable[[str], bool] | None = None,
        names: Iterable[str] = (),
    ) -> None:
        """`weights`: how rare each question word (stem) is in the documents
        searched (an IDF; it ranks, it labels nothing); without them every
        concept weighs alike. `written`: whether the searched documents write
        a stem at all (`ingest.search.within.written_in`); without it every
        word counts as written. `names`: the searched documents' titles,
        file names and parties, whose words are no concepts."""
        self.question = question
        kind = values.value_kind(question)
        # A yes/no is read from what a passage is about, not from its words.
        self.value_kind = kind if kind in VALUE_KINDS else None
        named = name_stems(names)
        self.concepts = [c for c in _concepts(question) if c.word not in named]
        self.kind_words = KIND_WORDS.get(self.value_kind or "", frozenset())
        self.asks_law = self.value_kind == values.JURISDICTION and any(
            c.word in LAW_WORDS for c in self.concepts
        )
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
        unwritable = [
            c
            for c in self.concepts
            if written is not None
            and not any(all(written(s) for s in form) for form in c.forms)
        ]
        self.silent = bool(self.concepts) and len(unwritable) == len(self.concepts)
        # Words the question itself writes behind "non-" ("a non-compete").
        self._non_ok: set[str] = set()
        for m in _NON_RE.finditer(question):
            for stem in _stems(question[m.end() : m.end() + 40])[:1]:
                self._non_ok.add(stem)
                for form in _SYNONYM_STEMS.get(stem, ()):
                    self._non_ok.update(form[:1])

    def _in_role(self, value: values.Value) -> bool:
        """A place asked for as the governing law is one a passage names as a
        law ("governed by the laws of", "the laws of"), never a forum, an
        address or a party's incorporation ("a British Columbia corporation")."""
        if not self.asks_law:
            return True
        return getattr(value, "role", "") in (values.GOVERNING_LAW, values.LAW)

    def _role_read(self, value: values.Value) -> bool:
        """The value's reader read the role it plays, and it is the role
        asked: only places have a role reader (citations.values); a place
        asked for as the law must be named as a law, any other place as a
        law or a forum, never a mere mention (an address, an incorporation)."""
        role = getattr(value, "role", "")
        if self.value_kind != values.JURISDICTION:
            return False
        if self.asks_law:
            return role in (values.GOVERNING_LAW, values.LAW)
        return role in (values.GOVERNING_LAW, values.LAW, values.FORUM)

    def __call__(self, passage: str, *, dense: float | None = None) -> Relevance:
        return self.rate(passage, dense=dense)

    def _without_non(self, passage: str) -> str:
        def joined(m: re.Match[str]) -> str:
            following = _stems(passage[m.end() : m.end() + 40])[:1]
            return m.group(0) if set(following) & self._non_ok else "non_"

        return _NON_RE.sub(joined, passage)

    def rate(self, passage: str, *, dense: float | None = None) -> Relevance:
        stems = _passage_stems(self._without_non(passage))
        have = set(stems)
        by_prefix: dict[str, list[str]] = {}
        for stem in have:
            by_prefix.setdefault(stem[:MIN_SHARED_STEM], []).append(stem)
        text = " " + " ".join(stems) + " "
        matched, missing = [], []
        evidence: set[str] = set()  # the passage's words that hold concepts
        places: list[list[int]] = []  # where each held concept stands
        value = None
        if self.value_kind is not None:
            found = [
                v
                for v in values.find_values(passage, self.value_kind)
                if self._in_role(v)
            ]
            value = found[0] if found else None
        by_value = 0  # concepts held only by the value they name ("date")
        for concept in self.concepts:
            held = [
                written
                for form in concept.forms
                if (written := _held(form, have, by_prefix, text)) is not None
            ]
            if not held and value is not None and concept.word in self.kind_words:
                matched.append(concept.word)
                by_value += 1
                continue
            if held:
                matched.append(concept.word)
                # A word not yet counted for another concept where there is
                # one: "governed" and "laws" are two words for "governing
                # law", though the thesaurus makes each a form of both.
                evidence.add(next((h for h in held if h not in evidence), held[0]))
                places.append(_positions(stems, concept.forms, by_prefix))
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
        reading = _Reading(
            span=_window(places),
            evidence=len(evidence) + (value is not None),
            concepts=len(self.concepts),
            coverage=coverage,
            score=score,
            weighted=weighted,
            value_kind=self.value_kind,
            value=value,
            matched=tuple(matched),
            missing=tuple(missing),
            silent=self.silent,
            shape=passage_shape(passage),
            by_value=by_value,
            in_role=value is not None and self._role_read(value),
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


def _held(
    form: tuple[str, ...],
    have: set[str],
    by_prefix: Mapping[str, list[str]],
    text: str,
) -> str | None:
    """The passage's word (or phrase) that writes `form`, in any ending the
    stemmer left ("assignable" / "assign"), or None."""
    if len(form) > 1:
        phrase = " ".join(form)
        return phrase if f" {phrase} " in text else None
    stem = form[0]
    if stem in have:
        return stem
    for written in by_prefix.get(stem[:MIN_SHARED_STEM], ()):
        if same_word(stem, written):
            return stem
    return None


def _positions(
    stems: tuple[str, ...],
    forms: tuple[tuple[str, ...], ...],
    by_prefix: Mapping[str, list[str]],
) -> list[int]:
    """Where in the passage's stems a concept is written (a phrase: its
    first word)."""
    words = {
        w
        for form in forms
        if len(form) == 1
        for w in by_prefix.get(form[0][:MIN_SHARED_STEM], ())
        if same_word(form[0], w)
    }
    phrases = [form for form in forms if len(form) > 1]
    return [
        i
        for i, stem in enumerate(stems)
        if stem in words or any(stems[i : i + len(form)] == form for form in phrases)
    ]


def _window(places: list[list[int]]) -> int:
    """The fewest consecutive stems holding one place of each concept."""
    if len(places) < 2 or not all(places):
        return 1
    events = sorted((p, k) for k, ps in enumerate(places) for p in ps)
    best, count, seen, lo = len(events) + 10**6, 0, [0] * len(places), 0
    for pos, k in events:
        seen[k] += 1
        count += seen[k] == 1
        while count == len(places):
            best = min(best, pos - events[lo][0] + 1)
            seen[events[lo][1]] -= 1
            count -= seen[events[lo][1]] == 0
            lo += 1
    return best


def _concepts(question: str) -> list[Concept]:
    words = [w for w in _stems(question) if w not in QUESTION_NOISE and not w.isdigit()]
    seen: set[str] = set()
    concepts: list[Concept] = []
    for word in words:
        if word in seen:
            continue
        seen.add(word)
        forms = {(word,)} | _SYNONYM_STEMS.get(word, set())
        concepts.append(Concept(word=word, forms=tuple(sorted(forms))))
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
    "PROVEN_RULES",
    "RELATED",
    "RELEVANCE_RULES",
    "Relevance",
    "RelevanceJudge",
    "best_first",
    "name_stems",
    "passage_shape",
    "shown",
]
