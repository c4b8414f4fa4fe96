"""Quote verification quality: recall, exact offsets, and traps that must fail.

    .venv/bin/python bench/verification_eval.py [--corpus ../shared/corpus] [--cases 1200] [--quick]

Built-in prose (contract-like sentences, bench/_common.py) gives, per kind:

  verbatim            the quote copied from the document
  whitespace          the document has PDF-style line breaks, CRLF, NBSP, double
                      spaces, soft hyphens and line-break hyphenation
  quotes_dashes       the document has typographic quotes, apostrophes, dashes
  ligatures           the document has ﬁ ﬂ ﬀ ﬃ ﬄ glyphs
  ocr_2pct, ocr_5pct  2% / 5% of the document's characters damaged with the OCR
                      error mix of _common.OCR_ERROR_MIX (digits spared: the
                      guard rejects changed digits by design; ocr_5pct_digits
                      shows that). 13% of those errors are arbitrary letter
                      deletions/substitutions, which the guard refuses on
                      purpose; ocr_5pct_lookalike has look-alike, spacing and
                      punctuation errors only.
  elided              "... " / "…" / "[...]" / "[t]he" quotes of a clean document

and traps that must never verify: a changed number, an added or dropped
negation, a negation left out by starting just after it or by an ellipsis
over it ("amendment ... shall be effective" from "No amendment ... shall be
effective"; such spans are never drawn as positives), a changed modal verb, swapped parties, one word swapped for a common
word one edit away ("goods"/"gods"), 20% of words replaced, a
sentence from another document, a frankenquote (halves of two sentences), an
elided frankenquote (parts far apart), and a real sentence cited to the wrong
source (verify_cited_quote), and a quote that drops a negation or modal verb
the document ran into the next or previous word ("partywill be liable" quoted
as "party be liable"; guard_word_run_in). Traps run against the clean document
and its 2% OCR copy, so the fuzzy path and its guard are exercised.

With a corpus (--corpus or DOCUIQ_CORPUS):
  cuad   expert clause spans copied from CUAD's .txt, looked up in the text
         pypdfium2 extracts from the same contract's PDF (other quotes,
         dashes, whitespace, page headers). "Right place" means the span's
         relative position matches the clause's within 3% of the document.
         The page offsets are passed, as the product does. Trap: the last
         words of a page's body run into the running footer or header that
         follows ("...pursuant to Article V. Source: CONFORMIS INC,"), with
         how many the text alone, without its pages, would have verified.
         The expected span in the PDF's text is where the clause's characters
         (whitespace aside, quotation marks and dashes made plain) occur in
         order; any such occurrence is a right place.
  cuad_model_style
         CUAD clauses (15 words or more, one paragraph) against their .txt,
         quoted the way models quote them: whitespace collapsed, quotation
         marks and apostrophes made curly, and one whole phrase left out with
         "..." or "…" (a parenthesis, or a stretch between two commas, of
         2-20 words, 4 words kept either side; not a number's or a date's
         comma). A positive only when the phrase carries nothing the kept
         words depend on, by this file's own word lists: no negation, no
         condition, limit, bound or exclusion, no modal verb, and the quote
         does not resume with one ("..., except upon notice"). When the
         phrase holds a negation, the quote is the trap
         trap_cuad_elided_negation.
  cuad_verbatim
         Word-aligned passages (60-300 characters) of the .txt, against the
         .txt: real text quoted verbatim. A passage whose sentence has a
         negation or a reversing verb before it, or one just after it, is left
         out (NEGATING, _REVERSING: it may say the opposite of its source).
  icdar  clean ground-truth passages of ICDAR 2017 English monographs looked up
         in the raw OCR text; the exact span is computed from the character
         alignment. Reported overall and by the passage's character error rate.
Without a corpus these kinds print "skipped".

"exact" means start and end equal the expected span (after trimming
whitespace); "near" means both are within 3 characters; "located" means the
verified span, or a failed verdict's candidate (the passage it found and
refused), is within 3 characters of it; "wrong" counts verifications
elsewhere (false verifications of a positive). Each failure's kind is
counted (differs: the passage was found and a rule refused what it says;
not_found). Real-text kinds also report the time per quote (median, p95).
Results go to bench/results/verification.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import sys
import time
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rapidfuzz.distance import Levenshtein

from bench._common import (
    NEGATING,
    OCR_LOOKALIKE_MIX,
    PARTIES,
    expected_span,
    ligature_damage,
    make_document,
    negated_start,
    ocr_damage,
    percentile,
    quote_mark_damage,
    trim,
    whitespace_damage,
    write_results,
)
from citations.cascade import SourceText, verify_cited_quote, verify_quote
from citations.cascade.folding import fold_text
from citations.cascade.guards import CURRENCY, DATE, NUMBER, PERCENT, features

WORD = re.compile(r"\S+")


def _within_3(span: tuple[int, int], expected) -> bool:
    """Is `span` within 3 characters of `expected` (a span, or a list of
    the places the quote may rightly be found)?"""
    places = expected if isinstance(expected, list) else [expected]
    return any(abs(span[0] - e[0]) <= 3 and abs(span[1] - e[1]) <= 3 for e in places)


def timed_verify(tally: Tally, kind: str, text: str, quote: str, **options):
    """verify_quote, its time (ms) kept for the kind's p95: the corpus
    kinds are real documents, where the issue sets a time per quote."""
    started = time.perf_counter()
    verdict = verify_quote(text, quote, **options)
    tally.times[kind].append((time.perf_counter() - started) * 1000)
    return verdict


class Tally:
    def __init__(self) -> None:
        self.times: dict[str, list[float]] = defaultdict(list)
        self.kinds: dict[str, dict] = defaultdict(
            lambda: {
                "n": 0,
                "verified": 0,
                "with_offsets": 0,
                "exact": 0,
                "near": 0,
                "located": 0,
                "wrong_place": 0,
                "methods": defaultdict(int),
                "failure_kinds": defaultdict(int),
                "rules": defaultdict(int),
            }
        )
        self.misses: dict[str, list] = defaultdict(list)

    def positive(self, kind: str, text: str, quote: str, expected, verdict) -> None:
        """One quote that should verify. `expected`: its span (or a list of
        the spans it may rightly be found at), None when unknown. Located:
        the verified span, or a failure's candidate, within 3 characters of
        it; a verification elsewhere is a wrong place."""
        row = self.kinds[kind]
        row["n"] += 1
        row["with_offsets"] += int(expected is not None)
        row["methods"][verdict.match_type] += 1
        if not verdict.verified:
            row["failure_kinds"][verdict.failure_kind] += 1
            row["rules"][getattr(verdict, "rule", None)] += 1
            if expected is not None and verdict.candidate_start is not None:
                candidate = (verdict.candidate_start, verdict.candidate_end)
                row["located"] += int(_within_3(candidate, expected))
            if len(self.misses[kind]) < 5:
                # Real text's misses whole, to read them again.
                shown = 600 if kind.startswith(("cuad", "icdar")) else 160
                self.misses[kind].append(
                    {"quote": quote[:shown], "reason": verdict.reason[:200]}
                )
            return
        row["verified"] += 1
        assert text[verdict.start : verdict.end] == verdict.source_text
        if expected is None:
            return
        first = expected[0] if isinstance(expected, list) else expected
        if (verdict.start, verdict.end) == tuple(first):
            row["exact"] += 1
        if _within_3((verdict.start, verdict.end), expected):
            row["near"] += 1
            row["located"] += 1
        else:
            row["wrong_place"] += 1
            if len(self.misses[kind + ":offsets"]) < 5:
                self.misses[kind + ":offsets"].append(
                    {
                        "quote": quote[:120],
                        "expected": text[first[0] : first[1]][:120],
                        "found": verdict.source_text[:120],
                    }
                )

    def trap(self, kind: str, quote: str, verdict) -> None:
        row = self.kinds[kind]
        row["n"] += 1
        row["methods"][verdict.match_type] += 1
        if not verdict.verified:
            row["failure_kinds"][verdict.failure_kind] += 1
            row["rules"][getattr(verdict, "rule", None)] += 1
        if verdict.verified:
            row["verified"] += 1
            self.misses[kind].append(
                {"quote": quote[:200], "found": verdict.source_text[:200]}
            )

    def summary(self) -> dict:
        out = {}
        for kind, row in self.kinds.items():
            n = row["n"] or 1
            located = row["with_offsets"]
            out[kind] = {
                "n": row["n"],
                "verified": row["verified"],
                "recall": round(row["verified"] / n, 4),
                # Share of all cases found at exactly / within 3 chars of the
                # expected span; None where the corpus gives no exact span.
                "exact_offsets": round(row["exact"] / located, 4) if located else None,
                "near_offsets": round(row["near"] / located, 4) if located else None,
                # Verified or failed, with the verified span or the failure's
                # candidate within 3 characters of the expected span.
                "located": round(row["located"] / located, 4) if located else None,
                # Verified, but not within 3 characters of the expected span.
                "wrong_place": row["wrong_place"] if located else None,
                "match_types": dict(row["methods"]),
                "failure_kinds": dict(row["failure_kinds"]),
                # Which rule refused, by id (rules.py), most first.
                "refused_by": dict(
                    sorted(row["rules"].items(), key=lambda kv: (-kv[1], str(kv[0])))
                ),
            }
            if self.times.get(kind):
                out[kind]["ms_median"] = round(percentile(self.times[kind], 50), 2)
                out[kind]["ms_p95"] = round(percentile(self.times[kind], 95), 2)
        return out


# --- built-in prose ------------------------------------------------------------


def _quote_spans(doc: str, rng: random.Random, count: int, lo: int = 80, hi: int = 400):
    """Word-aligned spans of lo..hi characters inside one paragraph, unique in doc."""
    paragraphs = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", doc)]
    folded_doc = fold_text(doc)
    spans = []
    attempts = 0
    while len(spans) < count and attempts < count * 20:
        attempts += 1
        p0, p1 = rng.choice(paragraphs)
        words = [(m.start() + p0, m.end() + p0) for m in WORD.finditer(doc[p0:p1])]
        if len(words) < 4:
            continue
        i = rng.randrange(len(words))
        j = i
        while j + 1 < len(words) and words[j + 1][1] - words[i][0] <= hi:
            j += 1
            if words[j][1] - words[i][0] >= lo and rng.random() < 0.15:
                break
        start, end = words[i][0], words[j][1]
        if end - start < lo or negated_start(doc, start, end):
            continue
        if folded_doc.count(fold_text(doc[start:end])) != 1:
            continue
        spans.append((start, end))
    return spans


def _sentences(doc: str) -> list[tuple[int, int]]:
    return [
        (m.start(), m.end())
        for m in re.finditer(r"[A-Z][^.\n]*(?:\.\d[^.\n]*)*\.", doc)
    ]


def run_prose(tally: Tally, rng: random.Random, cases: int) -> None:
    # Many documents, a few dozen quotes each: quotes of one damaged document
    # overlap and share its damage, so six documents of 200 quotes measured
    # a few hundred independent cases (recall swung 96-99% between seeds).
    documents = [make_document(rng, 120) for _ in range(max(6, cases // 50))]
    damages = {
        "whitespace": lambda t: whitespace_damage(t, rng),
        "quotes_dashes": lambda t: quote_mark_damage(t, rng),
        "ligatures": lambda t: ligature_damage(t, rng),
        "ocr_2pct": lambda t: ocr_damage(t, rng, 0.02),
        "ocr_5pct": lambda t: ocr_damage(t, rng, 0.05),
        "ocr_5pct_digits": lambda t: ocr_damage(t, rng, 0.05, damage_digits=True),
        "ocr_5pct_lookalike": lambda t: ocr_damage(t, rng, 0.05, mix=OCR_LOOKALIKE_MIX),
    }
    per_doc = max(1, cases // len(documents))
    for doc in documents:
        for start, end in _quote_spans(doc, rng, per_doc):
            quote = doc[start:end]
            tally.positive(
                "verbatim", doc, quote, (start, end), verify_quote(doc, quote)
            )
        for kind, damage in damages.items():
            damaged, origin = damage(doc)
            for start, end in _quote_spans(doc, rng, per_doc):
                quote = doc[start:end]
                span = expected_span(origin, start, end)
                expected = trim(damaged, *span) if span else None
                verdict = verify_quote(damaged, quote)
                tally.positive(kind, damaged, quote, expected, verdict)
    run_elisions(tally, rng, documents, per_doc)
    run_traps(tally, rng, documents, per_doc)


ELLIPSES = ["...", "…", "[...]", "[…]", ". . ."]

# Which built-in elisions are traps rather than positives, as the engine read
# them when these cases were drawn (a copy of elision.REVERSING_NEAR_END and
# elision.elided_amount as of issue 3): the cases stay the same whatever the
# engine's rules become.
_REVERSING_AT_GAP_END = re.compile(
    r"\b(?:exclud\w*|other\s+than|save\s+for|apart\s+from"
    r"|(?:fail|refus|neglect|omit|ceas|declin|unable)\w*\s+to"
    r"|(?:refrain|prohibit|forbid|barred|preclud|prevent|restrict|enjoin|exempt"
    r"|excus|reliev|releas|abstain|desist)\w*\s+from|unable\s+to"
    r"|at\s+(?:least|most)|up[\s-]+to|(?:maximum|minimum)(?:\s+of)?|prior\s+to"
    r"|only|solely|excl\.?|less|minus|net\s+of|in\s+excess\s+of|exclusive\s+of"
    r"|with\s+the\s+exception\s+of|instead\s+of|in\s+lieu\s+of|besides|barring"
    r"|deducting|after\s+deduction\s+of|reduced\s+by"
    r"|(?:cease|stop|avoid)(?:s|d|ed)?|disclaim\w*|waiv\w*|beyond"
    r"|(?:a\s+)?(?:portion|part|fraction)\s+of|partial\w*|partly|jointly"
    r"|save|subject\s+to|provided\s+that"
    r"|un(?!less\b|til\b|der|it|ion|iform|ique|iversal|ivers|animous|ify)\w{4,}"
    r"|non-?\w{4,})"
    r"(?:[^\w.;:!?]+[\w'\u2019-]+){0,5}[^\w.;:!?]*\Z",
    re.IGNORECASE,
)
_AMOUNT_KINDS = frozenset({NUMBER, PERCENT, CURRENCY, DATE})


def _elided_amount(gap: str) -> bool:
    return any(f.kind in _AMOUNT_KINDS for f in features(fold_text(gap)))


def run_elisions(
    tally: Tally, rng: random.Random, documents: list[str], per_doc: int
) -> None:
    for doc in documents:
        folded_doc = fold_text(doc)
        sentences = [
            s for s in _sentences(doc) if len(WORD.findall(doc[s[0] : s[1]])) >= 12
        ]
        for start, end in rng.sample(sentences, min(per_doc, len(sentences))):
            words = [
                (m.start() + start, m.end() + start)
                for m in WORD.finditer(doc[start:end])
            ]
            i = rng.randint(3, len(words) - 5)
            j = rng.randint(i + 1, min(len(words) - 3, i + 10))
            head = doc[words[0][0] : words[i - 1][1]]
            tail = doc[words[j][0] : words[-1][1]]
            gap = doc[words[i - 1][1] : words[j][0]]
            if (
                NEGATING.search(gap)
                or _REVERSING_AT_GAP_END.search(gap)
                or _elided_amount(gap)
            ):
                # An ellipsis over a negation, over "fails to" right before
                # the words it governs, or over an amount, changes what the
                # source says: a trap.
                continue
            if (
                folded_doc.count(fold_text(head)) != 1
                or folded_doc.count(fold_text(tail)) != 1
            ):
                continue  # a templated sentence elsewhere makes the place ambiguous
            quote = f"{head} {rng.choice(ELLIPSES)} {tail}"
            if rng.random() < 0.3 and head.startswith("The "):
                quote = "[t]" + quote[1:]
            verdict = verify_quote(doc, quote)
            tally.positive("elided", doc, quote, (words[0][0], words[-1][1]), verdict)


SWAPS = {a: b for pair in PARTIES for a, b in (pair, pair[::-1])}
MODAL_SWAPS = {
    "shall": "may",
    "may": "shall",
    "must": "may",
    "will": "may",
    "should": "must",
}


@lru_cache(maxsize=1)
def _speller():
    from spellchecker import SpellChecker

    return SpellChecker(language="en")


def _near_word(sentence: str, rng: random.Random) -> str | None:
    """The sentence with one word swapped for a common English word one edit
    away ("goods" -> "gods", "form" -> "from"): what OCR-damage tolerance
    must never read as the same word."""
    speller = _speller()
    # Whole words only: "ield" of "Field" would make a non-word ("Fheld").
    words = list(re.finditer(r"\b[a-z]{4,}\b", sentence))
    for m in rng.sample(words, len(words)):
        near = sorted(
            w
            for w in speller.edit_distance_1(m.group())
            # Same length (a letter changed or two swapped): the real-word
            # errors; an inserted or dropped letter mostly makes a misspelling.
            if w != m.group()
            and len(w) == len(m.group())
            and w.isalpha()
            and speller.word_frequency[w] >= 1000
        )
        if near:
            return sentence[: m.start()] + rng.choice(near) + sentence[m.end() :]
    return None


def _trap_quotes(
    doc: str, other: str, rng: random.Random, count: int
) -> dict[str, list[str]]:
    sentences = [doc[a:b] for a, b in _sentences(doc)]
    traps: dict[str, list[str]] = defaultdict(list)
    folded_doc = fold_text(doc)
    vocabulary = sorted({w for s in sentences for w in WORD.findall(s)})
    for sentence in rng.sample(sentences, min(count, len(sentences))):
        numbers = list(re.finditer(r"\d+", sentence))
        if numbers:
            m = rng.choice(numbers)
            value = int(m.group())
            changed = (
                str(value + rng.randint(1, 9))
                if rng.random() < 0.5
                else m.group() + "0"
            )
            traps["trap_number"].append(
                sentence[: m.start()] + changed + sentence[m.end() :]
            )
        modal = re.search(r"\b(shall|may|must|will|should)\b(?! not)", sentence)
        if modal:
            traps["trap_negation_added"].append(
                sentence[: modal.end()] + " not" + sentence[modal.end() :]
            )
            swapped = MODAL_SWAPS[modal.group()]
            traps["trap_modal"].append(
                sentence[: modal.start()] + swapped + sentence[modal.end() :]
            )
        if " not " in sentence:
            traps["trap_negation_dropped"].append(sentence.replace(" not ", " ", 1))
            head, tail = sentence.split(" not ", 1)
            if len(head.split()) >= 3 and len(tail.split()) >= 3:
                traps["trap_negation_elided"].append(f"{head} ... {tail}")
        negation = NEGATING.search(sentence)
        if negation:
            rest = sentence[negation.end() :].strip()
            # Only where every occurrence follows the negation: elsewhere the
            # same words may be quoted as they stand.
            if len(rest.split()) >= 4 and folded_doc.count(fold_text(rest)) == 1:
                traps["trap_negation_cut_off"].append(rest)
        party = re.search(r"\b(" + "|".join(SWAPS) + r")\b", sentence)
        if party:
            swapped = SWAPS[party.group()]
            traps["trap_party"].append(
                sentence[: party.start()] + swapped + sentence[party.end() :]
            )
        near = _near_word(sentence, rng)
        if near:
            traps["trap_near_word"].append(near)
        words = sentence.split()
        if len(words) >= 10:
            replaced = list(words)
            for k in rng.sample(range(len(words)), max(2, len(words) // 5)):
                replaced[k] = rng.choice(vocabulary)
            if replaced != words:
                traps["trap_words_20pct"].append(" ".join(replaced))
    other_sentences = [other[a:b] for a, b in _sentences(other)]
    for sentence in rng.sample(other_sentences, min(count, len(other_sentences))):
        traps["trap_other_document"].append(sentence)
    for _ in range(count):
        s1, s2 = rng.sample(sentences, 2)
        w1, w2 = s1.split(), s2.split()
        traps["trap_frankenquote"].append(
            " ".join(w1[: len(w1) // 2] + w2[len(w2) // 2 :])
        )
        (a1, b1), (a2, b2) = sorted(rng.sample(_sentences(doc), 2))
        unique = all(
            folded_doc.count(fold_text(doc[a:b])) == 1 for a, b in ((a1, b1), (a2, b2))
        )
        if a2 - b1 > 1000 and unique:
            traps["trap_elided_far"].append(f"{doc[a1:b1]} ... {doc[a2:b2]}")
    # A trap that happens to be a real sentence of the document is no trap.
    return {
        kind: [
            q
            for q in quotes
            if kind == "trap_negation_cut_off" or fold_text(q) not in folded_doc
        ]
        for kind, quotes in traps.items()
    }


GUARD_WORD = re.compile(
    r"\b(?:shall|may|must|will|should|not|no|never|without|unless|except|nor|"
    r"neither|cannot)\b",
    re.IGNORECASE,
)


def _run_in(doc: str, rng: random.Random, count: int) -> tuple[str, list[str]]:
    """`doc` with a guard word run into the word before or after it in up to
    `count` sentences, as OCR that lost a space writes it ("partywill be
    liable"), and for each the sentence without that guard word ("party be
    liable"): a quote that drops it."""
    folded_doc = fold_text(doc)
    pieces, quotes, position = [], [], 0
    spans = _sentences(doc)
    for start, end in sorted(rng.sample(spans, min(count, len(spans)))):
        sentence = doc[start:end]
        found = [
            m
            for m in GUARD_WORD.finditer(sentence)
            if m.start() > 0
            and sentence[m.start() - 1] == " "
            and sentence[m.end() : m.end() + 1] == " "
        ]
        if not found:
            continue
        m = rng.choice(found)
        if rng.random() < 0.5:
            joined = sentence[: m.start() - 1] + sentence[m.start() :]
        else:
            joined = sentence[: m.end()] + sentence[m.end() + 1 :]
        quote = sentence[: m.start()] + sentence[m.end() + 1 :]
        if fold_text(quote) in folded_doc:
            continue
        pieces += [doc[position:start], joined]
        position = end
        quotes.append(quote)
    pieces.append(doc[position:])
    return "".join(pieces), quotes


def run_traps(
    tally: Tally, rng: random.Random, documents: list[str], per_doc: int
) -> None:
    for index, doc in enumerate(documents):
        other = documents[(index + 1) % len(documents)]
        damaged, _ = ocr_damage(doc, rng, 0.02)
        traps = _trap_quotes(doc, other, rng, per_doc)
        for kind, quotes in traps.items():
            for quote in quotes:
                tally.trap(kind, quote, verify_quote(doc, quote))
                tally.trap(kind + "_ocr", quote, verify_quote(damaged, quote))
        # A generator of their own: the other kinds' cases stay as they were.
        own = random.Random(f"run-in {index}")
        run_in, quotes = _run_in(doc, own, per_doc)
        run_in_damaged, _ = ocr_damage(run_in, own, 0.02)
        for quote in quotes:
            tally.trap("trap_guard_word_run_in", quote, verify_quote(run_in, quote))
            tally.trap(
                "trap_guard_word_run_in_ocr", quote, verify_quote(run_in_damaged, quote)
            )
        cited = SourceText("S1", doc)
        source = SourceText("S2", other)
        for a, b in rng.sample(_sentences(other), min(per_doc, len(_sentences(other)))):
            quote = other[a:b]
            if fold_text(quote) in fold_text(doc):
                continue
            verdict = verify_cited_quote(quote, cited=cited, others=[source])
            tally.trap("trap_wrong_source", quote, verdict)
            tally.kinds["trap_wrong_source"]["flagged_mis_attributed"] = tally.kinds[
                "trap_wrong_source"
            ].get("flagged_mis_attributed", 0) + int(verdict.found_in == "S2")


# --- corpus: CUAD ---------------------------------------------------------------


_MARKS = str.maketrans("\u2018\u2019\u201c\u201d\u2010\u2011\u2013\u2014", "''\"\"----")


def _letters(text: str) -> tuple[str, list[int]]:
    """The characters of `text` but whitespace, lowercased, quotation marks
    and dashes made plain, and where each is."""
    kept = [
        (c.lower(), i) for i, c in enumerate(text.translate(_MARKS)) if not c.isspace()
    ]
    return "".join(c for c, _ in kept), [i for _, i in kept]


def _pdf_spans(letters: str, at: list[int], quote: str) -> list[tuple[int, int]] | None:
    """Where CUAD's clause is in the PDF's text: its characters but
    whitespace in the same order, nothing else between them (a page header
    inside it leaves it unknown); every occurrence is a right place.
    Independent of the product's folding."""
    key, _ = _letters(quote)
    found, i = [], letters.find(key) if key else -1
    while i >= 0:
        found.append((at[i], at[i + len(key) - 1] + 1))
        i = letters.find(key, i + 1)
    return found or None


def _gold_spans(txt: str, span: dict) -> list[tuple[int, int]]:
    """Every place of a CUAD clause in its .txt, trimmed of whitespace."""
    return [trim(txt, s, s + len(span["text"])) for s in span["all_starts"]]


# --- CUAD clauses quoted as models quote them -----------------------------------

# Words that make an elided phrase carry what the kept words depend on: a
# negation (NEGATING), a condition or limit, a bound, an exclusion. An
# elision over one of them is no positive (over a negation, a trap). The
# eval's own list, not the engine's.
_CONDITION_WORDS = re.compile(
    r"\b(?:if|unless|provided|subject\s+to|only|solely|until|except\w*|exclud\w*"
    r"|other\s+than|to\s+the\s+(?:\w+\s+)?extent|(?:so|as)\s+long\s+as"
    r"|in\s+the\s+event|prior\s+to|before|after|following|whether|when\w*"
    r"|where\w*|once|upon|conditional|contingent|at\s+(?:least|most)|up\s+to"
    r"|minimum|maximum|less|exceed\w*|portion|part\s+of|save|waiv\w*"
    r"|disclaim\w*|jointly|notwithstanding|but|exclusive\s+of|in\s+excess"
    r"|knowledge)\b",
    re.IGNORECASE,
)
_MODAL = re.compile(
    r"\b(?:shall|may|must|will|should|would|can|could|might|ought)\b", re.IGNORECASE
)
_SENTENCE_INSIDE = re.compile(r"[.;:!?](?:\s|$)")


def _curly(text: str) -> str:
    """Straight quotation marks and apostrophes set as a model writes them."""
    out, opened = [], False
    for c in text:
        if c == '"':
            opened = not opened
            out.append("\u201c" if opened else "\u201d")
        else:
            out.append("\u2019" if c == "'" else c)
    return "".join(out)


def _phrases(flat: str) -> list[tuple[int, int]]:
    """Whole phrases of a clause: each balanced parenthesis, and each stretch
    between two commas, with its marks; 2-20 words, at least 4 words kept
    either side, no sentence end inside, and no comma of a number or a
    date ("100,000", "December 31, 2020")."""
    found = [(m.start(), m.end()) for m in re.finditer(r"\([^()]*\)", flat)]
    commas = [m.start() for m in re.finditer(",", flat)]
    found += [
        (a, b + 1)
        for a, b in itertools.pairwise(commas)
        if flat[a:b].count("(") == flat[a:b].count(")")
    ]
    out = []
    for a, b in found:
        gap, head, tail = flat[a:b], flat[:a], flat[b:]
        if not (2 <= len(gap.split()) <= 20):
            continue
        if len(head.split()) < 4 or len(tail.split()) < 4:
            continue
        if _SENTENCE_INSIDE.search(gap[:-1]):
            continue
        if head[-1:].isdigit() or tail.lstrip()[:1].isdigit():
            continue
        out.append((a, b))
    return out


def model_style_quotes(clause: str, rng: random.Random) -> tuple[str, str] | None:
    """(kind, quote): the clause as a model quotes it, whitespace collapsed,
    straight quotes made curly, one whole phrase left out with an ellipsis.
    "cuad_model_style" when the phrase carries nothing the kept words depend
    on; "trap_cuad_elided_negation" when it carries a negation (the quote then
    says more than the source); None when neither."""
    if len(clause.split()) < 15 or re.search(r"\n\s*\n", clause):
        return None
    flat = " ".join(clause.split())
    chosen = []
    for a, b in _phrases(flat):
        gap, tail = flat[a:b], flat[b:].lstrip(" ,;")
        if NEGATING.search(gap):
            chosen.append(("trap_cuad_elided_negation", a, b))
        elif not (
            _CONDITION_WORDS.search(gap)
            or _MODAL.search(gap)
            or _CONDITION_WORDS.match(tail)  # "..., except upon notice"
        ):
            chosen.append(("cuad_model_style", a, b))
    if not chosen:
        return None
    kind, a, b = rng.choice(chosen)
    # A semicolon after the phrase is the clause's, and stays.
    head, tail = flat[:a].rstrip(" ,;"), flat[b:].lstrip(" ,")
    return kind, _curly(f"{head} {rng.choice(['...', '…'])} {tail}")


def run_cuad_model_style(
    tally: Tally, txt: str, record: dict, rng: random.Random
) -> None:
    for category in record["categories"]:
        for span in category["spans"]:
            made = model_style_quotes(span["text"], rng)
            if made is None:
                continue
            kind, quote = made
            verdict = timed_verify(tally, kind, txt, quote)
            if kind.startswith("trap_"):
                tally.trap(kind, quote, verdict)
            else:
                tally.positive(kind, txt, quote, _gold_spans(txt, span), verdict)


# A negation or a word that reverses what follows, in the eval's reading:
# a verbatim quote that starts after one in its sentence, or stops just
# before one, may say the opposite of its source, so it is no positive.
_REVERSING = re.compile(
    r"\b(?:(?:fail\w*|refus\w*|unable|ceas\w*)\s+to|absent)\b", re.I
)
_SENTENCE_START = re.compile(r"[.;:!?](?:\s|$)|\n\s*\n")


def run_cuad_verbatim(tally: Tally, txt: str, rng: random.Random, count: int) -> None:
    """Verbatim word-aligned passages of real contract text (60-300
    characters), against the text they come from. Left out, as no positives:
    a passage whose sentence has a negation or reversing verb before it, or
    one just after it (NEGATING, _REVERSING: the eval's reading)."""
    words = [(m.start(), m.end()) for m in WORD.finditer(txt)]
    drawn = 0
    for _ in range(count * 20):
        if drawn == count or len(words) < 10:
            return
        i = rng.randrange(len(words) - 5)
        j = i
        while j + 1 < len(words) and words[j + 1][1] - words[i][0] <= 300:
            j += 1
            if words[j][1] - words[i][0] >= 60 and rng.random() < 0.1:
                break
        start, end = words[i][0], words[j][1]
        if end - start < 60:
            continue
        before = _SENTENCE_START.split(txt[max(0, start - 400) : start])[-1]
        after = " ".join(_SENTENCE_START.split(txt[end : end + 60])[0].split()[:3])
        if (
            NEGATING.search(before)
            or _REVERSING.search(before)
            or NEGATING.search(after)
        ):
            continue
        drawn += 1
        quote = txt[start:end]
        # Boilerplate repeats itself: each occurrence is a right place.
        places = [(m.start(), m.end()) for m in re.finditer(re.escape(quote), txt)]
        verdict = timed_verify(tally, "cuad_verbatim", txt, quote)
        tally.positive("cuad_verbatim", txt, quote, places, verdict)


def run_cuad(tally: Tally, corpus: Path, rng: random.Random, per_contract: int) -> None:
    import pypdfium2

    base = corpus / "cuad"
    # Its own generator, so the other kinds draw the same samples as before.
    traps_rng = random.Random(repr(rng.getstate()[1][:4]))
    # And the kinds added later, theirs.
    model_rng = random.Random(f"model style {rng.getstate()[1][:4]}")
    verbatim_rng = random.Random(f"verbatim {rng.getstate()[1][:4]}")
    for line in (base / "gold_spans.jsonl").read_text().splitlines():
        record = json.loads(line)
        txt = (base / record["txt"]).read_text(encoding="utf-8", errors="replace")
        pdf = pypdfium2.PdfDocument(str(base / record["pdf"]))
        try:
            pages = [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
        finally:
            pdf.close()
        pdf_text = "\n".join(pages)
        page_starts = [0]
        for page in pages[:-1]:
            page_starts.append(page_starts[-1] + len(page) + 1)
        spans = [
            span
            for category in record["categories"]
            for span in category["spans"]
            if len(WORD.findall(span["text"])) >= 5
        ]
        letters, at = _letters(pdf_text)
        for span in rng.sample(spans, min(per_contract, len(spans))):
            quote = span["text"]
            kind = "cuad_pdf"
            verdict = timed_verify(
                tally, kind, pdf_text, quote, page_starts=page_starts
            )
            expected = _pdf_spans(letters, at, quote)
            tally.positive(kind, pdf_text, quote, expected, verdict)
            if verdict.verified:
                where = verdict.start / max(1, len(pdf_text))
                right = any(
                    abs(where - s / max(1, len(txt))) <= 0.03
                    for s in span["all_starts"]
                )
                tally.kinds[kind]["right_place"] = tally.kinds[kind].get(
                    "right_place", 0
                ) + int(right)
        folded_pdf = fold_text(pdf_text)
        for quote in page_furniture_traps(pages, traps_rng, per_contract):
            if folded_pdf.count(fold_text(quote)) > 1:
                continue  # the words also run on somewhere in the body
            verdict = verify_quote(pdf_text, quote, page_starts=page_starts)
            tally.trap("trap_page_furniture", quote, verdict)
            # What the text alone, without its pages, would have let through.
            row = tally.kinds["trap_page_furniture"]
            row["verified_without_pages"] = row.get("verified_without_pages", 0) + int(
                verify_quote(pdf_text, quote).verified
            )
        run_cuad_model_style(tally, txt, record, model_rng)
        run_cuad_verbatim(tally, txt, verbatim_rng, per_contract)


def _edge_lines(pages: list[str]) -> tuple[set[str], set[str]]:
    """Keys (digits aside) of lines that open or close at least three pages:
    the running headers and footers, found independently of the product's
    own rule (citations.cascade.furniture)."""
    tops: dict[str, int] = defaultdict(int)
    bottoms: dict[str, int] = defaultdict(int)
    for page in pages:
        lines = [line for line in page.splitlines() if line.strip()]
        for line in set(lines[:4]):
            tops[_line_key(line)] += 1
        for line in set(lines[-4:]):
            bottoms[_line_key(line)] += 1
    return {k for k, n in tops.items() if n >= 3}, {
        k for k, n in bottoms.items() if n >= 3
    }


def _line_key(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split())).casefold()


def page_furniture_traps(pages: list[str], rng: random.Random, n: int) -> list[str]:
    """Quotes that run the last words of a page's body into the words of the
    running footer or header that follows them ("...shall pay the fees of the
    Source: ACME INC"): whitespace joins them in the text, no page says it."""
    tops, bottoms = _edge_lines(pages)
    traps = []
    for k, page in enumerate(pages[:-1]):
        lines = [line for line in page.splitlines() if line.strip()]
        body = [
            i for i, line in enumerate(lines) if _line_key(line) not in bottoms | tops
        ]
        if not body:
            continue
        after = [line for line in lines[body[-1] + 1 :] if _line_key(line) in bottoms]
        after += [
            line
            for line in pages[k + 1].splitlines()[:3]
            if line.strip() and _line_key(line) in tops
        ]
        tail = WORD.findall(lines[body[-1]])[-6:]
        if sum(bool(re.search(r"[a-z]", w)) for w in tail) < 3:
            continue  # a heading or a filler line ("[PAGE INTENTIONALLY LEFT BLANK]")
        for line in after:
            head = WORD.findall(line)[:3]
            if (
                sum(bool(re.search(r"[^\W\d_]{2}", w)) for w in head) >= 2
                and len(tail) >= 4
            ):
                traps.append(" ".join(tail + head))
                break
    return rng.sample(traps, min(n, len(traps)))


# --- corpus: ICDAR 2017 OCR ------------------------------------------------------


def _icdar_file(path: str) -> tuple[str, str, str]:
    fields = {}
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        for key in ("[OCR_toInput]", "[OCR_aligned]", "[ GS_aligned]"):
            if line.startswith(key):
                fields[key] = line[len(key) + 1 :]
    return fields["[OCR_toInput]"], fields["[OCR_aligned]"], fields["[ GS_aligned]"]


def run_icdar(tally: Tally, corpus: Path, rng: random.Random, per_file: int) -> dict:
    by_cer: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for path in sorted((corpus / "ocr_icdar2017" / "eng_monograph").glob("*.txt")):
        raw, ocr_aligned, gs_aligned = _icdar_file(path)
        # raw offset of each aligned column ('@' in the OCR row is a gap).
        raw_at = []
        position = 0
        for c in ocr_aligned:
            raw_at.append(position)
            if c != "@":
                position += 1
        raw_at.append(position)
        starts = [m.start() for m in re.finditer(r"(?<![^ @])[^ @#]", gs_aligned)]
        for _ in range(per_file):
            if not starts:
                break
            c1 = rng.choice(starts)
            c2 = c1 + rng.randint(100, 300)
            ends = [
                m.end()
                for m in re.finditer(r"[^ @#](?=[ @])", gs_aligned[c1 : c2 + 40])
            ]
            if not ends:
                continue
            c2 = c1 + ends[-1]
            if "#" in gs_aligned[c1:c2] or "#" in ocr_aligned[c1:c2]:
                continue
            before = gs_aligned[:c1].replace("@", "")
            quote = gs_aligned[c1:c2].replace("@", "")
            told = gs_aligned.replace("@", "")
            if negated_start(told, len(before), len(before) + len(quote)):
                continue  # a passage cut just after "not" is a trap, not a quote
            expected = trim(raw, raw_at[c1], raw_at[c2])
            ocr_text = raw[expected[0] : expected[1]]
            cer = Levenshtein.distance(quote, ocr_text) / max(1, len(quote))
            bucket = (
                "cer<2%"
                if cer < 0.02
                else "cer<5%"
                if cer < 0.05
                else "cer<10%"
                if cer < 0.1
                else "cer>=10%"
            )
            verdict = timed_verify(tally, "icdar_ocr", raw, quote)
            tally.positive("icdar_ocr", raw, quote, expected, verdict)
            row = by_cer[bucket]
            row[0] += 1
            row[1] += int(verdict.verified)
            row[2] += int(verdict.verified and (verdict.start, verdict.end) == expected)
    return {
        bucket: {"n": n, "recall": round(v / n, 4), "exact_offsets": round(e / n, 4)}
        for bucket, (n, v, e) in sorted(by_cer.items())
    }


# --- report -------------------------------------------------------------------

TARGETS = {
    "verbatim": ("recall", 1.0),
    "whitespace": ("exact_offsets", 0.99),
    "quotes_dashes": ("exact_offsets", 0.99),
    "ligatures": ("exact_offsets", 0.99),
    # The issue's 5% OCR damage is OCR confusions (rn/m, l/1/I, 0/O...);
    # this kind has those plus dropped and added spaces and punctuation.
    "ocr_5pct_lookalike": ("recall", 0.97),
    # Issue 24: real text.
    "cuad_pdf": ("recall", 0.99),
    "cuad_model_style": ("recall", 0.99),
    "icdar_ocr": ("located", 0.99),
}
# The kinds that need the corpus: printed as skipped without it.
CORPUS_KINDS = {
    "cuad": ("cuad_pdf", "cuad_model_style", "cuad_verbatim"),
    "ocr_icdar2017": ("icdar_ocr",),
}
CORPUS_TRAPS = {"cuad": ("trap_cuad_elided_negation", "trap_page_furniture")}
# Measured, not a target: a fifth of this mix's errors are arbitrary letter
# edits ("on" -> "n", "the" -> "ohe"), which the guard refuses whenever the
# damaged token also reads as another word ("no", "one"): verifying those
# would be a guess. See README.
BEYOND_ISSUE_KINDS = {"ocr_5pct": ("recall", 0.97)}


# Known limits, printed but not counted in the zero: in a scanned text a
# look-alike real word cannot be told from damage (near_word) unless the
# document repeats the source's phrase and never writes the quote's, and OCR can
# wreck the very negation a quote leaves out ("Neither" read as "either", "No"
# as "ao", "not" as "yot") beyond recognition. Recognisable damage ("uot",
# "lnot", "W ithout", "N'either") is caught, and the clean variants count.
BEYOND_ISSUE_TRAPS = (
    "trap_near_word_ocr",
    "trap_negation_cut_off_ocr",
    "trap_negation_elided_ocr",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default=os.environ.get("DOCUIQ_CORPUS"))
    parser.add_argument(
        "--cases", type=int, default=1200, help="cases per built-in kind"
    )
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--per-contract", type=int, default=40)
    parser.add_argument("--per-file", type=int, default=12)
    parser.add_argument("--out", default="verification.json")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="60 cases per built-in kind, no corpus: proves the script runs",
    )
    args = parser.parse_args()
    if args.quick:
        args.cases, args.corpus = 60, None
    rng = random.Random(args.seed)
    tally = Tally()
    started = time.perf_counter()
    run_prose(tally, rng, args.cases)
    icdar_buckets = None
    corpus = Path(args.corpus) if args.corpus else None
    if corpus and (corpus / "cuad").exists():
        run_cuad(tally, corpus, rng, args.per_contract)
    if corpus and (corpus / "ocr_icdar2017").exists():
        icdar_buckets = run_icdar(tally, corpus, rng, args.per_file)
    summary = tally.summary()
    for kind, row in tally.kinds.items():
        for extra in (
            "right_place",
            "flagged_mis_attributed",
            "verified_without_pages",
        ):
            if extra in row:
                summary[kind][extra] = row[extra]
    traps = {k: v for k, v in summary.items() if k.startswith("trap_")}
    positives = {k: v for k, v in summary.items() if not k.startswith("trap_")}
    # The issue's traps must never verify. "Near word" against OCR'd text is
    # measured beside them, not in that count: there a look-alike real word
    # ("date" for "data") cannot be told from OCR damage (see README).
    false_verified = sum(
        v["verified"] for k, v in traps.items() if k not in BEYOND_ISSUE_TRAPS
    )
    beyond = {k: traps[k]["verified"] for k in BEYOND_ISSUE_TRAPS if k in traps}
    skipped = {
        kind
        for table in (CORPUS_KINDS, CORPUS_TRAPS)
        for folder, kinds in table.items()
        if not (corpus and (corpus / folder).exists())
        for kind in kinds
    }
    targets = {}
    for kind, (metric, goal) in TARGETS.items():
        if kind in skipped:
            continue
        value = positives.get(kind, {}).get(metric)
        targets[f"{kind}.{metric}>={goal}"] = value is not None and value >= goal
    targets["traps.verified==0"] = false_verified == 0

    print(
        f"{'kind':<22}{'n':>6}{'recall':>9}{'located':>9}{'exact':>9}{'near':>9}"
        f"{'wrong':>7}  match types; failures"
    )

    def rate(value: float | None) -> str:
        return f"{value:>9.3f}" if value is not None else f"{'n/a':>9}"

    for kind, row in positives.items():
        wrong = row["wrong_place"]
        print(
            f"{kind:<22}{row['n']:>6}{row['recall']:>9.3f}{rate(row['located'])}"
            f"{rate(row['exact_offsets'])}{rate(row['near_offsets'])}"
            f"{wrong if wrong is not None else 'n/a':>7}  {row['match_types']}"
            + (f"; {row['failure_kinds']}" if row["failure_kinds"] else "")
            + (f"  right place {row['right_place']}" if "right_place" in row else "")
        )
    for kind in sorted(skipped):
        if not kind.startswith("trap_"):
            print(f"{kind:<22}  skipped (no corpus: pass --corpus)")
    timed = {k: v for k, v in positives.items() if "ms_p95" in v}
    if timed:
        print(
            "time per quote (ms; a document's first quote also prepares it): "
            + "; ".join(
                f"{k} median {v['ms_median']:.2f}, p95 {v['ms_p95']:.2f}"
                for k, v in timed.items()
            )
        )
    if icdar_buckets:
        for bucket, row in icdar_buckets.items():
            print(
                f"  icdar {bucket:<14}{row['n']:>6}{row['recall']:>9.3f}{row['exact_offsets']:>9.3f}"
            )
    print(f"\n{'trap':<30}{'n':>6}{'verified (must be 0)':>22}")
    for kind in sorted(skipped):
        if kind.startswith("trap_"):
            print(f"{kind:<30}  skipped (no corpus: pass --corpus)")
    for kind, row in traps.items():
        print(
            f"{kind:<30}{row['n']:>6}{row['verified']:>22}"
            + (
                f"  (verified without its pages: {row['verified_without_pages']})"
                if "verified_without_pages" in row
                else ""
            )
        )
    print(f"\nfalse verifications: {false_verified}")
    unnamed = sum(row["refused_by"].get(None, 0) for row in summary.values())
    print(f"refusals without a rule id: {unnamed}")
    for kind, count in beyond.items():
        print(f"  not counted above (known limit): {kind} verified {count}")
    for goal, met in targets.items():
        print(f"target {goal}: {'met' if met else 'NOT MET'}")
    for kind, (metric, goal) in BEYOND_ISSUE_KINDS.items():
        value = positives.get(kind, {}).get(metric)
        print(
            f"not a target (arbitrary letter edits, see README): {kind}.{metric} "
            f"{value} (the issue's {goal} applies to OCR confusions)"
        )
    elapsed = time.perf_counter() - started
    print(f"({elapsed:.1f}s)")
    path = write_results(
        args.out,
        {
            "seed": args.seed,
            "cases_per_kind": args.cases,
            "corpus": str(corpus) if corpus else None,
            "positives": positives,
            "icdar_by_cer": icdar_buckets,
            "traps": traps,
            "false_verifications": false_verified,
            "refusals_without_rule": unnamed,
            "skipped": sorted(skipped),
            "known_limit_verified": beyond,
            "targets": targets,
            "examples_of_misses": dict(tally.misses),
            "seconds": round(elapsed, 1),
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
