"""Real services for tests and benches, each owned by the caller: a
redis-server on a free port (that the test may stop, restart or empty), a
Celery worker with beat beside it, and a gunicorn server.

Never the shared Redis on 6379: a test that stops the broker stops its own.
Every process runs in a session of its own, so `kill()` takes its children
(pool processes, beat) with it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _wait(predicate, timeout: float, what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    tail = log.read_text(errors="replace")[-4000:] if log and log.exists() else ""
    raise RuntimeError(f"{what} did not start in {timeout:.0f} s\n{tail}")


def _spawn(
    args: list[str], log_path: Path, env: Mapping[str, str] | None = None
) -> subprocess.Popen:
    """Start ``args`` in a session of its own (so a kill takes its children),
    its output appended to ``log_path``."""
    with Path(log_path).open("ab") as log:
        return subprocess.Popen(
            args,
            cwd=ROOT,
            env=None if env is None else dict(env),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _stop(proc: subprocess.Popen | None, sig: int = signal.SIGTERM) -> None:
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
        proc.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


class RedisServer:
    """A private redis-server without persistence, like the production
    default that loses its queues on a restart (CEL-06)."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.binary = binary
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = self.workdir / "redis.log"
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
                "--logfile",
                str(log),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        _wait(lambda: _port_open(self.port), 20, "redis-server", log)

    def stop(self) -> None:
        """Shut the broker down; everything it held is gone."""
        _stop(self.proc, signal.SIGKILL)
        self.proc = None
        _wait(lambda: not _port_open(self.port), 10, "redis-server shutdown")

    def restart(self) -> None:
        self.stop()
        self.start()


class CeleryWorker:
    """`make worker` (`celery -A docuiq worker`, both queues) and, with
    `beat`, `make beat` beside it as a process of its own, as production runs
    them: killing the worker leaves beat sweeping. `env` is added to this
    environment."""

    def __init__(
        self,
        env: Mapping[str, str],
        log_path: Path,
        *,
        beat: bool = True,
        concurrency: int = 2,
        pool: str = "prefork",
    ) -> None:
        self.env = {**os.environ, **env}
        self.log_path = Path(log_path)
        self.beat = beat
        self.concurrency = concurrency
        self.pool = pool
        self.proc: subprocess.Popen | None = None
        self.beat_proc: subprocess.Popen | None = None
        self.start()

    def _spawn(self, args: list[str], marker: bytes, what: str) -> subprocess.Popen:
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        proc = _spawn(
            [sys.executable, "-m", "celery", "-A", "docuiq", *args],
            self.log_path,
            self.env,
        )

        def ready() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"{what} exited:\n" + self.log_path.read_text()[-4000:]
                )
            with self.log_path.open("rb") as f:
                f.seek(offset)
                return marker in f.read()

        try:
            _wait(ready, 90, what, self.log_path)
        except Exception:
            _stop(proc, signal.SIGKILL)
            raise
        return proc

    def start(self) -> None:
        """The worker; beat too when it is wanted and not running."""
        self.proc = self._spawn(
            [
                "worker",
                "-l",
                "info",
                "--concurrency",
                str(self.concurrency),
                "--pool",
                self.pool,
                "--without-heartbeat",
                "--without-gossip",
                "--without-mingle",
            ],
            b"ready.",
            "celery worker",
        )
        if self.beat and (self.beat_proc is None or self.beat_proc.poll() is not None):
            self.start_beat()

    def start_beat(self) -> None:
        self.beat_proc = self._spawn(
            ["beat", "-l", "info"], b"beat: Starting", "celery beat"
        )

    def kill(self) -> None:
        """SIGKILL to the whole worker (main process and pool): no ack, no
        cleanup. Beat, a process of its own, goes on sweeping."""
        _stop(self.proc, signal.SIGKILL)

    def kill_beat(self) -> None:
        _stop(self.beat_proc, signal.SIGKILL)

    def terminate(self) -> None:
        """SIGTERM to the worker's main process only, as a supervisor sends it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)

    def restart(self) -> None:
        self.kill()
        self.start()

    def stop(self) -> None:
        _stop(self.proc)
        _stop(self.beat_proc)

    def log_tail(self, n: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-n:]


class _HTTPProcess:
    """A server process on 127.0.0.1:``port``: waited for at start, killed
    (with its children) if it does not come up."""

    port: int
    proc: subprocess.Popen
    log_path: Path

    def _wait_up(self, up, timeout: float, what: str) -> None:
        try:
            _wait(up, timeout, what, self.log_path)
        except Exception:
            _stop(self.proc, signal.SIGKILL)
            raise

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        _stop(self.proc)


class GunicornServer(_HTTPProcess):
    """`make serve`'s server on a free port: static files collected first,
    then gunicorn with docuiq/gunicorn_conf.py and `env` added."""

    def __init__(
        self, env: Mapping[str, str], log_path: Path, *, port: int | None = None
    ) -> None:
        self.port = port or free_port()
        self.env = {**os.environ, **env, "BIND": f"127.0.0.1:{self.port}"}
        self.log_path = Path(log_path)
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
            cwd=ROOT,
            env=self.env,
            check=True,
        )
        self.proc = _spawn(
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "docuiq.wsgi:application",
                "-c",
                "docuiq/gunicorn_conf.py",
            ],
            self.log_path,
            self.env,
        )

        def up() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError("gunicorn exited:\n" + self.log_path.read_text())
            return _port_open(self.port)

        self._wait_up(up, 60, "gunicorn")


MODEL_DIR = ROOT / "var" / "model"


def built_model() -> tuple[Path, Path] | None:
    """(the model venv's python, the GGUF) when `make model` has run, else None."""
    python = MODEL_DIR / "venv" / "bin" / "python"
    marker = MODEL_DIR / "MODEL_PATH"
    if not (python.exists() and marker.exists()):
        return None
    model = Path(marker.read_text().strip())
    return (python, model) if model.exists() else None


class LlamaServer(_HTTPProcess):
    """llama-cpp-python's OpenAI-compatible server (`make model`) on a free
    port, as a new user would run it: one slot, ``n_ctx`` tokens of context.
    Ready when ``GET /v1/models`` answers."""

    def __init__(
        self,
        python: Path,
        model: Path,
        log_path: Path,
        *,
        n_ctx: int = 8192,
        port: int | None = None,
        startup_s: float = 120.0,
    ) -> None:
        self.port = port or free_port()
        self.log_path = Path(log_path)
        self.proc = _spawn(
            [
                str(python),
                "-m",
                "llama_cpp.server",
                "--model",
                str(model),
                "--n_ctx",
                str(n_ctx),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
            ],
            self.log_path,
        )

        def up() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    "llama_cpp.server exited:\n" + self.log_path.read_text()[-4000:]
                )
            if not _port_open(self.port):
                return False
            import urllib.request

            try:
                with urllib.request.urlopen(f"{self.url}/v1/models", timeout=2) as r:
                    return r.status == 200
            except OSError:
                return False

        self._wait_up(up, startup_s, "llama_cpp.server")
