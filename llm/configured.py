"""The model the project's settings name: the one place `llm` reads Django settings.

Everything else in `llm` is plain Python that takes an :class:`LLMConfig`, so
it can be tested without a settings module.
"""

from __future__ import annotations

import logging

from django.conf import settings

from llm import Provider, get_provider
from llm.embeddings import Embedder, EmbeddingsConfig, get_embedder
from llm.types import LLMConfig


def llm_config() -> LLMConfig:
    return LLMConfig.from_settings(settings)


def provider() -> Provider:
    """The configured OpenAI-compatible provider, or the offline extractive one."""
    return get_provider(llm_config())


def embeddings_config() -> EmbeddingsConfig:
    return EmbeddingsConfig.from_settings(settings)


def embedder() -> Embedder | None:
    """The configured embedder (``EMBEDDINGS``, ``EMBEDDINGS_*``), or None when
    embeddings are off (``EMBEDDINGS=off``) or misconfigured (logged): search
    is then full-text only, never an error page."""
    try:
        config = embeddings_config()
    except ValueError as exc:
        if str(exc) not in _reported:
            _reported.add(str(exc))
            logger.error("Embeddings are off: %s", exc)
        return None
    return get_embedder(config)


logger = logging.getLogger(__name__)
_reported: set[str] = set()
