"""Plain value types shared by every model provider.

Nothing here imports Django: the lead wires settings into :class:`LLMConfig`
(see :meth:`LLMConfig.from_settings`), so providers stay testable without a
settings module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

Role = Literal["system", "user", "assistant"]

# Every request carries a token limit: a server left to itself generates until
# its context is full (a small model repeating one sentence for 8,000 tokens).
DEFAULT_MAX_TOKENS = 1024
# The model's context window budget that callers size prompts to.
DEFAULT_CONTEXT_TOKENS = 32768


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str

    def as_openai(self) -> ChatCompletionMessageParam:
        """The SDK's message (one typed dict per role)."""
        if self.role == "system":
            return {"role": "system", "content": self.content}
        if self.role == "user":
            return {"role": "user", "content": self.content}
        return {"role": "assistant", "content": self.content}


@dataclass(frozen=True)
class Completion:
    """One model answer and what it cost.

    Token counts come from the server's ``usage`` (0 for the extractive
    responder, which costs nothing); ``latency_s`` is wall-clock time of the
    whole call including the SDK's retries.
    """

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None
    latency_s: float

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class LLMConfig:
    """How to reach the model server. ``base_url=None`` means offline (extractive).

    ``model=None`` with a ``base_url`` means "the server's first model" (asked
    from ``GET /models`` once): llama.cpp and single-model vLLM servers don't
    care about the name, and it saves configuring one.
    """

    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    # Seconds a sent request may take (times SINGLE_SLOT_TIMEOUT_FACTOR on a
    # single-slot server); waiting for a free slot in this process is not counted.
    timeout_s: float = 60.0
    # Retries (llm.openai_compat._send: backoff honouring Retry-After) of what
    # the server did not compute: connection errors, 429, 503. Never timeouts.
    max_retries: int = 2
    # None leaves it to the server (some reasoning models reject any value).
    temperature: float | None = 0.0
    # Cap on answer length, sent with every request (a caller's value wins).
    max_tokens: int = DEFAULT_MAX_TOKENS
    # The model's context budget in tokens: what prompts are sized to.
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    # Requests in flight per server from this process; 0 = ask the server.
    parallel: int = 0
    # Citation cascade stage 3 (llm_judge) uses judge_model, else model;
    # stage 4 (ensemble) asks every judge_models entry and needs ensemble_quorum.
    judge_model: str | None = None
    judge_models: tuple[str, ...] = ()
    ensemble_quorum: int = 2

    def __post_init__(self) -> None:
        # Configs are cache keys (get_provider), so they must stay hashable
        # even when a caller passes a list of ensemble models.
        object.__setattr__(self, "judge_models", tuple(self.judge_models))

    @property
    def configured(self) -> bool:
        """True when a model server is configured (stages 3-4 may run)."""
        return bool(self.base_url)

    @classmethod
    def from_settings(cls, settings: Any) -> LLMConfig:
        """Build from any object with Django-style ``LLM_*`` attributes.

        Empty strings count as unset, because ``env_str`` defaults to "".
        """

        def text(name: str) -> str | None:
            value = getattr(settings, name, None)
            if value is None:
                return None
            return str(value).strip() or None

        return cls(
            base_url=text("LLM_BASE_URL"),
            api_key=text("LLM_API_KEY"),
            model=text("LLM_MODEL"),
            timeout_s=float(getattr(settings, "LLM_TIMEOUT_S", 60.0)),
            max_retries=int(getattr(settings, "LLM_MAX_RETRIES", 2)),
            temperature=_optional_float(getattr(settings, "LLM_TEMPERATURE", 0.0)),
            max_tokens=int(
                getattr(settings, "LLM_MAX_TOKENS", None) or DEFAULT_MAX_TOKENS
            ),
            context_tokens=int(
                getattr(settings, "LLM_CONTEXT_TOKENS", None) or DEFAULT_CONTEXT_TOKENS
            ),
            parallel=int(getattr(settings, "LLM_PARALLEL", 0) or 0),
            judge_model=text("LLM_JUDGE_MODEL"),
            judge_models=tuple(
                m for m in getattr(settings, "LLM_ENSEMBLE_MODELS", ()) or () if m
            ),
            ensemble_quorum=int(getattr(settings, "LLM_ENSEMBLE_QUORUM", 2)),
        )


def _optional_float(value: Any) -> float | None:
    return None if value is None or value == "" else float(value)


class CompletionStream:
    """Text deltas of a streamed answer; ``.completion`` once it is exhausted.

    Iterate to get ``str`` deltas as they arrive. After the loop ends normally,
    ``completion`` holds the full :class:`Completion` (text, tokens, latency);
    it stays None if the stream was abandoned or failed. Errors surface during
    iteration as :class:`~llm.errors.LLMError` subclasses. Call
    :meth:`close` (or use ``with``) when stopping early, to free the connection.
    """

    def __init__(
        self,
        deltas: Iterator[str],
        finish: Callable[[], Completion],
        close: Callable[[], None] | None = None,
    ) -> None:
        self._deltas = deltas
        self._finish = finish
        self._close = close
        self.completion: Completion | None = None

    def __iter__(self) -> Iterator[str]:
        yield from self._deltas
        self.completion = self._finish()

    def close(self) -> None:
        """Stop early: end the delta generator and release the connection."""
        close_deltas = getattr(self._deltas, "close", None)
        if close_deltas is not None:
            close_deltas()
        if self._close is not None:
            self._close()

    def __enter__(self) -> CompletionStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
