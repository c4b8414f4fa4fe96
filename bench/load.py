"""Load benchmark (issue 27; LOAD-01/02/03/06): `make serve`'s gunicorn under
the production profile on loopback, PostgreSQL, a private redis-server (broker
and cache), a Celery worker for async asks, and the scripted model at 500 ms
a call. One API key per client; 429s are counted apart from errors.

Scenarios, each for --seconds at 20 and at 50 clients: citation list, chat
citation status, ask (synchronous: the model call holds a server thread),
ask/async (202 at once; the time until the answer is polled apart), and a
mix (45 % list, 35 % status, 10 % stats, 10 % async ask). Baseline in the
same run: the citation list and status at 20 clients on `runserver`, the
only server before this issue.

Targets on 2 cores at 20 clients: 0 errors; list and status p95 < 200 ms;
ask p95 < 800 ms. Prints the figures; writes bench/results/load.json.

    .venv/bin/python bench/load.py [--rows 25000] [--seconds 60] [--pg URL] [--quick]

--quick: 2 clients for 2 s each, 2,000 rows; only proves it runs.
Every request goes to 127.0.0.1 and every loop stops at its deadline.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _django

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "What do the parties agree?"


@dataclass
class Tally:
    times_ms: list[float] = field(default_factory=list)
    answer_ms: list[float] = field(default_factory=list)  # async: POST to answer
    errors: int = 0
    throttled: int = 0
    error_samples: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, ms: float, status: int, body: bytes = b"") -> None:
        with self.lock:
            if status == 429:
                self.throttled += 1
            elif status >= 400 or status == 0:
                self.errors += 1
                if len(self.error_samples) < 3:
                    self.error_samples.append(f"{status} {body[:200]!r}")
            else:
                self.times_ms.append(ms)

    def figures(self, seconds: float) -> dict:
        t = sorted(self.times_ms)
        out = {
            "requests": len(t) + self.errors + self.throttled,
            "req_per_s": round((len(t) + self.errors + self.throttled) / seconds, 1),
            "p50_ms": round(_django.percentile(t, 50), 1) if t else None,
            "p95_ms": round(_django.percentile(t, 95), 1) if t else None,
            "p99_ms": round(_django.percentile(t, 99), 1) if t else None,
            "errors": self.errors,
            "throttled_429": self.throttled,
        }
        if self.answer_ms:
            a = sorted(self.answer_ms)
            out["answered"] = len(a)
            out["answer_p50_ms"] = round(_django.percentile(a, 50), 1)
            out["answer_p95_ms"] = round(_django.percentile(a, 95), 1)
        if self.error_samples:
            out["error_samples"] = self.error_samples
        return out


class Client:
    """One client: its own API key and keep-alive connection."""

    def __init__(self, port: int, key: str, world: dict) -> None:
        self.port, self.key, self.world = port, key, world
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.rng = random.Random(key)

    def call(self, method: str, path: str, body: dict | None = None):
        data = json.dumps(body).encode() if body is not None else None
        headers = {"X-API-Key": self.key, "Connection": "keep-alive"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
            payload = response.read()
            status = response.status
        except (OSError, http.client.HTTPException) as exc:
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            return (time.perf_counter() - started) * 1000, 0, repr(exc).encode()
        return (time.perf_counter() - started) * 1000, status, payload

    # ------------------------------------------------------------ requests
    def citation_list(self, tally: Tally) -> None:
        page = self.rng.randrange(0, 20) * 20
        tally.add(
            *self.call(
                "GET",
                f"/api/citations?tenant_id={self.world['slug']}&skip={page}&limit=20",
            )
        )

    def status(self, tally: Tally) -> None:
        w = self.world
        tally.add(
            *self.call(
                "GET",
                f"/api/chat/{w['session']}/citation/{w['chunk']}/{w['revision']}/status",
            )
        )

    def stats(self, tally: Tally) -> None:
        tally.add(
            *self.call("GET", f"/api/citations/stats?tenant_id={self.world['slug']}")
        )

    def ask(self, tally: Tally) -> None:
        tally.add(
            *self.call(
                "POST",
                f"/api/chat/sessions/{self.world['session']}/ask",
                {"question": QUESTION},
            )
        )

    def ask_async(
        self, tally: Tally, *, wait: bool = True, deadline: float = 0
    ) -> None:
        ms, status, body = self.call(
            "POST",
            f"/api/chat/sessions/{self.world['session']}/ask/async",
            {"question": QUESTION},
        )
        tally.add(ms, status, body)
        if status != 202 or not wait:
            return
        poll = json.loads(body)["poll_url"]
        asked = time.perf_counter() - ms / 1000
        while time.perf_counter() < deadline + 30:
            time.sleep(0.5)  # a client polling twice a second
            _, status, body = self.call("GET", poll)
            if status == 200 and json.loads(body)["status"] != "pending":
                with tally.lock:
                    tally.answer_ms.append((time.perf_counter() - asked) * 1000)
                return
        with tally.lock:
            tally.errors += 1  # never answered
            tally.error_samples.append("async question not answered in time")

    def mixed(self, tally: Tally, deadline: float) -> None:
        roll = self.rng.random()
        if roll < 0.45:
            self.citation_list(tally)
        elif roll < 0.80:
            self.status(tally)
        elif roll < 0.90:
            self.stats(tally)
        else:
            self.ask_async(tally, wait=False, deadline=deadline)


SCENARIOS = {
    "citation_list": lambda c, t, d: c.citation_list(t),
    "status": lambda c, t, d: c.status(t),
    "ask_sync": lambda c, t, d: c.ask(t),
    "ask_async": lambda c, t, d: c.ask_async(t, deadline=d),
    "mixed": lambda c, t, d: c.mixed(t, d),
}


def run_scenario(
    name: str, port: int, keys: list[str], world: dict, clients: int, seconds: float
) -> dict:
    tally = Tally()
    deadline = time.perf_counter() + seconds
    workers = [Client(port, keys[i], world) for i in range(clients)]

    def loop(client: Client) -> None:
        while time.perf_counter() < deadline:
            SCENARIOS[name](client, tally, deadline)

    threads = [threading.Thread(target=loop, args=(c,)) for c in workers]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 120)
    elapsed = time.perf_counter() - started
    for c in workers:
        c.conn.close()
    return tally.figures(elapsed)


# ---------------------------------------------------------------- setup


def _seed(rows: int, documents: int, clients: int) -> tuple[dict, list[str]]:
    """Tenant bench-api (bench/api.py's rows) with one key per client."""
    from api import _fill

    from accounts.scoping import tenant_scope
    from accounts.services import api_key_create
    from citations.models import MessageCitation

    tenant, raw_key, session, docs = _fill(rows, documents)
    keys = [raw_key]
    with tenant_scope(tenant):
        for i in range(clients - 1):
            keys.append(api_key_create(tenant=tenant, name=f"client {i}")[1])
        cited = MessageCitation.objects.filter(document_id=docs[0].pk).first()
    world = {
        "slug": tenant.slug,
        "session": str(session.pk),
        "chunk": str(cited.chunk_id),
        "revision": str(cited.revision_id),
    }
    return world, keys


def _server_env(pg: str, broker: str, cache: str, llm_url: str, var: Path) -> dict:
    return {
        "DOCUIQ_PROFILE": "production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",  # plain HTTP on loopback
        "DATABASE_URL": pg,
        "CELERY_BROKER_URL": broker,
        "CACHE_URL": cache,
        "DOCUIQ_VAR_DIR": str(var),
        "MEDIA_ROOT": str(var / "media"),
        "LLM_BASE_URL": llm_url,
        "LLM_MODEL": "scripted-model",
        "LLM_API_KEY": "bench",
        # The scripted server computes any number of calls at once.
        "LLM_PARALLEL": "64",
        "EMBEDDINGS": "off",
        "LOG_LEVEL": "WARNING",
        "API_KEY_FAILURE_LIMIT": "1000",
    }


def _runserver(env: dict, log: Path):
    from docuiq.testing.processes import _port_open, _wait, free_port

    port = free_port()
    dev = {
        k: v
        for k, v in env.items()
        if k not in {"DOCUIQ_PROFILE", "SECRET_KEY", "SECURE_SSL_REDIRECT"}
    }
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env={**os.environ, **dev},
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    _wait(lambda: _port_open(port), 60, "runserver", log)
    return proc, port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=25_000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", type=int, nargs="+", default=[20, 50])
    parser.add_argument(
        "--pg", default="postgres://postgres@127.0.0.1:5432/docuiq_bench_load"
    )
    parser.add_argument("--quick", action="store_true", help="tiny: runs only")
    args = parser.parse_args()
    documents = 50
    if args.quick:
        args.rows, args.seconds, args.clients, documents = 2_000, 2, [2], 10
    missing = [n for n in ("redis-server",) if shutil.which(n) is None]
    if missing or not _django.reset_postgres(args.pg):
        reason = f"needs {', '.join(missing) or 'PostgreSQL'}"
        print(f"skipped: {reason}")
        _write({"skipped": reason, "quick": args.quick})
        return
    _django.setup(args.pg)
    from django.db import connections

    from docuiq.testing.processes import (
        CeleryWorker,
        GunicornServer,
        RedisServer,
        _port_open,
        _stop,
        _wait,
        free_port,
    )

    world, keys = _seed(args.rows, documents, max(args.clients))
    connections.close_all()
    work = Path(tempfile.mkdtemp(prefix="docuiq-load-"))
    (work / "var").mkdir()
    result = {
        "quick": args.quick,
        "rows": args.rows,
        "seconds": args.seconds,
        "model_latency_s": 0.5,
        "targets_at_20_clients": {
            "errors": 0,
            "citation_list_p95_ms": 200,
            "status_p95_ms": 200,
            "ask_p95_ms": 800,
        },
        "gunicorn": {},
        "runserver_baseline": {},
    }
    redis = RedisServer(work / "redis")
    # The model in a process of its own: in this one its threads would wait
    # for the GIL behind the clients' and add to every answer.
    llm_port = free_port()
    llm = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "docuiq.testing.llm_server",
            "--port",
            str(llm_port),
            "--latency",
            "0.5",
            "--mode",
            "extractive",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait(lambda: _port_open(llm_port), 30, "the scripted model")
        env = _server_env(
            args.pg,
            f"redis://127.0.0.1:{redis.port}/0",
            f"redis://127.0.0.1:{redis.port}/1",
            f"http://127.0.0.1:{llm_port}/v1",
            work / "var",
        )
        worker = CeleryWorker(
            # INFO: its "ready." line says it has started.
            {**env, "CELERY_LOG_LEVEL": "INFO"},
            work / "worker.log",
            # Model calls wait on the network: threads, not processes.
            concurrency=16,
            pool="threads",
        )
        server = GunicornServer(env, work / "gunicorn.log")
        try:
            result["gunicorn_workers"] = int(
                os.environ.get("WEB_CONCURRENCY", 2 * os.cpu_count() + 1)
            )
            # Warm-up, not measured: every gunicorn process loads its URLs,
            # templates and connections on its first requests.
            warm = min(10.0, max(1.0, args.seconds / 6))
            for name in SCENARIOS:
                run_scenario(name, server.port, keys, world, max(args.clients), warm)
            for clients in args.clients:
                for name in SCENARIOS:
                    figures = run_scenario(
                        name, server.port, keys, world, clients, args.seconds
                    )
                    figures["pg_connections_after"] = _pg_connections(args.pg)
                    result["gunicorn"].setdefault(str(clients), {})[name] = figures
                    _print("gunicorn", clients, name, figures)
        finally:
            server.stop()
            worker.stop()
        proc, port = _runserver(env, work / "runserver.log")
        try:
            clients = min(args.clients)
            run_scenario(
                "mixed", port, keys, world, clients, min(10.0, args.seconds / 6)
            )
            for name in ("citation_list", "status"):
                figures = run_scenario(name, port, keys, world, clients, args.seconds)
                result["runserver_baseline"].setdefault(str(clients), {})[name] = (
                    figures
                )
                _print("runserver", clients, name, figures)
        finally:
            _stop(proc)
    finally:
        _stop(llm)
    redis.stop()
    _summarise(result, min(args.clients))
    _write(result)


def _pg_connections(url: str) -> int:
    """Connections open to the bench database (LOAD-02: web and workers stay
    well under max_connections)."""
    import psycopg

    name = url.rpartition("/")[2]
    with psycopg.connect(url, autocommit=True) as conn:
        return (
            conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [name]
            ).fetchone()[0]
            - 1
        )


def _print(server: str, clients: int, name: str, f: dict) -> None:
    extra = (
        f"  answer p50 {f['answer_p50_ms']} p95 {f['answer_p95_ms']} ms"
        if "answer_p50_ms" in f
        else ""
    )
    print(
        f"  {server:<9} {clients:>3} clients {name:<14} {f['req_per_s']:>7} req/s  "
        f"p50 {f['p50_ms']} p95 {f['p95_ms']} p99 {f['p99_ms']} ms  "
        f"errors {f['errors']}  429 {f['throttled_429']}{extra}"
    )


def _summarise(result: dict, clients: int) -> None:
    """Ratios to the baseline, the targets met, and LOAD-06's polling budget."""
    at = result["gunicorn"].get(str(clients), {})
    base = result["runserver_baseline"].get(str(clients), {})
    ratios = {}
    for name in ("citation_list", "status"):
        if at.get(name, {}).get("p95_ms") and base.get(name, {}).get("p95_ms"):
            ratios[name] = round(base[name]["p95_ms"] / at[name]["p95_ms"], 2)
    result["p95_runserver_over_gunicorn"] = ratios
    result["targets_met"] = {
        "errors": all(f["errors"] == 0 for f in at.values()),
        "citation_list": (at.get("citation_list", {}).get("p95_ms") or 1e9) < 200,
        "status": (at.get("status", {}).get("p95_ms") or 1e9) < 200,
        "ask_sync": (at.get("ask_sync", {}).get("p95_ms") or 1e9) < 800,
        "ask_async_post": (at.get("ask_async", {}).get("p95_ms") or 1e9) < 800,
    }
    # LOAD-06: chats polling their badges every 2 s may use at most 70 % of
    # the status endpoint's measured throughput.
    status_rps = at.get("status", {}).get("req_per_s") or 0
    result["load06_max_polling_chats_at_2s"] = int(0.7 * status_rps * 2)
    print(f"  p95 runserver / gunicorn at {clients} clients: {ratios}")
    print(f"  targets met: {result['targets_met']}")


def _write(result: dict) -> None:
    _django.RESULTS.mkdir(parents=True, exist_ok=True)
    path = _django.RESULTS / "load.json"
    path.write_text(json.dumps(result, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
