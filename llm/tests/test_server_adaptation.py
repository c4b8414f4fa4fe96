"""The client adapts to what a model server is, against scripted imitations of
real servers (docuiq.testing.llm_server PROFILES) through real HTTP.

Each test is one thing a real server did to DocuIQ (issue 35): llama-cpp-python
answering HTTP 500 to ``json_schema``, a reply cut at the token limit stored as
an answer, a small model repeating itself, a one-slot CPU server flooded with
parallel calls that timed out and were sent again while it still computed them.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import pytest

from docuiq.testing.llm_server import Reply, ScriptedLLMServer
from llm import (
    ChatMessage,
    LLMBadResponse,
    LLMConfig,
    LLMUnavailable,
    OpenAICompatProvider,
)
from llm.openai_compat import RETRY_TEMPERATURE, SINGLE_SLOT_TIMEOUT_FACTOR

QUESTION = [ChatMessage("user", "What is the notice period?")]
SCHEMA = {
    "type": "object",
    "properties": {
        "value": {"type": "string"},
        "confidence": {"type": "string", "enum": ["high", "medium", "low"]},
    },
    "required": ["value", "confidence"],
    "additionalProperties": False,
}
ANSWER = {"value": "30 days", "confidence": "high"}


@pytest.fixture
def start() -> Iterator:
    servers: list[ScriptedLLMServer] = []

    def start(**options: object) -> ScriptedLLMServer:
        server = ScriptedLLMServer(**options).start()  # type: ignore[arg-type]
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def formats(server: ScriptedLLMServer) -> list[str | None]:
    return [(r.response_format or {}).get("type") for r in server.chat_requests]


# ------------------------------------------------------------- structured output


def test_llama_cpp_pythons_500_on_json_schema_falls_back_and_is_remembered(
    start,
) -> None:
    server = start(profile="llama-cpp-python")
    server.script(Reply.object(ANSWER), Reply.object(ANSWER))
    provider = OpenAICompatProvider(server.config(max_retries=2))
    value, _ = provider.complete_json(QUESTION, schema=SCHEMA, name="cell")
    assert value == ANSWER
    # The 500 was not retried (max_retries=2): one json_schema, then json_object.
    assert formats(server) == ["json_schema", "json_object"]
    assert "JSON schema" in server.chat_requests[-1].user_prompt  # said in words too
    assert server.chat_requests[0].body["max_tokens"] == 1024
    # Remembered for the server: a new provider (as each judge builds one)
    # goes straight to json_object.
    again = OpenAICompatProvider(server.config())
    assert again.json_mode == "json_object"
    again.complete_json(QUESTION, schema=SCHEMA, name="cell")
    assert formats(server) == ["json_schema", "json_object", "json_object"]


def test_a_server_without_structured_output_gets_the_schema_in_words(start) -> None:
    server = start(profile="text-only")
    sloppy = (
        'Here is the answer:\n```json\n{"value": "30 days", "confidence": "high",}\n```'
    )
    server.script(sloppy, sloppy)
    provider = OpenAICompatProvider(server.config())
    value, _ = provider.complete_json(QUESTION, schema=SCHEMA, name="cell")
    assert value == ANSWER
    assert formats(server) == ["json_schema", "json_object", None]
    assert "response_format" not in server.last_request.body
    assert json.dumps(SCHEMA, separators=(",", ":")) in server.last_request.user_prompt
    provider.complete_json(QUESTION, schema=SCHEMA, name="cell")
    assert formats(server) == ["json_schema", "json_object", None, None]


def test_the_mode_is_remembered_per_model_name(start) -> None:
    server = start(profile="json-object-only")
    server.script(Reply.object(ANSWER), Reply.object(ANSWER))
    provider = OpenAICompatProvider(server.config())
    provider.complete_json(QUESTION, schema=SCHEMA, name="cell")
    other = provider.with_model("another-model")
    assert other.json_mode == "json_schema"
    assert provider.json_mode == "json_object"


def test_a_rejection_that_is_not_about_response_format_is_not_a_fallback(
    start,
) -> None:
    server = start()
    server.script(Reply.error(400, "model 'x' not found"))
    with pytest.raises(Exception, match="not found"):
        OpenAICompatProvider(server.config()).complete_json(
            QUESTION, schema=SCHEMA, name="cell"
        )
    assert formats(server) == ["json_schema"]


# ------------------------------------------------------------------ max_tokens


def test_every_kind_of_request_carries_max_tokens(start) -> None:
    server = start(profile="llama-cpp-python")
    provider = OpenAICompatProvider(server.config(model=None, max_tokens=200))
    provider.complete(QUESTION)
    list(provider.stream(QUESTION))
    provider.complete_json(QUESTION, schema=SCHEMA, name="cell")  # falls back once
    provider.complete(QUESTION, max_tokens=20)
    bodies = [r.body for r in server.chat_requests]
    assert len(bodies) == 5
    assert [b["max_tokens"] for b in bodies] == [200, 200, 200, 200, 20]


# ----------------------------------------------------------------- bad replies


def test_a_reply_cut_at_the_limit_is_asked_once_more_then_an_error(start) -> None:
    server = start()
    server.script(Reply.cut_off(), Reply.cut_off())
    provider = OpenAICompatProvider(server.config(max_tokens=64))
    with pytest.raises(LLMBadResponse, match="cut off at the 64-token limit"):
        provider.complete(QUESTION)
    first, second = server.chat_requests
    assert first.body["temperature"] == 0
    assert second.body["temperature"] == RETRY_TEMPERATURE  # not the same tokens again


def test_a_cut_reply_then_a_whole_one_is_the_whole_one(start) -> None:
    server = start()
    server.script(Reply.cut_off("Thirty"), "Thirty days.")
    completion = OpenAICompatProvider(server.config()).complete(QUESTION)
    assert completion.text == "Thirty days."
    assert completion.finish_reason == "stop"


def test_cut_off_json_is_an_error_not_an_answer(start) -> None:
    server = start(mode="cut_off")
    with pytest.raises(LLMBadResponse, match="cut off at the 1024-token limit"):
        OpenAICompatProvider(server.config()).complete_json(
            QUESTION, schema=SCHEMA, name="cell"
        )
    assert len(server.chat_requests) == 2


def test_a_repeating_reply_is_an_error(start) -> None:
    server = start(mode="repeating")
    with pytest.raises(LLMBadResponse, match="repeating itself") as caught:
        OpenAICompatProvider(server.config()).complete(QUESTION)
    assert "20 times" in str(caught.value)
    assert len(server.chat_requests) == 2


def test_a_streamed_reply_cut_at_the_limit_fails_after_the_stream(start) -> None:
    server = start()
    server.script(Reply.cut_off("The notice period is"))
    stream = OpenAICompatProvider(server.config(max_tokens=5)).stream(QUESTION)
    received: list[str] = []
    with pytest.raises(LLMBadResponse, match="cut off at the 5-token limit"):
        received.extend(stream)
    assert "".join(received) == "The notice period is"
    assert stream.completion is None  # nothing to store as an answer


def test_a_streamed_repeating_reply_fails_after_the_stream(start) -> None:
    server = start()
    server.script(Reply.repeating())
    stream = OpenAICompatProvider(server.config()).stream(QUESTION)
    with pytest.raises(LLMBadResponse, match="repeating itself"):
        list(stream)
    assert stream.completion is None


# --------------------------------------------------------- slots and timeouts


def test_a_single_slot_server_gets_one_call_at_a_time(start) -> None:
    server = start(profile="llama-cpp-python", latency_s=0.2)
    provider = OpenAICompatProvider(server.config(timeout_s=0.1, max_retries=0))
    assert provider.parallel_slots == 1
    # A longer timeout than configured: other processes may be ahead in its queue.
    assert provider.timeout_s == pytest.approx(0.1 * SINGLE_SLOT_TIMEOUT_FACTOR)
    results: list[str] = []
    errors: list[Exception] = []

    def call() -> None:
        try:
            results.append(provider.complete(QUESTION).text)
        except Exception as exc:  # pragma: no cover - reported by the assert
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    # Four calls of 0.2 s each took 0.8 s in all, twice the 0.4 s timeout:
    # waiting for the slot did not count against it.
    assert errors == []
    assert len(results) == 4
    assert server.max_in_flight == 1


def test_a_stream_holds_the_slot_until_it_ends(start) -> None:
    server = start(profile="llama-cpp-python")
    server.script("one two three", "four")
    provider = OpenAICompatProvider(server.config())
    stream = provider.stream(QUESTION)
    done = threading.Event()

    def second() -> None:
        provider.complete(QUESTION)
        done.set()

    thread = threading.Thread(target=second)
    thread.start()
    assert not done.wait(0.3)  # waiting for the stream's slot
    assert "".join(stream) == "one two three"
    assert done.wait(5)
    thread.join()
    assert server.max_in_flight == 1


def test_a_timed_out_request_is_not_sent_again(start) -> None:
    server = start(profile="llama-cpp-python")
    server.script(Reply.answer("late").with_delay(1.0))
    provider = OpenAICompatProvider(server.config(timeout_s=0.05, max_retries=2))
    with pytest.raises(LLMUnavailable, match=r"did not answer within 0\.2 s"):
        provider.complete(QUESTION)
    time.sleep(1.2)  # the server computed it to the end
    assert len(server.chat_requests) == 1


def test_llama_cpps_props_give_its_slots(start) -> None:
    server = start(profile="llama.cpp", slots=2, latency_s=0.15)
    provider = OpenAICompatProvider(server.config())
    assert provider.parallel_slots == 2
    assert provider.timeout_s == 10.0  # not single-slot: as configured
    threads = [
        threading.Thread(target=provider.complete, args=(QUESTION,)) for _ in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert len(server.chat_requests) == 6
    assert server.max_in_flight == 2
    # Asked once per server, not per call or per provider.
    OpenAICompatProvider(server.config()).parallel_slots  # noqa: B018
    assert [r.path for r in server.requests].count("/props") == 1


def test_llm_parallel_overrides_what_the_server_says(start) -> None:
    server = start(profile="llama.cpp", slots=4)
    provider = OpenAICompatProvider(server.config(parallel=1))
    assert provider.parallel_slots == 1
    assert not any(r.method == "GET" for r in server.requests)


def test_a_server_that_does_not_say_gets_the_default(start) -> None:
    from llm.servers import UNKNOWN_SERVER_SLOTS

    server = start()  # like OpenAI, vLLM and Ollama
    assert OpenAICompatProvider(server.config()).parallel_slots == UNKNOWN_SERVER_SLOTS


def test_a_stream_without_a_usage_chunk_still_counts_tokens(start) -> None:
    """llama-cpp-python ignores stream_options.include_usage."""
    server = start(profile="llama-cpp-python")
    server.script("The notice period is thirty days.")
    stream = OpenAICompatProvider(server.config()).stream(QUESTION)
    assert "".join(stream) == "The notice period is thirty days."
    assert stream.completion is not None
    assert stream.completion.completion_tokens > 0  # estimated


def test_a_server_that_is_down_is_not_probed_before_every_call() -> None:
    import socket

    from llm.servers import UNKNOWN_SERVER_SLOTS

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=0)
    provider = OpenAICompatProvider(config)
    assert provider.parallel_slots == UNKNOWN_SERVER_SLOTS
    with pytest.raises(LLMUnavailable, match="Could not reach"):
        provider.complete(QUESTION)
    # Not learnt (nothing answered), and not asked again for a while.
    state = provider._server
    assert state.slots is None and state.probe_after > time.monotonic()


def test_a_forgotten_server_is_learnt_again_by_a_cached_provider(start) -> None:
    from llm import get_provider
    from llm.servers import forget_servers

    server = start(profile="json-object-only")
    server.script(Reply.object(ANSWER), Reply.object(ANSWER))
    provider = get_provider(server.config())
    provider.complete_json(QUESTION, schema=SCHEMA, name="cell")
    assert provider.json_mode == "json_object"
    forget_servers()
    assert get_provider(server.config()) is provider  # cached
    assert provider.json_mode == "json_schema"
