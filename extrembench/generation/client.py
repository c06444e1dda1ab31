"""The one async client for OpenAI-compatible chat endpoints (SGLang, llama.cpp, hosted APIs).

Bounded concurrency, explicit sampling parameters on every request, retry with backoff on
429/5xx/timeouts, and each response handed to a callback the moment it arrives (the caller writes
it to the cache). A deterministic 4xx (e.g. prompt + max_tokens over the context) becomes an error
record, not a crash. The API key is read from the environment at call time and never logged.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

log = logging.getLogger(__name__)

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class EndpointError(RuntimeError):
    """The endpoint kept failing after every retry (server down, persistent 5xx)."""


@dataclass(frozen=True)
class ChatRequest:
    key: str  # cache key
    payload: dict[str, Any]  # the exact JSON body sent (model, messages, sampling, seed)


def parse_chat_response(body: Mapping[str, Any]) -> dict[str, Any]:
    choice = (body.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    usage = body.get("usage") or {}
    return {
        "content": message.get("content"),
        "reasoning_content": message.get("reasoning_content"),
        "finish_reason": choice.get("finish_reason") or "unknown",
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
        "error": None,
    }


def error_response(message: str) -> dict[str, Any]:
    return {"content": None, "reasoning_content": None, "finish_reason": "error",
            "prompt_tokens": None, "completion_tokens": None, "error": message}


class ChatClient:
    def __init__(self, base_url: str, *, api_key_env: str | None = None, concurrency: int = 64,
                 timeout_s: float = 3600.0, max_retries: int = 5,
                 alive_check: Callable[[], None] | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        # Called before each retry: raises when the server we started has died.
        self.alive_check = alive_check

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if not key:
                raise EndpointError(f"environment variable {self.api_key_env} (the API key) is not set")
            headers["Authorization"] = f"Bearer {key}"
        return headers

    async def _send_one(self, http: httpx.AsyncClient, request: ChatRequest) -> dict[str, Any]:
        url = self.base_url + "/v1/chat/completions"
        delay = 1.0
        for attempt in range(self.max_retries + 1):
            started = time.monotonic()
            try:
                reply = await http.post(url, json=request.payload, headers=self._headers())
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                problem = f"{type(exc).__name__}"
            else:
                if reply.status_code == 200:
                    response = parse_chat_response(reply.json())
                    response["latency_s"] = round(time.monotonic() - started, 3)
                    return response
                if reply.status_code not in RETRYABLE_STATUS:
                    # Deterministic rejection (context overflow, bad parameter): keep it as a row.
                    response = error_response(f"HTTP {reply.status_code}: {reply.text[:500]}")
                    response["latency_s"] = round(time.monotonic() - started, 3)
                    return response
                problem = f"HTTP {reply.status_code}"
            if self.alive_check is not None:
                self.alive_check()
            if attempt == self.max_retries:
                raise EndpointError(f"{url}: {problem} after {self.max_retries + 1} attempts")
            log.warning("request %s: %s, retry %d/%d in %.1fs", request.key[:12], problem,
                        attempt + 1, self.max_retries, delay)
            await asyncio.sleep(delay * (1 + 0.25 * random.random()))
            delay = min(delay * 2, 60.0)
        raise AssertionError("unreachable")

    async def run(self, requests: Sequence[ChatRequest],
                  on_response: Callable[[ChatRequest, dict[str, Any]], Awaitable[None] | None]) -> None:
        """Send every request; `on_response` runs as each one finishes (in completion order)."""
        semaphore = asyncio.Semaphore(self.concurrency)
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        async with httpx.AsyncClient(timeout=self.timeout_s, limits=limits) as http:

            async def worker(request: ChatRequest) -> None:
                async with semaphore:
                    response = await self._send_one(http, request)
                result = on_response(request, response)
                if asyncio.iscoroutine(result):
                    await result

            tasks = [asyncio.create_task(worker(r)) for r in requests]
            try:
                await asyncio.gather(*tasks)
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
