"""The model SDK loads on first use, not on import (issue 34 item 5)."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_model_client_does_not_load_the_openai_sdk():
    code = (
        "import sys, llm.openai_compat as m\n"
        "print('openai._client' in sys.modules)\n"
        "m.openai.OpenAI\n"
        "print('openai._client' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "True"]


def test_threads_reading_the_sdk_at_once_all_get_the_loaded_module():
    # A threaded worker's first concurrent model calls: with importlib's
    # LazyLoader on Python 3.11 (gh-114763) all but one thread read the
    # module half-executed and got AttributeError.
    code = (
        "import threading, llm.openai_compat as m\n"
        "start, errors = threading.Barrier(6), []\n"
        "def read():\n"
        "    start.wait()\n"
        "    try:\n"
        "        m.openai.OpenAI\n"
        "    except Exception as exc:\n"
        "        errors.append(repr(exc))\n"
        "threads = [threading.Thread(target=read) for _ in range(6)]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "print(errors)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"


def test_a_module_that_is_not_installed_fails_at_once():
    import pytest

    from llm.lazy import lazy_module

    with pytest.raises(ModuleNotFoundError):
        lazy_module("no_such_module_docuiq")
