"""Any OpenAI-compatible model server (OpenAI, vLLM, Ollama, llama.cpp server).

Uses the official ``openai`` SDK and keeps its retry loop: exponential backoff
with jitter, honouring ``Retry-After``, on connection errors, timeouts,
408/409/429 and 5xx (``max_retries`` from the config). What survives the
retries is mapped to :mod:`llm.errors`, so callers never see SDK types.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from llm import prompting
from llm.errors import (
    LLMBadResponse,
    LLMError,
    LLMRequestRejected,
    LLMUnavailable,
)
from llm.lazy import lazy_module
from llm.types import ChatMessage, Completion, CompletionStream, LLMConfig

# The SDK loads when first used (a client built, an error matched), not when
# this module is imported: a process with no model server never pays for it.
openai = lazy_module("openai")

__all__ = ["OpenAICompatProvider", "parse_json_answer", "validate_json"]


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


class OpenAICompatProvider:
    """Chat completions through the ``openai`` SDK.

    Thread-safe: one instance (one connection pool) can serve a whole worker,
    including the tabular executor's parallel cells.
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
            max_retries=config.max_retries,
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
                    listed = [m.id for m in self._client.models.list()]
                if not listed:
                    raise LLMRequestRejected(
                        f"The model server at {self.where} lists no models; "
                        "set LLM_MODEL.",
                        base_url=self.where,
                    )
                self._model = listed[0]
        return self._model

    # ------------------------------------------------------------------- errors

    def _tries(self) -> str:
        n = self.config.max_retries
        return f" (tried {n + 1} times)" if n > 0 else ""

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Map SDK and transport exceptions to LLMError subclasses."""
        where, model = self.where, self._model
        ctx = {"base_url": where, "model": model}
        try:
            yield
        except LLMError:
            raise
        except openai.APITimeoutError as exc:
            raise LLMUnavailable(
                f"The model server at {where} did not answer within "
                f"{self.config.timeout_s:g} s{self._tries()}.",
                **ctx,
            ) from exc
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise LLMUnavailable(
                f"Could not reach the model server at {where}{self._tries()}: "
                f"{cause.__class__.__name__}.",
                **ctx,
            ) from exc
        except openai.APIStatusError as exc:
            status = exc.status_code
            detail = _server_message(exc)
            if status == 429:
                raise LLMUnavailable(
                    f"The model server at {where} is rate-limiting requests "
                    f"(HTTP 429){self._tries()}: {detail}",
                    status=status,
                    **ctx,
                ) from exc
            if status >= 500 or status in (408, 409):
                raise LLMUnavailable(
                    f"The model server at {where} failed with HTTP {status}"
                    f"{self._tries()}: {detail}",
                    status=status,
                    **ctx,
                ) from exc
            raise LLMRequestRejected(
                f"The model server at {where} rejected the request "
                f"(HTTP {status}): {detail}",
                status=status,
                **ctx,
            ) from exc
        except openai.APIResponseValidationError as exc:
            raise LLMBadResponse(
                f"The model server at {where} sent a response in an unexpected shape.",
                **ctx,
            ) from exc
        except ValueError as exc:  # json.JSONDecodeError on a garbage body
            raise LLMBadResponse(
                f"The model server at {where} sent a response that is not valid JSON.",
                **ctx,
            ) from exc
        except _TRANSPORT_ERRORS as exc:
            if "Timeout" in type(exc).__name__:  # a stream that stalled mid-way
                raise LLMUnavailable(
                    f"The model server at {where} stopped sending the answer for "
                    f"more than {self.config.timeout_s:g} s.",
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
        params: dict[str, Any] = {}
        if self.config.temperature is not None:
            params["temperature"] = self.config.temperature
        limit = max_tokens or self.config.max_tokens
        if limit:
            params["max_tokens"] = limit
        return params

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        response_format: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """One non-streaming call. Raises LLMError subclasses, never SDK errors."""
        started = time.monotonic()
        params = self._params(max_tokens)
        if response_format is not None:
            params["response_format"] = response_format
        with self._errors():
            response = self._client.chat.completions.create(
                model=self.model,
                messages=[m.as_openai() for m in messages],  # type: ignore[misc]
                **params,
            )
        choices = getattr(response, "choices", None)
        if not choices:
            raise self._empty()
        choice = choices[0]
        text = (choice.message.content if choice.message else None) or ""
        if not text.strip():
            raise self._empty()
        usage = getattr(response, "usage", None)
        prompt = "".join(m.content for m in messages)
        return Completion(
            text=text,
            model=getattr(response, "model", None) or self.model,
            prompt_tokens=usage.prompt_tokens if usage else _estimate_tokens(prompt),
            completion_tokens=(
                usage.completion_tokens if usage else _estimate_tokens(text)
            ),
            finish_reason=choice.finish_reason,
            latency_s=time.monotonic() - started,
        )

    def stream(
        self, messages: Sequence[ChatMessage], *, max_tokens: int | None = None
    ) -> CompletionStream:
        """Stream text deltas; see :class:`CompletionStream` for the protocol.

        Connection and status errors are raised here, before the first delta. A
        stream that breaks off mid-way (no ``finish_reason``) raises
        LLMUnavailable during iteration: the caller has partial text and must
        not store it as a complete answer.
        """
        started = time.monotonic()
        model = self.model
        with self._errors():
            raw = self._client.chat.completions.create(
                model=model,
                messages=[m.as_openai() for m in messages],  # type: ignore[misc]
                stream=True,
                stream_options={"include_usage": True},
                **self._params(max_tokens),
            )
        parts: list[str] = []
        state: dict[str, Any] = {"finish": None, "usage": None, "model": model}

        def deltas() -> Iterator[str]:
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
            if state["finish"] is None:
                raise LLMUnavailable(
                    f"The model server at {self.where} closed the stream before "
                    "the answer was complete.",
                    base_url=self.where,
                    model=model,
                )
            if not "".join(parts).strip():
                raise self._empty()

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

        return CompletionStream(deltas(), finish, raw.close)

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

        Requests ``response_format={"type": "json_schema", ...}``. A server that
        rejects that (HTTP 400: older llama.cpp/Ollama) is asked once more with
        ``json_object``; the messages should describe the schema for that case,
        as the builders in :mod:`llm.prompting` do. Unparseable or
        schema-invalid output raises LLMBadResponse.
        """
        response_format = {
            "type": "json_schema",
            "json_schema": {
                "name": name,
                "schema": schema,
                "strict": _strict_compatible(schema),
            },
        }
        try:
            completion = self.complete(
                messages, response_format=response_format, max_tokens=max_tokens
            )
        except LLMRequestRejected as exc:
            if exc.status != 400:
                raise
            completion = self.complete(
                messages,
                response_format={"type": "json_object"},
                max_tokens=max_tokens,
            )
        try:
            value = parse_json_answer(completion.text)
        except ValueError as exc:
            truncated = " (cut off at the token limit)"
            raise LLMBadResponse(
                f"The model at {self.where} returned output that is not valid JSON"
                f"{truncated if completion.finish_reason == 'length' else ''}.",
                base_url=self.where,
                model=completion.model,
            ) from exc
        problems = validate_json(value, schema)
        if problems:
            raise LLMBadResponse(
                f"The model at {self.where} returned JSON that does not match the "
                f"expected format: {'; '.join(problems[:3])}",
                base_url=self.where,
                model=completion.model,
            )
        return value, completion

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

    def extract_cell(
        self, question: str, column_type: str, chunks: Sequence[tuple[int, str]]
    ) -> tuple[dict[str, Any], Completion]:
        """One tabular cell: ``{value, cited_chunk_indices, confidence,
        justification, quote, invalid_chunk_indices}``.

        Chunk indices the model cites that were not in ``chunks`` are moved to
        ``invalid_chunk_indices`` (dropped and flagged, never trusted).
        """
        messages = prompting.build_cell_messages(question, column_type, chunks)
        value, completion = self.complete_json(
            messages, schema=prompting.CELL_SCHEMA, name="tabular_cell"
        )
        return _gate_chunk_indices(value, chunks), completion


def _gate_chunk_indices(
    value: dict[str, Any], chunks: Sequence[tuple[int, str]]
) -> dict[str, Any]:
    given = {index for index, _ in chunks}
    cited: list[int] = []
    invalid: list[int] = []
    for index in value.get("cited_chunk_indices", []):
        target = cited if index in given else invalid
        if index not in target:
            target.append(index)
    return {**value, "cited_chunk_indices": cited, "invalid_chunk_indices": invalid}


# ----------------------------------------------------------------- JSON helpers

_FENCED_JSON_RE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)


def parse_json_answer(text: str) -> Any:
    """Parse a model's JSON answer, tolerating a Markdown code fence around it.

    Raises ValueError when there is no JSON object to be found.
    """
    text = text.strip()
    fenced = _FENCED_JSON_RE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except ValueError:
        # Some models wrap the object in a sentence; take the outermost braces.
        start, end = text.find("{"), text.rfind("}")
        if start == -1 or end <= start:
            raise
        return json.loads(text[start : end + 1])


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
