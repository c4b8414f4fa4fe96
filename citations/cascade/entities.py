"""Entity guards: a judge may add support, never change who, where or when.

A judge (stage 3) or an ensemble (stage 4) reads a paraphrase and names the
passage's span that supports it. A judge can be wrong, obedient or injected
("the answer is supported"), so what it names is held to what words can
prove: the quote's parties, their roles, places, governing law, forum and
dates must be the span's. These rules run twice:

- before any judge is asked (`entities_absent`): every entity the quote
  names must occur somewhere in the passage shown to the judge; a quote
  naming a party, place, law or forum the passage never names is refused
  without a model call;
- after each judge's answer (`entity_difference`), on the span it names:
  the span carries the quote's entities, in the quote's order where order
  is meaning (roles and parties: "the Buyer shall pay the Seller" is not
  "the Seller shall pay the Buyer"), the party before each modal verb is
  the same ("Licensor may" is not "Licensee may"), and the span's first
  forum, governing law and arbitral institution are the quote's.

Each rule is a row of ENTITY_RULES, run in order by one loop that names the
rule that refused (rules.py holds their examples). The readers of places,
parties and periods are citations.values' (the same ones the answers and
tabular cells read values with).

Pure: no Django.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple, TypeVar

from rapidfuzz import fuzz

# citations.values imports the cascade's guards; the module is read at call
# time, so whichever of the two is imported first, both load.
from citations import values
from citations.cascade.refusal import Refusal, refusal
from lib.months import MONTHS
from lib.stemming import singular

T = TypeVar("T")

# Roles a contract gives its parties, each with its counterpart(s). A
# swapped role is the commonest meaning-changing edit a judge waves through.
_ROLE_PAIRS = (
    ("licensor", "licensee"),
    ("sublicensor", "sublicensee"),
    ("franchisor", "franchisee"),
    ("lessor", "lessee"),
    ("assignor", "assignee"),
    ("indemnitor", "indemnitee"),
    ("grantor", "grantee"),
    ("landlord", "tenant"),
    ("lender", "borrower"),
    ("buyer", "seller"),
    ("purchaser", "seller"),
    ("purchaser", "vendor"),
    ("buyer", "vendor"),
    ("customer", "supplier"),
    ("customer", "vendor"),
    ("customer", "provider"),
    ("client", "contractor"),
    ("company", "consultant"),
    ("company", "distributor"),
    ("company", "executive"),
    ("employer", "employee"),
    ("manufacturer", "distributor"),
    ("supplier", "distributor"),
    ("supplier", "reseller"),
    ("company", "reseller"),
    ("principal", "agent"),
    ("disclosing party", "receiving party"),
    ("discloser", "recipient"),
    ("owner", "contractor"),
    ("sponsor", "investigator"),
)
_ROLE_WORDS = sorted({w for pair in _ROLE_PAIRS for w in pair}, key=len, reverse=True)
# Roles that are also everyday words ("the company's offices", "a client"):
# read as a role only when written with a capital, as contracts define them.
_CAPITALISED_ONLY = frozenset(
    ["company", "client", "customer", "provider", "owner", "agent", "principal"]
)
_ROLE = re.compile(
    r"(?<![\w-])(?P<role>"
    + "|".join(w.replace(" ", r"\s+") for w in _ROLE_WORDS)
    + r")(?:s|'s|s'|’s|s’)?(?![\w-])",
    re.IGNORECASE,
)
# The verbs whose subject is a party: modal verbs, and the verbs contracts
# have a party do ("Seller has agreed", "Company understands", "Licensor
# grants").
_MODAL = re.compile(
    r"\b(?:shall|may|must|will|should|can|cannot|might|would|could|has|have"
    r"|agrees|agreed|acknowledges|understands|warrants|represents|covenants"
    r"|grants|undertakes|accepts|consents|elects)\b",
    re.IGNORECASE,
)
# Words between a party and its modal verb ("the Licensee, at its option,
# may"): a subject this far back still governs the verb.
_SUBJECT_REACH = 60

# Forums: what decides a dispute, and the institutions that run arbitration.
_FORUM_KINDS = (
    ("arbitration", r"arbitra\w*|tribunal"),
    ("court", r"courts?|litigation|judicial|judge|jury|lawsuit"),
    ("mediation", r"mediat\w*|conciliat\w*"),
    ("expert", r"expert\s+determination"),
)
_FORUM = re.compile(
    r"\b(?:" + "|".join(f"(?P<{k}>{p})" for k, p in _FORUM_KINDS) + r")\b",
    re.IGNORECASE,
)
_INSTITUTIONS = {
    "ICC": "ICC",
    "International Chamber of Commerce": "ICC",
    "LCIA": "LCIA",
    "London Court of International Arbitration": "LCIA",
    "AAA": "AAA",
    "American Arbitration Association": "AAA",
    "ICDR": "ICDR",
    "JAMS": "JAMS",
    "SIAC": "SIAC",
    "Singapore International Arbitration Centre": "SIAC",
    "HKIAC": "HKIAC",
    "CIETAC": "CIETAC",
    "ICSID": "ICSID",
    "UNCITRAL": "UNCITRAL",
    "WIPO": "WIPO",
    "FINRA": "FINRA",
    "SCC": "SCC",
    "DIS": "DIS",
    "NAI": "NAI",
    "CPR": "CPR",
}
_INSTITUTION = re.compile(
    r"(?<![\w-])(?P<name>"
    + "|".join(re.escape(n) for n in sorted(_INSTITUTIONS, key=len, reverse=True))
    + r")(?![\w-])"
)
# Cities that seat arbitrations and courts, and regions a licence's
# territory names, beside values' states, provinces and countries.
_CITIES = (
    "London",
    "Paris",
    "Geneva",
    "Zurich",
    "Stockholm",
    "Vienna",
    "The Hague",
    "Brussels",
    "Frankfurt",
    "Munich",
    "Berlin",
    "Amsterdam",
    "Madrid",
    "Milan",
    "Rome",
    "Dublin",
    "Edinburgh",
    "Tokyo",
    "Beijing",
    "Shanghai",
    "Seoul",
    "Sydney",
    "Melbourne",
    "Toronto",
    "Montreal",
    "Vancouver",
    "Dubai",
    "Tel Aviv",
    "New York City",
    "Manhattan",
    "Chicago",
    "Los Angeles",
    "San Francisco",
    "San Jose",
    "San Diego",
    "Boston",
    "Houston",
    "Dallas",
    "Miami",
    "Atlanta",
    "Seattle",
    "Denver",
    "Philadelphia",
    "Wilmington",
    "Europe",
    "European Union",
    "North America",
    "South America",
    "Latin America",
    "Asia",
    "Africa",
    "Middle East",
    "Worldwide",
    "worldwide",
)
_CITY = re.compile(
    r"(?<![\w-])(?P<name>"
    + "|".join(re.escape(c) for c in sorted(_CITIES, key=len, reverse=True))
    + r")(?![\w-])"
)

# Periods and when they run: "30 days" is not "30 months", "before" not
# "after" the date it counts from.
_RELATIONS = {
    "before": "before",
    "prior": "before",
    "preceding": "before",
    "earlier": "before",
    "after": "after",
    "following": "after",
    "subsequent": "after",
    "later": "after",
    "thereafter": "after",
}
_RELATION = re.compile(r"\b(?P<word>" + "|".join(_RELATIONS) + r")\b", re.IGNORECASE)
_WEEKDAY = re.compile(
    r"\b(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b",
    re.IGNORECASE,
)
_TIME_UNIT = re.compile(
    r"\b(?P<unit>(?:business|working|calendar|banking)\s+days?|days?|weeks?|months?"
    r"|years?|quarters?|hours?|minutes?)\b",
    re.IGNORECASE,
)

# A capitalised term: a name ("Champion", "AUGI", "Lime Energy") or a
# defined term ("Confidential Information"); the contract's own names for
# its parties and things. A sentence's opening word counts unless it is a
# word that opens sentences ("The", "Each", "If"): "Champion will disclose"
# names Champion.
_CAPITALISED = re.compile(r"(?<![\w'’-])[A-Z][\w'’&-]*(?:[ \t]+[A-Z][\w'’&-]*)*")
_OPENING = re.compile(r"(?:\A|[.;:!?(\[\]\n]\s*|\s[-–—]\s)\Z")
_POSSESSIVE = re.compile(r"(?:'s|’s|s'|s’|')\Z")


class Entity(NamedTuple):
    key: str
    start: int
    end: int


@lru_cache(maxsize=256)
def _roles(text: str) -> tuple[Entity, ...]:
    found = []
    for m in _ROLE.finditer(text):
        word = " ".join(m.group("role").lower().split())
        if word in _CAPITALISED_ONLY and not m.group("role")[0].isupper():
            continue
        found.append(Entity(word, m.start(), m.end()))
    return tuple(found)


def _collapsed(keys: Sequence[str]) -> list[str]:
    """Each key once per run: "the Licensee ... the Licensee's" is one mention."""
    return [k for i, k in enumerate(keys) if i == 0 or keys[i - 1] != k]


def _subsequence(needle: Sequence[str], hay: Sequence[str]) -> bool:
    it = iter(hay)
    return all(any(k == h for h in it) for k in needle)


@lru_cache(maxsize=64)
def _subjects_at(text: str) -> tuple[tuple[str, str, int], ...]:
    """(party, verb, where the verb is) of each verb a party governs: the
    nearest role or term before it in its clause."""
    found = sorted((*_roles(text), *_terms(text, subjects=True)), key=lambda e: e.end)
    ends = [e.end for e in found]
    pairs = []
    for m in _MODAL.finditer(text):
        i = bisect_right(ends, m.start()) - 1
        if i < 0 or m.start() - found[i].end > _SUBJECT_REACH:
            continue
        subject = found[i]
        between = text[subject.end : m.start()]
        if _CLAUSE_BREAK.search(between):
            continue
        pairs.append((subject.key, m.group().lower(), m.start()))
    return tuple(pairs)


def _subjects(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((key, verb) for key, verb, _ in _subjects_at(text))


def _aligned_subject(quote: str, span: str, roles: bool, context: str) -> str | None:
    """Where the span is the quote with words changed, the quote's verb and
    the span's at the same place must have the same party: the span's other
    sentences may well give the verb to the quote's party ("“Disclosing
    Party” shall mean" beside "the Receiving Party shall make")."""
    at = fuzz.partial_ratio_alignment(quote.lower(), span.lower())
    # None only below a score_cutoff, and none is given.
    if at is None or at.score < 90:
        return None  # a paraphrase: no word-for-word place to compare
    theirs = _subjects_at(span)
    names = _names(context)
    for subject, verb, where in _subjects_at(quote):
        mapped = at.dest_start + where - at.src_start
        same = [
            (abs(w - mapped), s)
            for s, v, w in theirs
            if v == verb and abs(w - mapped) <= 20
        ]
        if not same:
            continue
        other = min(same)[1]
        role = bool(_ROLE.fullmatch(subject))
        party = role or not _is_word(subject) or subject.split()[0] in names
        if other != subject and party and role == roles:
            return f"in the source '{other} {verb}', not '{subject} {verb}': another party acts"
    return None


_CLAUSE_BREAK = re.compile(r"[.;]|\b(?:and|or|that|which|who|if|to)\b")


# "English law" is read as England and Wales, "the laws of England" as England.
_SAME_PLACE = {"England and Wales": "England"}


@lru_cache(maxsize=256)
def _places(text: str) -> tuple[tuple[str, str], ...]:
    """(canonical place, what it is named for) in order of position: values'
    jurisdictions (governing_law, forum, law, mention) and cities and regions
    (a seat of arbitration, a territory)."""
    found = [
        (j.start, _SAME_PLACE.get(j.name, j.name), j.role)
        for j in values.find_jurisdictions(text)
    ]
    for m in _CITY.finditer(text):
        if any(s <= m.start() < s + len(n) + 20 for s, n, _ in found):
            continue  # "New York City" is New York, already read
        found.append((m.start(), m.group("name").lower(), values.MENTION))
    return tuple((name, role) for _, name, role in sorted(found))


def _forums(text: str) -> list[str]:
    return [m.lastgroup for m in _FORUM.finditer(text) if m.lastgroup]


def _institutions(text: str) -> list[str]:
    return [_INSTITUTIONS[m.group("name")] for m in _INSTITUTION.finditer(text)]


@lru_cache(maxsize=256)
def _terms(text: str, subjects: bool = False) -> tuple[Entity, ...]:
    """Capitalised terms in order, casefolded, possessives dropped; roles
    are entity.role's, months and weekdays entity.date's, places
    entity.place's. A sentence's opening word a dictionary lists
    ("Payment is due") is a term only as the subject of a modal verb
    (`subjects`: "Champion will disclose")."""
    from citations.cascade import lexicon
    from citations.cascade.folding import ocr_skeleton

    found = []
    # A company named with its legal form is a name whatever its words.
    companies = [(p.start, p.end) for p in values.find_parties(text)]
    for m in _CAPITALISED.finditer(text):
        words = m.group().split()
        start = m.start()
        opening = start == 0 or _OPENING.search(text, max(0, start - 4), start)
        first = _POSSESSIVE.sub("", words[0]).lower()
        company = any(a <= start < b for a, b in companies)
        if opening and (
            first in _OPENERS
            or (not subjects and not company and lexicon.frequency(ocr_skeleton(first)))
        ):
            start += len(words[0])
            words = words[1:]
        key = " ".join(_POSSESSIVE.sub("", w).lower() for w in words)
        if not key or len(key) < 2 or key in _NOT_NAMES or _ROLE.fullmatch(key):
            continue
        found.append(Entity(key, start, m.end()))
    return tuple(found)


# Words that open sentences and name nothing.
_OPENERS = frozenset(
    [
        "the",
        "this",
        "that",
        "these",
        "those",
        "each",
        "either",
        "neither",
        "any",
        "all",
        "no",
        "not",
        "none",
        "if",
        "in",
        "on",
        "at",
        "for",
        "to",
        "by",
        "of",
        "upon",
        "unless",
        "except",
        "notwithstanding",
        "subject",
        "such",
        "a",
        "an",
        "it",
        "its",
        "we",
        "our",
        "you",
        "your",
        "they",
        "their",
        "he",
        "she",
        "his",
        "her",
        "as",
        "where",
        "when",
        "whereas",
        "whether",
        "provided",
        "nothing",
        "both",
        "every",
        "after",
        "before",
        "during",
        "within",
        "without",
        "from",
        "with",
        "under",
        "other",
        "there",
        "here",
        "however",
        "further",
        "furthermore",
        "moreover",
        "also",
        "and",
        "or",
        "but",
        "so",
        "then",
        "thus",
        "any",
        "such",
        "only",
        "until",
        "while",
        "once",
        "following",
        "prior",
        "pursuant",
        "hereby",
        "herein",
        "thereof",
        "accordingly",
        "except",
        "save",
    ]
)
# Capitalised words other rules read, or that name nothing.
_NOT_NAMES = frozenset(
    [
        *MONTHS, "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
        "sunday", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x",
    ]
)  # fmt: skip


def _term_words(text: str) -> frozenset[str]:
    return frozenset(w for t in _terms(text) for w in t.key.split())


def _relations(text: str) -> list[str]:
    return [_RELATIONS[m.group("word").lower()] for m in _RELATION.finditer(text)]


def _periods(text: str) -> list[str]:
    found = [f"{d.amount} {d.unit}" for d in values.find_durations(text)]
    found += [m.group("day").lower() for m in _WEEKDAY.finditer(text)]
    # Units as well, with or without a figure ("within a quarter").
    found += [
        re.sub(r"s$", "", " ".join(m.group("unit").lower().split()))
        for m in _TIME_UNIT.finditer(text)
    ]
    return found


def _missing(quote: Sequence[T], span: Sequence[T]) -> list[T]:
    rest = list(span)
    lacking = []
    for key in quote:
        if key in rest:
            rest.remove(key)
        else:
            lacking.append(key)
    return lacking


# --- the rules: (quote, text, strict) -> reason or None ------------------------
# `strict`: `text` is the span a judge named (order and first mentions
# count); else it is the passage shown to a judge (presence only).


def _role_rule(quote: str, text: str, strict: bool, context: str) -> str | None:
    q = _collapsed([r.key for r in _roles(quote)])
    t = _collapsed([r.key for r in _roles(text)])
    lacking = _missing(sorted(set(q)), sorted(set(t)))
    if lacking:
        return f"the quote names the {lacking[0]}, the source does not"
    if not strict:
        return None
    if not _subsequence(q, t):
        return (
            f"the source names the parties in another order ({', '.join(t) or 'none'}"
            f" for the quote's {', '.join(q)}): their roles differ"
        )
    return _subject_acts(quote, text, roles=True)


def _subject_acts(quote: str, text: str, roles: bool, context: str = "") -> str | None:
    """Does the party before each of the quote's modal verbs govern it in
    the source too? `roles`: the subjects that are roles (entity.role),
    else those that name a party (entity.party): not a dictionary word, or
    one the `context` writes as a name ("Payment shall be made" names no
    party; "Champion will" does where the contract names Champion)."""
    said = _subjects(text)
    lacking = _missing(_subjects(quote), said)
    names = _names(context)
    for subject, modal in lacking:
        # Only where the source gives that verb another subject: "Disputes
        # shall" over "Any dispute shall" names no party at all.
        others = [s for s, m in said if m == modal and s != subject]
        role = bool(_ROLE.fullmatch(subject))
        # A run of capitalised words ("Zenith Tools") is a name too.
        party = (
            role
            or not _is_word(subject)
            or subject.split()[0] in names
            or " " in subject
        )
        if others and party and role == roles:
            return (
                f"in the source '{others[0]} {modal}', not '{subject} {modal}': "
                "another party acts"
            )
    return None


@lru_cache(maxsize=64)
def _names(context: str) -> frozenset[str]:
    """The words the context writes capitalised inside a sentence: its
    names, whatever a dictionary says of them ("Champion", "Northern")."""
    return frozenset(w for t in _terms(context) for w in t.key.split())


_LAW_ADJECTIVES = frozenset(a.lower() for a in values.LAW_ADJECTIVES)


def _stems(text: str) -> str:
    """The words of `text`, possessives and plurals dropped, space-delimited
    for phrase lookups ("UDC's Business Affiliate" is "udc busines affiliate")."""
    plain = _POSSESSIVE_WORD.sub("", text.lower())
    return " " + " ".join(singular(w) for w in re.findall(r"\w+", plain)) + " "


_POSSESSIVE_WORD = re.compile(r"(?<=\w)['’]s?\b")


def _party_rule(quote: str, text: str, strict: bool, context: str) -> str | None:
    """Every capitalised term of the quote is a phrase the source writes (in
    any case), and the parties the quote and the source both name come in
    the same order: a name changed, a party the source never names, or two
    parties swapped ("terminated by Company ... breach by Champion") is no
    paraphrase."""
    written = _stems(text)
    # Places and the adjectives of law ("English") are entity.place's.
    placed = {
        singular(w)
        for name, _ in _places(quote)
        for w in re.findall(r"\w+", name.lower())
    } | _LAW_ADJECTIVES
    # A sentence's opening word a dictionary lists ("Champion will") is a
    # name when the passage writes it as one, capitalised inside a sentence.
    names = _names(context)
    terms = _terms(quote)
    openings = [
        t
        for t in _terms(quote, subjects=True)
        if t not in terms and t.key.split()[0] in names
    ]
    # Without the places, on both sides, when the phrase differs in one.
    unplaced = " " + " ".join(w for w in written.split() if w not in placed) + " "
    for term in (*terms, *openings):
        phrase = _stems(term.key)
        kept = " ".join(w for w in phrase.split() if w not in placed)
        if kept and phrase not in written and f" {kept} " not in unplaced:
            return f"the quote names '{term.key}', the source does not"
    if not strict:
        return None
    agents = _agents(context)
    q = [k for k in _parties(quote) if k in agents or not _is_word(k)]
    t = [k for k in _parties(text) if k in agents or not _is_word(k)]
    shared = set(q) & set(t)
    q = _collapsed([k for k in q if k in shared])
    t = _collapsed([k for k in t if k in shared])
    if not _subsequence(q, t):
        return (
            f"the source names {', '.join(t)} in another order than the quote's "
            f"{', '.join(q)}"
        )
    return _subject_acts(quote, text, roles=False, context=context)


# Capitalised words that act in a contract yet name no party.
_DOCUMENT_WORDS = frozenset(
    [
        "agreement", "contract", "section", "article", "exhibit", "schedule",
        "appendix", "annex", "term", "territory", "effective date", "party",
        "parties",
    ]
)  # fmt: skip


@lru_cache(maxsize=64)
def _agents(context: str) -> frozenset[str]:
    """The capitalised terms the context makes the subject of a party's verb
    ("Champion will", "Company understands") or the one an act is by: the
    parties, whatever their words, and the roles."""
    found = {subject for subject, _ in _subjects(context)}
    # And the one an act is "by" ("terminated by Champion").
    found |= {
        t.key
        for t in _terms(context)
        if _BY.search(context, max(0, t.start - 8), t.start)
    }
    return frozenset(k for k in found if k not in _DOCUMENT_WORDS)


_BY = re.compile(r"\bby\s+(?:the\s+)?\Z", re.IGNORECASE)


def _is_word(key: str) -> bool:
    """Is every word of the term a dictionary word ("Brand", "Confidential
    Information")? Such a term names a party only as an agent (`_agents`)."""
    from citations.cascade import lexicon
    from citations.cascade.folding import ocr_skeleton

    return bool(_ROLE.fullmatch(key)) is False and all(
        lexicon.frequency(ocr_skeleton(w)) for w in key.split()
    )


def _parties(text: str) -> list[str]:
    """Roles and capitalised terms, in order."""
    found = sorted((*_roles(text), *_terms(text)), key=lambda e: e.start)
    return [e.key for e in found]


def _placed(text: str, roles: frozenset[str]) -> list[str]:
    return [name for name, role in _places(text) if role in roles]


def _law_rule(quote: str, text: str, strict: bool, context: str) -> str | None:
    law = frozenset([values.GOVERNING_LAW, values.LAW])
    q = _placed(quote, law)
    if not q:
        return None
    t = _placed(text, law) if strict else [n for n, _ in _places(text)]
    lacking = _missing(sorted(set(q)), sorted(set(t)))
    if lacking:
        return f"the quote's governing law is {lacking[0]}'s, the source's is not"
    if strict and t and t[0] != q[0]:
        return f"the source's law is {t[0]}'s, the quote's {q[0]}'s"
    return None


def _forum_rule(quote: str, text: str, strict: bool, context: str) -> str | None:
    for reader, what in ((_forums, "forum"), (_institutions, "institution")):
        q, t = reader(quote), reader(text)
        # As many mentions: "the arbitrator ... any court" is not "the court
        # ... any court".
        lacking = _missing(q, t)
        if lacking:
            return f"the quote's {what} is {lacking[0]}, the source names none"
        if strict and q and t and q[0] != t[0]:
            return f"the source's {what} is {t[0]}, the quote's {q[0]}"
    q = _placed(quote, frozenset([values.FORUM]))
    if q:
        t = _placed(text, frozenset([values.FORUM])) if strict else []
        t = t or [n for n, _ in _places(text)]
        lacking = _missing(sorted(set(q)), sorted(set(t)))
        if lacking:
            return f"the quote's forum is in {lacking[0]}, the source's is not"
        if strict and t[0] != q[0] and _placed(text, frozenset([values.FORUM])):
            return f"the source's forum is in {t[0]}, the quote's in {q[0]}"
    return None


def _place_rule(quote: str, text: str, strict: bool, context: str) -> str | None:
    q = [n for n, _ in _places(quote)]
    t = [n for n, _ in _places(text)]
    lacking = _missing(sorted(set(q)), sorted(set(t)))
    if lacking:
        return f"the quote names {lacking[0]}, the source does not"
    return None


def _date_rule(quote: str, text: str, strict: bool, context: str) -> str | None:
    lacking = _missing(_periods(quote), _periods(text))
    if lacking:
        return f"the quote's '{lacking[0]}' is not the source's"
    said = _relations(text)
    # As often: "during or after" is not "during or before" beside a "prior"
    # consent. A source that says neither but "within" ("within 30 days of")
    # leaves the window's side to the judge.
    for relation in _missing(_relations(quote), said):
        if said or not _WITHIN.search(text):
            shown = ", ".join(said) or "neither"
            return f"the quote says '{relation}', the source {shown}"
    return None


_WITHIN = re.compile(r"\bwithin\b", re.IGNORECASE)


class EntityRule(NamedTuple):
    id: str  # a row of rules.RULES
    check: Callable[[str, str, bool, str], str | None]


ENTITY_RULES: tuple[EntityRule, ...] = (
    EntityRule("entity.role", _role_rule),
    EntityRule("entity.law", _law_rule),
    EntityRule("entity.forum", _forum_rule),
    EntityRule("entity.place", _place_rule),
    EntityRule("entity.date", _date_rule),
    # Last: any other capitalised term, once the specific readers had theirs.
    EntityRule("entity.party", _party_rule),
)


def _whole_span_roles(quote: str, span: str, strict: bool, context: str) -> str | None:
    return _subject_acts(quote, span, True, context) or _aligned_subject(
        quote, span, True, context
    )


def _whole_span_parties(
    quote: str, span: str, strict: bool, context: str
) -> str | None:
    return _subject_acts(quote, span, False, context) or _aligned_subject(
        quote, span, False, context
    )


# Who does what, read in the whole span a judge named when ENTITY_RULES
# passed the stretch most like the quote (entity_difference): a sentence
# beside it may give the quote's verb to another party.
WHOLE_SPAN_RULES: tuple[EntityRule, ...] = (
    EntityRule("entity.role", _whole_span_roles),
    EntityRule("entity.party", _whole_span_parties),
)


def _run(
    quote: str,
    text: str,
    strict: bool,
    context: str,
    rules: tuple[EntityRule, ...] | None = None,
) -> Refusal | None:
    """The entity stages' loop: the first of `rules` (default ENTITY_RULES)
    to refuse, as a Refusal naming it; None when none does."""
    # ENTITY_RULES is read at call time, not bound as the default when this
    # is defined: bench/judge_guard_eval.py measures the judge without the
    # entity guards by emptying the table in its process.
    for rule in ENTITY_RULES if rules is None else rules:
        reason = rule.check(quote, text, strict, context)
        if reason:
            return refusal(rule.id, reason)
    return None


# A span longer than the quote by this share (and WINDOW_SLACK characters)
# is read where it says what the quote says: the stretch most like the
# quote, widened by a tenth of it either side (and to whole words). A judge
# that names a whole page must not lend the quote a party, place, order of
# parties or date from the sentence next door.
WINDOW_SHARE = 0.5
WINDOW_SLACK = 60


def _aligned(quote: str, span: str) -> str:
    if len(span) <= len(quote) * (1 + WINDOW_SHARE) + WINDOW_SLACK:
        return span
    at = fuzz.partial_ratio_alignment(quote.lower(), span.lower())
    if at is None:  # only below a score_cutoff, and none is given
        return span
    reach = len(quote) // 10 + 10
    start = max(0, at.dest_start - reach)
    end = min(len(span), at.dest_end + reach)
    # Whole words: a name cut in two is no name.
    while start > 0 and span[start - 1].isalnum():
        start -= 1
    while end < len(span) and span[end].isalnum():
        end += 1
    return span[start:end]


def entity_difference(quote: str, span: str, context: str = "") -> Refusal | None:
    """Why the span a judge named does not say who, where or when the quote
    says, or None (after a judge: see module docstring). A long span is read
    where it is most like the quote (`_aligned`); `context`, the passage the
    judge read, tells which capitalised words name parties (`_agents`).
    Who does what is also read in the whole span: the stretch most like the
    quote may be a sentence beside the one that gives its verb to another
    party ("the Receiving Party shall make any objections")."""
    context = context or span
    window = _aligned(quote, span)
    found = _run(quote, window, True, context)
    if found or window == span:
        return found
    return _run(quote, span, True, context, WHOLE_SPAN_RULES)


def entities_absent(quote: str, passage: str, context: str = "") -> Refusal | None:
    """Why no span of the passage could support the quote: it names a party,
    role, place, law, forum or period the passage never names (before a
    judge is asked). `context`: the whole document, whose names tell a name
    from a word (else the passage)."""
    return _run(quote, passage, False, context or passage)
