"""LLMConfig and get_provider: which provider a configuration gives."""

from __future__ import annotations

from types import SimpleNamespace

from llm import (
    ExtractiveProvider,
    LLMConfig,
    OpenAICompatProvider,
    Provider,
    get_provider,
)
from llm.errors import LLMBadResponse, LLMRequestRejected, LLMUnavailable


def test_no_base_url_gives_the_extractive_provider() -> None:
    provider = get_provider(LLMConfig())
    assert isinstance(provider, ExtractiveProvider)
    assert isinstance(provider, Provider)


def test_a_base_url_gives_the_openai_compatible_provider() -> None:
    provider = get_provider(LLMConfig(base_url="http://127.0.0.1:9/v1", model="m"))
    assert isinstance(provider, OpenAICompatProvider)
    assert isinstance(provider, Provider)
    assert provider.model == "m"


def test_providers_are_reused_for_the_same_config() -> None:
    config = LLMConfig(base_url="http://127.0.0.1:9/v1", model="m")
    assert get_provider(config) is get_provider(LLMConfig(**vars(config)))


def test_settings_like_objects_are_read_with_empty_meaning_unset() -> None:
    settings = SimpleNamespace(
        LLM_BASE_URL="http://127.0.0.1:8999/v1",
        LLM_API_KEY="",
        LLM_MODEL="",
        LLM_TIMEOUT_S=12.5,
        LLM_MAX_RETRIES=4,
        LLM_JUDGE_MODEL="judge",
        LLM_ENSEMBLE_MODELS=["a", "b"],
        LLM_ENSEMBLE_QUORUM=2,
    )
    config = LLMConfig.from_settings(settings)
    assert config == LLMConfig(
        base_url="http://127.0.0.1:8999/v1",
        api_key=None,
        model=None,
        timeout_s=12.5,
        max_retries=4,
        judge_model="judge",
        judge_models=("a", "b"),
        ensemble_quorum=2,
    )
    assert config.configured
    assert isinstance(get_provider(settings), OpenAICompatProvider)


def test_unset_settings_mean_offline() -> None:
    config = LLMConfig.from_settings(SimpleNamespace(LLM_BASE_URL=""))
    assert not config.configured
    assert isinstance(get_provider(config), ExtractiveProvider)


def test_only_unavailability_is_retryable() -> None:
    assert LLMUnavailable("x").retryable
    assert not LLMBadResponse("x").retryable
    assert not LLMRequestRejected("x").retryable
    assert str(LLMUnavailable("The model server did not answer.")) == (
        "The model server did not answer."
    )


def test_ensemble_models_given_as_a_list_keep_the_config_hashable() -> None:
    config = LLMConfig(base_url="http://127.0.0.1:9/v1", judge_models=["a", "b"])  # type: ignore[arg-type]
    assert config.judge_models == ("a", "b")
    assert hash(config)


def test_token_limits_context_and_parallelism_are_read_from_settings() -> None:
    config = LLMConfig.from_settings(
        SimpleNamespace(
            LLM_BASE_URL="http://127.0.0.1:9/v1",
            LLM_MAX_TOKENS=300,
            LLM_TEMPERATURE=None,
            LLM_CONTEXT_TOKENS=8192,
            LLM_PARALLEL=1,
        )
    )
    assert (config.max_tokens, config.temperature) == (300, None)
    assert (config.context_tokens, config.parallel) == (8192, 1)
    defaults = LLMConfig.from_settings(SimpleNamespace(LLM_BASE_URL=""))
    assert (defaults.max_tokens, defaults.temperature) == (1024, 0.0)
    assert (defaults.context_tokens, defaults.parallel) == (32768, 0)


def test_the_settings_module_reads_them_from_the_environment(monkeypatch) -> None:
    import runpy

    import docuiq.settings as module

    monkeypatch.setenv("LLM_MAX_TOKENS", "512")
    monkeypatch.setenv("LLM_TEMPERATURE", "none")
    monkeypatch.setenv("LLM_CONTEXT_TOKENS", "8192")
    monkeypatch.setenv("LLM_PARALLEL", "2")
    # A fresh run of the module: the process's own settings are left alone.
    fresh = runpy.run_path(module.__file__)
    assert (fresh["LLM_MAX_TOKENS"], fresh["LLM_TEMPERATURE"]) == (512, None)
    assert (fresh["LLM_CONTEXT_TOKENS"], fresh["LLM_PARALLEL"]) == (8192, 2)
