"""The chat client and request planning: retries on 429/5xx/timeouts honouring Retry-After,
failure records (never answers) for client errors and exhausted retries, error bodies scrubbed of
keys, the API key kept out of logs and artifacts, seeds and max_tokens."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time

import pytest
from support.generation import run_shard
from support.loopback import LoopbackServer, Reply, Request
from support.rows import problem_row as problem_row_of

from extrembench.core.artifacts import write_artifact
from extrembench.core.config import validate_config
from extrembench.generation.requests import plan_samples, render_messages
from extrembench.llm.client import (
    ChatClient,
    ChatRequest,
    EndpointError,
    is_client_error,
    retry_delay,
    scrub,
)
from extrembench.llm.requests import clamp_max_tokens


def chat_body(content: str) -> dict:
    return {
        "choices": [{"message": {"content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3},
    }


class ScriptedEndpoint(LoopbackServer):
    """A loopback OpenAI-style endpoint that answers each POST from a script of (status, delay_s)
    steps (the last step repeats), recording every request's headers and body."""

    def __init__(self, script: list[tuple[int, float]], headers: dict[str, str] | None = None) -> None:
        self.script = list(script)
        self.extra_headers = headers or {}
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        super().__init__(self.answer)

    def answer(self, request: Request) -> Reply:
        body = request.json()
        with self.lock:
            self.requests.append({"headers": request.headers, "body": body})
            step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        status, delay = step
        time.sleep(delay)
        reply = (
            chat_body(f"\\boxed{{{body.get('seed')}}}") if status == 200 else {"error": {"message": f"status {status}"}}
        )
        return Reply(status, reply, headers=self.extra_headers)


def run_client(client: ChatClient, payloads: list[dict]) -> list[dict]:
    responses = []
    requests = [ChatRequest(key=f"{i:064x}", payload=p) for i, p in enumerate(payloads)]
    asyncio.run(client.run(requests, lambda request, response: responses.append(response)))
    return responses


@pytest.mark.parametrize(
    "script, attempts",
    [
        ([(429, 0), (200, 0)], 2),
        ([(503, 0), (502, 0), (200, 0)], 3),
        ([(500, 0), (200, 0)], 2),
        ([(200, 0.8), (200, 0)], 2),  # the first attempt times out
    ],
)
def test_transient_failures_are_retried_until_an_answer(script, attempts):
    with ScriptedEndpoint(script) as endpoint:
        client = ChatClient(endpoint.base_url, concurrency=1, timeout_s=0.4, max_retries=3, initial_backoff_s=0.01)
        [response] = run_client(client, [{"model": "m", "seed": 11, "messages": []}])
    assert response["content"] == "\\boxed{11}" and response["finish_reason"] == "stop"
    assert len(endpoint.requests) == attempts


def test_retry_after_header_is_honoured():
    with ScriptedEndpoint([(429, 0), (200, 0)], headers={"Retry-After": "0.3"}) as endpoint:
        client = ChatClient(endpoint.base_url, concurrency=1, max_retries=2, initial_backoff_s=0.01)
        started = time.monotonic()
        run_client(client, [{"seed": 1}])
    assert time.monotonic() - started >= 0.3


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_client_error_is_a_failure_record_without_retry(status):
    with ScriptedEndpoint([(status, 0)]) as endpoint:
        client = ChatClient(endpoint.base_url, concurrency=1, max_retries=3, initial_backoff_s=0.01)
        [response] = run_client(client, [{"seed": 1}])
    assert response["finish_reason"] == "failed" and response["http_status"] == status
    assert is_client_error(response)
    assert response["error"].startswith(f"HTTP {status}") and f"status {status}" in response["error"]
    assert response["content"] is None and len(endpoint.requests) == 1


@pytest.mark.parametrize("status", [503, 429])
def test_exhausted_retries_are_a_failure_record_not_a_client_error(status):
    with ScriptedEndpoint([(status, 0)]) as endpoint:
        client = ChatClient(endpoint.base_url, concurrency=1, max_retries=2, initial_backoff_s=0.01)
        [response] = run_client(client, [{"seed": 1}])
    assert len(endpoint.requests) == 3
    assert response["finish_reason"] == "failed" and response["http_status"] == status
    assert not is_client_error(response) and "(after 3 attempts)" in response["error"]


def test_unreachable_endpoint_is_a_failure_after_every_attempt():
    client = ChatClient("http://127.0.0.1:9", concurrency=1, max_retries=1, initial_backoff_s=0.01)
    [response] = run_client(client, [{"seed": 1}])
    assert response["finish_reason"] == "failed" and response["http_status"] is None
    assert "(after 2 attempts)" in response["error"]


def test_alive_check_stops_retrying_a_dead_server():
    def dead():
        raise RuntimeError("server exited (code 1)")

    client = ChatClient("http://127.0.0.1:9", concurrency=1, max_retries=5, initial_backoff_s=5, alive_check=dead)
    with pytest.raises(RuntimeError, match="server exited"):
        run_client(client, [{"seed": 1}])


def test_every_request_is_answered_once_under_concurrency():
    with ScriptedEndpoint([(200, 0)]) as endpoint:
        client = ChatClient(endpoint.base_url, concurrency=8)
        responses = run_client(client, [{"seed": i} for i in range(50)])
    assert sorted(r["content"] for r in responses) == sorted(f"\\boxed{{{i}}}" for i in range(50))
    assert sorted(r["body"]["seed"] for r in endpoint.requests) == list(range(50))
    assert all(r["prompt_tokens"] == 7 and r["completion_tokens"] == 3 for r in responses)


class RawEndpoint(LoopbackServer):
    """Answers every POST with one fixed status and body."""

    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(lambda request: Reply(status, body))


def test_reasoning_content_and_token_counts_are_kept():
    body = {
        "choices": [{"message": {"content": "\\boxed{2}", "reasoning_content": "1+1=2"}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 9},
    }
    with RawEndpoint(200, json.dumps(body).encode()) as endpoint:
        [response] = run_client(ChatClient(endpoint.base_url, max_retries=0), [{"seed": 1}])
    assert {
        k: response[k]
        for k in ("content", "reasoning_content", "finish_reason", "prompt_tokens", "completion_tokens", "error")
    } == {
        "content": "\\boxed{2}",
        "reasoning_content": "1+1=2",
        "finish_reason": "length",
        "prompt_tokens": 5,
        "completion_tokens": 9,
        "error": None,
    }


@pytest.mark.parametrize(
    "body", [b"not json", b"[1, 2]", b'{"choices": "x"}', b'{"choices": []}', b'{"error": {"message": "overloaded"}}']
)
def test_unreadable_200_is_a_failure_not_an_answer(body):
    with RawEndpoint(200, body) as endpoint:
        [response] = run_client(ChatClient(endpoint.base_url, max_retries=0), [{"seed": 1}])
    assert response["finish_reason"] == "failed" and "unreadable body" in response["error"]


def test_huge_error_body_is_read_only_up_to_the_cap_and_truncated():
    with RawEndpoint(400, b"x" * (5 * 1024 * 1024)) as endpoint:
        [response] = run_client(ChatClient(endpoint.base_url, max_retries=0), [{"seed": 1}])
    assert response["http_status"] == 400 and len(response["error"]) < 600
    assert response["error"].endswith("more characters)")


@pytest.mark.parametrize(
    "text, secrets, kept, gone",
    [
        ('{"error": "bad key sk-live-ABCDEF123456789"}', (), "bad key", "ABCDEF123456789"),
        ("Authorization: Bearer tok-123456 rejected", (), "rejected", "tok-123456"),
        ('{"headers": {"authorization": "Bearer abc.def.ghi"}}', (), "headers", "abc.def.ghi"),
        ('{"x-api-key": "k_987654321"}', (), "x-api-key", "k_987654321"),
        ("api_key=zz9zz9 is invalid", (), "invalid", "zz9zz9"),
        ("echo: my-own-configured-value!", ("my-own-configured-value",), "echo", "my-own-configured-value"),
        ("model 'foo' not found", (), "model 'foo' not found", None),
    ],
)
def test_scrub_removes_keys_and_credential_looking_strings(text, secrets, kept, gone):
    cleaned = scrub(text, secrets)
    assert kept in cleaned
    if gone is not None:
        assert gone not in cleaned and "[redacted]" in cleaned


def test_scrub_truncates_after_scrubbing():
    secret = "s3cr3t-value-0123456789"
    cleaned = scrub("x" * 495 + secret, (secret,), limit=500)
    assert "s3cr3t" not in cleaned and len(cleaned) <= 500 + 40


@pytest.mark.parametrize(
    "attempt, retry_after, low, high",
    [
        (0, None, 1.0, 1.25),
        (3, None, 8.0, 10.0),
        (10, None, 60.0, 75.0),  # capped at max_s (plus jitter)
        (0, "7", 7.0, 7.0 + 1e-9),
        (0, "Wed, 21 Oct 2015 07:28:00 GMT", 1.0, 1.25),  # a date: our own backoff
    ],
)
def test_retry_delay(attempt, retry_after, low, high):
    delay = retry_delay(attempt, initial_s=1.0, max_s=60.0, retry_after=retry_after)
    assert low <= delay <= high


# ---------------------------------------------------------------- request planning

BASE_CONFIG = {
    "benchmarks": {"t": {"kind": "ingested", "dataset": "x", "trials": 3}},
    "evaluate": {"models": ["m"], "benchmarks": ["t"]},
    "resources": {"cpu": {}},
}


def problem_row(problem_id: str, statement: str) -> dict:
    return problem_row_of(problem_id, statement=statement, dag_node="test")


def model_config(**model) -> dict:
    return validate_config({**BASE_CONFIG, "models": {"m": model}})


@pytest.mark.parametrize(
    "max_tokens, context, prompt, expected",
    [
        (100, 1000, 50, 100),
        (38912, 40960, 1500, 38912),
        (38912, 40960, 3000, 37960),
        (100, 100, 150, 1),  # the prompt alone overflows: the server's 400 becomes an error row
    ],
)
def test_clamp_max_tokens(max_tokens, context, prompt, expected):
    assert clamp_max_tokens(max_tokens, context, prompt) == expected


def test_each_sample_gets_a_distinct_seed_and_explicit_sampling():
    config = model_config(
        backend="openai",
        openai={"base_url": "http://127.0.0.1:1"},
        context_length=4096,
        sampling={"temperature": 1.0, "top_p": 1.0, "top_k": -1, "max_tokens": 256, "reasoning_effort": "high"},
    )
    problems = [problem_row(f"p{i}", f"What is {i}+{i}?") for i in range(4)]
    planned = plan_samples(problems, benchmark="t", model="m", model_cfg=config.models["m"], trials=3)
    assert len({s.seed for s in planned}) == len({s.key for s in planned}) == 12
    assert planned[0].identity["sampling"] == {
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": -1,
        "min_p": 0.0,
        "max_tokens": 256,
        "reasoning_effort": "high",
    }
    again = plan_samples(problems, benchmark="t", model="m", model_cfg=config.models["m"], trials=3)
    assert [s.key for s in again] == [s.key for s in planned]


def test_prompt_template_keeps_braces_and_system_prompt_is_optional():
    cfg = model_config(backend="openai", openai={"base_url": "http://x"}).models["m"]
    [message] = render_messages(cfg, "Find {x}.")
    assert message == {
        "role": "user",
        "content": "Find {x}.\n\nPlease reason step by step, and put your final answer within \\boxed{}.",
    }
    cfg = cfg.model_copy(update={"system_prompt": "Be brief.", "prompt_template": "Q: {statement}"})
    assert render_messages(cfg, "1+1?") == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Q: 1+1?"},
    ]


# ---------------------------------------------------------------- the API key


def test_api_key_is_sent_but_never_logged_cached_or_written(tmp_path, monkeypatch, caplog):
    secret = "sk-test-DO-NOT-LEAK-0123456789"
    monkeypatch.setenv("EXTREMBENCH_TEST_KEY", secret)
    problems = tmp_path / "problems.parquet"
    write_artifact([problem_row("p1", "1+1?"), problem_row("p2", "2+2?")], problems, "problems")
    output = tmp_path / "out" / "shard-0.parquet"
    caplog.set_level(logging.DEBUG)
    # One 429 and one 400 on the way, so the retry and the error paths log too.
    with ScriptedEndpoint([(429, 0), (400, 0), (200, 0)]) as endpoint:
        config = model_config(
            backend="openai",
            hf_id="vendor/model",
            concurrency=1,
            retry_initial_backoff_s=0.01,
            fail_on_client_error=False,
            max_failure_rate=0.5,
            openai={"base_url": endpoint.base_url, "api_key_env": "EXTREMBENCH_TEST_KEY"},
        )
        config.cache_dir = str(tmp_path / "cache")
        stats = run_shard(tmp_path, config, output)
    assert stats["sent"] == 6 and stats["failed"] == 1
    assert {r["headers"]["Authorization"] for r in endpoint.requests} == {f"Bearer {secret}"}
    assert secret not in caplog.text
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert output in written and any(p.suffix == ".json" and "cache" in p.parts for p in written)
    for path in written:
        assert secret.encode() not in path.read_bytes(), path


def test_missing_api_key_names_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("EXTREMBENCH_ABSENT_KEY", raising=False)
    client = ChatClient("http://127.0.0.1:9", api_key_env="EXTREMBENCH_ABSENT_KEY")
    with pytest.raises(EndpointError, match="EXTREMBENCH_ABSENT_KEY"):
        run_client(client, [{"seed": 1}])
