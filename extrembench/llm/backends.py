"""Reach a registry model's OpenAI-compatible endpoint: a hosted API as configured, or a llama.cpp /
SGLang server started here on 127.0.0.1 for the duration of a `with` block and stopped by PID.

One place for the start/stop logic, shared by the generate stage and the LLM calls of translate,
convert and the grading judge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from extrembench.core.config import Model
from extrembench.llm import llamacpp, sglang
from extrembench.llm.client import ChatClient
from extrembench.llm.server import ManagedServer, free_port

CHAT_BACKENDS = ("openai", "llamacpp", "sglang")  # the non-LLM baselines: extrembench.generation.solvers


class Endpoint(NamedTuple):
    base_url: str
    served_model: str  # the `model` field of each request body
    api_key_env: str | None  # NAME of the environment variable holding the key
    alive_check: Callable[[], None] | None  # raises when a server we started has died


def chat_client(endpoint: Endpoint, model_cfg: Model, *, concurrency: int) -> ChatClient:
    """A client of the endpoint with the model's timeout, retries and backoff."""
    return ChatClient(
        endpoint.base_url,
        api_key_env=endpoint.api_key_env,
        concurrency=concurrency,
        timeout_s=model_cfg.request_timeout_s,
        max_retries=model_cfg.max_retries,
        initial_backoff_s=model_cfg.retry_initial_backoff_s,
        max_backoff_s=model_cfg.retry_max_backoff_s,
        alive_check=endpoint.alive_check,
    )


@contextmanager
def open_endpoint(model: str, model_cfg: Model, *, cache_dir: Path, server_log: Path) -> Iterator[Endpoint]:
    """Yield the endpoint of `model`; a server started here is stopped when the block exits."""
    backend = model_cfg.backend
    if backend == "openai":
        yield Endpoint(model_cfg.openai.base_url, model_cfg.hf_id or model, model_cfg.openai.api_key_env, None)
        return
    if backend == "llamacpp":
        port = free_port()
        command = llamacpp.server_command(model_cfg, llamacpp.model_file(model_cfg, Path(cache_dir)), port)
        ready_path, startup_s, served = "/v1/models", model_cfg.llamacpp.startup_timeout_s, llamacpp.SERVED_NAME
        crash_hint = llamacpp.crash_hint
    elif backend == "sglang":
        sglang.check_version(model_cfg, model)
        port = free_port()
        command = sglang.server_command(model_cfg, port)
        ready_path, startup_s, served = "/health", model_cfg.sglang.startup_timeout_s, model_cfg.hf_id
        crash_hint = None
    else:
        raise ValueError(
            f"models.{model}.backend: {backend!r} serves no chat endpoint; use one of {', '.join(CHAT_BACKENDS)}"
        )
    with ManagedServer(
        command,
        port=port,
        ready_path=ready_path,
        log_path=Path(server_log),
        startup_timeout_s=startup_s,
        crash_hint=crash_hint,
    ) as server:
        yield Endpoint(server.base_url, served, None, server.check_alive)
