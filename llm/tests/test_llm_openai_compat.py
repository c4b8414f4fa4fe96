"""OpenAICompatProvider through the real openai SDK against the scripted server."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from docuiq.testing.llm_server import Reply, ScriptedLLMServer
from llm import (
    ChatMessage,
    LLMBadResponse,
    LLMConfig,
    LLMRequestRejected,
    LLMUnavailable,
    OpenAICompatProvider,
)
from llm.openai_compat import parse_json_answer, validate_json
from llm.prompting import PromptSource

QUESTION = [ChatMessage("user", "What is the notice period?")]

SCHEMA = {
    "type": "object",
    "properties": {
        "value": {"type": "string"},
        "confidence": {"type": "string", "enum": ["high", "medium", "low"]},
        "cited_chunk_indices": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["value", "confidence", "cited_chunk_indices"],
    "additionalProperties": False,
}


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as s:
        yield s


def provider_for(
    server: ScriptedLLMServer, **overrides: object
) -> OpenAICompatProvider:
    return OpenAICompatProvider(server.config(**overrides))


# ---------------------------------------------------------------- completions


def test_it_completes_and_reports_usage(server: ScriptedLLMServer) -> None:
    server.script(Reply.answer("Thirty days.", prompt_tokens=120, completion_tokens=3))
    completion = provider_for(server).complete(QUESTION)
    assert completion.text == "Thirty days."
    assert completion.model == "scripted-model"
    assert (completion.prompt_tokens, completion.completion_tokens) == (120, 3)
    assert completion.total_tokens == 123
    assert completion.finish_reason == "stop"
    assert completion.latency_s >= 0
    sent = server.last_request
    assert sent.messages == [{"role": "user", "content": "What is the notice period?"}]
    assert sent.headers["authorization"] == "Bearer test-key"
    assert sent.body["temperature"] == 0.0


def test_a_missing_api_key_still_works_for_local_servers(
    server: ScriptedLLMServer,
) -> None:
    server.script("ok")
    provider_for(server, api_key=None).complete(QUESTION)
    assert server.last_request.headers["authorization"] == "Bearer not-needed"


def test_without_a_model_name_it_uses_the_servers_first_model(
    server: ScriptedLLMServer,
) -> None:
    server.script("ok")
    provider = provider_for(server, model=None)
    assert provider.complete(QUESTION).text == "ok"
    assert server.last_request.model == "scripted-model"
    assert any(r.path == "/v1/models" for r in server.requests)


def test_every_request_carries_max_tokens_and_a_callers_value_wins(
    server: ScriptedLLMServer,
) -> None:
    server.script("a", "b", "c")
    provider = provider_for(server)
    provider.complete(QUESTION)
    assert server.last_request.body["max_tokens"] == 1024  # LLM_MAX_TOKENS' default
    provider.complete(QUESTION, max_tokens=50)
    assert server.last_request.body["max_tokens"] == 50
    provider_for(server, max_tokens=300).complete(QUESTION)
    assert server.last_request.body["max_tokens"] == 300


# ------------------------------------------------------------------ streaming


def test_it_streams_deltas_then_exposes_the_completion(
    server: ScriptedLLMServer,
) -> None:
    server.script("The notice period is thirty days.")
    stream = provider_for(server).stream(QUESTION)
    assert stream.completion is None
    deltas = list(stream)
    assert len(deltas) > 1
    assert "".join(deltas) == "The notice period is thirty days."
    assert stream.completion is not None
    assert stream.completion.text == "The notice period is thirty days."
    assert stream.completion.completion_tokens > 0  # from the usage chunk
    assert stream.completion.finish_reason == "stop"
    assert server.last_request.body["stream_options"] == {"include_usage": True}


def test_a_stream_cut_mid_way_raises_unavailable(server: ScriptedLLMServer) -> None:
    server.script(Reply.answer("one two three four five", drop_after_chunks=2))
    stream = provider_for(server).stream(QUESTION)
    received = []
    with pytest.raises(LLMUnavailable, match="closed the stream"):
        received.extend(stream)
    assert "".join(received) == "one two "
    assert stream.completion is None


def test_a_garbage_stream_is_a_bad_response(server: ScriptedLLMServer) -> None:
    server.script(Reply.garbage())
    with pytest.raises(LLMBadResponse):
        list(provider_for(server).stream(QUESTION))


def test_an_empty_stream_is_a_bad_response(server: ScriptedLLMServer) -> None:
    server.script(Reply.empty())
    with pytest.raises(LLMBadResponse, match="empty answer"):
        list(provider_for(server).stream(QUESTION))


def test_stream_errors_before_the_first_delta_are_mapped(
    server: ScriptedLLMServer,
) -> None:
    server.script(Reply.error(503), Reply.error(503))
    with pytest.raises(LLMUnavailable, match="HTTP 503"):
        provider_for(server, max_retries=1).stream(QUESTION)


# ----------------------------------------------------------------------- JSON


def test_complete_json_asks_for_a_json_schema_and_validates(
    server: ScriptedLLMServer,
) -> None:
    answer = {"value": "30 days", "confidence": "high", "cited_chunk_indices": [2]}
    server.script(Reply.object(answer))
    value, completion = provider_for(server).complete_json(
        QUESTION, schema=SCHEMA, name="cell"
    )
    assert value == answer
    assert completion.text.startswith("{")
    fmt = server.last_request.response_format
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "cell"
    assert fmt["json_schema"]["schema"] == SCHEMA
    assert fmt["json_schema"]["strict"] is True


def test_schema_invalid_json_is_a_bad_response(server: ScriptedLLMServer) -> None:
    wrong = {"value": "30", "confidence": "sure", "cited_chunk_indices": []}
    server.script(Reply.object(wrong), Reply.object(wrong))
    with pytest.raises(LLMBadResponse, match=r"\$\.confidence: 'sure' is not one of"):
        provider_for(server).complete_json(QUESTION, schema=SCHEMA, name="cell")
    assert len(server.chat_requests) == 2  # asked once more, then refused


def test_json_that_is_not_json_is_a_bad_response(server: ScriptedLLMServer) -> None:
    server.script("Sure! The value is 30 days.", "It is 30 days.")
    with pytest.raises(LLMBadResponse, match="not valid JSON"):
        provider_for(server).complete_json(QUESTION, schema=SCHEMA, name="cell")


def test_a_server_without_json_schema_support_gets_json_object(
    server: ScriptedLLMServer,
) -> None:
    answer = {"value": "30 days", "confidence": "low", "cited_chunk_indices": []}
    server.script(
        Reply.error(400, "response_format json_schema is not supported"),
        Reply.answer("```json\n" + __import__("json").dumps(answer) + "\n```"),
    )
    value, _ = provider_for(server).complete_json(QUESTION, schema=SCHEMA, name="c")
    assert value == answer
    formats = [r.response_format["type"] for r in server.chat_requests]
    assert formats == ["json_schema", "json_object"]


def test_parse_json_answer_tolerates_fences_and_prose() -> None:
    assert parse_json_answer('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_answer('Here you go: {"a": 1} Hope it helps.') == {"a": 1}
    assert parse_json_answer('Sure:\n```json\n{"a": [1, 2,],}\n```\nDone.') == {
        "a": [1, 2]
    }
    # A comma before a brace inside a string is text, not a trailing comma.
    assert parse_json_answer('{"q": "a, }", "b": 1,}') == {"q": "a, }", "b": 1}
    assert parse_json_answer('{"q": "say \\"x,\\" }",}') == {"q": 'say "x," }'}
    # The first complete object, whatever follows it.
    assert parse_json_answer('{"a": 1} and also {"b": 2}') == {"a": 1}
    with pytest.raises(ValueError):
        parse_json_answer("no json here")


def test_validate_json_reports_readable_problems() -> None:
    assert (
        validate_json(
            {"value": "x", "confidence": "high", "cited_chunk_indices": [1]}, SCHEMA
        )
        == []
    )
    problems = validate_json(
        {"value": 3, "cited_chunk_indices": [True], "extra": 1}, SCHEMA
    )
    assert "$: missing 'confidence'" in problems
    assert "$.value: expected string, got int" in problems
    assert "$.cited_chunk_indices[0]: expected integer, got bool" in problems
    assert "$: unexpected 'extra'" in problems


# ---------------------------------------------------------------------- faults


def test_a_503_then_success_is_retried(server: ScriptedLLMServer) -> None:
    server.script(Reply.error(503), "Recovered.")
    completion = provider_for(server, max_retries=2).complete(QUESTION)
    assert completion.text == "Recovered."
    assert len(server.chat_requests) == 2


def test_a_500_is_not_retried(server: ScriptedLLMServer) -> None:
    """llama.cpp and vLLM answer 500 for requests that fail the same way again."""
    server.script(Reply.error(500, "failed to decode"), "never asked")
    with pytest.raises(LLMUnavailable, match="HTTP 500"):
        provider_for(server, max_retries=2).complete(QUESTION)
    assert len(server.chat_requests) == 1


def test_429_until_retries_run_out_is_unavailable(server: ScriptedLLMServer) -> None:
    server.script(*[Reply.error(429, "Rate limit reached.")] * 3)
    with pytest.raises(LLMUnavailable) as caught:
        provider_for(server, max_retries=2).complete(QUESTION)
    assert len(server.chat_requests) == 3
    error = caught.value
    assert error.retryable
    assert error.status == 429
    assert "HTTP 429" in str(error) and "tried 3 times" in str(error)
    assert "Rate limit reached." in str(error)


def test_a_slow_server_times_out_quickly_as_unavailable(
    server: ScriptedLLMServer,
) -> None:
    server.script(Reply.answer("too late").with_delay(5))
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        provider_for(server, timeout_s=0.3, max_retries=0).complete(QUESTION)
    assert time.monotonic() - started < 3
    assert "did not answer within 0.3 s" in str(caught.value)


def test_a_refused_connection_is_unavailable() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = LLMConfig(
        base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=0, timeout_s=2
    )
    with pytest.raises(LLMUnavailable, match="Could not reach the model server"):
        OpenAICompatProvider(config).complete(QUESTION)


def test_a_dropped_connection_is_unavailable(server: ScriptedLLMServer) -> None:
    server.script(Reply.drop(), Reply.drop())
    with pytest.raises(LLMUnavailable):
        provider_for(server, max_retries=1).complete(QUESTION)


def test_a_garbage_body_is_a_bad_response(server: ScriptedLLMServer) -> None:
    server.script(Reply.garbage())
    with pytest.raises(LLMBadResponse, match="not valid JSON") as caught:
        provider_for(server).complete(QUESTION)
    assert not caught.value.retryable
    assert len(server.chat_requests) == 1  # permanent: not retried


def test_an_empty_answer_is_a_bad_response(server: ScriptedLLMServer) -> None:
    server.script(Reply.empty(), Reply.empty())
    with pytest.raises(LLMBadResponse, match="empty answer"):
        provider_for(server).complete(QUESTION)
    assert len(server.chat_requests) == 2  # asked once more


def test_an_empty_answer_then_a_real_one_is_the_real_one(
    server: ScriptedLLMServer,
) -> None:
    server.script(Reply.empty(), "Thirty days.")
    assert provider_for(server).complete(QUESTION).text == "Thirty days."


def test_an_auth_error_is_rejected_not_retried(server: ScriptedLLMServer) -> None:
    server.script(Reply.error(401, "Invalid API key."))
    with pytest.raises(LLMRequestRejected, match=r"HTTP 401\): Invalid API key\."):
        provider_for(server).complete(QUESTION)
    assert len(server.chat_requests) == 1


def test_error_messages_never_show_credentials() -> None:
    config = LLMConfig(
        base_url="http://user:secret@127.0.0.1:9/v1?token=abc", model="m"
    )
    assert OpenAICompatProvider(config).where == "http://127.0.0.1:9/v1"


def test_parallel_calls_overlap(server: ScriptedLLMServer) -> None:
    """The tabular executor runs cells in parallel: calls must not serialise."""
    server.latency_s = 0.3
    provider = provider_for(server)
    results: list[str] = []
    lock = threading.Lock()

    def call() -> None:
        text = provider.complete(QUESTION).text
        with lock:
            results.append(text)

    threads = [threading.Thread(target=call) for _ in range(16)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert len(results) == 16
    assert server.max_in_flight >= 4
    assert time.monotonic() - started < 3  # serial would be 4.8 s


# -------------------------------------------------------------- product calls


def test_answer_sends_the_prompt_built_from_sources(server: ScriptedLLMServer) -> None:
    server.script('"Notice is 30 days." (Source: [S1])')
    sources = [PromptSource("S1", "PDF", "MSA", 4, "Notice is 30 days.")]
    completion = provider_for(server).answer("What is the notice?", sources)
    assert completion.text == '"Notice is 30 days." (Source: [S1])'
    request = server.last_request
    assert "untrusted data" in request.system_prompt
    assert '<source id="S1">\nNotice is 30 days.\n</source>' in request.user_prompt
    assert request.user_prompt.endswith("Question: What is the notice?")


def test_the_extractive_server_mode_answers_the_real_prompt(
    server: ScriptedLLMServer,
) -> None:
    sources = [
        PromptSource("S1", "PDF", "MSA", 1, "Either party may terminate. Fees apply.")
    ]
    provider = provider_for(server)
    assert (
        provider.answer("Who may terminate?", sources).text
        == '"Either party may terminate." (Source: [S1])'
    )


def test_a_stream_that_stalls_is_unavailable(server: ScriptedLLMServer) -> None:
    server.chunk_delay_s = 1.0
    server.script("one two three")
    stream = provider_for(server, timeout_s=0.3, max_retries=0).stream(QUESTION)
    with pytest.raises(LLMUnavailable, match=r"0\.3 s"):
        list(stream)


def test_a_stream_can_be_abandoned_early(server: ScriptedLLMServer) -> None:
    server.script("one two three four five six")
    with provider_for(server).stream(QUESTION) as stream:
        first = next(iter(stream))
    assert first == "one "
    assert stream.completion is None


def test_temperature_none_is_left_to_the_server(server: ScriptedLLMServer) -> None:
    server.script("ok")
    provider_for(server, temperature=None).complete(QUESTION)
    assert "temperature" not in server.last_request.body
