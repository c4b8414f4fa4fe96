"""Shared by the verification benchmarks: built-in prose and damage models.

Damage functions return the damaged text and, for every output character, the
index of the clean character it came from (None for inserted characters), so
the exact span a clean quote should be found at is known.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Benchmarks run as scripts (`make bench`): the project's packages are
# importable only once its root is on the path.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from citations.cascade.context import dropped_negation, negation_before  # noqa: E402

# Where results go; `make bench-quick` points BENCH_RESULTS elsewhere, so a
# quick run never overwrites a full run's figures.
RESULTS = Path(os.environ.get("BENCH_RESULTS") or ROOT / "bench" / "results")

PARTIES = [
    ("Supplier", "Buyer"),
    ("Licensor", "Licensee"),
    ("Lessor", "Lessee"),
    ("Employer", "Employee"),
    ("Company", "Contractor"),
    ("Provider", "Recipient"),
    ("Distributor", "Manufacturer"),
]
MODALS = ["shall", "may", "must", "will", "should"]
MONTHS = [
    "January",
    "March",
    "April",
    "June",
    "July",
    "September",
    "October",
    "December",
]
OBJECTS = [
    "the Goods",
    "the Services",
    "the Deliverables",
    "all Confidential Information",
    "the final report",
    "the Software and its documentation",
    "any affiliated equipment",
    "the office premises",
]
TEMPLATES = [
    "The {a} {modal} deliver {obj} to the {b} within {n} days of the Effective Date.",
    "The {a} {modal} not assign this Agreement without the prior written consent of the {b}.",
    "The {b} {modal} pay the {a} a fee of ${money} for each calendar month of the Term.",
    "Either party {modal} terminate this Agreement on {n} days' written notice to the other party.",
    'For the purposes of this Agreement, "{term}" means {obj} supplied by the {a} under Schedule {n}.',
    "The {a} {modal} maintain insurance covering product liability claims of at least ${money}.",
    "Interest on late payments accrues at {pct}% per annum from the due date until payment in full.",
    "This Agreement takes effect on {day} {month} {year} and continues for {n} months unless terminated earlier.",
    "The {b} {modal} not disclose the terms of this Agreement to any third party, except as required by law.",
    "Neither party {modal} be liable for any failure caused by an event of force majeure - including fire, flood or strike.",
    "The {a}'s aggregate liability {modal} not exceed {pct}% of the fees paid in the {n} months before the claim.",
    "All notices {modal} be in writing and delivered by hand, by courier or by e-mail to the {b}'s registered office.",
    "The {b} {modal} inspect {obj} within {n} business days and notify the {a} of any defect.",
    "No waiver of any breach {modal} be effective unless it is in writing and signed by the {a}.",
    "The {a} warrants that {obj} will be free from material defects for {n} months after delivery.",
    "Upon termination the {b} {modal} return or destroy all copies of {obj} within {n} days.",
    "The {a} {modal} indemnify the {b} against all losses arising from a breach of this clause {n}.",
    "Any dispute {modal} first be referred to the senior officers of the parties for {n} days.",
    "The {b} acknowledges that the {a} is not responsible for the sufficiency of the {b}'s own data.",
    'The "{term}" is the period of {n} years beginning on the date of the first shipment.',
    "Fees are exclusive of VAT, which the {b} {modal} pay at the rate in force on {day} {month} {year}.",
    "The {a} {modal} appoint a qualified officer to supervise the efficient flow of work under this Agreement.",
    "Without limiting clause {n}, the {b} {modal} comply with all applicable export control laws.",
    "The {a} {modal} keep accurate books and records and allow an audit once in any {n}-month period.",
    "If the {b} fails to pay any sum when due, the {a} {modal} suspend performance on {n} days' notice.",
]
TERMS = [
    "Territory",
    "Products",
    "Term",
    "Affiliate",
    "Field",
    "Effective Date",
    "Specifications",
]


def _fill(template: str, rng: random.Random) -> str:
    a, b = rng.choice(PARTIES)
    if rng.random() < 0.5:
        a, b = b, a
    return template.format(
        a=a,
        b=b,
        modal=rng.choice(MODALS),
        obj=rng.choice(OBJECTS),
        n=rng.randint(2, 180),
        money=f"{rng.randint(1, 950) * 250:,}",
        pct=rng.choice(["2", "5", "7.5", "10", "12", "15", "25"]),
        term=rng.choice(TERMS),
        day=rng.randint(1, 28),
        month=rng.choice(MONTHS),
        year=rng.randint(2019, 2027),
    )


def make_document(rng: random.Random, sentences: int) -> str:
    """Clean contract-like prose: numbered paragraphs of template sentences."""
    paragraphs: list[str] = []
    count = 0
    clause = 1
    while count < sentences:
        size = rng.randint(3, 7)
        body = " ".join(_fill(rng.choice(TEMPLATES), rng) for _ in range(size))
        paragraphs.append(f"{clause}. {body}")
        clause += 1
        count += size
    return "\n\n".join(paragraphs)


# --- damage with provenance ------------------------------------------------------

Origin = list[int | None]


def _walk(
    text: str, step: Callable[[int, str], list[tuple[str, int | None]]]
) -> tuple[str, Origin]:
    out: list[str] = []
    origin: Origin = []
    for i, c in enumerate(text):
        for piece, source in step(i, c):
            out.append(piece)
            origin.append(source)
    return "".join(out), origin


def whitespace_damage(text: str, rng: random.Random) -> tuple[str, Origin]:
    """PDF-style layout: wrapped lines, CRLF, NBSP, double spaces, soft
    hyphens and line-break hyphenation inside long words."""

    def step(i: int, c: str) -> list[tuple[str, int | None]]:
        if c == " ":
            r = rng.random()
            if r < 0.12:
                return [("\n", i)]
            if r < 0.16:
                return [("\r", i), ("\n", None)]
            if r < 0.20:
                return [("\u00a0", i)]
            if r < 0.25:
                return [(" ", i), (" ", None)]
            return [(c, i)]
        if (
            c.isalpha()
            and 0 < i < len(text) - 1
            and text[i - 1].isalpha()
            and text[i + 1].isalpha()
        ):
            r = rng.random()
            if r < 0.01:
                return [(c, i), ("-", None), ("\n", None)]
            if r < 0.013:
                return [(c, i), ("\u00ad", None)]
            if r < 0.015:
                return [(c, i), ("\u200b", None)]
        return [(c, i)]

    return _walk(text, step)


def quote_mark_damage(text: str, rng: random.Random) -> tuple[str, Origin]:
    """Typographic quotes, apostrophes and dashes, as word processors set them."""
    opened = False

    def step(i: int, c: str) -> list[tuple[str, int | None]]:
        nonlocal opened
        if c == '"':
            opened = not opened
            return [("“" if opened else "”", i)]
        if c == "'":
            return [("’", i)]
        if c == "-":
            spaced = 0 < i < len(text) - 1 and text[i - 1] == " " and text[i + 1] == " "
            return [(rng.choice(["–", "—"]) if spaced else "‐", i)]
        return [(c, i)]

    return _walk(text, step)


LIGATURES = {"ffi": "ﬃ", "ffl": "ﬄ", "ff": "ﬀ", "fi": "ﬁ", "fl": "ﬂ"}


def ligature_damage(text: str, rng: random.Random) -> tuple[str, Origin]:
    """Every fi/fl/ff/ffi/ffl set as one ligature glyph, as PDF text often has."""
    out: list[str] = []
    origin: Origin = []
    i = 0
    while i < len(text):
        for clean, glyph in LIGATURES.items():
            if text.startswith(clean, i):
                out.append(glyph)
                origin.append(i)
                i += len(clean)
                break
        else:
            out.append(text[i])
            origin.append(i)
            i += 1
    return "".join(out), origin


# Glyph confusions of OCR engines (Tesseract/ABBYY error studies and the
# ICDAR 2017 post-OCR corpus): most errors are look-alike substitutions and
# segmentation errors.
CONFUSIONS = {
    "e": ["c", "o"],
    "c": ["e", "o"],
    "o": ["0", "c", "e"],
    "a": ["o", "e", "s"],
    "l": ["1", "I", "i"],
    "i": ["l", "1", "j"],
    "I": ["l", "1"],
    "h": ["b", "n", "li"],
    "b": ["h"],
    "n": ["u", "r", "ri"],
    "u": ["n", "v", "ii"],
    "m": ["rn", "nn"],
    "d": ["cl"],
    "w": ["vv"],
    "t": ["f", "l"],
    "f": ["t"],
    "r": ["n", "t"],
    "v": ["u", "y"],
    "y": ["v"],
    "g": ["q"],
    "q": ["g"],
    "s": ["a"],
    "O": ["0"],
    "S": ["s"],
    "C": ["G"],
}
# Share of each error type among damaged characters (documented in the report).
OCR_ERROR_MIX = {
    "confusion": 0.55,
    "space": 0.15,
    "punctuation": 0.10,
    "delete": 0.08,
    "insert": 0.07,
    "random": 0.05,
}


# Look-alike and segmentation errors only: what the matcher can tell apart
# from a different word. Arbitrary letter edits ("days" -> "dys") are refused
# by the guard by design (they look like "employer" -> "employee").
OCR_LOOKALIKE_MIX = {"confusion": 0.70, "space": 0.18, "punctuation": 0.12}


def ocr_damage(
    text: str,
    rng: random.Random,
    rate: float,
    *,
    damage_digits: bool = False,
    mix: dict[str, float] | None = None,
) -> tuple[str, Origin]:
    """Damage about `rate` of the characters with `mix` (OCR_ERROR_MIX by
    default). Digits are left alone unless `damage_digits`: the guard rejects
    any changed digit by design, which the traps measure separately."""
    mix = mix or OCR_ERROR_MIX
    kinds = list(mix)
    weights = list(mix.values())

    def step(i: int, c: str) -> list[tuple[str, int | None]]:
        if c.isdigit() and not damage_digits:
            return [(c, i)]
        if c == "\n" or rng.random() >= rate:
            return [(c, i)]
        kind = rng.choices(kinds, weights)[0]
        if kind == "space":
            if c == " ":
                return []
            return [(c, i), (" ", None)]
        if kind == "punctuation" and c in ",.;:'":
            swap = {",": ".", ".": ",", ";": ":", ":": ";", "'": ""}[c]
            return [(swap, i)] if swap else []
        if kind == "delete" and c.isalpha():
            return []
        if kind == "insert":
            return [(c, i), (rng.choice(["'", ",", ".", "l", "i"]), None)]
        if kind == "random" and c.isalpha():
            return [(rng.choice("abcdefghijklmnopqrstuvwxyz"), i)]
        if c.isdigit():
            return [(rng.choice("0123456789".replace(c, "")), i)]
        choices = CONFUSIONS.get(c)
        if not choices:
            return [(c, i)]
        replacement = rng.choice(choices)
        return [(ch, i) for ch in replacement]

    return _walk(text, step)


def expected_span(origin: Origin, start: int, end: int) -> tuple[int, int] | None:
    """Where clean [start, end) landed in the damaged text."""
    positions = [k for k, o in enumerate(origin) if o is not None and start <= o < end]
    if not positions:
        return None
    return positions[0], positions[-1] + 1


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    invisible = "\u00ad\u200b"
    while start < end and (text[start].isspace() or text[start] in invisible):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in invisible):
        end -= 1
    return start, end


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def write_results(name: str, payload: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    return path


# A word that negates what follows it: an ellipsis over one says the
# opposite of the source, so such gaps are traps, never positives.
NEGATING = re.compile(
    r"\b(?:not|no|never|neither|nor|none|nothing|without|unless|except|cannot|\w+n't)\b",
    re.IGNORECASE,
)


def negated_start(doc: str, start: int, end: int | None = None) -> bool:
    """Does a span starting at `start` (and ending at `end`) leave out a
    negation governing it, or cut one off after it, as the product reads
    them (citations.cascade.context)? Such a quote says the opposite of the
    text: a trap, never a positive."""
    if end is None:
        return negation_before(doc, start) is not None
    return dropped_negation(doc, start, end) is not None
