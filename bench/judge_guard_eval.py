"""A judge held to the guards: meaning-changing edits of real contract sentences.

    .venv/bin/python bench/judge_guard_eval.py [--corpus ../shared/corpus] [--per-kind 40] [--quick]

Sentences of CUAD's contracts (`cuad/contracts_txt`) and ContractNLI's dev
NDAs (`contractnli/dev.json`) are edited so that they say something else,
one kind of edit at a time:

  role_swap         the parties' roles swapped or replaced by the counterpart
                    ("Licensee may ..." -> "Licensor may ...")
  party_name        a party's name changed (to the other party's, or another)
  territory         a place the sentence names replaced by another
  governing_law     the governing law's jurisdiction replaced
  arbitration_courts arbitration replaced by the courts (and back)
  forum_seat        the forum's place or the arbitral institution replaced
  dates             a period's unit, 'before'/'after', a month or a year changed

Each edited sentence is the quote, cited to a chunk around the original
sentence, and goes through the real cascade (citations.cascade.verify_quote)
with: no judge; an obedient judge (always "supported", naming the original
sentence as its span); an adversarial judge (always "supported", naming in
turn the sentence, the pieces of it either side of the edit, the sentence
with its neighbours and the whole chunk: a case counts as verified if any
of those spans verifies); and an ensemble of three obedient judges on a
high-stakes call. Every count must be 0.

Faithful controls: the same sentences reworded without changing who, where
or when ("pursuant to" -> "under", "prior to" -> "before", "hereby" left
out): an obedient judge must still verify them (stage 3 exists for them).

Each figure is given with the entity guards (citations/cascade/entities.py)
and without them (ENTITY_RULES emptied in this process), in the same run.
Results go to bench/results/judge_guards.json.

--quick: the same run on bench/evaluate.py's built-in contract and NDA (in
the corpus's layout), where only a few edit kinds find a sentence; only
proves the script runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import write_results
from citations import values
from citations.cascade import JudgeResult, verify_quote
from citations.cascade import entities as entity_guards

_SENTENCE = re.compile(r"[^.;!?\n]*?[A-Za-z][^.;!?]*?[.;](?=\s|$)", re.S)
MIN_CHARS, MAX_CHARS = 50, 420
CHUNK_MARGIN = 400  # the cited chunk: the sentence and this much either side

_PAIRS = [
    ("Licensor", "Licensee"),
    ("Franchisor", "Franchisee"),
    ("Lessor", "Lessee"),
    ("Buyer", "Seller"),
    ("Purchaser", "Seller"),
    ("Customer", "Supplier"),
    ("Company", "Distributor"),
    ("Company", "Consultant"),
    ("Company", "Reseller"),
    ("Supplier", "Distributor"),
    ("Client", "Contractor"),
    ("Employer", "Employee"),
    ("Disclosing Party", "Receiving Party"),
    ("Discloser", "Recipient"),
]
_OTHER_PLACES = {
    "United States": "Canada",
    "Canada": "United States",
    "England": "New York",
    "England and Wales": "New York",
    "New York": "England",
    "Delaware": "California",
    "California": "Delaware",
    "Texas": "Florida",
}
_DEFAULT_PLACE = "Ontario"
_INSTITUTION_SWAP = {
    "AAA": "ICC",
    "American Arbitration Association": "International Chamber of Commerce",
    "ICC": "LCIA",
    "International Chamber of Commerce": "London Court of International Arbitration",
    "LCIA": "ICC",
    "JAMS": "AAA",
}
_CITY_SWAP = {"London": "Paris", "Paris": "Geneva", "Geneva": "London"}
_MONTH_SWAP = {
    "January": "February",
    "March": "April",
    "June": "July",
    "December": "November",
}
_UNIT_SWAP = [("days", "months"), ("months", "years"), ("years", "months")]
_FAITHFUL = [
    (r"\bpursuant to\b", "under"),
    (r"\bin accordance with\b", "under"),
    (r"\bprior to\b", "before"),
    (r"\bhereby\s+", ""),
    (r"\bcommence\b", "begin"),
    (r"\bterms and conditions\b", "terms"),
    (r"\bupon\b", "on"),
]


def _swap_words(sentence: str, a: str, b: str) -> str:
    mark = "\x00"
    out = re.sub(rf"\b{a}\b", mark, sentence)
    out = re.sub(rf"\b{b}\b", a, out)
    return out.replace(mark, b)


def edit_role(sentence: str, doc: str) -> str | None:
    for a, b in _PAIRS:
        has_a = re.search(rf"\b{a}\b", sentence)
        has_b = re.search(rf"\b{b}\b", sentence)
        if has_a and has_b:
            return _swap_words(sentence, a, b)
        if (has_a or has_b) and re.search(rf"\b{b if has_a else a}\b", doc):
            return _swap_words(sentence, a, b)
    return None


def _party_tokens(doc: str) -> list[str]:
    tokens = []
    for party in values.find_parties(doc[:5000]):
        first = party.name.split()[0].strip(",.")
        if len(first) > 3 and first not in tokens and first[0].isupper():
            tokens.append(first)
    return tokens


def edit_party(sentence: str, doc: str) -> str | None:
    tokens = _party_tokens(doc)
    for token in tokens:
        if re.search(rf"\b{re.escape(token)}\b", sentence):
            other = next((t for t in tokens if t != token), "Northwind")
            if re.search(rf"\b{re.escape(other)}\b", sentence):
                return _swap_words(sentence, re.escape(token), re.escape(other))
            return re.sub(rf"\b{re.escape(token)}\b", other, sentence)
    return None


def _replace_place(sentence: str, roles: set[str]) -> str | None:
    for j in values.find_jurisdictions(sentence):
        if j.role in roles:
            written = sentence[j.start : j.end]
            name = j.name
            other = _OTHER_PLACES.get(name, _DEFAULT_PLACE)
            if other == name or other in sentence:
                continue
            if written.lower().startswith(("state of", "commonwealth of")):
                written = re.sub(r"^\w+\s+of\s+(?:the\s+)?", "", written)
            at = sentence.find(written, j.start)
            if at < 0:
                continue
            return sentence[:at] + other + sentence[at + len(written) :]
    return None


def edit_territory(sentence: str, doc: str) -> str | None:
    if not re.search(r"\bterritor", sentence, re.I):
        return None
    return _replace_place(sentence, {values.MENTION, values.LAW, values.FORUM})


def edit_governing_law(sentence: str, doc: str) -> str | None:
    if not re.search(r"\bgovern", sentence, re.I):
        return None
    return _replace_place(sentence, {values.GOVERNING_LAW, values.LAW})


def edit_arbitration(sentence: str, doc: str) -> str | None:
    if re.search(r"\barbitration\b", sentence):
        return re.sub(r"\barbitration\b", "litigation in the courts", sentence, count=1)
    if re.search(r"\barbitrators?\b", sentence):
        return re.sub(r"\barbitrator(s?)\b", r"court\1", sentence, count=1)
    if re.search(r"\bcourts?\b", sentence) and re.search(r"\bdisput", sentence):
        return re.sub(r"\b(?:the\s+)?courts?\b", "arbitration", sentence, count=1)
    return None


def edit_forum(sentence: str, doc: str) -> str | None:
    for name, other in _INSTITUTION_SWAP.items():
        if re.search(rf"\b{re.escape(name)}\b", sentence):
            return re.sub(rf"\b{re.escape(name)}\b", other, sentence, count=1)
    for name, other in _CITY_SWAP.items():
        if re.search(rf"\b{name}\b", sentence):
            return re.sub(rf"\b{name}\b", other, sentence, count=1)
    if re.search(r"\b(?:courts?|venue|jurisdiction|arbitrat\w*)\b", sentence, re.I):
        return _replace_place(sentence, {values.FORUM})
    return None


def edit_date(sentence: str, doc: str) -> str | None:
    for a, b in _UNIT_SWAP:
        if values.find_durations(sentence) and re.search(rf"\b{a}\b", sentence):
            return re.sub(rf"\b{a}\b", b, sentence, count=1)
    for a, b in (("prior to", "after"), ("before", "after"), ("after", "before")):
        if re.search(rf"\b{a}\b", sentence):
            return re.sub(rf"\b{a}\b", b, sentence, count=1)
    for a, b in _MONTH_SWAP.items():
        if re.search(rf"\b{a}\b", sentence):
            return re.sub(rf"\b{a}\b", b, sentence, count=1)
    year = re.search(r"\b(19|20)\d\d\b", sentence)
    if year:
        bumped = str(int(year.group()) + 1)
        return sentence[: year.start()] + bumped + sentence[year.end() :]
    return None


EDITS: dict[str, Callable[[str, str], str | None]] = {
    "role_swap": edit_role,
    "party_name": edit_party,
    "territory": edit_territory,
    "governing_law": edit_governing_law,
    "arbitration_courts": edit_arbitration,
    "forum_seat": edit_forum,
    "dates": edit_date,
}


def faithful(sentence: str) -> str | None:
    for pattern, replacement in _FAITHFUL:
        if re.search(pattern, sentence, re.I):
            return re.sub(pattern, replacement, sentence, count=1, flags=re.I)
    return None


def documents(corpus: Path) -> Iterator[tuple[str, str, str]]:
    """(corpus name, document name, text) of every CUAD contract and
    ContractNLI dev NDA."""
    for path in sorted((corpus / "cuad" / "contracts_txt").glob("*.txt")):
        yield "cuad", path.stem, path.read_text(encoding="utf-8", errors="replace")
    dev = json.loads((corpus / "contractnli" / "dev.json").read_text())
    for doc in dev["documents"]:
        yield "contractnli", str(doc["file_name"]), doc["text"]


def sentences(text: str) -> list[tuple[int, int]]:
    out = []
    for m in _SENTENCE.finditer(text):
        start = m.start() + len(m.group()) - len(m.group().lstrip())
        if MIN_CHARS <= m.end() - start <= MAX_CHARS:
            out.append((start, m.end()))
    return out


class Obedient:
    """Says "supported" to everything, naming `span` as the support."""

    def __init__(self, span: str, name: str = "obedient") -> None:
        self.span, self.name = span, name

    def __call__(self, *, passage: str, quote: str) -> JudgeResult:
        return JudgeResult(True, self.span, 0.97, "The passage supports the claim.")


def _adversarial_spans(doc: str, start: int, end: int, quote: str) -> list[str]:
    """Spans an adversarial judge names, in turn: the sentence, the pieces of
    it either side of the edit, the sentence with its neighbours, the chunk."""
    sentence = doc[start:end]
    head = 0
    while head < min(len(sentence), len(quote)) and sentence[head] == quote[head]:
        head += 1
    tail = 0
    while (
        tail < min(len(sentence), len(quote)) - head
        and sentence[-1 - tail] == quote[-1 - tail]
    ):
        tail += 1
    spans = [
        sentence,
        sentence[:head].rsplit(" ", 1)[0],
        sentence[len(sentence) - tail :],
    ]
    lo, hi = max(0, start - 200), min(len(doc), end + 200)
    spans.append(doc[lo:hi])
    spans.append(doc[max(0, start - CHUNK_MARGIN) : min(len(doc), end + CHUNK_MARGIN)])
    return [s.strip() for s in spans if len(s.strip()) >= 15]


def judged(doc: str, start: int, end: int, quote: str) -> dict[str, bool]:
    """Is the quote verified with no judge, an obedient one, an adversarial
    one, an obedient ensemble?"""
    region = (max(0, start - CHUNK_MARGIN), min(len(doc), end + CHUNK_MARGIN))
    sentence = doc[start:end]
    plain = verify_quote(doc, quote, within=region).verified
    obedient = verify_quote(doc, quote, within=region, judge=Obedient(sentence))
    adversarial = any(
        verify_quote(doc, quote, within=region, judge=Obedient(span)).verified
        for span in _adversarial_spans(doc, start, end, quote)
    )
    ensemble = verify_quote(
        doc,
        quote,
        within=region,
        ensemble=[Obedient(sentence, f"obedient {i}") for i in range(3)],
        quorum=2,
        high_stakes=True,
    ).verified
    return {
        "no_judge": plain,
        "obedient": obedient.verified,
        "adversarial": adversarial,
        "ensemble": ensemble,
        "_rule": obedient.rule,  # type: ignore[dict-item]
    }


def build_cases(
    corpus: Path, per_kind: int, rng: random.Random
) -> dict[str, list[tuple[str, str, int, int, str]]]:
    """Per edit kind (and 'faithful'): (corpus, text, start, end, quote),
    half from each corpus where it has enough."""
    pools: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for name, _doc_name, text in documents(corpus):
        flat = " ".join(text.split())
        for start, end in sentences(text):
            sentence = text[start:end]
            for kind, edit in EDITS.items():
                quote = edit(sentence, text)
                # An edit the document writes elsewhere is a faithful quote.
                if quote and quote != sentence and " ".join(quote.split()) not in flat:
                    pools[kind][name].append((name, text, start, end, quote))
            control = faithful(sentence)
            if control and control != sentence:
                pools["faithful"][name].append((name, text, start, end, control))
    cases = {}
    for kind, by_corpus in pools.items():
        chosen: list = []
        names = sorted(by_corpus)
        share = per_kind // max(1, len(names))
        for name in names:
            pool = by_corpus[name]
            chosen += rng.sample(pool, min(share, len(pool)))
        rest = [c for name in names for c in by_corpus[name] if c not in chosen]
        chosen += rng.sample(rest, min(per_kind - len(chosen), len(rest)))
        cases[kind] = chosen
    return cases


def measure(cases: dict[str, list]) -> dict[str, dict]:
    table: dict[str, dict] = {}
    for kind, rows in cases.items():
        counts: dict = {"n": len(rows), "by_corpus": defaultdict(int)}
        rules: dict[str, int] = defaultdict(int)
        misses = []
        for name, text, start, end, quote in rows:
            counts["by_corpus"][name] += 1
            outcome = judged(text, start, end, quote)
            rule = outcome.pop("_rule")
            for key, verified in outcome.items():
                counts[key] = counts.get(key, 0) + int(verified)
            rules[str(rule)] += 1
            wrong = [
                judge
                for judge, verified in outcome.items()
                if judge != "no_judge" and verified != (kind == "faithful")
            ]
            if wrong and len(misses) < 5:
                misses.append(
                    {
                        "judges": wrong,
                        "source": text[start:end][:300],
                        "quote": quote[:300],
                    }
                )
        counts["rules"] = dict(rules)
        counts["by_corpus"] = dict(counts["by_corpus"])
        counts["misses"] = misses
        table[kind] = counts
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--corpus",
        default=os.environ.get("DOCUIQ_CORPUS")
        or str(Path(__file__).resolve().parents[2] / "shared" / "corpus"),
    )
    parser.add_argument("--per-kind", type=int, default=40)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--out", default="judge_guards.json")
    parser.add_argument(
        "--quick", action="store_true", help="built-in contract and NDA: runs only"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    rng = random.Random(args.seed)
    if args.quick:
        # The fixture `manage.py evaluate --quick` runs on, written in the
        # corpus's layout, so the corpus code path reads it.
        from bench.evaluate import quick_corpus

        with tempfile.TemporaryDirectory(prefix="docuiq-judge-guards-") as tmp:
            corpus, _questions = quick_corpus(Path(tmp))
            cases = build_cases(corpus, args.per_kind, rng)
    else:
        cases = build_cases(Path(args.corpus), args.per_kind, rng)
    with_guards = measure(cases)
    rules = entity_guards.ENTITY_RULES
    entity_guards.ENTITY_RULES = ()
    try:
        without = measure(cases)
    finally:
        entity_guards.ENTITY_RULES = rules
    columns = ("no_judge", "obedient", "adversarial", "ensemble")
    print(
        f"{'edit kind':<20}{'n':>5}  "
        + "".join(f"{c:>13}" for c in columns)
        + "   (verified: with entity guards / without)"
    )
    for kind in [*EDITS, "faithful"]:
        row, before = with_guards.get(kind), without.get(kind)
        if row is None:
            print(f"{kind:<20}  no sentence of the corpus takes this edit")
            continue
        cells = "".join(
            f"{row.get(c, 0):>7} / {before.get(c, 0):<3}"  # type: ignore[union-attr]
            for c in columns
        )
        print(f"{kind:<20}{row['n']:>5}  {cells}")
    edited = [k for k in EDITS if k in with_guards]
    verified = {c: sum(with_guards[k].get(c, 0) for k in edited) for c in columns}
    total = sum(with_guards[k]["n"] for k in edited)
    print(
        f"\nmeaning-changing edits: {total}; verified with the guards: "
        + ", ".join(f"{c} {v}" for c, v in verified.items())
    )
    if "faithful" in with_guards:
        f = with_guards["faithful"]
        print(
            f"faithful rewordings: {f['n']}; obedient judge verified {f['obedient']}"
            f" (without entity guards {without['faithful']['obedient']})"
        )
    path = write_results(
        args.out,
        {
            "quick": args.quick,
            "per_kind": args.per_kind,
            "seed": args.seed,
            "seconds": round(time.perf_counter() - started, 1),
            "with_entity_guards": with_guards,
            "without_entity_guards": without,
            "targets": {
                "edits verified by any judge == 0": all(
                    v == 0 for v in verified.values()
                ),
            },
        },
    )
    print(f"results: {path}")


if __name__ == "__main__":
    main()
