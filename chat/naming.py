"""Which documents a question names, by title, filename or a party. Pure.

"Can either party terminate the Lime Energy distributor agreement for
convenience?" names one contract: searching every document for "Lime Energy"
lets the name fill every chunk's score and push the clause out. So a question
that names documents is answered from them, and the words that named them stop
counting as search terms.

Each document offers name keys (`DocumentNames`): its title and filename, the
distinctive tokens of a filename-like title ("LIMEENERGYCO_09_09_1999-EX-10-
DISTRIBUTOR AGREEMENT" offers "LIMEENERGYCO"), and the parties its first page
names ("Electric City Corp., a Delaware corporation (\"Company\")"). The rules
of `NAME_RULES` are tried in order on the question's words; each match names
every document holding that key (a party shared by several documents names all
of them, two names name both), and `NamedDocuments.rules` says which rule
decided.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from citations.cascade.lexicon import is_spelled
from ingest.parties import (
    CORPORATE_SUFFIXES,
    FIRST_PAGE_CHARS,
    GENERIC_WORDS,
    ROLE_WORDS,
    Word,
    core_name,
    fold,
    parties,
    words_of,
)

__all__ = [
    "FIRST_PAGE_CHARS",
    "GENERIC_WORDS",
    "NAME_RULES",
    "ROLE_WORDS",
    "DocumentNames",
    "NameIndex",
    "NamedDocuments",
    "fold",
    "named_documents",
    "parties",
    "words_of",
]

MIN_TOKEN = 4  # a single word shorter than this names nothing
MIN_SQUASHED = 6  # "limeenergy" against "LIMEENERGYCO"


def squash(words: Iterable[str]) -> str:
    return "".join(re.sub(r"[^a-z0-9]", "", w) for w in words)


# --------------------------------------------------------------- documents


@dataclass(frozen=True)
class DocumentNames:
    """A document's name keys, built once per document revision."""

    id: object
    title: str
    filename: str = ""
    party_names: tuple[str, ...] = ()

    @property
    def kind_words(self) -> tuple[str, ...]:
        """The title without the parties a title adds to tell documents apart
        ("Joint Venture Agreement — MJ Syndicated" gives the words of "Joint
        Venture Agreement"), or () when the title adds none."""
        kind, sep, _parties = self.title.partition(" — ")
        if not sep:
            return ()
        return tuple(w.text for w in words_of(kind))

    @property
    def title_words(self) -> tuple[str, ...]:
        stem = re.sub(r"\.[A-Za-z0-9]{2,4}$", "", self.title)
        return tuple(w.text for w in words_of(re.sub(r"[_]+", " ", stem)))

    @property
    def title_tokens(self) -> tuple[str, ...]:
        """Distinctive tokens of the title and of the file name: "LIMEENERGYCO"
        of an EDGAR filename (kept when the title became the PDF's own
        heading), "PhotronicsInc" ("photronicsinc" kept whole)."""
        tokens: list[str] = []
        for name in (self.title, self.filename):
            stem = re.sub(r"\.[A-Za-z0-9]{2,4}$", "", name or "")
            for raw in re.split(r"[\s_,()\[\]-]+", stem):
                token = re.sub(r"[^a-z0-9]", "", fold(raw))
                if (
                    len(token) >= MIN_TOKEN
                    and not token.isdigit()
                    and not re.fullmatch(r"(?:ex|\d)[\d.]*", token)
                    and token not in GENERIC_WORDS
                    and token not in tokens
                ):
                    tokens.append(token)
        return tuple(tokens)

    @property
    def party_cores(self) -> tuple[tuple[str, ...], ...]:
        cores = []
        for name in self.party_names:
            core = core_name([w.text for w in words_of(name)])
            if core:
                cores.append(core)
        return tuple(cores)


@dataclass(frozen=True)
class Match:
    rule: str
    start: int  # where the naming words stand in the question
    end: int
    document_ids: frozenset


@dataclass
class NamedDocuments:
    """What a question names: the documents, the rules that decided, and the
    question with the naming words taken out (the search terms)."""

    document_ids: list = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    search_text: str = ""
    question: str = ""

    @property
    def rules(self) -> list[str]:
        return [m.rule for m in self.matches]

    @property
    def ambiguous(self) -> bool:
        """The question names one document, but its words fit several ("the
        joint venture agreement" when two are): one naming, several documents,
        and nothing in the question asks about several ("both", "compare",
        "the agreements"). Decides whether chat asks "which one?"."""
        if len(self.document_ids) < 2 or not self.matches:
            return False
        if len({m.document_ids for m in self.matches}) != 1:
            return False  # two names: the question is about each of them
        return not _SEVERAL.search(self.question)


class NameIndex:
    """Name keys of a tenant's documents, for matching questions quickly."""

    def __init__(self, documents: Iterable[DocumentNames]) -> None:
        self.phrases: dict[tuple[str, ...], set] = {}  # title / party words
        self.phrase_rule: dict[tuple[str, ...], str] = {}
        self.filenames: dict[str, set] = {}
        self.squashed: dict[str, set] = {}  # title tokens, party cores squashed
        self.heads: dict[str, set] = {}  # a party's distinctive first word
        self.titles: dict[object, str] = {}  # to list one naming's documents
        for doc in documents:
            self._add(doc)
        self.max_phrase = max((len(p) for p in self.phrases), default=1)

    def _add(self, doc: DocumentNames) -> None:
        self.titles[doc.id] = doc.title
        if doc.filename and len(squash([fold(doc.filename)])) >= MIN_TOKEN:
            self.filenames.setdefault(squash([fold(doc.filename)]), set()).add(doc.id)
        title = core_name(doc.title_words)
        if len(title) >= 2 and not all(w in GENERIC_WORDS for w in title):
            self._phrase(title, "title", doc.id)
        # "the joint venture agreement" names every document of that kind,
        # also those whose title adds their parties: a question that names
        # one of them is asked "which one?" (NamedDocuments.ambiguous).
        kind = core_name(doc.kind_words)
        if len(kind) >= 2 and not all(w in GENERIC_WORDS for w in kind):
            self._phrase(kind, "title", doc.id)
        for token in doc.title_tokens:
            self.squashed.setdefault(token, set()).add(doc.id)
            bare = _strip_suffix(token)
            if bare != token and len(bare) >= MIN_SQUASHED:
                self.squashed.setdefault(bare, set()).add(doc.id)
        for core in doc.party_cores:
            self._phrase(core, "party", doc.id)
            if len(core) > 1:
                self.squashed.setdefault(squash(core), set()).add(doc.id)
            head = core[0]
            if len(head) >= 2 and head not in GENERIC_WORDS and not head.isdigit():
                self.heads.setdefault(head, set()).add(doc.id)

    def _phrase(self, words: tuple[str, ...], rule: str, doc_id: object) -> None:
        self.phrases.setdefault(words, set()).add(doc_id)
        # A party outranks a title that happens to read the same.
        if self.phrase_rule.get(words) != "party":
            self.phrase_rule[words] = rule


def _strip_suffix(token: str) -> str:
    for suffix in sorted(CORPORATE_SUFFIXES, key=len, reverse=True):
        clean = suffix.replace(".", "")
        if token.endswith(clean) and len(token) - len(clean) >= MIN_SQUASHED:
            return token[: -len(clean)]
    return token


def _distinctive(word: Word) -> bool:
    """A single word may name a document when it is not an English word, when
    the question capitalises it mid-sentence ("the Ability agreement"), or when
    it is written as an acronym ("the NTL agreement")."""
    if word.text in GENERIC_WORDS or word.text.isdigit():
        return False
    if word.acronym:
        return True
    if len(word.text) < MIN_TOKEN:
        return False
    return word.capital or not is_spelled(word.text)


# A rule looks at the question's words from position i and returns how many
# words it consumed and which documents they name (0 when it does not apply).
RuleFn = Callable[[NameIndex, Sequence[Word], int], tuple[int, set]]


def _filename(index: NameIndex, words: Sequence[Word], i: int) -> tuple[int, set]:
    # Compared without separators: "msa-2021.pdf" is the words "msa", "2021.pdf".
    for n in range(min(6, len(words) - i), 0, -1):
        key = squash(w.text for w in words[i : i + n])
        if key in index.filenames:
            return n, index.filenames[key]
    return 0, set()


def _phrase_rule(kind: str) -> RuleFn:
    def rule(index: NameIndex, words: Sequence[Word], i: int) -> tuple[int, set]:
        for n in range(min(index.max_phrase, len(words) - i), 0, -1):
            key = tuple(w.text for w in words[i : i + n])
            if index.phrase_rule.get(key) != kind:
                continue
            if n == 1 and not _distinctive(words[i]):
                continue
            return n, index.phrases[key]
        return 0, set()

    return rule


def _squashed(index: NameIndex, words: Sequence[Word], i: int) -> tuple[int, set]:
    # "Lime Energy" against the title token "LIMEENERGYCO" (less its "co").
    for n in range(min(4, len(words) - i), 0, -1):
        span = words[i : i + n]
        key = squash(w.text for w in span)
        if len(key) < MIN_SQUASHED or key not in index.squashed:
            continue
        if n == 1 and not _distinctive(span[0]):
            continue
        if all(w.text in GENERIC_WORDS for w in span):
            continue
        return n, index.squashed[key]
    return 0, set()


def _party_head(index: NameIndex, words: Sequence[Word], i: int) -> tuple[int, set]:
    # "the Nexstar agreement": a party's distinctive first word alone.
    word = words[i]
    if word.text in index.heads and _distinctive(word):
        return 1, index.heads[word.text]
    return 0, set()


def _title_prefix(index: NameIndex, words: Sequence[Word], i: int) -> tuple[int, set]:
    # "the Photronics outsourcing agreement" against "PhotronicsInc_2017...".
    word = words[i]
    if len(word.text) < MIN_SQUASHED or not _distinctive(word):
        return 0, set()
    named = {
        doc
        for token, docs in index.squashed.items()
        if token.startswith(word.text)
        for doc in docs
    }
    return (1, named) if named else (0, set())


@dataclass(frozen=True)
class NameRule:
    """A named way a question names documents, with examples for its tests:
    (question, the name key it must match, or None when it must not)."""

    name: str
    applies: RuleFn
    doc: str
    examples: tuple[tuple[str, str | None], ...] = ()


NAME_RULES: tuple[NameRule, ...] = (
    NameRule(
        "filename",
        _filename,
        "the question gives a document's file name",
        (("What does msa-2021.pdf say about notice?", "msa-2021.pdf"),),
    ),
    NameRule(
        "party",
        _phrase_rule("party"),
        "the question gives a party's name as its first page writes it, "
        "without the corporate form",
        (
            ("Can Anixa Biosciences terminate early?", "Anixa Biosciences"),
            ("What did Electric City promise?", "Electric City"),
        ),
    ),
    NameRule(
        "title",
        _phrase_rule("title"),
        "the question gives a document's title",
        (
            (
                "Summarise the Acme Master Services Agreement",
                "Acme Master Services Agreement",
            ),
        ),
    ),
    NameRule(
        "squashed_name",
        _squashed,
        "the question's words run together are a filename-like title's token "
        "(less its corporate form) or a party's name",
        (("Is the Lime Energy distributor agreement exclusive?", "Lime Energy"),),
    ),
    NameRule(
        "party_head",
        _party_head,
        "a party's distinctive first word alone",
        (
            ("Does the Howmedica agreement renew?", "Howmedica"),
            ("Can the electric meter be moved?", None),
        ),
    ),
    NameRule(
        "title_prefix",
        _title_prefix,
        "a distinctive word that begins a filename-like title's token",
        (("What fees does the Bravatek reseller agreement set?", "Bravatek"),),
    ),
)


def named_documents(question: str, index: NameIndex) -> NamedDocuments:
    """Documents the question names, and the question without the naming
    words. Words are matched left to right; at each word the rules are tried
    in order and the first that applies consumes its words."""
    words = words_of(question)
    result = NamedDocuments(search_text=question, question=question)
    i = 0
    while i < len(words):
        for rule in NAME_RULES:
            consumed, docs = rule.applies(index, words, i)
            if consumed:
                result.matches.append(
                    Match(
                        rule=rule.name,
                        start=words[i].start,
                        end=words[i + consumed - 1].end,
                        document_ids=frozenset(docs),
                    )
                )
                i += consumed
                break
        else:
            i += 1
    # The narrower naming decides: "the MJ Syndicated joint venture agreement"
    # names MJ's, though "joint venture agreement" alone fits two.
    naming = [
        m
        for m in result.matches
        if not any(
            o.document_ids and o.document_ids < m.document_ids for o in result.matches
        )
    ]
    # The documents one naming fits, by title: their ids are random UUIDs,
    # so in id order the same corpus ingested again listed them (and
    # labelled their sources S1, S2, ...) in another order.
    ordered: list = []
    for match in naming:
        for doc_id in sorted(
            match.document_ids,
            key=lambda d: (index.titles.get(d, "").casefold(), str(d)),
        ):
            if doc_id not in ordered:
                ordered.append(doc_id)
    result.document_ids = ordered
    result.search_text = _without(question, result.matches)
    return result


# Words that ask about several documents at once: never "which one?".
_SEVERAL = re.compile(
    r"\b(both|all|each|every|compare[sd]?|comparison|between|across|any of|"
    r"either of|which of|differ\w*|agreements|contracts|documents|leases|"
    r"licen[cs]es|amendments)\b",
    re.I,
)


def _without(question: str, matches: Sequence[Match]) -> str:
    """The question with the naming words blanked out (they name, they do not
    describe what to find)."""
    out = question
    for match in sorted(matches, key=lambda m: m.start, reverse=True):
        out = out[: match.start] + " " + out[match.end :]
    return " ".join(out.split())
