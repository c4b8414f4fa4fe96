"""Text embedders: texts in, L2-normalised float32 vectors out.

Two backends behind one small protocol (:class:`Embedder`):

* :class:`WordLlamaEmbedder`, the offline default: WordLlama's 256-dimension
  ``l2_supercat`` model, whose weights and tokenizer ship inside the PyPI
  ``wordllama`` wheel. It is loaded from the package's own folder with downloads
  disabled, once per process, so nothing is fetched at run time.
* :class:`ServerEmbedder`: any OpenAI-compatible ``/v1/embeddings`` server
  (OpenAI, vLLM, Ollama, llama.cpp), through the ``openai`` SDK and the same
  error mapping as chat (:mod:`llm.errors`).

An embedder's ``name`` (model and dimension, e.g. ``wordllama-l2supercat-256``)
is stored with every vector it makes, so vectors of two models are never
compared. Every failure surfaces as an :class:`~llm.errors.LLMError`; callers
(ingestion, search) log it and carry on without vectors. Nothing here imports
Django: :func:`llm.configured.embedder` builds one from settings.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from llm.errors import LLMBadResponse, LLMError, LLMUnavailable
from llm.openai_compat import OpenAICompatProvider
from llm.types import LLMConfig

__all__ = [
    "Embedder",
    "EmbeddingsConfig",
    "ServerEmbedder",
    "WordLlamaEmbedder",
    "get_embedder",
    "normalised",
]


@runtime_checkable
class Embedder(Protocol):
    """What ingestion and search need from an embedding model."""

    @property
    def name(self) -> str:
        """Model and dimension, stored with each vector (``<model>-<dim>``)."""
        ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An ``(len(texts), dim)`` float32 array, each row of unit length
        (an empty text gives a zero row). Raises LLMError subclasses."""
        ...


def normalised(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length as float32; all-zero rows stay zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(
        vectors, norms, out=np.zeros_like(vectors), where=norms > 0
    )
    return unit


# ------------------------------------------------------------------ WordLlama

WORDLLAMA_CONFIG = "l2_supercat"
WORDLLAMA_DIM = 256  # the only dimension the wheel bundles


class WordLlamaEmbedder:
    """WordLlama ``l2_supercat`` at 256 dimensions, from the installed wheel.

    Static token embeddings with average pooling: about 2,000 chunks of
    1,000 characters a second on one core, 0.05 ms per question. The model
    (16 MB) is loaded on first use, once per process; ``embed`` is safe to
    call from several threads.
    """

    name = f"wordllama-{WORDLLAMA_CONFIG.replace('_', '')}-{WORDLLAMA_DIM}"
    dim = WORDLLAMA_DIM
    _model: _WordLlamaParts | None = None
    _lock = threading.Lock()
    # Texts per batch: bounds the gathered token vectors (~20 MB).
    BATCH = 64

    @classmethod
    def _parts(cls) -> _WordLlamaParts:
        if cls._model is None:
            with cls._lock:
                if cls._model is None:
                    cls._model = _load_wordllama()
        return cls._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """WordLlama's own embedding: the mean of the text's token vectors
        (computed here without WordLlama's padding to each batch's longest
        text, which pools zeros away again)."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        model = self._parts()
        for start in range(0, len(texts), self.BATCH):
            token_ids = model.token_ids(texts[start : start + self.BATCH])
            for row, ids in enumerate(token_ids, start=start):
                if ids:  # a text without tokens keeps a zero row
                    out[row] = model.table[ids].mean(axis=0)
        return normalised(out)


# The normalizer WordLlama's tokenizer ships with: "▁" before the text, and
# every space as "▁". _WordLlamaParts relies on it (checked at load).
_METASPACE = "\u2581"
_EXPECTED_NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": _METASPACE},
        {"type": "Replace", "pattern": {"String": " "}, "content": _METASPACE},
    ],
}
# A run of "▁" and what follows it up to the next "▁" (or a final run).
_SEGMENT = re.compile(f"{_METASPACE}*[^{_METASPACE}]+|{_METASPACE}+")


class _WordLlamaParts:
    """WordLlama's tokenizer and token vector table, used without padding.

    Tokenizing was most of ingestion's embedding time, and WordLlama's
    tokenizer reads a whole chunk as one word. No token of its vocabulary
    holds "▁" after its first character (unless it is all "▁"), so its
    byte-pair merges never cross the start of a run of "▁": the normalized
    text is cut there, and each piece's token ids come from a per-process
    cache (contracts reuse their words), tokenizing only pieces not seen
    before. The ids are those of tokenizing the whole text (tests check it
    on CUAD and on random text); another normalizer turns this off.
    """

    CACHE_SIZE = 200_000

    def __init__(self, tokenizer: Any, table: np.ndarray, *, split: bool) -> None:
        self.tokenizer = tokenizer  # no padding; no normalizer when split
        self.table = table  # (vocabulary, dim) float32
        self.split = split
        self._pieces: dict[str, list[int]] = {}
        self._encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's token ids (within the table's range)."""
        if not self.split:
            return [e.ids for e in self._encode(texts, add_special_tokens=False)]
        pieces = [
            _SEGMENT.findall(_METASPACE + t.replace(" ", _METASPACE)) if t else []
            for t in texts
        ]
        known = self._pieces
        new = list({p: None for ps in pieces for p in ps if p not in known})
        if new:
            if len(known) + len(new) > self.CACHE_SIZE:
                known.clear()
            encodings = self._encode(new, add_special_tokens=False)
            for piece, encoding in zip(new, encodings, strict=True):
                known[piece] = encoding.ids
        return [
            list(itertools.chain.from_iterable(known[p] for p in ps)) for ps in pieces
        ]


def _load_wordllama() -> _WordLlamaParts:
    # The Rust tokenizer's thread pool must not be live across a fork (Celery
    # prefork, gunicorn, the extraction sandbox): it deadlocks or warns.
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        import wordllama
        from tokenizers import Tokenizer
        from wordllama import WordLlama

        # cache_dir must be the package's own folder: without it load() looks
        # for the bundled tokenizer in the wrong place and tries HuggingFace.
        model = WordLlama.load(
            config=WORDLLAMA_CONFIG,
            dim=WORDLLAMA_DIM,
            cache_dir=Path(wordllama.__file__).parent,
            disable_download=True,
        )
        tokenizer = Tokenizer.from_str(model.tokenizer.to_str())
    except (ImportError, OSError, ValueError) as exc:
        raise LLMUnavailable(
            f"The offline embedding model (WordLlama) could not be loaded: {exc}"
        ) from exc
    tokenizer.no_padding()
    tokenizer.no_truncation()
    split = json.loads(tokenizer.to_str()).get("normalizer") == _EXPECTED_NORMALIZER
    if split:
        tokenizer.normalizer = None  # _WordLlamaParts normalizes, then cuts
    table = np.ascontiguousarray(model.embedding, dtype=np.float32)
    if tokenizer.get_vocab_size(with_added_tokens=True) > table.shape[0]:
        raise LLMUnavailable("WordLlama's tokenizer has more tokens than its table.")
    return _WordLlamaParts(tokenizer, table, split=split)


# ------------------------------------------------------------------ a server


@dataclass(frozen=True)
class EmbeddingsConfig:
    """Which embedder to use. ``backend``: "wordllama", "server" or "off".

    ``dim`` is the vectors' expected length for a server; 0 means "learn it
    from the server's first answer" (then fixed for the process).
    """

    backend: str = "wordllama"
    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    dim: int = 0
    timeout_s: float = 10.0
    max_retries: int = 1
    batch_size: int = 64
    # After a failure the server is not asked again for this long: a server
    # that is down must not cost every search its timeout.
    cooldown_s: float = 30.0

    @classmethod
    def from_settings(cls, settings: Any) -> EmbeddingsConfig:
        """From ``EMBEDDINGS`` ("" = the server if ``EMBEDDINGS_BASE_URL`` is
        set, else WordLlama; "off"; "wordllama"; "server") and ``EMBEDDINGS_*``."""

        def text(name: str) -> str | None:
            value = getattr(settings, name, None)
            return (str(value).strip() or None) if value is not None else None

        base_url = text("EMBEDDINGS_BASE_URL")
        backend = (text("EMBEDDINGS") or "").lower()
        if backend in ("", "auto", "on"):
            backend = "server" if base_url else "wordllama"
        if backend not in ("wordllama", "server", "off"):
            raise ValueError(
                f"EMBEDDINGS={backend!r}: use wordllama, server or off "
                "(empty: the server when EMBEDDINGS_BASE_URL is set, else wordllama)."
            )
        if backend == "server" and not (base_url and text("EMBEDDINGS_MODEL")):
            raise ValueError(
                "An embedding server needs EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL."
            )
        return cls(
            backend=backend,
            base_url=base_url,
            api_key=text("EMBEDDINGS_API_KEY"),
            model=text("EMBEDDINGS_MODEL"),
            dim=int(getattr(settings, "EMBEDDINGS_DIM", 0) or 0),
            timeout_s=float(getattr(settings, "EMBEDDINGS_TIMEOUT_S", 10.0)),
            max_retries=int(getattr(settings, "EMBEDDINGS_MAX_RETRIES", 1)),
            batch_size=max(1, int(getattr(settings, "EMBEDDINGS_BATCH_SIZE", 64))),
            cooldown_s=float(getattr(settings, "EMBEDDINGS_COOLDOWN_S", 30.0)),
        )


class ServerEmbedder:
    """``POST /v1/embeddings`` on an OpenAI-compatible server.

    Texts go in batches of ``batch_size``; every answer is checked (one vector
    per text, the expected dimension, finite numbers, not all zero) before it
    is normalised, and anything else is an LLMBadResponse naming the problem.
    Thread-safe (one connection pool per instance).
    """

    def __init__(self, config: EmbeddingsConfig, *, client: Any = None) -> None:
        if not (config.base_url and config.model):
            raise ValueError("ServerEmbedder needs config.base_url and config.model")
        # Reuse the chat provider's SDK client and its mapping of SDK errors to
        # llm.errors, so both kinds of server fail the same, readable way.
        self.config = config
        self._provider = OpenAICompatProvider(
            LLMConfig(
                base_url=config.base_url,
                api_key=config.api_key,
                model=config.model,
                timeout_s=config.timeout_s,
                max_retries=config.max_retries,
            ),
            client=client,
        )
        self.where = self._provider.where
        self.model = config.model
        self._dim = config.dim
        self._lock = threading.Lock()
        self._failed_at: float | None = None
        self._failure = ""

    # -- identity

    @property
    def dim(self) -> int:
        """The configured dimension, else the server's (asked once)."""
        if not self._dim:
            self._request(["dimension probe"])
        return self._dim

    @property
    def name(self) -> str:
        return f"{self.model}-{self.dim}"

    # -- embedding

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        size = self.config.batch_size
        parts = [self._request(texts[i : i + size]) for i in range(0, len(texts), size)]
        return np.vstack(parts)

    def _request(self, texts: list[str]) -> np.ndarray:
        self._check_cooldown()
        try:
            with self._provider._errors():
                response = self._provider._client.embeddings.create(
                    model=self.model,
                    # Servers refuse an empty input; a blank text gets a zero row.
                    input=[t if t.strip() else " " for t in texts],
                    encoding_format="float",
                )
            vectors = self._checked(response, texts)
        except LLMError as exc:
            with self._lock:
                self._failed_at, self._failure = time.monotonic(), exc.message
            raise
        with self._lock:
            self._failed_at = None
        return vectors

    def _check_cooldown(self) -> None:
        with self._lock:
            failed_at, failure = self._failed_at, self._failure
        if failed_at is None:
            return
        since = time.monotonic() - failed_at
        if since < self.config.cooldown_s:
            raise LLMUnavailable(
                f"Not asking the embedding server at {self.where} again for "
                f"{self.config.cooldown_s - since:.0f} s after its last failure: "
                f"{failure}",
                base_url=self.where,
                model=self.model,
            )

    def _bad(self, problem: str) -> LLMBadResponse:
        return LLMBadResponse(
            f"The embedding server at {self.where} (model {self.model}) {problem}",
            base_url=self.where,
            model=self.model,
        )

    def _checked(self, response: Any, texts: list[str]) -> np.ndarray:
        data = getattr(response, "data", None)
        if not isinstance(data, list):
            raise self._bad("sent no list of embeddings.")
        if len(data) != len(texts):
            raise self._bad(f"returned {len(data)} vectors for {len(texts)} texts.")
        try:
            # Servers may answer out of order; `index` says whose vector it is.
            items = sorted(data, key=lambda item: int(item.index))
            if [int(item.index) for item in items] != list(range(len(texts))):
                raise self._bad("returned vectors with wrong or repeated indices.")
            rows = [list(item.embedding) for item in items]
            matrix = np.array(rows, dtype=np.float64)
        except (TypeError, ValueError, AttributeError) as exc:
            raise self._bad(
                "returned embeddings that are not lists of numbers."
            ) from exc
        if matrix.ndim != 2:
            raise self._bad("returned vectors of different lengths.")
        with self._lock:
            if not self._dim:
                self._dim = matrix.shape[1]
            expected = self._dim
        if matrix.shape[1] != expected:
            raise self._bad(
                f"returned {matrix.shape[1]}-dimension vectors; expected {expected} "
                "(EMBEDDINGS_DIM, or the server's first answer)."
            )
        if not np.isfinite(matrix).all():
            raise self._bad("returned vectors holding NaN or infinite values.")
        blank = np.array([not t.strip() for t in texts])
        if (np.linalg.norm(matrix, axis=1)[~blank] == 0).any():
            raise self._bad("returned all-zero vectors.")
        matrix[blank] = 0.0
        return normalised(matrix)


# ------------------------------------------------------------------ choosing


def get_embedder(config: EmbeddingsConfig) -> Embedder | None:
    """The embedder ``config`` names (None when embeddings are off); cached per
    config, so a process keeps one model and one connection pool."""
    return _embedder_for(config)


@functools.lru_cache(maxsize=8)
def _embedder_for(config: EmbeddingsConfig) -> Embedder | None:
    if config.backend == "off":
        return None
    if config.backend == "server":
        return ServerEmbedder(config)
    return WordLlamaEmbedder()
