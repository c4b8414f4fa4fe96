"""A scripted OpenAI-compatible model server on 127.0.0.1, for tests and benchmarks.

No model weights can run on the CI machines, so every test that involves a model
talks to this server through the real ``openai`` SDK and real HTTP: retries,
timeouts, streaming and error mapping are exercised exactly as in production.

It implements the subset of the OpenAI API the SDK needs for chat:

* ``POST /v1/chat/completions``: non-streaming JSON, and streaming SSE
  (``data: {...}`` chunks ending with ``data: [DONE]``; a final ``usage`` chunk
  when ``stream_options.include_usage`` is set).
* ``GET /v1/models``.
* ``POST /v1/embeddings``: deterministic vectors (:func:`word_vectors`: texts
  sharing words get close vectors, words declared alike with
  :meth:`ScriptedLLMServer.same_meaning` count as one), or a scripted failure
  (:class:`EmbeddingReply`: an HTTP error, garbage, a dropped connection, the
  wrong dimension, NaN, fewer vectors than texts, any of them late).

What a call answers is decided, in order, by: the queue of scripted replies
(:meth:`ScriptedLLMServer.script`), the responder function
(:meth:`ScriptedLLMServer.respond_with`), then the server's ``mode``
(``"extractive"`` quotes the first sentence of the first source in the prompt;
``"echo"`` repeats the question; ``"cut_off"`` and ``"repeating"`` give that
answer stopped at the token limit or looping). A :class:`Reply` can be text, a
JSON object, an HTTP error, garbage, a dropped connection, an empty answer, a
reply cut at the token limit, a repeating one, or any of these after a delay.

``profile=`` imitates a kind of real server (:data:`PROFILES`): which
``response_format`` types it accepts and how it refuses the others
(llama-cpp-python: HTTP 500 on ``json_schema``), how many requests it computes
at once (``slots``: the rest wait, and one whose client gave up is computed
anyway) and where it says so (llama.cpp's ``GET /props``).

Usage::

    with ScriptedLLMServer() as server:
        server.script("Hello", Reply.error(503), Reply.object({"value": "42"}))
        provider = OpenAICompatProvider(server.config())
        ...
        assert "Hello" in server.chat_requests[0].prompt

As a pytest fixture: ``from docuiq.testing.llm_server import llm_server`` in a
conftest. Standalone, for benchmarks and manual tries::

    python -m docuiq.testing.llm_server --port 8999 --latency 0.5 --mode extractive

The server binds to 127.0.0.1 only: it is test equipment and must never be
reachable from another machine.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import functools
import hashlib
import json
import random
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llm.types import LLMConfig

try:  # pytest is a dev dependency; the standalone server must run without it.
    import pytest
except ImportError:  # pragma: no cover - exercised only outside the test env
    pytest = None  # type: ignore[assignment]

__all__ = [
    "LOOPBACK",
    "PROFILES",
    "EmbeddingReply",
    "RecordedRequest",
    "Reply",
    "ScriptedLLMServer",
    "ServerProfile",
    "extractive_reply",
    "llm_server",
    "word_vectors",
]

LOOPBACK = "127.0.0.1"
DEFAULT_MODEL = "scripted-model"

# Retry-After sent with scripted 429/5xx replies: the SDK honours it, so tests of
# "500 then success" take milliseconds instead of the SDK's 0.5-8 s backoff.
FAST_RETRY_AFTER_S = 0.01

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    429: "rate_limit_exceeded",
    500: "server_error",
    502: "server_error",
    503: "service_unavailable",
}


@dataclass(frozen=True)
class Reply:
    """What the server answers to one chat-completion call.

    Build one with the constructors (``Reply.answer``, ``Reply.object``,
    ``Reply.error``, ``Reply.garbage``, ``Reply.drop``, ``Reply.empty``) and add
    latency with :meth:`with_delay`.
    """

    kind: str = "text"  # text | json | error | garbage | drop | empty
    text: str = ""
    obj: Any = None
    status: int = 200
    message: str = ""
    delay_s: float = 0.0
    retry_after_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str = "stop"
    # Streaming only: close the connection after this many content chunks,
    # without a final chunk or [DONE] (a stream cut mid-way, LLM-06).
    drop_after_chunks: int | None = None

    @classmethod
    def answer(cls, text: str, **kwargs: Any) -> Reply:
        """A normal assistant message with ``text`` as its content."""
        return cls(kind="text", text=text, **kwargs)

    @classmethod
    def object(cls, obj: Any, **kwargs: Any) -> Reply:
        """An assistant message whose content is ``json.dumps(obj)``."""
        return cls(kind="json", obj=obj, **kwargs)

    @classmethod
    def chat_answer(
        cls,
        answer: str,
        *citations: tuple[str, ...],
        not_found: bool = False,
        **kwargs: Any,
    ) -> Reply:
        """A structured chat answer (llm.prompting.ANSWER_SCHEMA): each
        citation is (source, quote) or (source, quote, relevance), relevance
        "answers" unless given."""
        return cls.object(
            {
                "answer": answer,
                "citations": [
                    {
                        "source": c[0],
                        "quote": c[1],
                        "relevance": c[2] if len(c) > 2 else "answers",
                    }
                    for c in citations
                ],
                "not_found": not_found,
            },
            **kwargs,
        )

    @classmethod
    def error(
        cls,
        status: int = 500,
        message: str | None = None,
        *,
        retry_after_s: float | None = FAST_RETRY_AFTER_S,
        **kwargs: Any,
    ) -> Reply:
        """An HTTP error with an OpenAI-style ``{"error": {...}}`` body."""
        return cls(
            kind="error",
            status=status,
            message=message or f"Scripted HTTP {status} error.",
            retry_after_s=retry_after_s,
            **kwargs,
        )

    @classmethod
    def garbage(cls, **kwargs: Any) -> Reply:
        """HTTP 200 whose body is not JSON (a proxy error page, a broken server)."""
        return cls(kind="garbage", **kwargs)

    @classmethod
    def drop(cls, **kwargs: Any) -> Reply:
        """Close the connection without sending any response."""
        return cls(kind="drop", **kwargs)

    @classmethod
    def empty(cls, **kwargs: Any) -> Reply:
        """A well-formed completion whose content is the empty string."""
        return cls(kind="empty", **kwargs)

    @classmethod
    def cut_off(cls, text: str = "The notice period is thirty", **kwargs: Any) -> Reply:
        """A reply the server stopped at the request's token limit
        (``finish_reason: length``), as a real server does."""
        return cls(kind="text", text=text, finish_reason="length", **kwargs)

    @classmethod
    def repeating(
        cls, sentence: str = "The term is one year.", times: int = 20, **kwargs: Any
    ) -> Reply:
        """A small model's loop: one sentence over and over."""
        return cls(kind="text", text=" ".join([sentence] * times), **kwargs)

    def with_delay(self, seconds: float) -> Reply:
        """The same reply, sent after ``seconds`` of latency."""
        return dataclasses.replace(self, delay_s=seconds)


@dataclass(frozen=True)
class EmbeddingReply:
    """What the server answers to one ``/v1/embeddings`` call.

    ``EmbeddingReply.ok()`` is the normal answer; the others are the ways an
    embedding server goes wrong.
    """

    kind: str = "ok"  # ok | error | garbage | drop | wrong_dim | nan | fewer | zero
    status: int = 200
    delay_s: float = 0.0

    @classmethod
    def ok(cls, **kwargs: Any) -> EmbeddingReply:
        return cls(kind="ok", **kwargs)

    @classmethod
    def error(cls, status: int = 503, **kwargs: Any) -> EmbeddingReply:
        return cls(kind="error", status=status, **kwargs)

    @classmethod
    def garbage(cls, **kwargs: Any) -> EmbeddingReply:
        """HTTP 200 whose body is not JSON."""
        return cls(kind="garbage", **kwargs)

    @classmethod
    def drop(cls, **kwargs: Any) -> EmbeddingReply:
        return cls(kind="drop", **kwargs)

    @classmethod
    def wrong_dim(cls, **kwargs: Any) -> EmbeddingReply:
        """Vectors one dimension longer than the server's ``embedding_dim``."""
        return cls(kind="wrong_dim", **kwargs)

    @classmethod
    def nan(cls, **kwargs: Any) -> EmbeddingReply:
        """Well-formed JSON whose first vector holds NaN (sent as a string)."""
        return cls(kind="nan", **kwargs)

    @classmethod
    def fewer(cls, **kwargs: Any) -> EmbeddingReply:
        """One vector fewer than the texts sent."""
        return cls(kind="fewer", **kwargs)

    @classmethod
    def zero(cls, **kwargs: Any) -> EmbeddingReply:
        """All-zero vectors."""
        return cls(kind="zero", **kwargs)

    def with_delay(self, seconds: float) -> EmbeddingReply:
        return dataclasses.replace(self, delay_s=seconds)


_EMBED_WORD = re.compile(r"[a-z0-9]+")


def word_vectors(
    texts: list[str], dim: int, synonyms: dict[str, str] | None = None
) -> list[list[float]]:
    """A unit vector per text: the sum of a fixed pseudo-random vector per
    lower-cased word (seeded by the word's hash, so the same in every process).
    Texts sharing words are close; a word mapped in ``synonyms`` uses its
    target's vector. A text without words gets a fixed vector of its own."""
    synonyms = synonyms or {}
    out = []
    for text in texts:
        total = [0.0] * dim
        for word in _EMBED_WORD.findall(text.lower()) or ["<empty>"]:
            for i, value in enumerate(_word_vector(synonyms.get(word, word), dim)):
                total[i] += value
        norm = sum(v * v for v in total) ** 0.5 or 1.0
        out.append([v / norm for v in total])
    return out


@functools.lru_cache(maxsize=100_000)
def _word_vector(word: str, dim: int) -> tuple[float, ...]:
    seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "big")
    rng = random.Random(seed)
    return tuple(rng.gauss(0.0, 1.0) for _ in range(dim))


ReplyLike = Reply | str | dict
Responder = Callable[[dict[str, Any]], "ReplyLike | None"]


def _as_reply(value: ReplyLike) -> Reply:
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply.answer(value)
    if isinstance(value, dict):
        return Reply.object(value)
    raise TypeError(f"cannot script {value!r}: use a Reply, a str or a dict")


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    body: Any  # parsed JSON, or None if the body was not JSON
    received_at: float = field(default_factory=time.monotonic)

    @property
    def messages(self) -> list[dict[str, Any]]:
        if isinstance(self.body, dict):
            return list(self.body.get("messages") or [])
        return []

    @property
    def prompt(self) -> str:
        """Every message's text, joined: what a test greps for."""
        return "\n\n".join(_content_text(m.get("content")) for m in self.messages)

    @property
    def system_prompt(self) -> str:
        return "\n\n".join(
            _content_text(m.get("content"))
            for m in self.messages
            if m.get("role") == "system"
        )

    @property
    def user_prompt(self) -> str:
        """The last user message (the current question and its sources)."""
        users = [m for m in self.messages if m.get("role") == "user"]
        return _content_text(users[-1].get("content")) if users else ""

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def stream(self) -> bool:
        return bool(isinstance(self.body, dict) and self.body.get("stream"))

    @property
    def response_format(self) -> dict[str, Any] | None:
        return self.body.get("response_format") if isinstance(self.body, dict) else None


def _content_text(content: Any) -> str:
    # Content is a string, or a list of parts ({"type": "text", "text": ...}).
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict)
        )
    return ""


def _estimate_tokens(text: str) -> int:
    # ~4 characters per token is the usual rule of thumb for English text.
    return max(1, len(text) // 4) if text else 0


# ----------------------------------------------------------------- extractive mode

_FENCE_RE = re.compile(
    r"<(source|chunk|passage)\b([^>]*)>(.*?)</\1\s*>", re.DOTALL | re.IGNORECASE
)
_ATTR_RE = re.compile(r'(\w+)="([^"]*)"')
_SENTENCE_RE = re.compile(r"\S.*?[.!?](?=\s|$)", re.DOTALL)


def _first_fence(prompt: str) -> tuple[str, dict[str, str], str] | None:
    match = _FENCE_RE.search(prompt)
    if not match:
        return None
    return (
        match.group(1).lower(),
        dict(_ATTR_RE.findall(match.group(2))),
        match.group(3),
    )


def _first_sentence(text: str) -> str:
    text = text.strip()
    match = _SENTENCE_RE.match(text)
    sentence = match.group(0) if match else text
    # Cap at a word boundary; the result stays a verbatim substring.
    if len(sentence) > 300:
        sentence = sentence[:300].rsplit(" ", 1)[0]
    return sentence.strip()


def _fill_schema(schema: Any, key: str, ctx: dict[str, Any]) -> Any:
    """A value valid against the simple JSON-schema subset our prompts use."""
    if not isinstance(schema, dict):
        return ctx["sentence"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: _fill_schema(v, k, ctx) for k, v in props.items()}
    if kind == "array":
        item = _fill_schema(schema.get("items") or {}, key, ctx)
        return [item]
    if kind == "boolean":
        # A flag saying nothing was found is false: the reply quotes.
        return key != "not_found"
    if kind == "integer":
        return ctx["index"] if "ind" in key else 1
    if kind == "number":
        return 0.9
    if kind == "null":
        return None
    if key in {"quote", "span", "value", "answer", "snippet", "text"}:
        return ctx["sentence"]
    if key == "source":  # a chat answer's citation names its source
        return ctx["ref"]
    return "Scripted answer from the extractive test server."


_WORDED_SCHEMA_RE = re.compile(r"JSON schema:\s*(\{.*\})\s*$", re.DOTALL)


def _worded_schema(prompt: str) -> dict[str, Any] | None:
    match = _WORDED_SCHEMA_RE.search(prompt)
    if not match:
        return None
    try:
        schema = json.loads(match.group(1))
    except ValueError:
        return None
    return schema if isinstance(schema, dict) else None


def extractive_reply(request: dict[str, Any]) -> Reply:
    """Quote the first sentence of the first source in the prompt.

    Text requests get ``"<sentence>" (Source: [S1])``; JSON-schema requests get
    an object valid against the schema, with the sentence in quote-like fields
    (``quote``, ``span``, ``value``) and the chunk index in ``*_indices``.
    """
    messages = request.get("messages") or []
    users = [m for m in messages if m.get("role") == "user"]
    prompt = _content_text(users[-1].get("content")) if users else ""
    fence = _first_fence(prompt)
    if fence is None:
        sentence, ref, index = "", "S1", 0
    else:
        _tag, attrs, text = fence
        sentence = _first_sentence(text)
        ref = attrs.get("id", "S1")
        index = int(attrs["index"]) if attrs.get("index", "").isdigit() else 0
    fmt = request.get("response_format") or {}
    ctx = {"sentence": sentence, "index": index}
    if fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema") or {}
        ctx = {"sentence": sentence, "index": index, "ref": ref}
        return Reply.object(_fill_schema(schema, "", ctx))
    # A server without schema support reads the schema from the prompt, where
    # the client spells it out (llm.openai_compat.json_instruction).
    worded = _worded_schema(prompt)
    if worded is not None:
        return Reply.object(_fill_schema(worded, "", ctx))
    if fmt.get("type") == "json_object":
        return Reply.object({"answer": sentence})
    if not sentence:
        return Reply.answer("The provided documents do not contain an answer.")
    return Reply.answer(f'"{sentence}" (Source: [{ref}])')


def echo_reply(request: dict[str, Any]) -> Reply:
    """Repeat the last user message (handy when poking at prompts by hand)."""
    messages = request.get("messages") or []
    users = [m for m in messages if m.get("role") == "user"]
    return Reply.answer(_content_text(users[-1].get("content")) if users else "")


def cut_off_reply(request: dict[str, Any]) -> Reply:
    """The extractive answer, stopped half-way at the token limit."""
    reply = extractive_reply(request)
    text = reply.text if reply.kind == "text" else json.dumps(reply.obj)
    return Reply.cut_off(text[: max(1, len(text) // 2)])


def repeating_reply(request: dict[str, Any]) -> Reply:
    """The extractive answer's sentence, repeated twenty times."""
    reply = extractive_reply(request)
    sentence = reply.text if reply.kind == "text" else json.dumps(reply.obj)
    return Reply.repeating(sentence)


_MODES: dict[str, Callable[[dict[str, Any]], Reply]] = {
    "extractive": extractive_reply,
    "echo": echo_reply,
    "cut_off": cut_off_reply,
    "repeating": repeating_reply,
}


@dataclass(frozen=True)
class ServerProfile:
    """How a kind of real server behaves, for the scripted one to imitate.

    ``formats``: the ``response_format`` types it accepts ("text" is none);
    any other is answered ``reject_status`` with a message naming
    ``response_format``. ``slots``: requests it computes at once (None: as
    many as arrive); the others wait, and a request whose client gave up is
    still computed to the end, as on a real server. ``announces``: where it
    says its slots (``"props"``: llama.cpp's ``GET /props`` ``total_slots``;
    ``"openapi"``: llama-cpp-python's ``/openapi.json`` title; None).
    """

    name: str
    formats: frozenset[str]
    reject_status: int = 400
    slots: int | None = None
    announces: str | None = None
    # Whether a stream ends with a usage chunk when stream_options asks for one
    # (llama-cpp-python ignores it).
    stream_usage: bool = True

    def rejection(self, wanted: str) -> str:
        """The error message for a response_format type it does not accept."""
        allowed = " or ".join(repr(f) for f in sorted(self.formats, reverse=True))
        if self.reject_status == 500:
            # llama-cpp-python: its pydantic validation error, as a 500.
            return (
                "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                f"'response_format', 'type'), 'msg': \"Input should be {allowed}\", "
                f"'input': {wanted!r}}}"
            )
        return (
            f"response_format type {wanted!r} is not supported by this server "
            f"({self.name}); use {allowed}"
        )


_ALL_FORMATS = frozenset({"text", "json_object", "json_schema"})
PROFILES: dict[str, ServerProfile] = {
    profile.name: profile
    for profile in (
        ServerProfile("openai", _ALL_FORMATS),
        # llama-cpp-python's server: json_schema answered HTTP 500, one
        # request at a time behind a lock.
        ServerProfile(
            "llama-cpp-python",
            frozenset({"text", "json_object"}),
            reject_status=500,
            slots=1,
            announces="openapi",
            stream_usage=False,
        ),
        # llama.cpp's own server: every format, slots at GET /props.
        ServerProfile("llama.cpp", _ALL_FORMATS, slots=4, announces="props"),
        # Older Ollama and vLLM builds: json_object only, 400 otherwise.
        ServerProfile("json-object-only", frozenset({"text", "json_object"})),
        # A server with no structured output at all (422 from its validator).
        ServerProfile("text-only", frozenset({"text"}), reject_status=422),
    )
}
LLAMA_CPP_PYTHON_TITLE = "\U0001f999 llama.cpp Python API"


# ---------------------------------------------------------------------- the server


class _HTTPServer(ThreadingHTTPServer):
    # One thread per connection, so a slow (delayed) call never blocks another:
    # the tabular benchmark runs 16 concurrent calls at 500 ms each.
    daemon_threads = True
    allow_reuse_address = True
    scripted: ScriptedLLMServer


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 keep-alive, like real model servers: the SDK pools connections.
    protocol_version = "HTTP/1.1"
    # Small writes must not wait for delayed ACKs (Nagle): ~49 ms -> ~6 ms a call.
    disable_nagle_algorithm = True
    server: _HTTPServer
    # Idle keep-alive connections end after this, so handler threads don't pile up.
    timeout = 30

    def setup(self) -> None:
        super().setup()
        self.server.scripted._connections_add(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.scripted._connections_discard(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        # Tests run thousands of calls; access logs would drown real output.
        pass

    # -- plumbing

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(parts)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _record(self, raw: bytes) -> RecordedRequest:
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            raw=raw,
            body=body,
        )
        self.server.scripted._record(request)
        return request

    def _send_json(
        self, status: int, payload: Any, headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _announces(self, where: str) -> bool:
        scripted = self.server.scripted
        return scripted.profile.announces == where and scripted.slots is not None

    def _route(self) -> str:
        # Accept base URLs with or without the /v1 prefix.
        path = self.path.split("?", 1)[0].rstrip("/")
        return path[3:] if path.startswith("/v1/") else path

    # -- verbs

    def do_GET(self) -> None:
        self._record(b"")
        if self._route() == "/models":
            model = self.server.scripted.model
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": model,
                            "object": "model",
                            "created": 0,
                            "owned_by": "docuiq-tests",
                        }
                    ],
                },
            )
        elif self._route() == "/props" and self._announces("props"):
            scripted = self.server.scripted
            self._send_json(
                200,
                {"total_slots": scripted.slots, "model_path": scripted.model},
            )
        elif self._route() == "/openapi.json" and self._announces("openapi"):
            self._send_json(
                200,
                {"openapi": "3.1.0", "info": {"title": LLAMA_CPP_PYTHON_TITLE}},
            )
        else:
            self._not_found()

    def do_POST(self) -> None:
        raw = self._read_body()
        request = self._record(raw)
        if self._route() == "/embeddings" and isinstance(request.body, dict):
            try:
                self._embeddings(request.body, self.server.scripted)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
            return
        if self._route() != "/chat/completions":
            self._not_found()
            return
        if not isinstance(request.body, dict):
            self._send_json(
                400,
                {
                    "error": {
                        "message": "Request body is not JSON.",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": None,
                    }
                },
            )
            return
        scripted = self.server.scripted
        scripted._enter()
        try:
            self._chat(request.body, scripted)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (timeout): nothing left to answer.
            self.close_connection = True
        finally:
            scripted._leave()

    def _not_found(self) -> None:
        self._send_json(
            404,
            {
                "error": {
                    "message": f"Unknown path {self.path}",
                    "type": "not_found_error",
                    "param": None,
                    "code": None,
                }
            },
        )

    # -- embeddings

    def _embeddings(self, body: dict[str, Any], scripted: ScriptedLLMServer) -> None:
        reply = scripted._next_embedding_reply()
        delay = scripted.embedding_latency_s + reply.delay_s
        if delay > 0 and scripted._stopping.wait(delay):
            self.close_connection = True
            return
        if reply.kind == "drop":
            self._drop()
            return
        if reply.kind == "error":
            self._send_error(
                Reply.error(reply.status, retry_after_s=FAST_RETRY_AFTER_S)
            )
            return
        if reply.kind == "garbage":
            data = b"<html><body>502 Bad Gateway</body></html> {not json"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        dim = scripted.embedding_dim + (1 if reply.kind == "wrong_dim" else 0)
        vectors: list[Any] = word_vectors(
            [str(t) for t in texts], dim, scripted._synonyms
        )
        if reply.kind == "zero":
            vectors = [[0.0] * dim for _ in vectors]
        if reply.kind == "nan" and vectors:
            vectors[0] = ["NaN", *vectors[0][1:]]
        if reply.kind == "fewer":
            vectors = vectors[:-1]
        self._send_json(
            200,
            {
                "object": "list",
                "data": [
                    {"object": "embedding", "index": i, "embedding": v}
                    for i, v in enumerate(vectors)
                ],
                "model": body.get("model") or scripted.model,
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
            },
        )

    # -- chat completions

    def _chat(self, body: dict[str, Any], scripted: ScriptedLLMServer) -> None:
        wanted = (body.get("response_format") or {}).get("type") or "text"
        if wanted not in scripted.profile.formats:
            self._send_error(
                Reply.error(
                    scripted.profile.reject_status,
                    scripted.profile.rejection(wanted),
                    retry_after_s=None,
                )
            )
            return
        with scripted._slot():
            self._answer(body, scripted)

    def _answer(self, body: dict[str, Any], scripted: ScriptedLLMServer) -> None:
        reply = scripted._next_reply(body)
        delay = scripted.latency_s + reply.delay_s
        # Wait on the stop event rather than sleep, so stop() is never held up.
        if delay > 0 and scripted._stopping.wait(delay):
            self.close_connection = True
            return
        if reply.kind == "drop":
            self._drop()
            return
        if reply.kind == "error":
            self._send_error(reply)
            return
        if body.get("stream"):
            self._stream(body, reply, scripted)
        else:
            self._complete(body, reply, scripted)

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _send_error(self, reply: Reply) -> None:
        headers = {}
        if reply.retry_after_s is not None:
            headers["retry-after-ms"] = str(int(reply.retry_after_s * 1000))
        payload = {
            "error": {
                "message": reply.message,
                "type": _ERROR_TYPES.get(reply.status, "server_error"),
                "param": None,
                "code": str(reply.status),
            }
        }
        self._send_json(reply.status, payload, headers)

    @staticmethod
    def _content(reply: Reply) -> str:
        if reply.kind == "json":
            return json.dumps(reply.obj)
        if reply.kind == "empty":
            return ""
        return reply.text

    @staticmethod
    def _usage(body: dict[str, Any], reply: Reply, content: str) -> dict[str, int]:
        prompt = "\n\n".join(
            _content_text(m.get("content")) for m in body.get("messages") or []
        )
        prompt_tokens = (
            reply.prompt_tokens
            if reply.prompt_tokens is not None
            else _estimate_tokens(prompt)
        )
        completion_tokens = (
            reply.completion_tokens
            if reply.completion_tokens is not None
            else _estimate_tokens(content)
        )
        return {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }

    def _complete(
        self, body: dict[str, Any], reply: Reply, scripted: ScriptedLLMServer
    ) -> None:
        if reply.kind == "garbage":
            data = b"<html><body>502 Bad Gateway</body></html> {not json"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        content = self._content(reply)
        self._send_json(
            200,
            {
                "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model") or scripted.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": reply.finish_reason,
                        "logprobs": None,
                    }
                ],
                "usage": self._usage(body, reply, content),
            },
        )

    def _stream(
        self, body: dict[str, Any], reply: Reply, scripted: ScriptedLLMServer
    ) -> None:
        # SSE with no Content-Length: the end of the stream is the end of the
        # connection, as with most real servers' streaming responses.
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        if reply.kind == "garbage":
            self.wfile.write(b"data: {not json at all\n\n")
            self.wfile.flush()
            return
        content = self._content(reply)
        base = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model") or scripted.model,
        }

        def send(choices: list[dict[str, Any]], **extra: Any) -> None:
            chunk = {**base, "choices": choices, **extra}
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()

        send([{"index": 0, "delta": {"role": "assistant", "content": ""}}])
        pieces = re.findall(r"\S+\s*|\s+", content)
        for n, piece in enumerate(pieces):
            if reply.drop_after_chunks is not None and n >= reply.drop_after_chunks:
                self._drop()
                return
            if scripted.chunk_delay_s and scripted._stopping.wait(
                scripted.chunk_delay_s
            ):
                return
            send(
                [
                    {
                        "index": 0,
                        "delta": {"content": piece},
                        "finish_reason": None,
                    }
                ]
            )
        send([{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}])
        options = body.get("stream_options") or {}
        if options.get("include_usage") and scripted.profile.stream_usage:
            send([], usage=self._usage(body, reply, content))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class ScriptedLLMServer:
    """An OpenAI-compatible HTTP server on 127.0.0.1 that answers from a script.

    Thread-safe: replies are popped and requests recorded under a lock, and
    every connection has its own thread.
    """

    def __init__(
        self,
        *,
        port: int = 0,
        mode: str | None = "extractive",
        responder: Responder | None = None,
        latency_s: float = 0.0,
        chunk_delay_s: float = 0.0,
        model: str = DEFAULT_MODEL,
        embedding_dim: int = 64,
        embedding_latency_s: float = 0.0,
        profile: str = "openai",
        slots: int | None = None,
    ) -> None:
        if mode is not None and mode not in _MODES:
            raise ValueError(f"unknown mode {mode!r}; choose from {sorted(_MODES)}")
        if profile not in PROFILES:
            raise ValueError(
                f"unknown profile {profile!r}; choose from {sorted(PROFILES)}"
            )
        # Which real server it imitates (PROFILES); ``slots`` overrides its own.
        self.profile = PROFILES[profile]
        self.slots = slots if slots is not None else self.profile.slots
        self._slots_gate = (
            threading.BoundedSemaphore(self.slots) if self.slots else None
        )
        self.port_requested = port
        self.mode = mode
        self.latency_s = latency_s
        self.chunk_delay_s = chunk_delay_s
        self.model = model
        self.embedding_dim = embedding_dim
        self.embedding_latency_s = embedding_latency_s
        self._embedding_queue: collections.deque[EmbeddingReply] = collections.deque()
        self._synonyms: dict[str, str] = {}
        self._responder = responder
        self._lock = threading.Lock()
        self._queue: collections.deque[Reply] = collections.deque()
        self._requests: list[RecordedRequest] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> ScriptedLLMServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = _HTTPServer((LOOPBACK, self.port_requested), _Handler)
        httpd.scripted = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"scripted-llm-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # wakes handlers waiting out a scripted delay
        self._httpd.shutdown()
        self._httpd.server_close()
        # Close idle keep-alive connections too, so no handler thread outlives
        # the server (clients' pools would otherwise keep them waiting).
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the server is not running; call start() first")
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def base_url(self) -> str:
        """What to pass as the SDK's / LLM_BASE_URL's base URL."""
        return f"{self.url}/v1"

    def config(self, **overrides: Any) -> LLMConfig:
        """An ``LLMConfig`` pointing at this server (test-friendly timeouts)."""
        from llm.types import LLMConfig  # lazy: keep the server standalone

        values: dict[str, Any] = {
            "base_url": self.base_url,
            "api_key": "test-key",
            "model": self.model,
            "timeout_s": 10.0,
            "max_retries": 2,
        }
        values.update(overrides)
        return LLMConfig(**values)

    def embeddings_config(self, **overrides: Any) -> Any:
        """An ``EmbeddingsConfig`` pointing at this server's ``/v1/embeddings``."""
        from llm.embeddings import EmbeddingsConfig  # lazy: keep the server standalone

        values: dict[str, Any] = {
            "backend": "server",
            "base_url": self.base_url,
            "api_key": "test-key",
            "model": "scripted-embedder",
            "dim": self.embedding_dim,
            "timeout_s": 5.0,
            "max_retries": 0,
            "cooldown_s": 0.0,
        }
        values.update(overrides)
        return EmbeddingsConfig(**values)

    # -- scripting

    def script_embeddings(self, *replies: EmbeddingReply) -> ScriptedLLMServer:
        """Queue embedding replies; each ``/v1/embeddings`` call takes the next
        one, and calls past the queue get :meth:`EmbeddingReply.ok`."""
        with self._lock:
            self._embedding_queue.extend(replies)
        return self

    def same_meaning(self, *words: str) -> ScriptedLLMServer:
        """Embed every one of ``words`` as the first (a scripted synonym)."""
        for word in words[1:]:
            self._synonyms[word.lower()] = words[0].lower()
        return self

    def _next_embedding_reply(self) -> EmbeddingReply:
        with self._lock:
            if self._embedding_queue:
                return self._embedding_queue.popleft()
        return EmbeddingReply.ok()

    def script(self, *replies: ReplyLike) -> ScriptedLLMServer:
        """Queue replies; each chat call takes the next one (FIFO)."""
        with self._lock:
            self._queue.extend(_as_reply(r) for r in replies)
        return self

    def respond_with(self, responder: Responder | None) -> ScriptedLLMServer:
        """Answer calls the queue doesn't cover with ``responder(request_json)``.

        The responder may return None to fall back to the server's mode.
        """
        self._responder = responder
        return self

    @property
    def pending(self) -> int:
        """Scripted replies not consumed yet."""
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        """Forget scripted replies, recorded requests and concurrency stats."""
        with self._lock:
            self._queue.clear()
            self._embedding_queue.clear()
            self._requests.clear()
            self._max_in_flight = self._in_flight

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self._responder is not None:
            result = self._responder(body)
            if result is not None:
                return _as_reply(result)
        if self.mode is None:
            return Reply.error(
                500, "No scripted reply left and no mode set.", retry_after_s=None
            )
        return _MODES[self.mode](body)

    # -- recording

    def _connections_add(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)

    def _connections_discard(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    @contextlib.contextmanager
    def _slot(self) -> Iterator[None]:
        """Hold one of the server's slots while a reply is computed."""
        gate = self._slots_gate
        if gate is None:
            yield
            return
        while not gate.acquire(timeout=0.05):
            if self._stopping.is_set():
                raise ConnectionResetError("the scripted server is stopping")
        try:
            yield
        finally:
            gate.release()

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far (a copy), oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The chat-completion calls received so far, oldest first."""
        return [r for r in self.requests if r.path.rstrip("/").endswith("/completions")]

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        """The ``/v1/embeddings`` calls received so far, oldest first."""
        return [r for r in self.requests if r.path.rstrip("/").endswith("/embeddings")]

    @property
    def last_request(self) -> RecordedRequest:
        chats = self.chat_requests
        if not chats:
            raise AssertionError("the scripted LLM server received no chat call")
        return chats[-1]

    @property
    def max_in_flight(self) -> int:
        """The most chat calls that were being answered at the same time."""
        with self._lock:
            return self._max_in_flight


if pytest is not None:

    @pytest.fixture
    def llm_server() -> Iterator[ScriptedLLMServer]:
        """A fresh scripted model server per test, stopped afterwards."""
        with ScriptedLLMServer() as server:
            yield server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Scripted OpenAI-compatible model server on 127.0.0.1."
    )
    parser.add_argument("--port", type=int, default=8999)
    parser.add_argument(
        "--latency", type=float, default=0.0, help="seconds added to every call"
    )
    parser.add_argument("--mode", choices=sorted(_MODES), default="extractive")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default="openai",
        help="the real server to imitate (structured output, slots)",
    )
    parser.add_argument("--slots", type=int, default=None)
    args = parser.parse_args(argv)
    server = ScriptedLLMServer(
        port=args.port,
        mode=args.mode,
        latency_s=args.latency,
        model=args.model,
        profile=args.profile,
        slots=args.slots,
    )
    server.start()
    # Flushed: scripts (and a test) read the address from a pipe.
    print(
        f"Scripted LLM server ({args.mode}) on {server.base_url}; Ctrl-C to stop.",
        flush=True,
    )
    print(f"  LLM_BASE_URL={server.base_url} LLM_MODEL={args.model}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
