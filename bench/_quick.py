"""`make bench-quick`: every bench script with --quick, checked to run and to
write its JSON.

    .venv/bin/python bench/_quick.py [--jobs 2] [--out var/bench-quick]

Each script runs in its own process with BENCH_RESULTS pointing at --out (so
a quick run never overwrites a full run's figures in bench/results/) and no
corpus (DOCUIQ_CORPUS unset): built-in data only. Two run at a time. A script
fails the run when it exits non-zero or writes no JSON; its output is shown
then. Figures from --quick runs mean nothing: they only prove the scripts
run. Prints each script's time and the total (target: under a minute on an
idle machine).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# Where a script that ignores BENCH_RESULTS would still write.
DEFAULT_RESULTS = BENCH / "results"
TIMEOUT_S = 300
# The JSON a script writes is named after it, but for these.
RESULT_NAMES = {
    "verification_eval": "verification",
    "retrieval_eval": "retrieval",
    "titles_eval": "titles",
    "judge_guard_eval": "judge_guards",
}


# Started first: they set the run's length (on an idle 2-core machine load
# takes ~60 s, mostly waiting on its servers; first_request and
# verification_instructions ~13 s; the others 1-8 s), so the rest fill the
# other slot meanwhile rather than leave one of them running alone at the end.
LONGEST = ("load", "first_request", "verification_instructions")


def scripts() -> list[Path]:
    """Every bench script (helpers start with "_"): each has a quick mode.
    The longest first, then by name."""
    found = [p for p in BENCH.glob("*.py") if not p.name.startswith("_")]
    first = {name: i for i, name in enumerate(LONGEST)}
    return sorted(found, key=lambda p: (first.get(p.stem, len(first)), p.name))


def _json_written(since: float, where: list[Path]) -> list[Path]:
    return [
        p
        for base in where
        if base.exists()
        for p in base.rglob("*.json")
        if p.stat().st_mtime >= since
    ]


def run(script: Path, out: Path) -> tuple[Path, bool, float, str]:
    started = time.time()
    env = {**os.environ, "BENCH_RESULTS": str(out)}
    env.pop("DOCUIQ_CORPUS", None)
    try:
        done = subprocess.run(
            [sys.executable, str(script), "--quick"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
        log = done.stdout + done.stderr
        ok = done.returncode == 0
        if not ok:
            log += f"\nexit status {done.returncode}"
    except subprocess.TimeoutExpired as exc:
        ok, log = False, f"timed out after {TIMEOUT_S} s\n{exc.stdout or ''}"
    written = _json_written(started, [out, DEFAULT_RESULTS])
    expected = RESULT_NAMES.get(script.stem, script.stem)
    if ok and not any(p.stem == expected for p in written):
        ok, log = False, log + f"\nwrote no {expected}.json"
    return script, ok, time.time() - started, log


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-quick"))
    args = parser.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    started = time.time()
    failed = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for script, ok, seconds, log in pool.map(lambda s: run(s, out), scripts()):
            print(f"{'ok  ' if ok else 'FAIL'} {script.name:<32} {seconds:6.1f} s")
            if not ok:
                failed.append(script.name)
                print("\n".join("    " + line for line in log.splitlines()[-40:]))
    total = time.time() - started
    print(
        f"bench-quick: {len(scripts()) - len(failed)} of {len(scripts())} scripts ran and wrote their JSON in {total:.0f} s"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
