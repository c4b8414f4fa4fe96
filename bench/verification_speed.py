"""Quote verification speed: stage 1 and stage 2 against documents of 10 KB-5 MB.

    .venv/bin/python bench/verification_speed.py [--up-to-1mb | --quick]

Documents: prose (contract-like sentences), tables of numbers, one clause of
boilerplate repeated, and low-entropy text (12 words). Quotes of 100, 200,
500 and 2,000 characters, word-aligned:

  stage1    the quote verbatim (exact_match)
  stage2    the passage in the document has 5% OCR damage (look-alikes,
            spacing, punctuation) and the quote is clean, so it needs the
            tolerant stage
  baseline  rapidfuzz.fuzz.partial_ratio_alignment(quote, whole text), the
            usual one-liner, on the stage-2 quotes (the first ones, within a
            time budget, each timed right after stage 2 on the same quote;
            the speedup compares medians over the same quotes)

Every document is folded and indexed once and cached (citations.cascade.
prepared); "warm" times search a cached document, "cold" times clear the cache
first, so they include folding and indexing the whole document. Both are
reported. Before anything is timed, the guard's word list is loaded (once
per process, not per document; its time is printed).
Stage-2 times are also split into "locate" (everything but the guard) and
"guard" (guards.numbered_difference), medians per quote. Separately, on 1 MB of
prose with 5% OCR damage in the document, it reports how many clean quotes
are placed with exact boundaries (stage 2's span, or for a quote the guard
then refused, the candidate it refused), and how many are verified with them.

The 200-char, 1 MB median is also measured on its own ("headline"): many
quotes, in a pass with nothing else between them; the 1 ms target is judged
on that one.

Targets: stage 2 <= 1 ms median for a 200-char quote in 1 MB (warm); stage 2
>= 10x faster than the baseline at every size; no warm case over 20 ms;
exact boundaries for >= 98% of quotes at 5% OCR noise (placed; the
baseline it is compared with has no guard). Results go to
bench/results/verification_speed.json. Timings are never asserted by tests.

--up-to-1mb leaves out the 5 MB documents and takes fewer quotes; --quick
(`make bench-quick`) runs every part on 10-100 KB with a handful of quotes,
in a few seconds, only proving the script runs and writes its JSON.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rapidfuzz import fuzz

from bench._common import (
    OCR_LOOKALIKE_MIX,
    expected_span,
    make_document,
    negated_start,
    ocr_damage,
    percentile,
    trim,
    write_results,
)
from citations.cascade import clear_cache, lexicon, tolerant, verify_quote

SIZES = {"10KB": 10_000, "100KB": 100_000, "1MB": 1_000_000, "5MB": 5_000_000}
QUOTE_LENGTHS = (100, 200, 500, 2000)


def prose(rng: random.Random, size: int) -> str:
    return make_document(rng, size // 110 + 10)[:size]


def table(rng: random.Random, size: int) -> str:
    rows = []
    total = 0
    while total < size:
        row = (
            f"| {rng.choice(['Q1', 'Q2', 'Q3', 'Q4'])} {rng.randint(2015, 2027)} "
            f"| {rng.randint(0, 9_999_999):,}.{rng.randint(0, 99):02d} "
            f"| {rng.randint(0, 999) / 10}% | {rng.randint(2015, 2027)}-{rng.randint(1, 12):02d}-"
            f"{rng.randint(1, 28):02d} | {rng.choice(['ACME Holdings', 'Globex Ltd', 'Initech'])} |"
        )
        rows.append(row)
        total += len(row) + 1
    return "\n".join(rows)[:size]


def boilerplate(rng: random.Random, size: int) -> str:
    clause = make_document(random.Random(7), 12)
    parts = []
    total = 0
    n = 1
    while total < size:
        part = f"Section {n}.\n{clause}"
        parts.append(part)
        total += len(part) + 2
        n += 1
    return "\n\n".join(parts)[:size]


def low_entropy(rng: random.Random, size: int) -> str:
    words = ["the", "of", "and", "to", "a", "in", "shall", "be", "party", "agreement"]
    out = []
    total = 0
    while total < size:
        word = rng.choice(words)
        out.append(word)
        total += len(word) + 1
    return " ".join(out)[:size]


KINDS = {
    "prose": prose,
    "table": table,
    "boilerplate": boilerplate,
    "low_entropy": low_entropy,
}


def quote_at(text: str, rng: random.Random, length: int) -> tuple[int, int]:
    start = rng.randrange(0, max(1, len(text) - length - 1))
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    # A span just after "not" or "No" is no quotation of the text (it leaves
    # the negation out): start at the next word.
    while negated_start(text, start):
        start = text.find(" ", start) + 1
    end = min(len(text), start + length)
    while end < len(text) and not text[end].isspace():
        end += 1
    # Nor one that stops just before "not": end a word later.
    while end < len(text) and negated_start(text, start, end):
        end = text.find(" ", end + 1)
        end = len(text) if end < 0 else end
    return start, end


class GuardClock:
    """Time spent in the guard (guards.numbered_difference, as stage 2 calls it),
    so a stage-2 time can be split into locating the passage and guarding it.
    Reporting only: the wrapper adds well under a microsecond per call."""

    def __init__(self) -> None:
        self.ms = 0.0
        self._inner = tolerant.numbered_difference

    def __call__(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return self._inner(*args, **kwargs)
        finally:
            self.ms += (time.perf_counter() - started) * 1000

    def __enter__(self) -> GuardClock:
        tolerant.numbered_difference = self
        return self

    def __exit__(self, *exc) -> None:
        tolerant.numbered_difference = self._inner


def warm_up_process() -> float:
    """Load the guard's word list (lexicon.py, ~160k words) before anything
    is timed: it loads on first use, once per process, whatever the
    document. Returns how long that took."""
    started = time.perf_counter()
    lexicon.frequency("the")
    return (time.perf_counter() - started) * 1000


def timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return (time.perf_counter() - started) * 1000, result


def stats(values: list[float]) -> dict:
    if not values:
        return {}
    return {
        "n": len(values),
        "median_ms": round(statistics.median(values), 4),
        "p95_ms": round(percentile(values, 95), 4),
        "max_ms": round(max(values), 4),
        # None when nothing was timed (a part that never ran: the guard on
        # quotes a few --quick runs find verbatim).
        "quotes_per_s": round(1000 / mean, 1)
        if (mean := statistics.mean(values))
        else None,
    }


def with_damaged_quotes(
    text: str,
    rng: random.Random,
    count: int,
    lengths: tuple[int, ...] = QUOTE_LENGTHS,
) -> tuple[str, list[tuple[int, str]]]:
    """`text` with 5% OCR damage inside `count` quote spans of the `lengths`
    in turn (the rest stays clean: damaging 5 MB in Python would dominate the
    run), and the clean quotes. Documents are damaged, quotes are clean: a
    model quoting an OCR'd passage corrects it, it does not invent OCR
    errors."""
    spans: list[tuple[int, int, int]] = []
    taken: list[tuple[int, int]] = []
    lengths = [lengths[i % len(lengths)] for i in range(count)]
    for length in lengths:
        for _ in range(50):
            start, end = quote_at(text, rng, length)
            if all(end <= a or start >= b for a, b in taken):
                taken.append((start, end))
                spans.append((start, end, length))
                break
    spans.sort()
    pieces = []
    position = 0
    quotes = []
    for start, end, length in spans:
        pieces.append(text[position:start])
        damaged, _ = ocr_damage(text[start:end], rng, 0.05, mix=OCR_LOOKALIKE_MIX)
        pieces.append(damaged)
        quotes.append((length, text[start:end]))
        position = end
    pieces.append(text[position:])
    rng.shuffle(quotes)
    return "".join(pieces), quotes


def measure(kind: str, size_name: str, text: str, rng: random.Random, args) -> dict:
    per_length = args.quotes // len(QUOTE_LENGTHS)
    verbatim = []
    for length in QUOTE_LENGTHS:
        for _ in range(per_length):
            start, end = quote_at(text, rng, length)
            verbatim.append((length, text[start:end]))
    damaged_text, tolerant = with_damaged_quotes(text, rng, len(verbatim))
    stage1: dict[int, list[float]] = {n: [] for n in QUOTE_LENGTHS}
    stage2: dict[int, list[float]] = {n: [] for n in QUOTE_LENGTHS}
    verify_quote(text, "warm up the cache for this document please")
    for length, quote in verbatim:
        ms, verdict = timed(lambda: verify_quote(text, quote))  # noqa: B023
        assert verdict.verified
        stage1[length].append(ms)
    clear_cache()
    verify_quote(damaged_text, "warm up the cache for this document please")
    found2 = 0
    guard: list[float] = []  # per quote: time in the guard, and the rest
    locate: list[float] = []
    in_order: list[float] = []  # stage-2 time of each quote, in `tolerant` order
    baseline: list[float] = []
    baseline_spent = 0.0
    for length, quote in tolerant:
        with GuardClock() as clock:
            ms, verdict = timed(lambda: verify_quote(damaged_text, quote))  # noqa: B023
        stage2[length].append(ms)
        in_order.append(ms)
        guard.append(clock.ms)
        locate.append(ms - clock.ms)
        found2 += int(verdict.verified)
        # The baseline runs on the same quote right after, so that both see
        # the machine in the same state: on a shared machine speed can swing
        # by half within a minute, and the speedup is a ratio of the two.
        if baseline_spent < args.baseline_seconds * 1000 or len(baseline) < 3:
            ms, _ = timed(lambda: fuzz.partial_ratio_alignment(quote, damaged_text))  # noqa: B023
            baseline.append(ms)
            baseline_spent += ms
    cold: list[float] = []
    for _, quote in tolerant[: args.cold]:
        clear_cache()
        ms, _ = timed(lambda: verify_quote(damaged_text, quote))  # noqa: B023
        cold.append(ms)
    all1 = [v for values in stage1.values() for v in values]
    all2 = [v for values in stage2.values() for v in values]
    row = {
        "kind": kind,
        "size": size_name,
        "chars": len(text),
        "stage1_warm": stats(all1),
        "stage2_warm": stats(all2),
        "stage2_warm_by_length": {n: stats(v) for n, v in stage2.items()},
        "stage1_warm_by_length": {n: stats(v) for n, v in stage1.items()},
        "stage2_cold": stats(cold),
        "baseline_partial_ratio_alignment": stats(baseline),
        "stage2_found": round(found2 / max(1, len(tolerant)), 3),
        "stage2_guard_ms": stats(guard),
        "stage2_locate_ms": stats(locate),
    }
    # The baseline is too slow to run on every quote of a large document: it
    # runs on the first quotes until its time budget is spent (interleaved
    # with stage 2), and the speedup compares medians over those same quotes.
    same = in_order[: len(baseline)]
    row["stage2_warm_same_quotes_as_baseline"] = stats(same)
    row["speedup_vs_baseline"] = round(
        row["baseline_partial_ratio_alignment"]["median_ms"] / statistics.median(same),
        1,
    )
    return row


def headline(rng: random.Random, quotes: int, size: int = 1_000_000) -> dict:
    """The issue's headline case on its own: `quotes` 200-char quotes in 1 MB
    of prose, stage 2 (5% OCR damage in the document), warm, each verified
    once in a pass of their own; then the baseline on the same quotes in a
    second pass. The table's "s2 200c" is a median of a few quotes, each timed
    after the previous quote's baseline has swept 1 MB through the caches
    (which adds ~0.25 ms to a quote here); this is the median of many, with
    nothing else between them."""
    text = prose(rng, size)
    damaged, chosen = with_damaged_quotes(text, rng, quotes, lengths=(200,))
    verify_quote(damaged, "warm up the cache for this document please")
    stage2, found = [], 0
    for _, quote in chosen:
        ms, verdict = timed(lambda: verify_quote(damaged, quote))  # noqa: B023
        stage2.append(ms)
        found += int(verdict.verified)
    baseline = [
        timed(lambda: fuzz.partial_ratio_alignment(quote, damaged))[0]  # noqa: B023
        for _, quote in chosen
    ]
    clear_cache()
    return {
        "stage2_warm": stats(stage2),
        "stage2_found": round(found / max(1, len(chosen)), 3),
        "baseline_partial_ratio_alignment": stats(baseline),
        "speedup_vs_baseline": round(
            statistics.median(baseline) / statistics.median(stage2), 1
        ),
    }


def first_quote(rng: random.Random, size: int, runs: int = 3) -> dict:
    """The first quote on a document a process has not seen (issue 27 item 5):
    folding and indexing it there, against reading its stored form
    (citations.cascade.prepared.dumps/loads, what citations.prepared_store
    keeps per revision), against a warm quote. Medians of `runs`."""
    from citations.cascade import prepared

    text = prose(rng, size)
    damaged, chosen = with_damaged_quotes(text, rng, 1 + runs, lengths=(200,))
    clear_cache()
    blob = prepared.dumps(prepared.prepare(damaged))
    built, stored, warm = [], [], []
    for _, quote in chosen[:runs]:
        clear_cache()
        built.append(timed(lambda: verify_quote(damaged, quote))[0])  # noqa: B023
        clear_cache()
        stored.append(
            timed(
                lambda: (
                    prepared.seed(prepared.loads(damaged, blob)),
                    verify_quote(damaged, quote),  # noqa: B023
                )
            )[0]
        )
        warm.append(timed(lambda: verify_quote(damaged, chosen[-1][1]))[0])
    clear_cache()
    return {
        "size": size,
        "stored_mb": round(len(blob) / 2**20, 2),
        "built_ms": round(statistics.median(built), 1),
        "stored_ms": round(statistics.median(stored), 1),
        "warm_ms": round(statistics.median(warm), 2),
        "built_over_stored": round(
            statistics.median(built) / statistics.median(stored), 1
        ),
    }


def boundaries(rng: random.Random, quotes: int, size: int = 1_000_000) -> dict:
    """Clean quotes against 1 MB of prose with 5% OCR damage in the document."""
    clean = prose(rng, size)
    out = {}
    for name, mix in (("lookalike", OCR_LOOKALIKE_MIX), ("full_mix", None)):
        damaged, origin = ocr_damage(clean, rng, 0.05, mix=mix)
        found = exact = placed = 0
        for _ in range(quotes):
            start, end = quote_at(clean, rng, 200)
            span = expected_span(origin, start, end)
            expected = trim(damaged, *span) if span else None
            verdict = verify_quote(damaged, clean[start:end])
            if verdict.verified:
                found += 1
                exact += int((verdict.start, verdict.end) == expected)
                placed += int((verdict.start, verdict.end) == expected)
            else:
                # Where stage 2 placed the quote before the guard refused it
                # (a damaged token that could be a number word, "tbo" for
                # "the" or "two"): the boundary is the locator's work, the
                # refusal the guard's.
                where = (verdict.candidate_start, verdict.candidate_end)
                placed += int(where == expected)
        out[name] = {
            "n": quotes,
            "found": round(found / quotes, 3),
            "exact_of_all": round(exact / quotes, 3),
            "exact_of_found": round(exact / found, 3) if found else None,
            "placed_exact_of_all": round(placed / quotes, 3),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--up-to-1mb", action="store_true", help="10 KB-1 MB, fewer quotes"
    )
    parser.add_argument(
        "--quick", action="store_true", help="10-100 KB, a few quotes: runs only"
    )
    parser.add_argument("--quotes", type=int, default=60, help="quotes per document")
    parser.add_argument("--cold", type=int, default=3, help="cold runs per document")
    parser.add_argument("--baseline-seconds", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    sizes = dict(SIZES)
    headline_size, headline_quotes, edge_quotes = 1_000_000, 200, 400
    if args.up_to_1mb:
        sizes.pop("5MB")
        args.quotes = min(args.quotes, 20)
        args.baseline_seconds = min(args.baseline_seconds, 0.5)
        headline_quotes, edge_quotes = 60, 60
    if args.quick:
        sizes = {k: SIZES[k] for k in ("10KB", "100KB")}
        args.quotes, args.cold, args.baseline_seconds = 4, 1, 0.05
        headline_size, headline_quotes, edge_quotes = 100_000, 4, 4
    rng = random.Random(args.seed)
    started = time.perf_counter()
    process_ms = warm_up_process()
    print(f"process warm-up (guard word list, once per process): {process_ms:.0f} ms")
    rows = []
    print(
        f"{'kind':<12}{'size':>6}{'s1 med':>9}{'s2 med':>9}{'s2 p95':>9}{'s2 max':>9}"
        f"{'s2 200c':>9}{'cold':>10}{'base med':>10}{'speedup':>9}{'found':>7}"
        f"{'locate':>8}{'guard':>7}"
    )
    for kind, make in KINDS.items():
        for size_name, size in sizes.items():
            text = make(rng, size)
            row = measure(kind, size_name, text, rng, args)
            rows.append(row)
            print(
                f"{kind:<12}{size_name:>6}{row['stage1_warm']['median_ms']:>9.3f}"
                f"{row['stage2_warm']['median_ms']:>9.3f}{row['stage2_warm']['p95_ms']:>9.3f}"
                f"{row['stage2_warm']['max_ms']:>9.2f}"
                f"{row['stage2_warm_by_length'][200]['median_ms']:>9.3f}"
                f"{row['stage2_cold']['median_ms']:>10.1f}"
                f"{row['baseline_partial_ratio_alignment']['median_ms']:>10.3f}"
                f"{row['speedup_vs_baseline']:>8.1f}x{row['stage2_found']:>7.2f}"
                f"{row['stage2_locate_ms']['median_ms']:>8.3f}"
                f"{row['stage2_guard_ms']['median_ms']:>7.3f}"
            )
            clear_cache()
    head = headline(rng, headline_quotes, headline_size)
    print(
        f"\n200-char quotes in 1 MB prose, stage 2 on its own "
        f"({head['stage2_warm']['n']} quotes): median "
        f"{head['stage2_warm']['median_ms']:.3f} ms, p95 "
        f"{head['stage2_warm']['p95_ms']:.3f} ms, found {head['stage2_found']:.2f}; "
        f"baseline median {head['baseline_partial_ratio_alignment']['median_ms']:.3f} ms "
        f"({head['speedup_vs_baseline']:.1f}x)"
    )
    first = first_quote(rng, max(sizes.values()))
    print(
        f"\nfirst quote on {first['size'] / 1e6:g} MB a process has not seen: "
        f"built {first['built_ms']:.0f} ms, from the stored form "
        f"({first['stored_mb']} MB) {first['stored_ms']:.0f} ms "
        f"({first['built_over_stored']}x), warm {first['warm_ms']} ms"
    )
    edge = boundaries(rng, edge_quotes, headline_size)
    print("\nboundaries, 200-char clean quotes in 1 MB prose with 5% OCR damage:")
    for name, row in edge.items():
        print(
            f"  {name:<10} found {row['found']:.3f}  exact of all {row['exact_of_all']:.3f}"
            f"  exact of found {row['exact_of_found']}"
            f"  placed exactly (verified or refused) {row['placed_exact_of_all']:.3f}"
        )
    targets = {
        "stage2 200-char in 1MB median <= 1 ms": head["stage2_warm"]["median_ms"]
        <= 1.0,
        "stage2 >= 10x faster than baseline at every size": all(
            r["speedup_vs_baseline"] >= 10 for r in rows
        ),
        "no warm case over 20 ms": all(
            r["stage1_warm"]["max_ms"] <= 20 and r["stage2_warm"]["max_ms"] <= 20
            for r in rows
        ),
        # The issue compares boundaries with a baseline that has no guard:
        # where the quote is placed, whatever the guard decides. Verified
        # with exact boundaries ("exact of all") is printed beside it; the
        # guard's refusals are recall, which the eval measures.
        "exact boundaries >= 98% at 5% OCR (look-alike damage, placed, of all quotes)": edge[
            "lookalike"
        ]["placed_exact_of_all"]
        >= 0.98,
    }
    print()
    for goal, met in targets.items():
        print(f"target {goal}: {'met' if met else 'NOT MET'}")
    slow = [
        (r["kind"], r["size"], r["speedup_vs_baseline"])
        for r in rows
        if r["speedup_vs_baseline"] < 10
    ]
    if slow:
        print(f"  below 10x: {slow}")
    elapsed = time.perf_counter() - started
    print(f"({elapsed:.1f}s)")
    path = write_results(
        "verification_speed.json",
        {
            "quick": args.quick,
            "up_to_1mb": args.up_to_1mb,
            "python": sys.version.split()[0],
            "rows": rows,
            "headline_200c_1mb_prose": head,
            "boundaries_1mb_5pct_ocr": edge,
            "first_quote_built_vs_stored": first,
            "process_warm_up_ms": round(process_ms, 1),
            "targets": targets,
            "seconds": round(elapsed, 1),
            "note": "warm = document folded and indexed already (cached per text); "
            "cold = cache cleared before the call, so it includes folding and "
            "indexing the whole document",
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
