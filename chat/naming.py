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
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from citations.cascade.lexicon import is_spelled

# Words that never name a document on their own: agreement types and parts,
# corporate forms, roles, and filing codes.
GENERIC_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "and",
        "or",
        "for",
        "to",
        "in",
        "on",
        "at",
        "by",
        "with",
        "this",
        "that",
        "these",
        "those",
        "my",
        "our",
        "your",
        "agreement",
        "agreements",
        "contract",
        "contracts",
        "amendment",
        "amended",
        "restated",
        "exhibit",
        "ex",
        "schedule",
        "annex",
        "appendix",
        "addendum",
        "attachment",
        "document",
        "documents",
        "file",
        "version",
        "execution",
        "copy",
        "draft",
        "final",
        "form",
        "dated",
        "between",
        "among",
        "master",
        "services",
        "service",
        "license",
        "licence",
        "supply",
        "purchase",
        "sale",
        "distribution",
        "distributor",
        "reseller",
        "promotion",
        "collaboration",
        "development",
        "outsourcing",
        "hosting",
        "management",
        "endorsement",
        "affiliate",
        "alliance",
        "strategic",
        "joint",
        "filing",
        "statement",
        "non",
        "competition",
        "solicitation",
        "agency",
        "franchise",
        "lease",
        "loan",
        "credit",
        "employment",
        "consulting",
        "maintenance",
        "sponsorship",
        "manufacturing",
        "marketing",
        "transportation",
        "cooperation",
        "co-branding",
        "trademark",
        "ip",
        "intellectual",
        "property",
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "co",
        "company",
        "companies",
        "llc",
        "l.l.c",
        "ltd",
        "limited",
        "lp",
        "llp",
        "plc",
        "gmbh",
        "ag",
        "sa",
        "s.a",
        "nv",
        "n.v",
        "bv",
        "b.v",
        "pte",
        "pty",
        "as",
        "a/s",
        "holdings",
        "holding",
        "group",
        "party",
        "parties",
        "provider",
        "customer",
        "client",
        "supplier",
        "vendor",
        "seller",
        "buyer",
        "licensor",
        "licensee",
        "company's",
        "distributor's",
        "recipient",
    ]
)
CORPORATE_SUFFIXES = frozenset(
    [
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "co",
        "company",
        "llc",
        "lc",
        "l.l.c",
        "ltd",
        "limited",
        "lp",
        "llp",
        "plc",
        "gmbh",
        "ag",
        "sa",
        "nv",
        "bv",
        "pte",
        "pty",
        "as",
        "kk",
        "srl",
        "spa",
        "oy",
        "ab",
    ]
)
# Roles a contract defines its parties as; never a party's name.
ROLE_WORDS = frozenset(
    [
        "agreement",
        "company",
        "provider",
        "customer",
        "client",
        "supplier",
        "vendor",
        "seller",
        "buyer",
        "licensor",
        "licensee",
        "distributor",
        "reseller",
        "party",
        "parties",
        "recipient",
        "publisher",
        "publishers",
        "manufacturer",
        "purchaser",
        "contractor",
        "consultant",
        "employee",
        "employer",
        "executive",
        "lender",
        "borrower",
        "landlord",
        "tenant",
        "lessor",
        "lessee",
        "sponsor",
        "owner",
        "developer",
        "affiliate",
        "business",
        "agent",
        "franchisor",
        "franchisee",
        "partner",
        "channel",
        "effective",
        "date",
        "term",
        "services",
        "products",
        "territory",
    ]
)
MIN_TOKEN = 4  # a single word shorter than this names nothing
MIN_SQUASHED = 6  # "limeenergy" against "LIMEENERGYCO"
FIRST_PAGE_CHARS = 5000

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&'’.]*[A-Za-z0-9]|[A-Za-z0-9]")


def fold(text: str) -> str:
    """Lower case, accents removed, curly apostrophes straightened."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return text.replace("’", "'").lower()


@dataclass(frozen=True)
class Word:
    """A word of the question: folded text, where it stands, and whether it
    was written with a capital mid-sentence (a proper noun, "the Ability
    agreement")."""

    text: str
    start: int
    end: int
    capital: bool
    acronym: bool = False


def words_of(text: str) -> list[Word]:
    out: list[Word] = []
    for m in _WORD.finditer(text):
        raw = m.group(0).strip(".'’-")
        if not raw:
            continue
        start = m.start() + m.group(0).find(raw)
        before = text[: m.start()].rstrip()
        sentence_start = not before or before[-1] in ".?!:\n"
        out.append(
            Word(
                text=fold(raw),
                start=start,
                end=start + len(raw),
                capital=raw[0].isupper() and not sentence_start,
                acronym=len(raw) >= 2 and raw.isupper() and raw.isalpha(),
            )
        )
    return out


def squash(words: Iterable[str]) -> str:
    return "".join(re.sub(r"[^a-z0-9]", "", w) for w in words)


def _core(words: Sequence[str]) -> tuple[str, ...]:
    """A name without its corporate form and trailing "of"/"and"."""
    kept = list(words)
    while kept and (kept[-1] in CORPORATE_SUFFIXES or kept[-1] in {"of", "and", "&"}):
        kept.pop()
    while kept and kept[0] in {"the", "a", "an"}:
        kept.pop(0)
    return tuple(kept)


# ------------------------------------------------------------------ parties

_SUFFIX = (
    r"(?i:Inc|Incorporated|Corp|Corporation|Co|LLC|L\.L\.C|Ltd|Limited|LP|L\.P|"
    r"LLP|PLC|GmbH|AG|S\.A|N\.V|B\.V|Pte|Pty|A/S|KK|S\.r\.l|S\.p\.A)\.?"
)
# A capitalised word of a name that is not itself a corporate form.
_NAME_WORD = rf"(?!{_SUFFIX}(?![A-Za-z]))(?:[A-Z][A-Za-z0-9'’.-]*|&|of|[A-Z0-9][a-z0-9]*[A-Z][A-Za-z0-9]*)"
# "Anixa Biosciences, Inc.", "OntoChem GmbH", "TELCOSTAR PTE, LTD.",
# "Electric City of Illinois LLC", "Nexstar Broadcasting of Peoria, L.L.C."
_COMPANY = re.compile(
    rf"(?<![A-Za-z0-9])({_NAME_WORD}(?:[ \t]{{1,3}}{_NAME_WORD}){{0,5}}),?[ \t]{{1,3}}"
    rf"{_SUFFIX}(?:,?[ \t]+{_SUFFIX})?(?![A-Za-z])"
)
# Words that introduce a name rather than belong to it.
_LEAD_IN = frozenset(
    [
        "whereas",
        "between",
        "and",
        "by",
        "among",
        "the",
        "this",
        "now",
        "therefore",
        "recitals",
        "agreement",
        "made",
        "entered",
        "into",
        "dated",
        "with",
    ]
)
# A name right before its defined short form: 'Conformis, Inc., a Delaware
# corporation ... ("Conformis")' defines "Conformis"; '("Company")' is a role.
_DEFINED = re.compile(
    r"\(\s*(?:the\s+|herein\s+)?[\"“]([A-Za-z0-9][A-Za-z0-9&.' -]{1,40})[\"”]\s*\)"
)
# A defined term that ends so is a document or a notion, not a party.
_TERM_ENDINGS = frozenset(
    [
        "agreement",
        "agreements",
        "act",
        "date",
        "term",
        "business",
        "products",
        "services",
        "customers",
        "territory",
    ]
)
_ARTICLE_BEFORE = re.compile(r"\b[Aa]n?\s+$")
# How far after a company's name its defined short form may stand.
DEFINED_REACH = 300


def parties(first_page: str) -> list[str]:
    """The party names a contract's first page gives: companies with their
    corporate form, and the short names defined for them just after ("NTL"
    for Northern Telecom Limited; not roles such as "Company" or "Licensee").
    In order of appearance, without repeats."""
    text = first_page[:FIRST_PAGE_CHARS]
    found: list[str] = []
    seen: set[tuple[str, ...]] = set()

    def add(name: str) -> None:
        core = _core([w.text for w in words_of(name)])
        if not core or all(w in GENERIC_WORDS or w in ROLE_WORDS for w in core):
            return
        if core[-1] in _TERM_ENDINGS or (len(core) == 1 and len(core[0]) < 2):
            return
        if core not in seen:
            seen.add(core)
            found.append(" ".join(name.split()).strip(" ,"))

    company_ends: list[int] = []
    for m in _COMPANY.finditer(text):
        if _ARTICLE_BEFORE.search(text, max(0, m.start() - 4), m.start()):
            continue  # "a Delaware corporation" describes a party, it names none
        words = m.group(1).split()
        # "WHEREAS, Company", "between Go Call", "A. The Company's": keep the
        # words after the last lead-in or sentence end.
        cut = 0
        for i, word in enumerate(words):
            if fold(word).strip(".,") in _LEAD_IN or word.endswith("."):
                cut = i + 1
        if cut < len(words):
            add(" ".join(words[cut:]))
            company_ends.append(m.end())
    for m in _DEFINED.finditer(text):
        if any(0 <= m.start() - end <= DEFINED_REACH for end in company_ends):
            add(m.group(1))
    return found


# --------------------------------------------------------------- documents


@dataclass(frozen=True)
class DocumentNames:
    """A document's name keys, built once per document revision."""

    id: object
    title: str
    filename: str = ""
    party_names: tuple[str, ...] = ()

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
            core = _core([w.text for w in words_of(name)])
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

    @property
    def rules(self) -> list[str]:
        return [m.rule for m in self.matches]


class NameIndex:
    """Name keys of a tenant's documents, for matching questions quickly."""

    def __init__(self, documents: Iterable[DocumentNames]) -> None:
        self.phrases: dict[tuple[str, ...], set] = {}  # title / party words
        self.phrase_rule: dict[tuple[str, ...], str] = {}
        self.filenames: dict[str, set] = {}
        self.squashed: dict[str, set] = {}  # title tokens, party cores squashed
        self.heads: dict[str, set] = {}  # a party's distinctive first word
        for doc in documents:
            self._add(doc)
        self.max_phrase = max((len(p) for p in self.phrases), default=1)

    def _add(self, doc: DocumentNames) -> None:
        if doc.filename and len(squash([fold(doc.filename)])) >= MIN_TOKEN:
            self.filenames.setdefault(squash([fold(doc.filename)]), set()).add(doc.id)
        title = _core(doc.title_words)
        if len(title) >= 2 and not all(w in GENERIC_WORDS for w in title):
            self._phrase(title, "title", doc.id)
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
    result = NamedDocuments(search_text=question)
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
    ordered: list = []
    for match in result.matches:
        for doc_id in sorted(match.document_ids, key=str):
            if doc_id not in ordered:
                ordered.append(doc_id)
    result.document_ids = ordered
    result.search_text = _without(question, result.matches)
    return result


def _without(question: str, matches: Sequence[Match]) -> str:
    """The question with the naming words blanked out (they name, they do not
    describe what to find)."""
    out = question
    for match in sorted(matches, key=lambda m: m.start, reverse=True):
        out = out[: match.start] + " " + out[match.end :]
    return " ".join(out.split())
