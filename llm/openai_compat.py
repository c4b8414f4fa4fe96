"""Any OpenAI-compatible model server: OpenAI, vLLM, Ollama, llama.cpp's server
and llama-cpp-python's.

Servers differ, and the client adapts to each one, once per server (what it
learns is kept in :mod:`llm.servers`):

* **Every request carries ``max_tokens``** (``LLM_MAX_TOKENS``, or the
  caller's own value) and the configured temperature.
* **Retries are done here, not by the SDK** (its ``max_retries`` is 0): only
  what the server cannot have computed is sent again, i.e. a connection that
  never got through, 429 and 503, with exponential backoff honouring
  ``Retry-After``. A request that timed out is never sent again: the server
  may still be computing it, and a copy would queue behind the original.
* **Parallel calls**: at most :attr:`OpenAICompatProvider.parallel_slots`
  requests in flight per server from this process (a semaphore), so a
  single-slot CPU server gets one call at a time. Waiting for a slot does not
  count against the timeout, which starts when the request is sent; a
  single-slot server gets a longer one (``SINGLE_SLOT_TIMEOUT_FACTOR``),
  because other processes' requests may be ahead in its queue.
* **Structured output** follows :data:`JSON_MODES`: ``json_schema``, then
  ``json_object``, then no ``response_format`` and the schema in words, each
  tried when the server rejects the one before it (any 4xx/5xx whose message
  names ``response_format``; llama-cpp-python answers HTTP 500), and the mode
  that works is remembered per server and model.
* **An unusable reply** (empty, cut at the token limit, repeating itself,
  malformed or schema-invalid JSON) is asked once more, then raised as
  :class:`~llm.errors.LLMBadResponse`; it is never returned as an answer.

What is left after that is mapped to :mod:`llm.errors`, so callers never see
SDK types.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import logging
import random
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar
from urllib.parse import urlsplit, urlunsplit

from llm import prompting
from llm.errors import (
    LLMBadResponse,
    LLMError,
    LLMRequestRejected,
    LLMUnavailable,
)
from llm.lazy import lazy_module
from llm.repetition import find_repetition
from llm.servers import ServerState, discover_slots, server_state
from llm.types import ChatMessage, Completion, CompletionStream, LLMConfig

# The SDK loads when first used (a client built, an error matched), not when
# this module is imported: a process with no model server never pays for it.
if TYPE_CHECKING:
    import openai
else:
    openai = lazy_module("openai")

__all__ = [
    "JSON_MODES",
    "JsonMode",
    "OpenAICompatProvider",
    "parse_json_answer",
    "validate_json",
]

logger = logging.getLogger(__name__)
T = TypeVar("T")

# A single-slot server computes one request at a time for every process that
# uses it (web workers, Celery workers): a request may wait behind others'.
SINGLE_SLOT_TIMEOUT_FACTOR = 4
# Statuses that say "not computed, try later". 500 is not one: llama.cpp and
# vLLM answer it for requests that will fail the same way again.
RETRY_STATUSES = frozenset({429, 503})
BACKOFF_S = 0.5
BACKOFF_MAX_S = 8.0
RETRY_AFTER_MAX_S = 60.0
# The second try of an unusable reply: at temperature 0 a server would answer
# the same tokens again, so the retry samples a little.
RETRY_TEMPERATURE = 0.3
_RESPONSE_FORMAT_RE = re.compile(
    r"response.?format|json.?schema|json.?object|guided.?json", re.IGNORECASE
)


def _transport_errors() -> tuple[type[BaseException], ...]:
    # The SDK raises raw transport errors (not APIError) when a stream breaks
    # mid-way. Recent SDKs use httpx2, older ones httpx: catch whichever exists.
    found: list[type[BaseException]] = []
    for module_name in ("httpx2", "httpx"):
        with contextlib.suppress(ImportError):
            module = __import__(module_name)
            found.append(module.TransportError)
    return tuple(found)


_TRANSPORT_ERRORS = _transport_errors()


def _display_url(url: str) -> str:
    # Error messages end up in the UI: never show credentials or query strings.
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


class _Where(TypedDict):
    """Which server and model an error came from (LLMError's keywords)."""

    base_url: str | None
    model: str | None


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    message: Any = None
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
    text = " ".join(str(message or exc.message or "").split())
    return text[:200]


def _estimate_tokens(text: str) -> int:
    # Used only when a server omits `usage`: ~4 characters per token.
    return max(1, len(text) // 4) if text else 0


@dataclass(frozen=True)
class JsonMode:
    """One way to ask a server for JSON: the ``response_format`` it sends
    (None: none) and whether the schema is also spelled out in the prompt."""

    name: str
    response_format: Callable[[dict[str, Any], str], dict[str, Any] | None]
    instructed: bool


def _json_schema_format(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {
            "name": name,
            "schema": schema,
            "strict": _strict_compatible(schema),
        },
    }


JSON_MODES: tuple[JsonMode, ...] = (
    JsonMode("json_schema", _json_schema_format, instructed=False),
    # OpenAI refuses json_object unless the prompt says "JSON"; every server
    # does better with the schema in words when it cannot enforce it.
    JsonMode("json_object", lambda schema, name: {"type": "json_object"}, True),
    JsonMode("instruction", lambda schema, name: None, instructed=True),
)


def json_instruction(schema: dict[str, Any]) -> str:
    """The schema in words, for servers that cannot enforce it."""
    return (
        "Reply with one JSON object and nothing else: no code fence, no text "
        "before or after it. It must match this JSON schema:\n"
        + json.dumps(schema, separators=(",", ":"))
    )


def _with_instruction(
    messages: Sequence[ChatMessage], instruction: str
) -> list[ChatMessage]:
    # Appended to the last user message: small models follow what they read
    # last, and some chat templates (Gemma) have no system role.
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        if out[i].role == "user":
            out[i] = ChatMessage("user", f"{out[i].content}\n\n{instruction}")
            return out
    return [*out, ChatMessage("user", instruction)]


def _names_response_format(exc: BaseException | None) -> bool:
    """True when a server's error is about the structured-output request."""
    while exc is not None and not isinstance(exc, openai.APIStatusError):
        exc = exc.__cause__
    if exc is None:
        return False
    text = f"{exc.message} {json.dumps(exc.body, default=str)}"
    return bool(_RESPONSE_FORMAT_RE.search(text))


def _retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    if not headers:
        return None
    with contextlib.suppress(TypeError, ValueError):
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time()) if when else None


def _backoff_s(tries: int, headers: Mapping[str, str] | None) -> float:
    after = _retry_after_s(headers)
    if after is not None:
        return min(after, RETRY_AFTER_MAX_S)
    base = min(BACKOFF_S * 2.0 ** (tries - 1), BACKOFF_MAX_S)
    return base * (1 - 0.25 * random.random())


class _Unusable(Exception):
    """A reply the server sent but the product cannot use (asked once more)."""


class _Slot:
    """One of the server's slots, held from sending a request to its end;
    :meth:`release` is safe to call more than once."""

    def __init__(self, gate: threading.BoundedSemaphore | None) -> None:
        self._gate = gate
        self._lock = threading.Lock()
        if gate is not None:
            gate.acquire()

    def release(self) -> None:
        with self._lock:
            gate, self._gate = self._gate, None
        if gate is not None:
            gate.release()

    def __enter__(self) -> _Slot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class OpenAICompatProvider:
    """Chat completions through the ``openai`` SDK.

    Thread-safe: one instance (one connection pool) can serve a whole worker,
    including the tabular executor's parallel cells; every instance for the
    same server shares its slots and what was learnt about it.
    """

    name = "openai"

    def __init__(
        self,
        config: LLMConfig,
        *,
        model: str | None = None,
        client: openai.OpenAI | None = None,
    ) -> None:
        if not config.base_url:
            raise ValueError("OpenAICompatProvider needs config.base_url")
        self.config = config
        self.where = _display_url(config.base_url)
        self._model = model or config.model
        self._model_lock = threading.Lock()
        self._client = client or openai.OpenAI(
            base_url=config.base_url,
            # Local servers (llama.cpp, vLLM, Ollama) need no key, but the SDK
            # refuses to start without one.
            api_key=config.api_key or "not-needed",
            timeout=config.timeout_s,
            # Retries are ours (_send): the SDK would also re-send timeouts.
            max_retries=0,
        )

    def with_model(self, model: str | None) -> OpenAICompatProvider:
        """A provider for another model on the same server, sharing the pool."""
        return OpenAICompatProvider(self.config, model=model, client=self._client)

    # ---------------------------------------------------------------- model name

    @property
    def model(self) -> str:
        """The configured model, else the server's first listed model."""
        if self._model:
            return self._model
        with self._model_lock:
            if not self._model:
                with self._errors():
                    listed = self._send(
                        lambda: [m.id for m in self._client.models.list()]
                    )
                if not listed:
                    raise LLMRequestRejected(
                        f"The model server at {self.where} lists no models; "
                        "set LLM_MODEL.",
                        base_url=self.where,
                    )
                self._model = listed[0]
        return self._model

    # ------------------------------------------------------------ the server

    @property
    def _server(self) -> ServerState:
        # Looked up per use, not kept: providers are cached (get_provider) and
        # must see a server forgotten (forget_servers) as new.
        return server_state(self.config.base_url or "", self.config.parallel)

    @property
    def parallel_slots(self) -> int:
        """How many requests this process sends the server at once:
        ``LLM_PARALLEL``, else what the server says (llm.servers), else
        ``UNKNOWN_SERVER_SLOTS``. Discovered once per server."""
        return self._server.settle_slots(
            lambda: discover_slots(self.config.base_url or "", self.config.api_key)
        )

    @property
    def timeout_s(self) -> float:
        """Seconds a sent request may take (longer on a single-slot server)."""
        factor = SINGLE_SLOT_TIMEOUT_FACTOR if self.parallel_slots == 1 else 1
        return self.config.timeout_s * factor

    @property
    def json_mode(self) -> str:
        """The structured-output mode this server and model get (JSON_MODES)."""
        return self._server.json_modes.get(self.model, JSON_MODES[0].name)

    def _slot(self) -> _Slot:
        self.parallel_slots  # noqa: B018 - discover the gate before taking it
        return _Slot(self._server.gate)

    # ------------------------------------------------------------------- errors

    @staticmethod
    def _tries(tries: int) -> str:
        return f" (tried {tries} times)" if tries > 1 else ""

    def _send(self, send: Callable[[], T]) -> T:
        """Call ``send`` (one HTTP request) and retry what was not computed:
        a connection that never got through, 429 and 503, up to
        ``max_retries`` times. Never a timeout (see the module docstring)."""
        tries = 0
        while True:
            tries += 1
            try:
                return send()
            except openai.APIError as exc:
                wait = self._retry_wait(exc, tries)
                if wait is None:
                    raise self._mapped(exc, tries) from exc
                logger.info(
                    "model server %s: %s, retrying in %.2f s",
                    self.where,
                    exc.__class__.__name__,
                    wait,
                )
            time.sleep(wait)

    def _retry_wait(self, exc: openai.APIError, tries: int) -> float | None:
        if tries > self.config.max_retries:
            return None
        if isinstance(exc, openai.APITimeoutError):
            return None  # the server may still be computing it
        if isinstance(exc, openai.APIConnectionError):
            return _backoff_s(tries, None)
        if (
            isinstance(exc, openai.APIStatusError)
            and exc.status_code in RETRY_STATUSES
            and not _names_response_format(exc)
        ):
            return _backoff_s(tries, exc.response.headers)
        return None

    def _mapped(self, exc: openai.APIError, tries: int = 1) -> LLMError:
        """The LLMError for an SDK error after ``tries`` attempts."""
        where, model = self.where, self._model
        ctx: dict[str, Any] = {"base_url": where, "model": model}
        if isinstance(exc, openai.APITimeoutError):
            return LLMUnavailable(
                f"The model server at {where} did not answer within "
                f"{self.timeout_s:g} s (not sent again: it may still be "
                "computing the answer).",
                **ctx,
            )
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            return LLMUnavailable(
                f"Could not reach the model server at {where}{self._tries(tries)}: "
                f"{cause.__class__.__name__}.",
                **ctx,
            )
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = _server_message(exc)
            if status == 429:
                return LLMUnavailable(
                    f"The model server at {where} is rate-limiting requests "
                    f"(HTTP 429){self._tries(tries)}: {detail}",
                    status=status,
                    **ctx,
                )
            if status >= 500 or status in (408, 409):
                return LLMUnavailable(
                    f"The model server at {where} failed with HTTP {status}"
                    f"{self._tries(tries)}: {detail}",
                    status=status,
                    **ctx,
                )
            return LLMRequestRejected(
                f"The model server at {where} rejected the request "
                f"(HTTP {status}): {detail}",
                status=status,
                **ctx,
            )
        return LLMBadResponse(
            f"The model server at {where} sent a response in an unexpected shape.",
            **ctx,
        )

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Map SDK and transport exceptions to LLMError subclasses."""
        where, model = self.where, self._model
        ctx: _Where = {"base_url": where, "model": model}
        try:
            yield
        except LLMError:
            raise
        except openai.APIError as exc:
            raise self._mapped(exc) from exc
        except ValueError as exc:  # json.JSONDecodeError on a garbage body
            raise LLMBadResponse(
                f"The model server at {where} sent a response that is not valid JSON.",
                **ctx,
            ) from exc
        except _TRANSPORT_ERRORS as exc:
            if "Timeout" in type(exc).__name__:  # a stream that stalled mid-way
                raise LLMUnavailable(
                    f"The model server at {where} stopped sending the answer for "
                    f"more than {self.timeout_s:g} s.",
                    **ctx,
                ) from exc
            raise LLMUnavailable(
                f"The connection to the model server at {where} broke: "
                f"{exc.__class__.__name__}.",
                **ctx,
            ) from exc

    def _empty(self) -> LLMBadResponse:
        return LLMBadResponse(
            f"The model at {self.where} returned an empty answer.",
            base_url=self.where,
            model=self._model,
        )

    # -------------------------------------------------------------- completions

    def _params(self, max_tokens: int | None) -> dict[str, Any]:
        # A caller's own limit wins; otherwise the configured one, always sent:
        # a server left to itself generates until its context is full.
        params: dict[str, Any] = {"max_tokens": max_tokens or self.config.max_tokens}
        if self.config.temperature is not None:
            params["temperature"] = self.config.temperature
        return params

    @staticmethod
    def _retry_params(params: dict[str, Any]) -> dict[str, Any]:
        if params.get("temperature") == 0:
            return {**params, "temperature": RETRY_TEMPERATURE}
        return params

    @staticmethod
    def _text_problem(text: str, finish_reason: str | None, limit: int) -> str | None:
        """Why a reply is not an answer, or None."""
        if not text.strip():
            # A base model under a chat template often ends its turn at once.
            return "returned an empty answer"
        if finish_reason == "length":
            return f"was cut off at the {limit}-token limit"
        found = find_repetition(text)
        if found is not None:
            return f"kept repeating itself ({found.describe()})"
        return None

    def _complete_once(
        self, messages: Sequence[ChatMessage], params: dict[str, Any]
    ) -> Completion:
        """One call (with transport retries), under one of the server's slots."""
        started = time.monotonic()
        model = self.model
        with self._slot(), self._errors():
            response = self._send(
                lambda: self._client.chat.completions.create(
                    model=model,
                    messages=[m.as_openai() for m in messages],
                    timeout=self.timeout_s,
                    **params,
                )
            )
        choices = getattr(response, "choices", None)
        if not choices:
            raise self._empty()
        choice = choices[0]
        text = (choice.message.content if choice.message else None) or ""
        usage = getattr(response, "usage", None)
        prompt = "".join(m.content for m in messages)
        return Completion(
            text=text,
            model=getattr(response, "model", None) or model,
            prompt_tokens=usage.prompt_tokens if usage else _estimate_tokens(prompt),
            completion_tokens=(
                usage.completion_tokens if usage else _estimate_tokens(text)
            ),
            finish_reason=choice.finish_reason,
            latency_s=time.monotonic() - started,
        )

    def _ask_twice(
        self,
        messages: Sequence[ChatMessage],
        params: dict[str, Any],
        read: Callable[[Completion], T],
    ) -> tuple[T, Completion]:
        """Call, and call once more if ``read`` finds the reply unusable; a
        second unusable reply is an LLMBadResponse, never an answer."""
        problem: _Unusable | None = None
        completion: Completion | None = None
        for attempt in range(2):
            completion = self._complete_once(
                messages, self._retry_params(params) if attempt else params
            )
            try:
                return read(completion), completion
            except _Unusable as exc:
                problem = exc
                logger.warning(
                    "model %s at %s %s%s",
                    completion.model,
                    self.where,
                    exc,
                    "; asking once more" if not attempt else "",
                )
        assert completion is not None and problem is not None
        raise LLMBadResponse(
            f"The model at {self.where} {problem} (asked twice); "
            "its reply was not used.",
            base_url=self.where,
            model=completion.model,
        )

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        response_format: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """One answer. A reply cut at the limit or repeating itself is asked
        once more, then raised. Raises LLMError subclasses, never SDK errors."""
        params = self._params(max_tokens)
        if response_format is not None:
            params["response_format"] = response_format

        def read(completion: Completion) -> None:
            problem = self._text_problem(
                completion.text, completion.finish_reason, params["max_tokens"]
            )
            if problem:
                raise _Unusable(problem)

        return self._ask_twice(messages, params, read)[1]

    def stream(
        self, messages: Sequence[ChatMessage], *, max_tokens: int | None = None
    ) -> CompletionStream:
        """Stream text deltas; see :class:`CompletionStream` for the protocol.

        Connection and status errors are raised here, before the first delta. A
        stream that breaks off mid-way (no ``finish_reason``) raises
        LLMUnavailable during iteration, and one cut at the token limit or
        repeating itself raises LLMBadResponse after its last delta: the caller
        has partial text and must not store it as a complete answer. The
        server's slot is held until the stream ends or is closed.
        """
        started = time.monotonic()
        model = self.model
        params = self._params(max_tokens)
        slot = self._slot()
        try:
            with self._errors():
                raw = self._send(
                    lambda: self._client.chat.completions.create(
                        model=model,
                        messages=[m.as_openai() for m in messages],
                        stream=True,
                        stream_options={"include_usage": True},
                        timeout=self.timeout_s,
                        **params,
                    )
                )
        except BaseException:
            slot.release()
            raise
        parts: list[str] = []
        state: dict[str, Any] = {"finish": None, "usage": None, "model": model}

        def deltas() -> Iterator[str]:
            try:
                with self._errors():
                    for chunk in raw:
                        if getattr(chunk, "usage", None):
                            state["usage"] = chunk.usage
                        if getattr(chunk, "model", None):
                            state["model"] = chunk.model
                        for choice in chunk.choices or ():
                            delta = choice.delta.content if choice.delta else None
                            if choice.finish_reason:
                                state["finish"] = choice.finish_reason
                            if delta:
                                parts.append(delta)
                                yield delta
            finally:
                slot.release()
            if state["finish"] is None:
                raise LLMUnavailable(
                    f"The model server at {self.where} closed the stream before "
                    "the answer was complete.",
                    base_url=self.where,
                    model=model,
                )
            text = "".join(parts)
            problem = self._text_problem(text, state["finish"], params["max_tokens"])
            if problem:
                raise LLMBadResponse(
                    f"The model at {self.where} {problem}; its reply was not used.",
                    base_url=self.where,
                    model=state["model"],
                )

        def finish() -> Completion:
            text = "".join(parts)
            usage = state["usage"]
            prompt = "".join(m.content for m in messages)
            return Completion(
                text=text,
                model=state["model"],
                prompt_tokens=(
                    usage.prompt_tokens if usage else _estimate_tokens(prompt)
                ),
                completion_tokens=(
                    usage.completion_tokens if usage else _estimate_tokens(text)
                ),
                finish_reason=state["finish"],
                latency_s=time.monotonic() - started,
            )

        def close() -> None:
            raw.close()
            slot.release()

        stream = CompletionStream(deltas(), finish, close)
        # A stream dropped without close() still gives its slot back.
        weakref.finalize(stream, slot.release)
        return stream

    # ---------------------------------------------------------------------- JSON

    def complete_json(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: dict[str, Any],
        name: str,
        max_tokens: int | None = None,
    ) -> tuple[dict[str, Any], Completion]:
        """Ask for JSON matching ``schema``; return it parsed and validated.

        The structured-output mode is the one remembered for this server and
        model, at first ``json_schema``; a server that rejects a mode (any
        4xx/5xx naming ``response_format``) is asked with the next one in
        :data:`JSON_MODES`, and that is remembered. Unparseable, cut-off,
        repeating or schema-invalid output is asked once more, then raises
        LLMBadResponse.
        """
        params = self._params(max_tokens)

        def read(completion: Completion) -> dict[str, Any]:
            problem = self._text_problem(
                completion.text, completion.finish_reason, params["max_tokens"]
            )
            if problem:
                raise _Unusable(problem)
            try:
                value = parse_json_answer(completion.text)
            except ValueError as exc:
                raise _Unusable("returned output that is not valid JSON") from exc
            problems = validate_json(value, schema)
            if problems:
                raise _Unusable(
                    "returned JSON that does not match the expected format: "
                    + "; ".join(problems[:3])
                )
            if not isinstance(value, dict):
                # The answer schemas are objects; this holds for any schema.
                raise _Unusable("returned JSON that is not an object")
            return value

        names = [mode.name for mode in JSON_MODES]
        start = names.index(self.json_mode)
        for mode in JSON_MODES[start:]:
            fmt = mode.response_format(schema, name)
            asked = (
                _with_instruction(messages, json_instruction(schema))
                if mode.instructed
                else list(messages)
            )
            try:
                return self._ask_twice(
                    asked, {**params, "response_format": fmt} if fmt else params, read
                )
            except LLMError as exc:
                if mode is JSON_MODES[-1] or not _names_response_format(exc):
                    raise
                following = JSON_MODES[names.index(mode.name) + 1]
                logger.warning(
                    "model server %s rejected response_format %s; using %s from now on",
                    self.where,
                    mode.name,
                    following.name,
                )
                self._server.json_modes[self.model] = following.name
        raise AssertionError("unreachable: the last JSON mode raises or returns")

    # ------------------------------------------------------------- product calls

    def answer(
        self,
        question: str,
        sources: Sequence[prompting.PromptSource],
        *,
        history: Sequence[ChatMessage] = (),
        rate: Any = None,
    ) -> Completion:
        """Answer a chat question from retrieved sources (see llm.prompting).
        `rate` is for the offline responder: a model reads relevance itself."""
        return self.complete(prompting.build_messages(question, sources, history))

    def stream_answer(
        self,
        question: str,
        sources: Sequence[prompting.PromptSource],
        *,
        history: Sequence[ChatMessage] = (),
        rate: Any = None,
    ) -> CompletionStream:
        return self.stream(prompting.build_messages(question, sources, history))


# ----------------------------------------------------------------- JSON helpers

_FENCED_JSON_RE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL | re.IGNORECASE)
_DECODER = json.JSONDecoder()


def _without_trailing_commas(text: str) -> str:
    """Drop commas that only close a list or object (``[1, 2,]``), outside
    strings: small models write them and JSON forbids them."""
    out: list[str] = []
    in_string = escaped = False
    for i, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            rest = text[i + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(char)
    return "".join(out)


def _json_candidates(text: str) -> Iterator[str]:
    yield text
    fenced = _FENCED_JSON_RE.search(text)
    if fenced:
        yield fenced.group(1)
    start = text.find("{")
    if start > 0:
        yield text[start:]


def parse_json_answer(text: str) -> Any:
    """Parse a model's JSON answer, tolerating what models wrap around it: a
    Markdown code fence, prose before or after it, trailing commas.

    Raises ValueError when there is no JSON object to be found.
    """
    text = text.strip()
    for candidate in _json_candidates(text):
        for attempt in (candidate, _without_trailing_commas(candidate)):
            attempt = attempt.strip()
            with contextlib.suppress(ValueError):
                return json.loads(attempt)
            if attempt.startswith("{"):
                # The first complete object; whatever prose follows is ignored.
                with contextlib.suppress(ValueError):
                    return _DECODER.raw_decode(attempt)[0]
    raise ValueError("no JSON object in the model's reply")


_TYPE_CHECKS = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    # bool is an int subclass in Python, but not a JSON number.
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def validate_json(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Check ``value`` against a JSON-schema subset; return readable problems.

    Supports what our prompts use: type (incl. lists of types), enum, const,
    properties, required, additionalProperties, items, min/maxItems,
    min/maxLength, minimum/maximum. Unknown keywords are ignored.
    """
    problems: list[str] = []
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_TYPE_CHECKS.get(k, lambda v: True)(value) for k in kinds):
            return [
                f"{path}: expected {' or '.join(kinds)}, got {type(value).__name__}"
            ]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{path}: {value!r} is not one of {schema['enum']!r}")
    if "const" in schema and value != schema["const"]:
        problems.append(f"{path}: expected {schema['const']!r}")
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for key in schema.get("required") or ():
            if key not in value:
                problems.append(f"{path}: missing {key!r}")
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                problems += validate_json(item, props[key], f"{path}.{key}")
            elif extra is False:
                problems.append(f"{path}: unexpected {key!r}")
            elif isinstance(extra, dict):
                problems += validate_json(item, extra, f"{path}.{key}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            problems.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            problems.append(f"{path}: more than {schema['maxItems']} items")
        if isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                problems += validate_json(item, schema["items"], f"{path}[{i}]")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            problems.append(f"{path}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            problems.append(f"{path}: longer than {schema['maxLength']}")
    if _TYPE_CHECKS["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{path}: below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{path}: above {schema['maximum']}")
    return problems


def _strict_compatible(schema: Any) -> bool:
    """OpenAI's strict mode needs every object closed and every property required."""
    if not isinstance(schema, dict):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        if schema.get("additionalProperties", True) is not False:
            return False
        if set(schema.get("required") or ()) != set(props):
            return False
        if not all(_strict_compatible(p) for p in props.values()):
            return False
    if isinstance(schema.get("items"), dict):
        return _strict_compatible(schema["items"])
    return True
