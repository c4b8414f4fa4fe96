"""Embedders: WordLlama offline, and an OpenAI-compatible server through the
real openai SDK against the scripted server (each way it can go wrong)."""

from __future__ import annotations

import functools
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docuiq.testing.llm_server import EmbeddingReply, ScriptedLLMServer, word_vectors
from llm.embeddings import (
    EmbeddingsConfig,
    ServerEmbedder,
    WordLlamaEmbedder,
    get_embedder,
    normalised,
)
from llm.errors import LLMBadResponse, LLMRequestRejected, LLMUnavailable


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as s:
        yield s


def _unit_rows(vectors: np.ndarray) -> bool:
    return bool(np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5))


# ---------------------------------------------------------------- WordLlama


def test_wordllama_gives_unit_vectors_of_its_dimension() -> None:
    embedder = WordLlamaEmbedder()
    vectors = embedder.embed(
        ["Either party may terminate.", "Governing law: Delaware."]
    )
    assert embedder.name == "wordllama-l2supercat-256"
    assert vectors.shape == (2, 256) and vectors.dtype == np.float32
    assert _unit_rows(vectors)


def test_wordllama_vectors_are_wordllamas_own() -> None:
    """The unpadded pooling gives the model's own vectors (the stored name
    promises them)."""
    import wordllama
    from wordllama import WordLlama

    texts = [
        "Either party may terminate this Agreement on thirty (90) days' notice.",
        "x",
        "Governing law.\n\nThis Agreement is governed by the laws of Delaware, "
        "without regard to its conflict of laws rules. " * 8,
    ]
    reference = WordLlama.load(
        config="l2_supercat",
        dim=256,
        cache_dir=Path(wordllama.__file__).parent,
        disable_download=True,
    ).embed(texts, norm=True)
    assert np.allclose(WordLlamaEmbedder().embed(texts), reference, atol=1e-5)


@functools.cache
def _shipped_tokenizer():
    import wordllama
    from tokenizers import Tokenizer

    config = Path(wordllama.__file__).parent / "tokenizers"
    tokenizer = Tokenizer.from_file(str(config / "l2_supercat_tokenizer_config.json"))
    tokenizer.no_padding()
    return tokenizer


def _whole_text_ids(texts: list[str]) -> list[list[int]]:
    encodings = _shipped_tokenizer().encode_batch(texts, add_special_tokens=False)
    return [e.ids for e in encodings]


def test_wordllama_cuts_text_into_pieces_without_changing_its_tokens() -> None:
    parts = WordLlamaEmbedder._parts()
    assert parts.split  # the shipped normalizer is the one the cutting assumes
    texts = [
        "",
        " ",
        "x ",
        "  Section 2.1  (a)\n\n  The Licensee  shall\tpay \u2581 fees.   ",
        "ARTICLE IX\nGOVERNING LAW.  This Agreement is governed by New York law.",
    ]
    assert parts.token_ids(texts) == _whole_text_ids(texts)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab é漢.,\n\t  \u2581x0")), max_size=40))
def test_wordllama_tokens_are_those_of_the_whole_text(text: str) -> None:
    assert WordLlamaEmbedder._parts().token_ids([text]) == _whole_text_ids([text])


def test_wordllama_puts_related_text_closer_than_unrelated_text() -> None:
    question, clause, weather = WordLlamaEmbedder().embed(
        [
            "Can the contract be terminated early?",
            "Either party may terminate this Agreement on thirty days' notice.",
            "The harbour was calm and the gulls were loud this morning.",
        ]
    )
    assert question @ clause > question @ weather


def test_wordllama_gives_a_zero_row_for_a_text_without_tokens() -> None:
    vectors = WordLlamaEmbedder().embed(["", "Payment terms."])
    assert not vectors[0].any() and np.isfinite(vectors).all()
    assert WordLlamaEmbedder().embed([]).shape == (0, 256)


def test_wordllama_is_safe_to_share_between_threads() -> None:
    embedder = WordLlamaEmbedder()
    texts = [f"Clause {i}: the Supplier shall deliver the Goods." for i in range(50)]
    expected = embedder.embed(texts)
    results: list[np.ndarray] = []

    def work() -> None:
        results.append(embedder.embed(texts))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    assert all(np.allclose(r, expected, atol=1e-6) for r in results)


def test_wordllama_loads_without_any_network(tmp_path) -> None:
    """Offline: HuggingFace told so, every proxy a dead port, an empty home
    (no download cache). Loading and embedding must still work."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HF_HOME": str(tmp_path / "hf"),
        "HTTP_PROXY": dead,
        "HTTPS_PROXY": dead,
        "http_proxy": dead,
        "https_proxy": dead,
        "NO_PROXY": "",
    }
    script = (
        "from llm.embeddings import WordLlamaEmbedder\n"
        "v = WordLlamaEmbedder().embed(['Termination for convenience.'])\n"
        "print(v.shape)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "(1, 256)"
    assert not list((tmp_path).rglob("*.safetensors"))  # nothing was fetched


def test_normalised_keeps_zero_rows_zero() -> None:
    rows = normalised(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert np.allclose(rows, [[0.6, 0.8], [0.0, 0.0]]) and rows.dtype == np.float32


# ---------------------------------------------------------------- a server


def test_a_server_embeds_in_batches_and_keeps_the_texts_order(
    server: ScriptedLLMServer,
) -> None:
    embedder = ServerEmbedder(server.embeddings_config(batch_size=2))
    texts = ["alpha beta", "gamma", "delta epsilon", "zeta", "eta"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (5, 64) and _unit_rows(vectors)
    assert np.allclose(vectors, word_vectors(texts, 64), atol=1e-6)
    sent = server.embedding_requests
    assert [r.body["input"] for r in sent] == [texts[0:2], texts[2:4], texts[4:5]]
    assert sent[0].body["model"] == "scripted-embedder"
    assert sent[0].body["encoding_format"] == "float"
    assert sent[0].headers["authorization"] == "Bearer test-key"
    assert embedder.name == "scripted-embedder-64"


def test_a_servers_dimension_is_learned_from_its_first_answer(
    server: ScriptedLLMServer,
) -> None:
    embedder = ServerEmbedder(server.embeddings_config(dim=0))
    assert embedder.dim == 64
    assert embedder.name == "scripted-embedder-64"


def test_a_blank_text_gets_a_zero_row(server: ScriptedLLMServer) -> None:
    vectors = ServerEmbedder(server.embeddings_config()).embed(["  ", "notice"])
    assert not vectors[0].any() and vectors[1].any()
    assert server.embedding_requests[0].body["input"][0].strip() == ""


def test_a_server_that_is_down_is_unavailable() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = EmbeddingsConfig(
        backend="server",
        base_url=f"http://127.0.0.1:{port}/v1",
        model="m",
        dim=8,
        max_retries=0,
        cooldown_s=0,
    )
    with pytest.raises(LLMUnavailable, match="Could not reach"):
        ServerEmbedder(config).embed(["notice"])


def test_a_slow_server_times_out(server: ScriptedLLMServer) -> None:
    server.script_embeddings(EmbeddingReply.ok().with_delay(2.0))
    embedder = ServerEmbedder(server.embeddings_config(timeout_s=0.3))
    with pytest.raises(LLMUnavailable, match=r"did not answer within 0\.3 s"):
        embedder.embed(["notice"])


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (EmbeddingReply.wrong_dim(), "returned 65-dimension vectors; expected 64"),
        (EmbeddingReply.garbage(), "not valid JSON"),
        (EmbeddingReply.nan(), "holding NaN or infinite values"),
        (EmbeddingReply.fewer(), "returned 1 vectors for 2 texts"),
        (EmbeddingReply.zero(), "all-zero vectors"),
    ],
    ids=["wrong-dimension", "garbage", "nan", "fewer-vectors", "zero-vectors"],
)
def test_a_bad_answer_is_a_bad_response_saying_what_is_wrong(
    server: ScriptedLLMServer, reply: EmbeddingReply, message: str
) -> None:
    server.script_embeddings(reply)
    with pytest.raises(LLMBadResponse, match=message):
        ServerEmbedder(server.embeddings_config()).embed(["notice", "term"])


def test_http_errors_map_to_the_llm_errors(server: ScriptedLLMServer) -> None:
    server.script_embeddings(EmbeddingReply.error(401), EmbeddingReply.error(503))
    embedder = ServerEmbedder(server.embeddings_config())
    with pytest.raises(LLMRequestRejected, match="HTTP 401"):
        embedder.embed(["notice"])
    with pytest.raises(LLMUnavailable, match="HTTP 503"):
        embedder.embed(["notice"])


def test_a_dropped_connection_is_unavailable(server: ScriptedLLMServer) -> None:
    server.script_embeddings(EmbeddingReply.drop())
    with pytest.raises(LLMUnavailable):
        ServerEmbedder(server.embeddings_config()).embed(["notice"])


def test_after_a_failure_the_server_rests_for_the_cooldown(
    server: ScriptedLLMServer,
) -> None:
    """A server that is down must not cost every search its timeout."""
    server.script_embeddings(EmbeddingReply.error(503))
    embedder = ServerEmbedder(server.embeddings_config(cooldown_s=60))
    with pytest.raises(LLMUnavailable, match="HTTP 503"):
        embedder.embed(["notice"])
    with pytest.raises(LLMUnavailable, match="Not asking the embedding server"):
        embedder.embed(["notice"])
    assert len(server.embedding_requests) == 1


# ---------------------------------------------------------------- settings


def _settings(**values: object) -> SimpleNamespace:
    return SimpleNamespace(**values)


@pytest.mark.parametrize(
    ("values", "backend"),
    [
        ({}, "wordllama"),
        ({"EMBEDDINGS": "off"}, "off"),
        ({"EMBEDDINGS": "OFF", "EMBEDDINGS_BASE_URL": "http://x/v1"}, "off"),
        ({"EMBEDDINGS_BASE_URL": "http://x/v1", "EMBEDDINGS_MODEL": "m"}, "server"),
        (
            {"EMBEDDINGS": "wordllama", "EMBEDDINGS_BASE_URL": "http://x/v1"},
            "wordllama",
        ),
    ],
)
def test_the_backend_follows_the_settings(values: dict, backend: str) -> None:
    assert EmbeddingsConfig.from_settings(_settings(**values)).backend == backend


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"EMBEDDINGS": "bert"}, "EMBEDDINGS='bert'"),
        ({"EMBEDDINGS": "server"}, "needs EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL"),
        ({"EMBEDDINGS_BASE_URL": "http://x/v1"}, "needs EMBEDDINGS_BASE_URL and"),
    ],
)
def test_a_misconfiguration_says_what_is_missing(values: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EmbeddingsConfig.from_settings(_settings(**values))


def test_embeddings_off_means_no_embedder() -> None:
    assert get_embedder(EmbeddingsConfig(backend="off")) is None
    assert isinstance(get_embedder(EmbeddingsConfig()), WordLlamaEmbedder)


def test_the_configured_embedder_is_none_and_logged_when_misconfigured(
    settings, caplog
) -> None:
    from llm.configured import embedder

    settings.EMBEDDINGS = "server"
    settings.EMBEDDINGS_BASE_URL = ""
    with caplog.at_level("ERROR"):
        assert embedder() is None
    assert "needs EMBEDDINGS_BASE_URL" in caplog.text
    settings.EMBEDDINGS = "off"
    assert embedder() is None
