"""A recording HTTP proxy on 127.0.0.1, put in front of a real model server.

The real_model test tier points ``LLM_BASE_URL`` at this proxy, which forwards
every request unchanged to the real server (llama-cpp-python) and records what
went through: the request body, the status answered, when it started and
ended, and how many requests were in flight at once. Tests then assert the
product's contract with real servers (every request carries ``max_tokens``,
no HTTP 500 reached the product, a single-slot server got one call at a time,
a request was never sent twice) without mocking anything.

Streaming answers (SSE) are relayed chunk by chunk as they arrive. Test
equipment: loopback only.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

__all__ = ["ProxiedRequest", "RecordingProxy"]

LOOPBACK = "127.0.0.1"
_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "proxy-connection",
    "content-length",
    "host",
}


@dataclass
class ProxiedRequest:
    """One request as it went through, and what the server answered."""

    method: str
    path: str
    body: Any  # parsed JSON, or None
    started: float
    status: int | None = None
    ended: float | None = None
    response_bytes: int = 0
    response_head: bytes = b""  # the first bytes of the answer, for messages
    error: str = ""

    @property
    def seconds(self) -> float | None:
        return None if self.ended is None else self.ended - self.started

    @property
    def is_chat(self) -> bool:
        return self.path.split("?", 1)[0].rstrip("/").endswith("/chat/completions")

    def reply(self) -> tuple[str, str | None]:
        """(text, finish_reason) of a chat answer as the server sent it (from
        the first 2,000 bytes recorded: a long reply's text is cut there)."""
        head = self.response_head.decode("utf-8", "replace")
        if self.body and self.body.get("stream"):
            text, finish = [], None
            for line in head.splitlines():
                if not line.startswith("data: {"):
                    continue
                for choice in json.loads(line[6:]).get("choices") or ():
                    text.append((choice.get("delta") or {}).get("content") or "")
                    finish = choice.get("finish_reason") or finish
            return "".join(text), finish
        try:
            choice = json.loads(head)["choices"][0]
        except (ValueError, KeyError, IndexError):
            return "", None
        message = choice.get("message") or {}
        return message.get("content") or "", choice.get("finish_reason")


@dataclass
class _Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    requests: list[ProxiedRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    proxy: RecordingProxy


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = 600

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._forward()

    def do_POST(self) -> None:
        self._forward()

    def _forward(self) -> None:
        proxy = self.server.proxy
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        record = ProxiedRequest(
            method=self.command, path=self.path, body=body, started=time.monotonic()
        )
        proxy._begin(record)
        try:
            self._relay(record, raw)
        except (BrokenPipeError, ConnectionResetError) as exc:
            # The client gave up (its timeout): the server may still compute.
            record.error = f"client went away: {exc.__class__.__name__}"
            self.close_connection = True
        except OSError as exc:
            record.error = f"upstream: {exc.__class__.__name__}: {exc}"
            with contextlib.suppress(OSError):
                self.send_error(502, "upstream unreachable")
            self.close_connection = True
        finally:
            record.ended = time.monotonic()
            proxy._end()

    def _relay(self, record: ProxiedRequest, raw: bytes) -> None:
        proxy = self.server.proxy
        upstream = http.client.HTTPConnection(
            proxy.upstream_host, proxy.upstream_port, timeout=proxy.upstream_timeout_s
        )
        headers = {
            k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP
        }
        headers["Content-Length"] = str(len(raw))
        try:
            upstream.request(self.command, self.path, body=raw, headers=headers)
            response = upstream.getresponse()
            record.status = response.status
            self.send_response(response.status)
            for name, value in response.getheaders():
                if name.lower() not in _HOP_BY_HOP:
                    self.send_header(name, value)
            streaming = "text/event-stream" in (
                response.getheader("Content-Type") or ""
            )
            if streaming:
                # No length: the end of the stream is the end of the connection.
                self.send_header("Connection", "close")
                self.close_connection = True
                self.end_headers()
                while chunk := response.read1(65536):
                    self._note(record, chunk)
                    self.wfile.write(chunk)
                    self.wfile.flush()
            else:
                data = response.read()
                self._note(record, data)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
        finally:
            upstream.close()

    @staticmethod
    def _note(record: ProxiedRequest, data: bytes) -> None:
        if len(record.response_head) < 2000:
            record.response_head += data[: 2000 - len(record.response_head)]
        record.response_bytes += len(data)


class RecordingProxy:
    """Forward ``127.0.0.1:<port>`` to ``upstream`` (``http://host:port``),
    recording every request. Use as a context manager, or start()/stop()."""

    def __init__(self, upstream: str, *, upstream_timeout_s: float = 900.0) -> None:
        parts = urlsplit(upstream)
        if parts.hostname != LOOPBACK and parts.hostname != "localhost":
            raise ValueError("the recording proxy only forwards to this machine")
        self.upstream_host = parts.hostname
        self.upstream_port = parts.port or 80
        self.upstream_timeout_s = upstream_timeout_s
        self._stats = _Stats()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> RecordingProxy:
        httpd = _Server((LOOPBACK, 0), _Handler)
        httpd.proxy = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> RecordingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._httpd is not None, "start() the proxy first"
        return f"http://{LOOPBACK}:{self._httpd.server_address[1]}"

    def _begin(self, record: ProxiedRequest) -> None:
        with self._stats.lock:
            self._stats.requests.append(record)
            self._stats.in_flight += 1
            if record.is_chat:
                self._stats.max_in_flight = max(
                    self._stats.max_in_flight,
                    sum(
                        1 for r in self._stats.requests if r.is_chat and r.ended is None
                    ),
                )

    def _end(self) -> None:
        with self._stats.lock:
            self._stats.in_flight -= 1

    @property
    def requests(self) -> list[ProxiedRequest]:
        with self._stats.lock:
            return list(self._stats.requests)

    @property
    def chat_requests(self) -> list[ProxiedRequest]:
        return [r for r in self.requests if r.is_chat]

    @property
    def max_in_flight(self) -> int:
        """The most chat calls the server was computing at once."""
        with self._stats.lock:
            return self._stats.max_in_flight

    def summary(self) -> dict:
        """What went over the wire to the model: chat calls, their statuses,
        response formats, finish reasons and token limits (counted), empty
        replies, requests that got no answer (a timeout, a refused
        connection), and the most calls computed at once."""
        chats = self.chat_requests
        replies = [r.reply() for r in chats]

        def count(values) -> dict[str, int]:
            return dict(sorted(Counter(str(v) for v in values).items()))

        return {
            "calls": len(chats),
            "seconds": round(sum(r.seconds or 0 for r in chats), 1),
            "statuses": count(r.status for r in chats),
            "no_answer": [r.error for r in chats if r.error],
            "response_formats": count(
                (r.body.get("response_format") or {}).get("type") or "none"
                for r in chats
            ),
            "finish_reasons": count(finish or "-" for _, finish in replies),
            "empty_replies": sum(
                1
                for r, (text, _) in zip(chats, replies, strict=True)
                if r.status == 200 and not text.strip()
            ),
            "max_tokens": count(r.body.get("max_tokens") for r in chats),
            "max_in_flight": self.max_in_flight,
        }

    def reset(self) -> None:
        with self._stats.lock:
            self._stats.requests.clear()
            self._stats.max_in_flight = 0
