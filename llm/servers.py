"""What this process has learnt about each model server it talks to.

Model servers differ in two ways that the client adapts to, once per server:

* **How many requests it computes at once** (its slots). llama.cpp's server
  says so at ``GET /props`` (``total_slots``) or ``GET /slots``;
  llama-cpp-python's server computes one request at a time behind a lock; the
  others (OpenAI, vLLM, Ollama) don't say. :data:`SLOT_PROBES` is the table of
  ways to ask, tried in order by :func:`discover_slots`, which reports which
  probe decided. ``LLM_PARALLEL`` overrides it.
* **Which structured-output mode it accepts** (``json_schema``,
  ``json_object``, or none): learnt from what it answers, per model, and
  remembered here so later calls go straight to the mode that works.

Every provider for a server (one per model name, or a new one per judge)
shares one :class:`ServerState`, so a single-slot server gets one call at a
time from the whole process, whichever model name the call uses. Pure Python,
no Django.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SLOT_PROBES",
    "UNKNOWN_SERVER_SLOTS",
    "ServerState",
    "SlotProbe",
    "discover_slots",
    "forget_servers",
    "server_state",
]

logger = logging.getLogger(__name__)

# A server that does not say how many requests it computes at once (OpenAI,
# vLLM, Ollama) gets this many from one process: the tabular executor's
# historical width, which hosted and GPU servers absorb.
UNKNOWN_SERVER_SLOTS = 8
# Each probe is a tiny GET on the same host; a server that does not answer
# within this is treated as not saying.
PROBE_TIMEOUT_S = 3.0
# A server that answered no probe at all (down) is asked again after this.
REPROBE_AFTER_S = 30.0


@dataclass(frozen=True)
class SlotProbe:
    """One way to ask a server its slots: GET ``path`` (on the server's root,
    without ``/v1``) and read the answer with ``read`` (None: not this kind)."""

    name: str
    path: str
    read: Callable[[Any], int | None]


def _total_slots(body: Any) -> int | None:
    value = body.get("total_slots") if isinstance(body, dict) else None
    return value if isinstance(value, int) and value > 0 else None


def _slot_list(body: Any) -> int | None:
    return len(body) if isinstance(body, list) and body else None


def _llama_cpp_python(body: Any) -> int | None:
    # llama-cpp-python's FastAPI app ("🦙 llama.cpp Python API") serialises
    # every completion behind one lock, whatever --n_parallel says.
    info = body.get("info") if isinstance(body, dict) else None
    title = str(info.get("title", "")) if isinstance(info, dict) else ""
    return 1 if "llama.cpp python" in title.lower() else None


SLOT_PROBES: tuple[SlotProbe, ...] = (
    SlotProbe("llama.cpp /props total_slots", "/props", _total_slots),
    SlotProbe("llama.cpp /slots", "/slots", _slot_list),
    SlotProbe("llama-cpp-python openapi title", "/openapi.json", _llama_cpp_python),
)


def server_root(base_url: str) -> str:
    """``http://host:port/v1`` -> ``http://host:port`` (where llama.cpp's
    ``/props`` lives)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def _get_json(url: str, api_key: str | None) -> tuple[bool, Any]:
    """(reached, parsed body or None). ``reached`` is False only when nothing
    answered (refused, timed out): then nothing about the server is learnt."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT_S) as response:
            raw = response.read(1_000_000)
    except urllib.error.HTTPError:
        return True, None  # it answered: just not this kind of server
    except (OSError, ValueError):
        return False, None
    try:
        return True, json.loads(raw)
    except ValueError:
        return True, None


def discover_slots(base_url: str, api_key: str | None) -> tuple[int | None, str]:
    """(slots or None, which probe decided). None with ``"unreachable"`` when
    the server did not answer at all (ask again later), with ``"unknown"`` when
    it answered every probe without saying."""
    root = server_root(base_url)
    reached_any = False
    for probe in SLOT_PROBES:
        reached, body = _get_json(root + probe.path, api_key)
        reached_any = reached_any or reached
        if body is None:
            continue
        slots = probe.read(body)
        if slots is not None:
            return slots, probe.name
    return None, ("unknown" if reached_any else "unreachable")


@dataclass
class ServerState:
    """One server's slots, its gate (a semaphore of that size) and the JSON
    mode that works for each model name on it."""

    slots: int | None = None
    decided_by: str = ""
    gate: threading.BoundedSemaphore | None = None
    json_modes: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    probe_after: float = 0.0

    def settle_slots(self, discover: Callable[[], tuple[int | None, str]]) -> int:
        """The server's slots, discovered on first use (thread-safe)."""
        if self.slots is not None:
            return self.slots
        with self.lock:
            if self.slots is None:
                if time.monotonic() < self.probe_after:
                    return UNKNOWN_SERVER_SLOTS
                slots, decided_by = discover()
                if slots is None and decided_by == "unreachable":
                    # Not learnt: the call itself will report the server down;
                    # ask again later, not before every call.
                    self.probe_after = time.monotonic() + REPROBE_AFTER_S
                    return UNKNOWN_SERVER_SLOTS
                self.slots = slots or UNKNOWN_SERVER_SLOTS
                self.decided_by = decided_by
                self.gate = threading.BoundedSemaphore(self.slots)
                logger.info(
                    "model server: %d parallel slot(s) (%s)", self.slots, decided_by
                )
        return self.slots


_STATES: dict[tuple[str, int], ServerState] = {}
_STATES_LOCK = threading.Lock()


def server_state(base_url: str, parallel: int = 0) -> ServerState:
    """The shared state of the server at ``base_url``. ``parallel`` > 0 is the
    configured slot count (``LLM_PARALLEL``): no discovery then."""
    key = (base_url.rstrip("/"), max(0, parallel))
    with _STATES_LOCK:
        state = _STATES.get(key)
        if state is None:
            state = ServerState()
            if parallel > 0:
                state.slots = parallel
                state.decided_by = "LLM_PARALLEL"
                state.gate = threading.BoundedSemaphore(parallel)
            _STATES[key] = state
        return state


def forget_servers() -> None:
    """Forget every server (tests: a new scripted server may reuse a port)."""
    with _STATES_LOCK:
        _STATES.clear()
