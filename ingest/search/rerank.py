"""Ranking the chunks of one document for a question. Pure: no Django.

Full-text search alone misses when a column's wording differs from the
contract's ("Is there a non-compete?" against "shall not engage in any
business that competes"), so a cell query is built from more than the
question (seed 002 names this gap):

1. Query expansion: content words of the column's name, question and
   description, plus a small legal thesaurus (``EXPANSIONS``) that maps a
   concept to the words contracts use for it.
2. Candidates: the document's full-text search (SQLite FTS5 / PostgreSQL
   tsvector) with the expanded terms: a pool of ``POOL`` chunks.
3. Re-ranking in Python: BM25 over the expanded, weighted terms with
   document-level IDF, plus a phrase bonus (the column name or a thesaurus
   phrase appearing as consecutive words), a proximity bonus (distinct query
   terms a few words apart), a type bonus (a date column prefers passages
   with dates) and, for identity columns (title, parties, date), the
   document's opening; so a clause that *says* the thing beats a chunk that
   merely repeats one common word.
4. Fallback: no hit at all (a question of stopwords, a document of tables)
   gives the document's first chunks, so the model still sees content.

``build_query`` and ``score_chunk`` live here (no database access, unit-tested
through tabular/tests/test_retrieval.py); ``ingest.search.within`` does the
queries. Tabular cells and chat questions about one or a few documents use
both: one thesaurus, one re-ranker.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ingest.search._query import query_terms
from lib.stemming import terms as stemmed_terms

__all__ = [
    "EXPANSIONS",
    "HEAD_CONCEPTS",
    "CellQuery",
    "DocumentStats",
    "build_query",
    "document_stats",
    "score_chunk",
]

TOP_K = 4
POOL = 24

# Words of a review question that say nothing about where the answer is: every
# contract is full of them.
# fmt: off
_GENERIC = frozenset([
    "contract", "contracts", "agreement", "agreements", "party", "parties", "counterparty",
    "clause", "clauses", "provision", "provisions", "whether", "there", "including",
    "includes", "include", "such", "certain", "one", "two", "other", "another", "any",
    "either", "thereof", "herein", "hereunder", "category", "categories", "etc", "similar",
    "described", "describe", "required", "subject", "regarding", "related", "relating",
])
# fmt: on

# Concept -> the words contracts use for it. Keys and values are plain words or
# phrases; a key fires when each of its words starts a word of the column's
# name, question or description. Common contract vocabulary, written by hand;
# bench/tabular_eval.py measures it on CUAD (beware of tuning to that slice).
EXPANSIONS: dict[str, tuple[str, ...]] = {
    "governing law": ("governed", "construed", "laws of the state", "jurisdiction"),
    "law": ("governed", "construed", "laws"),
    "terminate": ("termination", "terminated", "expiry", "expiration"),
    "convenience": ("without cause", "for any reason", "at any time", "upon notice"),
    "renewal": ("renew", "renewed", "automatically", "successive", "extended"),
    "expire": (
        "expiration",
        "term of this agreement",
        "initial term",
        "remain in force",
        "continue until",
    ),
    "expiration": (
        "expire",
        "term of this agreement",
        "initial term",
        "remain in force",
        "continue until",
    ),
    "effective date": ("effective", "commence", "as of"),
    "agreement date": ("dated", "as of", "entered into"),
    "date": ("dated", "day of"),
    "notice period": ("prior written notice", "days notice", "notice"),
    "compete": (
        "competing",
        "competitive",
        "competition",
        "shall not engage",
        "directly or indirectly",
    ),
    "non-compete": (
        "compete",
        "competing",
        "competitive",
        "shall not engage",
        "directly or indirectly",
    ),
    "exception": (
        "provided however",
        "notwithstanding",
        "except",
        "nothing in this agreement shall",
    ),
    "carveout": (
        "provided however",
        "notwithstanding",
        "except",
        "nothing in this agreement shall",
    ),
    "exclusive": ("exclusively", "exclusivity", "sole", "any other", "other than"),
    "exclusivity": ("exclusive", "exclusively", "sole", "any other", "other than"),
    "solicit": ("solicitation", "induce", "hire", "employ", "recruit"),
    "employees": ("personnel", "employ", "hire"),
    "customers": ("clients", "accounts"),
    "disparage": ("disparaging", "derogatory", "negative statements", "reputation"),
    "assign": ("assignment", "assigned", "transfer", "consent"),
    "assignment": ("assign", "assigned", "transfer", "consent"),
    "change of control": (
        "merger",
        "acquisition",
        "acquired",
        "control",
        "substantially all",
    ),
    "control": ("merger", "acquisition", "acquired"),
    "liability": ("liable", "damages", "in no event", "aggregate", "exceed"),
    "cap": ("exceed", "maximum", "aggregate", "limited to", "in no event"),
    "uncapped": ("unlimited", "shall not apply", "exclusions"),
    "liquidated damages": ("liquidated", "penalty", "termination fee"),
    "warranty": ("warrants", "warranted", "defects", "free from defects"),
    "insurance": ("insured", "insurer", "coverage", "policy", "policies"),
    "audit": ("inspect", "inspection", "books", "records", "examine"),
    "escrow": ("source code", "deposit", "escrow agent"),
    "license": ("licence", "licensed", "licenses", "grants", "right to use"),
    "irrevocable": ("perpetual", "royalty-free", "fully paid"),
    "perpetual": ("irrevocable", "royalty-free", "fully paid"),
    "transfer": ("assign", "sublicense", "transferable"),
    "affiliates": ("affiliate", "subsidiaries"),
    "unlimited": ("enterprise", "unlimited", "all you can eat"),
    "favored": ("most favored", "no less favorable", "more favorable", "better terms"),
    "better terms": ("most favored", "more favorable", "lower price"),
    "first refusal": ("right of first", "first offer", "first negotiation"),
    "refusal": ("right of first", "first offer", "first negotiation"),
    "revenue": ("royalty", "royalties", "profits", "percent", "share"),
    "profit": ("royalty", "royalties", "revenue", "percent", "share"),
    "price": ("prices", "pricing", "increase", "decrease"),
    "minimum": ("minimum purchase", "at least", "minimum order"),
    "volume": ("exceed", "threshold", "additional fee"),
    "intellectual property": (
        "owned",
        "ownership",
        "title",
        "work made for hire",
        "inventions",
    ),
    "ownership": ("owned", "owner", "title", "right title and interest"),
    "joint": ("jointly", "jointly owned", "co-owned"),
    "beneficiary": ("third party beneficiaries", "beneficiaries", "no third party"),
    "sue": ("contest", "challenge", "validity"),
    "post-termination": (
        "after termination",
        "following termination",
        "survive",
        "transition",
    ),
    "after the termination": (
        "survive",
        "following termination",
        "transition",
        "wind down",
    ),
    "payment": ("pay", "fee", "fees", "invoice", "compensation"),
    "fee": ("fees", "pay", "payment", "compensation", "price"),
    "confidential": ("confidentiality", "non-disclosure", "proprietary"),
    "indemnify": ("indemnification", "indemnity", "hold harmless", "defend"),
    "parties": ("by and between", "between", "inc", "corporation", "llc"),
    "name": ("agreement",),
}

# Contracts name themselves, their parties and their date in the first lines:
# a column about one of these also searches the document's head.
HEAD_CONCEPTS = (
    "name of the",
    "title",
    "called",
    "kind of agreement",
    "kind of contract",
    "type of agreement",
    "type of contract",
    "parties",
    "party names",
    "between whom",
    "signed",
    "executed",
    "entered into",
    "agreement date",
    "effective date",
    "take effect",
    "takes effect",
    "in force",
    "dated",
)
HEAD_CHUNKS = 2
HEAD_BONUS = 2.0

# Evidence of the expected type: a date column prefers passages with dates.
_DATE_RE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
    r"|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b",
    re.IGNORECASE,
)
_MONEY_RE = re.compile(
    r"[$€£¥]\s?\d|\b(?:usd|eur|gbp|dollars?)\b|\b\d[\d,.]*\s?(?:million|billion)\b",
    re.IGNORECASE,
)
_TYPE_EVIDENCE = {"date": _DATE_RE, "money": _MONEY_RE}
TYPE_BONUS = 1.5

# Weights of the parts of a cell query, by where a word came from.
W_NAME = 1.0
W_QUESTION = 1.0
W_DESCRIPTION = 0.7
W_EXPANSION = 0.5
# Re-ranking: BM25 parameters, and how much a phrase or proximity match adds
# relative to one fully weighted term.
K1 = 1.2
B = 0.75
PHRASE_BONUS = 1.0
PROXIMITY_WINDOW = 6
PROXIMITY_BONUS = 0.35


def _stems(text: str) -> list[str]:
    return stemmed_terms(text)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", text.lower())


@dataclass(frozen=True)
class CellQuery:
    """A column turned into something to search with.

    ``weights``: stem -> weight (name/question 1.0, description 0.7, thesaurus
    0.5). ``phrases``: stem sequences worth a bonus when consecutive (the
    column name, thesaurus phrases). ``fts_core`` / ``fts_expansion``: words for
    the full-text query: the column's name and question, then its description
    and the thesaurus. ``prefers_head``: an identity column (title, parties,
    date); ``kind``: the column type, for the type bonus.
    """

    weights: dict[str, float]
    phrases: tuple[tuple[str, ...], ...]
    fts_core: tuple[str, ...]
    fts_expansion: tuple[str, ...]
    expanded_with: tuple[str, ...] = field(default=())
    prefers_head: bool = False
    kind: str = "text"


def _expansions_for(text: str) -> list[tuple[str, tuple[str, ...]]]:
    lowered = " ".join(_words(text))
    found = []
    for key, values in EXPANSIONS.items():
        key_words = _words(key)
        # Match on word starts, so "terminate" also fires for "termination".
        if all(re.search(rf"\b{re.escape(w[:6])}", lowered) for w in key_words):
            found.append((key, values))
    return found


def build_query(
    *, name: str = "", question: str, description: str = "", kind: str = "text"
) -> CellQuery:
    """A weighted, expanded query for one column (pure; see the module docstring)."""
    weights: dict[str, float] = {}
    fts_core: list[str] = []
    fts_expansion: list[str] = []

    def add(text: str, weight: float, fts: list[str] | None) -> None:
        for stem in _stems(text):
            if stem in _GENERIC or len(stem) < 2:
                continue
            weights[stem] = max(weights.get(stem, 0.0), weight)
        if fts is not None:
            for word in query_terms(text):
                if word in _GENERIC or word in fts_core or word in fts_expansion:
                    continue
                fts.append(word)

    add(name, W_NAME, fts_core)
    add(question, W_QUESTION, fts_core)
    add(description, W_DESCRIPTION, fts_expansion)
    phrases: list[tuple[str, ...]] = []
    name_stems = tuple(s for s in _stems(name) if s not in _GENERIC)
    if len(name_stems) >= 2:
        phrases.append(name_stems)
    expanded_with = []
    for key, values in _expansions_for(f"{name} {question} {description}"):
        expanded_with.append(key)
        for value in values:
            add(value, W_EXPANSION, fts_expansion)
            stems = tuple(_stems(value))
            if len(stems) >= 2 and stems not in phrases:
                phrases.append(stems)
    everything = " ".join(_words(f"{name} {question} {description}"))
    prefers_head = any(
        re.search(rf"\b{re.escape(c)}\b", everything) for c in HEAD_CONCEPTS
    )
    return CellQuery(
        weights=weights,
        phrases=tuple(phrases),
        fts_core=tuple(fts_core),
        fts_expansion=tuple(fts_expansion),
        expanded_with=tuple(expanded_with),
        prefers_head=prefers_head,
        kind=kind,
    )


# ------------------------------------------------------------------ scoring


@dataclass(frozen=True)
class DocumentStats:
    """Per-revision term statistics for BM25: chunk count, document frequency
    of each stem, average chunk length (in stems)."""

    n_chunks: int
    df: dict[str, int]
    avg_len: float

    def idf(self, stem: str) -> float:
        df = self.df.get(stem, 0)
        return math.log(1 + (self.n_chunks - df + 0.5) / (df + 0.5))


def document_stats(chunk_texts: Iterable[str]) -> DocumentStats:
    df: Counter[str] = Counter()
    total = n = 0
    for text in chunk_texts:
        stems = _stems(text)
        df.update(set(stems))
        total += len(stems)
        n += 1
    return DocumentStats(
        n_chunks=max(n, 1), df=dict(df), avg_len=(total / n) if n else 1.0
    )


def score_chunk(
    stems: Sequence[str],
    query: CellQuery,
    stats: DocumentStats,
    *,
    text: str = "",
    index: int | None = None,
) -> float:
    """BM25 over the weighted query terms + phrase, proximity, type and head bonuses.

    ``text`` (the chunk's content) enables the type bonus; ``index`` (its
    position in the document) the head bonus.
    """
    score = 0.0
    evidence = _TYPE_EVIDENCE.get(query.kind)
    if evidence is not None and text and evidence.search(text):
        score += TYPE_BONUS
    if query.prefers_head and index is not None and index < HEAD_CHUNKS:
        score += HEAD_BONUS / (1 + index)
    return score + _text_score(stems, query, stats)


def _text_score(stems: Sequence[str], query: CellQuery, stats: DocumentStats) -> float:
    if not stems:
        return 0.0
    counts = Counter(stems)
    norm = K1 * (1 - B + B * len(stems) / max(stats.avg_len, 1.0))
    score = 0.0
    for stem, weight in query.weights.items():
        tf = counts.get(stem, 0)
        if tf:
            score += weight * stats.idf(stem) * tf * (K1 + 1) / (tf + norm)
    if score == 0.0:
        return 0.0
    # Phrases: a consecutive run of the phrase's stems, once per phrase.
    for phrase in query.phrases:
        if _contains_run(stems, phrase):
            score += PHRASE_BONUS * sum(stats.idf(s) for s in phrase) / len(phrase)
    # Proximity: distinct query terms within a few words of each other.
    positions = [(i, s) for i, s in enumerate(stems) if s in query.weights]
    bonus = 0.0
    for (i, a), (j, b) in itertools.pairwise(positions):
        if a != b and j - i <= PROXIMITY_WINDOW:
            pair = (
                min(query.weights[a], query.weights[b])
                * (stats.idf(a) + stats.idf(b))
                / 2
            )
            bonus += pair / (j - i)
    return score + PROXIMITY_BONUS * min(bonus, 4 * max(query.weights.values()) * 3)


def _contains_run(stems: Sequence[str], phrase: Sequence[str]) -> bool:
    n = len(phrase)
    first = phrase[0]
    for i, stem in enumerate(stems):
        if stem == first and tuple(stems[i : i + n]) == tuple(phrase):
            return True
    return False
