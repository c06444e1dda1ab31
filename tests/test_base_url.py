"""An OpenAI-compatible base_url works with and without its `/v1` (how providers document it), and
endpoint errors show the URL that was asked (never a key or a user:password part)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from extrembench.core.config import validate_config
from extrembench.llm import llamacpp
from extrembench.llm.client import ChatClient, ChatRequest, chat_url, shown_url
from extrembench.llm.server import ManagedServer, free_port

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("base_url", "url"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/v1/chat/completions"),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000/v1/chat/completions"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/chat/completions"),
        ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1/chat/completions"),
        ("https://api.example.com/openai/v1", "https://api.example.com/openai/v1/chat/completions"),
        ("https://api.example.com/openai", "https://api.example.com/openai/v1/chat/completions"),
        ("https://api.example.com/v1beta", "https://api.example.com/v1beta/v1/chat/completions"),
    ],
)
def test_the_chat_url_of_a_base_url(base_url, url):
    assert chat_url(base_url) == url


def test_shown_urls_drop_credentials():
    assert shown_url("https://user:secret@api.example.com:8443/v1/chat/completions") == (
        "https://api.example.com:8443/v1/chat/completions"
    )
    assert shown_url("http://127.0.0.1:9/v1/chat/completions") == "http://127.0.0.1:9/v1/chat/completions"


def _ask(base_url: str) -> dict:
    client = ChatClient(base_url, max_retries=0, timeout_s=120)
    payload = {
        "model": llamacpp.SERVED_NAME,
        "messages": [{"role": "user", "content": "1+1="}],
        "max_tokens": 2,
        "temperature": 0.0,
        "seed": 1,
    }
    replies = []
    asyncio.run(client.run([ChatRequest(key="k", payload=payload)], lambda _r, response: replies.append(response)))
    [reply] = replies
    return reply


@pytest.mark.slow
def test_base_url_with_and_without_v1_against_a_real_llamacpp_server(tmp_path):
    model = validate_config(
        {
            "benchmarks": {"t": {"kind": "ingested", "dataset": "x"}},
            "resources": {"cpu": {}},
            "evaluate": {"models": ["m"], "benchmarks": ["t"]},
            "models": {
                "m": {
                    "backend": "llamacpp",
                    "hf_id": "google/gemma-3-270m",
                    "revision": "r",
                    "context_length": 256,
                    "sampling": {"max_tokens": 2},
                }
            },
        }
    ).models["m"]
    port = free_port()
    command = llamacpp.server_command(model, llamacpp.model_file(model, REPO / "cache"), port)
    with ManagedServer(
        command, port=port, ready_path="/v1/models", log_path=tmp_path / "server.log", startup_timeout_s=300
    ) as server:
        for base_url in (server.base_url, server.base_url + "/v1", server.base_url + "/v1/"):
            reply = _ask(base_url)
            assert reply["finish_reason"] != "failed", (base_url, reply)
        wrong = _ask(server.base_url + "/v2")
        assert wrong["finish_reason"] == "failed"
        assert wrong["error"].startswith("HTTP 404")
        assert f"(POST {server.base_url}/v2/v1/chat/completions)" in wrong["error"]
