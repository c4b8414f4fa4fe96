"""Model providers: an OpenAI-compatible server, or the built-in extractive one.

Callers ask for a provider with :func:`get_provider` and talk to the
:class:`Provider` protocol; they catch :class:`LLMError` subclasses (see
:mod:`llm.errors`), never SDK exceptions. Nothing here imports Django:
pass an :class:`LLMConfig` (or anything with ``LLM_*`` attributes, such as
``django.conf.settings``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from llm.errors import (
    LLMBadResponse,
    LLMError,
    LLMRequestRejected,
    LLMUnavailable,
)
from llm.extractive import ExtractiveProvider
from llm.openai_compat import OpenAICompatProvider
from llm.types import ChatMessage, Completion, CompletionStream, LLMConfig

__all__ = [
    "ChatMessage",
    "Completion",
    "CompletionStream",
    "ExtractiveProvider",
    "LLMBadResponse",
    "LLMConfig",
    "LLMError",
    "LLMRequestRejected",
    "LLMUnavailable",
    "OpenAICompatProvider",
    "Provider",
    "get_provider",
]


@runtime_checkable
class Provider(Protocol):
    """What chat, tabular review and the citation judge need from a model."""

    name: str

    @property
    def model(self) -> str: ...

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        response_format: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion: ...

    def stream(
        self, messages: Sequence[ChatMessage], *, max_tokens: int | None = None
    ) -> CompletionStream: ...

    def complete_json(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: dict[str, Any],
        name: str,
        max_tokens: int | None = None,
    ) -> tuple[dict[str, Any], Completion]: ...

    def answer(
        self,
        question: str,
        sources: Sequence[Any],
        *,
        history: Sequence[ChatMessage] = (),
        rate: Any = None,
    ) -> Completion:
        """`rate` (llm.extractive.Rater): how a passage bears on the question,
        for the offline responder, which then quotes only relevant passages.
        A model server reads relevance itself and ignores it."""
        ...

    def stream_answer(
        self,
        question: str,
        sources: Sequence[Any],
        *,
        history: Sequence[ChatMessage] = (),
        rate: Any = None,
    ) -> CompletionStream: ...


def get_provider(config: LLMConfig | Any) -> Provider:
    """The OpenAI-compatible provider if a base URL is configured, else extractive.

    ``config`` is an :class:`LLMConfig` or a settings-like object with ``LLM_*``
    attributes. Providers are cached per config, so a worker reuses one HTTP
    connection pool instead of opening a new one per call.
    """
    if not isinstance(config, LLMConfig):
        config = LLMConfig.from_settings(config)
    return _provider_for(config)


@functools.lru_cache(maxsize=16)
def _provider_for(config: LLMConfig) -> Provider:
    if config.base_url:
        return OpenAICompatProvider(config)
    return ExtractiveProvider(config)
