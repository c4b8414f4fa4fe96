"""The parties a contract's opening names, and the word lists that tell a
name from a role or a corporate form. Pure.

Shared by document titles (ingest.extractors.titles: "Joint Venture
Agreement — BorrowMoney.com and JVLS") and by naming in chat (chat.naming:
"the Nexstar agreement").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

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


def core_name(words: Sequence[str]) -> tuple[str, ...]:
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
        core = core_name([w.text for w in words_of(name)])
        if not core or all(w in GENERIC_WORDS or w in ROLE_WORDS for w in core):
            return
        if core[-1] in _TERM_ENDINGS or (len(core) == 1 and len(core[0]) < 2):
            return
        if core not in seen:
            seen.add(core)
            found.append(" ".join(name.split()).strip(" ,"))

    company_ends: list[int] = []
    for name, end in companies(text):
        add(name)
        company_ends.append(end)
    for m in _DEFINED.finditer(text):
        if any(0 <= m.start() - end <= DEFINED_REACH for end in company_ends):
            add(m.group(1))
    return found


def companies(text: str) -> list[tuple[str, int]]:
    """Company names written with their corporate form ("Go Call, Inc." gives
    "Go Call"), each with where its match ends, in order; "a Delaware
    corporation" and lead-in words ("WHEREAS, Company") are passed over."""
    found: list[tuple[str, int]] = []
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
            found.append((" ".join(words[cut:]), m.end()))
    return found
