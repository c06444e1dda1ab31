"""Single-shot, cached chat calls for the LLM steps of translate, convert, formalize and the judge.

Every call goes through the shared ChatClient and is recorded in the content-addressed cache
(namespace `llm-calls`) under a key over everything that determines the reply: the messages, the
model id + revision, every sampling parameter, the seed and the engine + version — never the port
or the served name. A rerun therefore reads every reply back from the record; the endpoint (and a
server we would start for it) is opened only when some call is missing from the cache, so a rerun
with no network produces the same artifacts byte for byte.

Only answers are recorded. A client error (HTTP 4xx other than 408/429, e.g. a prompt over the
context) comes back as a CallResult with `error` set; a transport failure (server down, retries
exhausted) raises LLMCallError. Neither is recorded, so the next run asks again.
"""

from __future__ import annotations

import asyncio
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extrembench.core.config import Config, Model
from extrembench.llm.backends import CHAT_BACKENDS, Endpoint, chat_client, open_endpoint
from extrembench.llm.cache import GenerationCache, cache_key
from extrembench.llm.client import ChatRequest, EndpointError, is_client_error
from extrembench.llm.requests import chat_engine_version, chat_identity, chat_payload, produced_by
from extrembench.llm.server import ServerError

NAMESPACE = "llm-calls"


class LLMCallError(RuntimeError):
    """The model's endpoint could not be opened or kept failing; nothing was recorded."""


@dataclass(frozen=True)
class CallResult:
    key: str  # cache key of the recorded call
    content: str | None
    finish_reason: str
    error: str | None  # the server's rejection, when it rejected the request

    def unusable_reason(self) -> str | None:
        """Why this reply cannot be used at all (rejected, empty, cut off), or None."""
        if self.error is not None:
            return f"the server rejected the request: {self.error}"
        if not self.content or not self.content.strip():
            return f"empty reply (finish_reason={self.finish_reason})"
        if self.finish_reason == "length":
            return "reply cut off at max_tokens (raise the model's sampling.max_tokens)"
        return None


class LLMCaller:
    """`with LLMCaller(model, model_cfg, cache_dir=..., server_log=...) as caller: caller.call(messages, seed=0)`.

    `model_cfg` is a registry entry of the validated config (defaults filled).

    `sent` and `cached` count the calls of this caller that reached the endpoint / the record.
    """

    def __init__(
        self, model: str, model_cfg: Model, *, cache_dir: Path, server_log: Path, namespace: str = NAMESPACE
    ) -> None:
        if model_cfg.backend not in CHAT_BACKENDS:
            raise ValueError(
                f"models.{model}.backend: {model_cfg.backend!r} cannot answer chat calls; "
                f"pick a model with backend {', '.join(CHAT_BACKENDS)}"
            )
        self.model = model
        self.model_cfg = model_cfg
        self.cache_dir = Path(cache_dir)
        self.server_log = Path(server_log)
        self.cache = GenerationCache(self.cache_dir, namespace)
        self.engine_version = chat_engine_version(model_cfg)
        self.sent = 0
        self.cached = 0
        self._stack = ExitStack()
        self._endpoint: Endpoint | None = None
        self._open_error: LLMCallError | None = None

    @property
    def label(self) -> str:
        """Provenance value for fields this model produced, e.g. 'llm:qwen3-8b'."""
        return f"llm:{self.model}"

    def __enter__(self) -> LLMCaller:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop a server this caller started (if any)."""
        self._stack.close()
        self._endpoint = None

    def identity(self, messages: list[dict[str, str]], seed: int) -> dict[str, Any]:
        """What the cache key is computed over (the same fields as a generation request's)."""
        return chat_identity(self.model, self.model_cfg, [dict(m) for m in messages], seed, self.engine_version)

    def call(self, messages: list[dict[str, str]], *, seed: int) -> CallResult:
        identity = self.identity(messages, seed)
        key = cache_key(identity)
        entry = self.cache.get(key)
        if entry is None:
            # claimed, then looked up again: another run sharing the cache may be asking this very call
            with self.cache.claim(key):
                entry = self.cache.get(key)
                if entry is None:
                    response = self._send(key, identity)
                    self.sent += 1
                    if response["finish_reason"] != "failed":
                        origin = produced_by(identity["engine"], identity["engine_version"])
                        self.cache.put(key, identity, response, origin)
        if entry is not None:
            self.cached += 1
            response = entry["response"]
        return CallResult(
            key=key,
            content=response.get("content"),
            finish_reason=response.get("finish_reason") or "unknown",
            error=response.get("error"),
        )

    def _endpoint_or_open(self) -> Endpoint:
        if self._endpoint is not None:
            return self._endpoint
        if self._open_error is not None:
            raise self._open_error  # a server that failed to start once is not restarted per call
        try:
            self._endpoint = self._stack.enter_context(
                open_endpoint(self.model, self.model_cfg, cache_dir=self.cache_dir, server_log=self.server_log)
            )
        except (ServerError, OSError, ValueError, RuntimeError) as exc:
            self._open_error = LLMCallError(f"models.{self.model}: cannot open the endpoint: {exc}")
            raise self._open_error from exc
        return self._endpoint

    def _send(self, key: str, identity: dict[str, Any]) -> dict[str, Any]:
        endpoint = self._endpoint_or_open()
        client = chat_client(endpoint, self.model_cfg, concurrency=1)
        payload = chat_payload(identity, endpoint.served_model)
        replies: list[dict[str, Any]] = []
        try:
            asyncio.run(
                client.run([ChatRequest(key=key, payload=payload)], lambda _request, response: replies.append(response))
            )
        except (EndpointError, ServerError) as exc:
            raise LLMCallError(f"models.{self.model}: {exc}") from exc
        [response] = replies
        if response["finish_reason"] == "failed" and not is_client_error(response):
            # named by its cache key (over messages, model and seed), never by anything secret
            raise LLMCallError(f"models.{self.model}: call {key[:16]}: {response['error']}")
        return response


def caller_for(config: Config, model: str, *, server_log: Path) -> LLMCaller:
    """The caller of a registry model, recording into the configured cache_dir."""
    if model not in config.models:
        raise ValueError(
            f"model {model!r} is not in the model registry (config key `models`); known: {sorted(config.models)}"
        )
    return LLMCaller(model, config.models[model], cache_dir=Path(config.cache_dir), server_log=server_log)
