"""Cascade stages 3-4: an OpenAI-compatible model judges paraphrased quotes.

:class:`OpenAIJudge` implements the cascade's ``Judge`` protocol: given a
passage and a quoted claim, it asks the model (JSON-schema output) whether the
passage supports the claim and to copy the supporting span. The span is
returned as the passage's own text when it can be found up to whitespace and
case; the cascade (``citations.cascade.judging.vote``) then locates it, checks
numbers, negations and modal verbs, and rejects a span that isn't there, so a
hallucinating judge never yields a verified citation without offsets. A
"supported" verdict with no span at all is returned as not supported.

Failure contract, which ``citations.tasks`` relies on:

* :class:`~llm.errors.LLMUnavailable` propagates: the task retries later.
* Garbage, empty or schema-invalid answers, and requests the server refuses
  (a wrong judge model name), become ``supported=False`` with the reason in
  ``explanation``: the citation is stored as failed with a readable reason
  instead of a task stuck retrying something that cannot succeed.

No Django here: configuration comes in as an :class:`LLMConfig`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from llm.errors import LLMBadResponse, LLMRequestRejected
from llm.openai_compat import OpenAICompatProvider
from llm.prompting import (
    JUDGE_SCHEMA,
    RELEVANCE_SCHEMA,
    build_judge_messages,
    build_relevance_messages,
)
from llm.types import LLMConfig

try:
    from citations.cascade import Judge, JudgeResult
except ImportError:  # the package __init__ may not re-export them (yet)
    from citations.cascade.judging import Judge, JudgeResult


__all__ = [
    "OpenAIJudge",
    "RelevanceModel",
    "judges_from_config",
    "locate_span",
    "relevance_model_from_config",
]

EXPLANATION_CHARS = 500


def locate_span(passage: str, span: str) -> str | None:
    """The passage's own text for ``span``, or None if it is not there.

    Exact first; then ignoring differences in whitespace and case, because
    models re-wrap lines. What is returned is always a slice of ``passage``.
    """
    span = span.strip()
    if not span:
        return None
    if span in passage:
        return span
    words = span.split()
    pattern = r"\s+".join(re.escape(w) for w in words)
    match = re.search(pattern, passage, re.IGNORECASE)
    return match.group(0) if match else None


class OpenAIJudge:
    """A citation judge backed by one model on an OpenAI-compatible server."""

    def __init__(
        self,
        config: LLMConfig,
        model: str | None = None,
        *,
        provider: OpenAICompatProvider | None = None,
    ) -> None:
        model = model or config.judge_model or config.model
        self.provider = provider or OpenAICompatProvider(config, model=model)
        # Stored in CitationVerification.models_used, so it names the model.
        self.name = model or "server-default"

    def __repr__(self) -> str:
        return f"OpenAIJudge({self.name!r}, {self.provider.where!r})"

    def __call__(self, *, passage: str, quote: str) -> JudgeResult:
        messages = build_judge_messages(passage, quote)
        try:
            data, _completion = self.provider.complete_json(
                messages, schema=JUDGE_SCHEMA, name="citation_judgement"
            )
        except (LLMBadResponse, LLMRequestRejected) as exc:
            return JudgeResult(
                supported=False,
                span=None,
                confidence=0.0,
                explanation=f"The judge model {self.name} gave no usable verdict: {exc}",
            )
        explanation = " ".join(str(data["explanation"]).split())[:EXPLANATION_CHARS]
        confidence = min(1.0, max(0.0, float(data["confidence"])))
        if not data["supported"]:
            return JudgeResult(
                supported=False,
                span=None,
                confidence=confidence,
                explanation=explanation or "The judge found the claim unsupported.",
            )
        span = locate_span(passage, data["span"])
        if span is None and data["span"].strip():
            # Not found verbatim or up to whitespace/case: hand the judge's words
            # to the cascade, whose tolerant search (smart quotes, hyphenation,
            # OCR confusions) finds them or rejects the vote.
            span = data["span"].strip()
        if span is None:
            return JudgeResult(
                supported=False,
                span=None,
                confidence=0.0,
                explanation=(
                    f"The judge model {self.name} said the claim is supported but "
                    "named no supporting span."
                ),
            )
        return JudgeResult(
            supported=True,
            span=span,
            confidence=confidence,
            explanation=explanation or "The judge found the claim supported.",
        )


def judges_from_config(config: LLMConfig) -> tuple[Judge, list[Judge]]:
    """The primary judge (stage 3) and the ensemble (stage 4).

    Primary: ``config.judge_model``, else ``config.model`` (else the server's
    first model). Ensemble: one judge per ``config.judge_models`` entry; empty
    means stage 4 does not run. Judges share one connection pool and are
    cached per config. Raises ValueError when no model server is configured:
    stages 3-4 run only where a model is configured (SPEC §3).
    """
    if not config.base_url:
        raise ValueError("No model server configured (LLM_BASE_URL): no judges.")
    primary, ensemble = _judges_for(config)
    return primary, list(ensemble)


@functools.lru_cache(maxsize=8)
def _judges_for(config: LLMConfig) -> tuple[OpenAIJudge, tuple[OpenAIJudge, ...]]:
    base = OpenAICompatProvider(config)

    def judge(model: str | None) -> OpenAIJudge:
        return OpenAIJudge(config, model, provider=base.with_model(model))

    primary = judge(config.judge_model or config.model)
    return primary, tuple(judge(m) for m in config.judge_models)


class RelevanceModel:
    """Rates how an answer's cited passages bear on its question, in one
    structured call per answer (`llm.prompting.RELEVANCE_SCHEMA`).

    Garbage, a refused request or a rating for an unknown id yields no rating
    for the passages concerned (they keep the offline one);
    `llm.errors.LLMUnavailable` propagates so the task retries."""

    def __init__(
        self, config: LLMConfig, *, provider: OpenAICompatProvider | None = None
    ) -> None:
        model = config.judge_model or config.model
        self.provider = provider or OpenAICompatProvider(config, model=model)
        self.name = model or "server-default"

    def rate(
        self, question: str, passages: Sequence[tuple[str, str]]
    ) -> dict[str, tuple[str, str]]:
        """{passage id: (relevance, reason)} for the passages it rated."""
        if not passages:
            return {}
        try:
            data, _completion = self.provider.complete_json(
                build_relevance_messages(question, passages),
                schema=RELEVANCE_SCHEMA,
                name="citation_relevance",
            )
        except (LLMBadResponse, LLMRequestRejected):
            return {}
        known = {pid for pid, _ in passages}
        rated: dict[str, tuple[str, str]] = {}
        for row in data.get("ratings", []):
            pid = str(row.get("id", ""))
            label = row.get("relevance")
            if pid in known and label in {"answers", "related", "off_topic"}:
                reason = " ".join(str(row.get("reason", "")).split())
                rated[pid] = (label, reason[:EXPLANATION_CHARS])
        return rated


def relevance_model_from_config(config: LLMConfig) -> RelevanceModel:
    if not config.base_url:
        raise ValueError(
            "No model server configured (LLM_BASE_URL): no relevance judge."
        )
    return _relevance_for(config)


@functools.lru_cache(maxsize=8)
def _relevance_for(config: LLMConfig) -> RelevanceModel:
    base = OpenAICompatProvider(config)
    model = config.judge_model or config.model
    return RelevanceModel(config, provider=base.with_model(model))
