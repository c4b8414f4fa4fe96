"""`make eval-model`: `manage.py evaluate` with a local GGUF model beside the
offline responder, in one command.

    .venv/bin/python scripts/evaluate_model.py [--model FILE.gguf] [--context N]
        [evaluate's options: --corpus, --limit, --questions, --parts, --out, ...]
    make eval-model [MODEL=FILE.gguf] EVAL_ARGS="--limit 2 --questions 4"

Starts llama-cpp-python's server from `make model`'s venv on the GGUF
(default: the test model, var/model/MODEL_PATH) as a new user would (one
slot, `--context` tokens; docuiq/testing/processes.py's LlamaServer), puts
the recording proxy in front of it (docuiq/testing/recording_proxy.py),
runs `manage.py evaluate` with LLM_BASE_URL pointing at the proxy and
LLM_CONTEXT_TOKENS set to the context, then stops both. Every other LLM_*
setting is the environment's (LLM_MAX_TOKENS, LLM_TIMEOUT_S, ...).

Prints evaluate's table (the offline row and the model's, on the same
questions), then what went over the wire: chat calls, statuses (an HTTP 500
here was answered to the product, which may have recovered), calls that got
no answer, finish reasons (`length`: cut at max_tokens), the max_tokens each
call carried and the most calls in flight. The figures go to
bench/results/evaluate-model.json (or --out), the wire summary beside them
(`.wire.json`), the server's log to var/model/eval-server.log.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from docuiq.testing.processes import MODEL_DIR, LlamaServer, built_model  # noqa: E402
from docuiq.testing.recording_proxy import RecordingProxy  # noqa: E402


def parse(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="", help="a GGUF (default: `make model`'s)")
    parser.add_argument(
        "--context",
        type=int,
        default=int(os.environ.get("LLM_CONTEXT_TOKENS") or 8192),
        help="the server's context, and LLM_CONTEXT_TOKENS (default 8192)",
    )
    parser.add_argument("--startup-s", type=float, default=300.0)
    return parser.parse_known_args(argv)


def main(argv: list[str] | None = None) -> int:
    args, evaluate_args = parse(argv)
    built = built_model()
    if built is None:
        print("no llama-cpp-python server: run `make model`", file=sys.stderr)
        return 2
    python, model = built
    model = Path(args.model).resolve() if args.model else model
    if "--out" not in evaluate_args:
        evaluate_args += ["--out", str(RESULTS / "evaluate-model.json")]
    out = Path(evaluate_args[evaluate_args.index("--out") + 1])
    log = MODEL_DIR / "eval-server.log"
    log.unlink(missing_ok=True)
    print(
        f"starting llama_cpp.server on {model} ({args.context} tokens)", file=sys.stderr
    )
    # The server runs in a session of its own: a SIGTERM here must still stop it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    server = LlamaServer(
        python, model, log, n_ctx=args.context, startup_s=args.startup_s
    )
    proxy = RecordingProxy(server.url).start()
    try:
        env = {
            **os.environ,
            "LLM_BASE_URL": f"{proxy.url}/v1",
            "LLM_CONTEXT_TOKENS": str(args.context),
        }
        status = subprocess.call(
            [sys.executable, "manage.py", "evaluate", *evaluate_args], cwd=ROOT, env=env
        )
    finally:
        proxy.stop()
        server.stop()
    wire = {"model": str(model), "context": args.context, **proxy.summary()}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".wire.json").write_text(json.dumps(wire, indent=1) + "\n")
    print("over the wire to the model:", json.dumps(wire, indent=1))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
