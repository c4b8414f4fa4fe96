"""Instructions executed per quote: stage 1 and stage 2, 200-char quotes in
1 MB of prose, counted by valgrind, so that two versions of the cascade can be
compared on a machine whose speed will not hold still.

    .venv/bin/python bench/verification_instructions.py [--quotes N] [--quick]

Wall-clock medians on a shared machine have swung by up to 2x between runs
minutes apart (bench/verification_speed.py times the same code at 1.8-3.1 ms);
the instruction count of the same run repeats to within 1%. It is no time: memory
stalls are not in it. The document, the quotes and the damage are those of
verification_speed.py (prose, 5% OCR look-alike damage in the document around
each stage-2 quote, clean quotes), each quote verified once, as users verify
it; the guard's word list is loaded and the document folded and indexed
before counting starts. Counting is switched on only around the loop
(callgrind_control), and a run takes about half a minute per stage.

valgrind is a Debian package the product does not need; without it this
prints why (in its JSON too) and exits 0. Results go to
bench/results/verification_instructions.json. --quick counts 2 quotes in
20 KB: it only proves the script runs.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import write_results
from bench.verification_speed import (
    prose,
    quote_at,
    warm_up_process,
    with_damaged_quotes,
)
from citations.cascade import verify_quote

STAGES = ("stage1", "stage2")
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


DOCUMENT_CHARS = 1_000_000
QUICK_CHARS = 20_000


def _count(stage: str, quotes: int, seed: int, size: int) -> int:
    """Instructions executed verifying `quotes` quotes at `stage`, in a child
    process under callgrind."""
    result = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={os.devnull}",
            sys.executable,
            __file__,
            "--inner",
            stage,
            "--quotes",
            str(quotes),
            "--seed",
            str(seed),
            "--size",
            str(size),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    found = _REFS.search(result.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from valgrind:\n{result.stderr}")
    return int(found.group(1).replace(",", ""))


def _inner(stage: str, quotes: int, seed: int, size: int) -> None:
    rng = random.Random(seed)
    text = prose(rng, size)
    if stage == "stage1":
        spans = [quote_at(text, rng, 200) for _ in range(quotes)]
        pairs = [(text, text[start:end]) for start, end in spans]
    else:
        damaged, chosen = with_damaged_quotes(text, rng, quotes, lengths=(200,))
        pairs = [(damaged, quote) for _, quote in chosen]
    warm_up_process()
    verify_quote(pairs[0][0], "warm up the cache for this document please")

    def instrument(state: str) -> None:
        subprocess.run(
            ["callgrind_control", f"--instr={state}", str(os.getpid())],
            capture_output=True,
            check=True,
        )

    instrument("on")
    for document, quote in pairs:
        verify_quote(document, quote)
    instrument("off")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quotes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--inner", choices=STAGES, help=argparse.SUPPRESS)
    parser.add_argument(
        "--size", type=int, default=DOCUMENT_CHARS, help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--quick", action="store_true", help="2 quotes in 20 KB: runs only"
    )
    args = parser.parse_args()
    if args.inner:
        _inner(args.inner, args.quotes, args.seed, args.size)
        return
    if args.quick:
        args.quotes, args.size = 2, QUICK_CHARS
    missing = [
        tool for tool in ("valgrind", "callgrind_control") if not shutil.which(tool)
    ]
    if missing:
        why = f"{', '.join(missing)} not installed (Debian package valgrind)"
        print(f"skipped: {why}")
        path = write_results(
            "verification_instructions.json", {"skipped": why, "quick": args.quick}
        )
        print(f"wrote {path}")
        return
    per_quote = {}
    for stage in STAGES:
        total = _count(stage, args.quotes, args.seed, args.size)
        per_quote[stage] = round(total / args.quotes)
        print(
            f"{stage}: {per_quote[stage] / 1e6:.3f} M instructions per 200-char quote "
            f"in {args.size / 1e6:g} MB of prose ({args.quotes} quotes, each verified "
            "once)"
        )
    path = write_results(
        "verification_instructions.json",
        {
            "python": sys.version.split()[0],
            "quotes": args.quotes,
            "document_chars": args.size,
            "quick": args.quick,
            "seed": args.seed,
            "instructions_per_quote": per_quote,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
