"""`make bench-quick` (bench/_quick.py) runs every bench script, and every
one has a --quick mode on built-in data: a script CI cannot run is a script
whose breakage nobody sees until the next full run."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from django.conf import settings

BENCH = Path(settings.BASE_DIR) / "bench"


def _quick_module():
    spec = importlib.util.spec_from_file_location("bench_quick", BENCH / "_quick.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_quick_runs_every_bench_script():
    scripts = {p.name for p in BENCH.glob("*.py") if not p.name.startswith("_")}
    assert {p.name for p in _quick_module().scripts()} == scripts


def test_every_bench_script_has_a_quick_mode():
    for script in BENCH.glob("[!_]*.py"):
        assert re.search(r"[\"']--quick[\"']", script.read_text()), script.name


def test_the_longest_scripts_start_first():
    quick = _quick_module()
    names = [p.stem for p in quick.scripts()]
    assert names[: len(quick.LONGEST)] == list(quick.LONGEST)
    assert names[len(quick.LONGEST) :] == sorted(names[len(quick.LONGEST) :])
