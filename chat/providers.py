"""Django wiring for the pure model layer in chat/llm."""

from __future__ import annotations

from django.conf import settings

from chat.llm import get_provider
from chat.llm.types import LLMConfig


def llm_config() -> LLMConfig:
    return LLMConfig.from_settings(settings)


def provider():
    """The configured OpenAI-compatible provider, or the offline extractive one."""
    return get_provider(llm_config())
