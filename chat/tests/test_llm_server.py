"""The scripted model server itself: what tests and benchmarks rely on."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from docuiq.testing.llm_server import Reply, ScriptedLLMServer, extractive_reply

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as s:
        yield s


def _post(
    server: ScriptedLLMServer, body: dict, path: str = "/v1/chat/completions"
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request(
            "POST", path, json.dumps(body), {"Content-Type": "application/json"}
        )
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def _chat(content: str = "hi", **extra: object) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": content}], **extra}


def test_it_binds_to_loopback_only(server: ScriptedLLMServer) -> None:
    assert server.base_url.startswith("http://127.0.0.1:")
    assert server._httpd is not None
    assert server._httpd.server_address[0] == "127.0.0.1"


def test_it_lists_models(server: ScriptedLLMServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/v1/models")
    payload = json.loads(conn.getresponse().read())
    conn.close()
    assert payload["object"] == "list"
    assert payload["data"][0]["id"] == "scripted-model"


def test_it_answers_scripted_replies_in_order_and_records_requests(
    server: ScriptedLLMServer,
) -> None:
    server.script("first", Reply.answer("second", completion_tokens=7))
    _, _, one = _post(server, _chat("question one"))
    _, _, two = _post(server, _chat("question two"))
    one_json, two_json = json.loads(one), json.loads(two)
    assert one_json["choices"][0]["message"]["content"] == "first"
    assert two_json["choices"][0]["message"]["content"] == "second"
    assert two_json["usage"]["completion_tokens"] == 7
    assert [r.user_prompt for r in server.chat_requests] == [
        "question one",
        "question two",
    ]
    assert server.pending == 0


def test_usage_is_estimated_from_text_length(server: ScriptedLLMServer) -> None:
    server.script("x" * 40)
    _, _, body = _post(server, _chat("y" * 400))
    usage = json.loads(body)["usage"]
    assert usage == {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


def test_it_streams_sse_chunks_with_usage_and_done(server: ScriptedLLMServer) -> None:
    server.script("Streaming is word by word.")
    status, headers, body = _post(
        server, _chat(stream=True, stream_options={"include_usage": True})
    )
    assert status == 200
    assert headers["Content-Type"] == "text/event-stream"
    events = [e for e in body.decode().split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"
    chunks = [json.loads(e[len("data: ") :]) for e in events[:-1]]
    text = "".join(
        c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]
    )
    assert text == "Streaming is word by word."
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["completion_tokens"] > 0
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"


def test_it_sends_openai_style_errors_with_retry_after(
    server: ScriptedLLMServer,
) -> None:
    server.script(Reply.error(429, "Slow down."))
    status, headers, body = _post(server, _chat())
    assert status == 429
    assert json.loads(body)["error"]["message"] == "Slow down."
    assert headers["retry-after-ms"] == "10"


def test_garbage_is_not_json(server: ScriptedLLMServer) -> None:
    server.script(Reply.garbage())
    status, _, body = _post(server, _chat())
    assert status == 200
    with pytest.raises(ValueError):
        json.loads(body)


def test_a_dropped_connection_sends_nothing(server: ScriptedLLMServer) -> None:
    server.script(Reply.drop())
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        _post(server, _chat())


def test_delays_do_not_block_other_calls(server: ScriptedLLMServer) -> None:
    server.latency_s = 0.3
    threads = [threading.Thread(target=_post, args=(server, _chat())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert server.max_in_flight >= 2
    assert len(server.chat_requests) == 8


def test_stop_does_not_wait_for_delayed_replies() -> None:
    server = ScriptedLLMServer(latency_s=30).start()
    caller = threading.Thread(target=lambda: _safe_post(server), daemon=True)
    caller.start()
    deadline = time.monotonic() + 5
    while not server.chat_requests and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 5


def _safe_post(server: ScriptedLLMServer) -> None:
    try:
        _post(server, _chat())
    except (OSError, http.client.HTTPException):
        pass


def test_a_responder_answers_what_the_queue_does_not(
    server: ScriptedLLMServer,
) -> None:
    server.respond_with(lambda request: f"echo {request['messages'][-1]['content']}")
    server.script("from the queue")
    _, _, first = _post(server, _chat("a"))
    _, _, second = _post(server, _chat("b"))
    assert json.loads(first)["choices"][0]["message"]["content"] == "from the queue"
    assert json.loads(second)["choices"][0]["message"]["content"] == "echo b"


def test_extractive_mode_quotes_the_first_sentence_of_the_first_source() -> None:
    prompt = (
        '[S2] PDF – "Report"\nLocation: Page 3\nSnippet: "..."\n'
        '<source id="S2">\nRevenue grew 12% in 2023. Costs fell.\n</source>\n\n'
        "Question: How did revenue change?"
    )
    reply = extractive_reply({"messages": [{"role": "user", "content": prompt}]})
    assert reply.text == '"Revenue grew 12% in 2023." (Source: [S2])'


def test_extractive_mode_fills_json_schemas() -> None:
    schema = {
        "type": "object",
        "properties": {
            "value": {"type": "string"},
            "cited_chunk_indices": {"type": "array", "items": {"type": "integer"}},
            "confidence": {"type": "string", "enum": ["high", "medium", "low"]},
            "supported": {"type": "boolean"},
        },
    }
    prompt = '<chunk index="4">\nThe term is 24 months. It renews.\n</chunk>'
    reply = extractive_reply(
        {
            "messages": [{"role": "user", "content": prompt}],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"schema": schema},
            },
        }
    )
    assert reply.obj == {
        "value": "The term is 24 months.",
        "cited_chunk_indices": [4],
        "confidence": "high",
        "supported": True,
    }


def test_it_runs_standalone_from_the_command_line() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "docuiq.testing.llm_server", "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "http://127.0.0.1:" in line
        port = int(line.split("http://127.0.0.1:", 1)[1].split("/", 1)[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request(
            "POST",
            "/v1/chat/completions",
            json.dumps(_chat('<source id="S1">\nAll good here.\n</source>')),
        )
        body = json.loads(conn.getresponse().read())
        conn.close()
        assert body["choices"][0]["message"]["content"] == (
            '"All good here." (Source: [S1])'
        )
    finally:
        process.terminate()
        process.wait(timeout=5)
