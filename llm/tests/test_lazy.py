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
