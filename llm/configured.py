"""The model the project's settings name: the one place `llm` reads Django settings.

Everything else in `llm` is plain Python that takes an :class:`LLMConfig`, so
it can be tested without a settings module.
"""

from __future__ import annotations

from django.conf import settings

from llm import Provider, get_provider
from llm.types import LLMConfig


def llm_config() -> LLMConfig:
    return LLMConfig.from_settings(settings)


def provider() -> Provider:
    """The configured OpenAI-compatible provider, or the offline extractive one."""
    return get_provider(llm_config())
