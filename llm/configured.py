"""The model the project's settings name: the one place `llm` reads Django settings.

Everything else in `llm` is plain Python that takes an :class:`LLMConfig`, so
it can be tested without a settings module.
"""

from __future__ import annotations

import functools
import logging
import types

from django.conf import settings

from llm import Provider, get_provider
from llm.embeddings import Embedder, EmbeddingsConfig, get_embedder
from llm.types import LLMConfig


def llm_config() -> LLMConfig:
    return LLMConfig.from_settings(settings)


def provider() -> Provider:
    """The configured OpenAI-compatible provider, or the offline extractive one."""
    return get_provider(llm_config())


_EMBEDDINGS_SETTINGS = (
    "EMBEDDINGS",
    "EMBEDDINGS_BASE_URL",
    "EMBEDDINGS_API_KEY",
    "EMBEDDINGS_MODEL",
    "EMBEDDINGS_DIM",
    "EMBEDDINGS_TIMEOUT_S",
    "EMBEDDINGS_MAX_RETRIES",
    "EMBEDDINGS_BATCH_SIZE",
    "EMBEDDINGS_COOLDOWN_S",
)


def embeddings_config() -> EmbeddingsConfig:
    # Every search asks: parse the settings once per distinct set of values.
    values = tuple(getattr(settings, name, None) for name in _EMBEDDINGS_SETTINGS)
    return _embeddings_config(values)


@functools.lru_cache(maxsize=16)
def _embeddings_config(values: tuple) -> EmbeddingsConfig:
    return EmbeddingsConfig.from_settings(
        types.SimpleNamespace(**dict(zip(_EMBEDDINGS_SETTINGS, values, strict=True)))
    )


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
