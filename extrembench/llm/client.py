"""The one async client for OpenAI-compatible chat endpoints (SGLang, llama.cpp, hosted APIs).

Bounded concurrency, explicit sampling parameters on every request (the caller's payload is sent
as is), retries with backoff on 408/409/425/429/5xx/timeouts/dropped connections (a longer
`Retry-After` wins), and each outcome handed to a callback the moment it arrives. An outcome is
an answer, or a failure record (`finish_reason: failed`): a client error (other 4xx), retries
exhausted, or an unreadable or malformed 200 (wrong types: llm/reply.py). The caller caches answers only and decides what failures mean.

The API key is read from the environment once per run and goes only into the Authorization
header; error bodies are read up to a cap, scrubbed of the key and of anything that looks like
a credential, and truncated before they reach a record or a log.

aiohttp rather than the openai SDK: on one core against an instant loopback responder the SDK
reached 143 requests/s (384 with its aiohttp transport) where aiohttp reached 1,937
(benchmarks/client_overhead.py, part c); and we need the raw status, headers and the
non-standard `reasoning_content` anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from extrembench.llm.reply import reply_problem

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
CHAT_PATH = "/v1/chat/completions"
MAX_ERROR_BODY = 64 * 1024  # bytes of an error body read at all (untrusted size)
MAX_ERROR_TEXT = 500  # characters of it kept, after scrubbing
MAX_ANSWER_BODY = 64 * 1024 * 1024  # a 200 body larger than this is a failure, not read on
# probe: a TCP connection to the endpoint, tried this often with these pauses (a server still
# starting gets ~3.5 s); a dead endpoint then costs seconds, not every request's retries (~36 s a job)
PROBE_PAUSES_S = (0.5, 1.0, 2.0)
PROBE_CONNECT_TIMEOUT_S = 10.0


class EndpointError(RuntimeError):
    """The endpoint cannot be used at all (e.g. the API key variable is not set)."""


@dataclass(frozen=True)
class ChatRequest:
    key: str  # cache key
    payload: dict[str, Any]  # the exact JSON body sent (model, messages, sampling, seed)


class _Transient(Exception):
    """One attempt failed in a way worth retrying."""

    def __init__(self, problem: str, *, status: int | None = None, retry_after: str | None = None) -> None:
        super().__init__(problem)
        self.problem, self.status, self.retry_after = problem, status, retry_after


# Credential-looking text in an untrusted error body: header lines, bearer tokens, key=value
# pairs, and the common vendor key prefixes. Hand-written because no library scrubs free text.
_SECRET_PATTERNS = [
    re.compile(
        r"(?i)(authorization|proxy-authorization|x-api-key|api[-_ ]?key|access[-_ ]?token|"
        r"secret)(\W{1,4})[^\s\"',;}]+(?:\s+[^\s\"',;}]+)?"
    ),
    re.compile(r"(?i)\bbearer\s+[^\s\"',;}]+"),
    re.compile(r"\b(?:sk|pk|rk|hf|gsk|xai)[-_][A-Za-z0-9_\-]{8,}"),
]


def scrub(text: str, secrets: Iterable[str] = (), *, limit: int = MAX_ERROR_TEXT) -> str:
    """`text` without the given secret values or credential-looking strings, then truncated
    (scrubbing first, so a cut cannot leave half a key unrecognised)."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    text = _SECRET_PATTERNS[0].sub(lambda m: f"{m.group(1)}{m.group(2)}[redacted]", text)
    for pattern in _SECRET_PATTERNS[1:]:
        text = pattern.sub("[redacted]", text)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


class MalformedReply(ValueError):
    """A 200 whose fields have the wrong type or range (reply.ChatReply says which)."""


def parse_chat_response(body: Mapping[str, Any]) -> dict[str, Any]:
    """The fields we keep from a chat completion, type-checked (reply.ChatReply). ValueError when
    it holds no choice (e.g. a 200 carrying an error object), MalformedReply when a field has the
    wrong type: either way a failure, never a cached answer."""
    choices = body.get("choices")
    if not choices or not isinstance(choices[0], dict):
        raise ValueError("no choices in the reply")
    choice = choices[0]
    message = choice.get("message")
    usage = body.get("usage")
    if message is not None and not isinstance(message, dict):
        raise MalformedReply(f"choices[0].message: an object expected, got {type(message).__name__}")
    if usage is not None and not isinstance(usage, dict):
        raise MalformedReply(f"usage: an object expected, got {type(usage).__name__}")
    message, usage = message or {}, usage or {}
    finish_reason = choice.get("finish_reason")
    response = {
        "content": message.get("content"),
        "reasoning_content": message.get("reasoning_content"),
        "finish_reason": "unknown" if finish_reason is None else finish_reason,
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
        "error": None,
    }
    problem = reply_problem(response)
    if problem is not None:
        raise MalformedReply(problem)
    return response


def failure(message: str, *, status: int | None = None) -> dict[str, Any]:
    """A failed request: never cached; `http_status` tells a client error from the rest."""
    return {
        "content": None,
        "reasoning_content": None,
        "finish_reason": "failed",
        "prompt_tokens": None,
        "completion_tokens": None,
        "error": message,
        "http_status": status,
    }


def is_client_error(response: Mapping[str, Any]) -> bool:
    """A deterministic rejection (4xx other than the retryable ones): resending will not help."""
    status = response.get("http_status")
    return status is not None and 400 <= status < 500 and status not in RETRYABLE_STATUS


def retry_delay(attempt: int, *, initial_s: float, max_s: float, retry_after: str | None) -> float:
    """Exponential backoff with jitter; a server's Retry-After (seconds) wins when it is longer."""
    delay = min(initial_s * (2**attempt), max_s) * (1 + 0.25 * random.random())
    if retry_after:
        with contextlib.suppress(ValueError):  # an HTTP-date Retry-After: keep our own backoff
            delay = max(delay, min(float(retry_after), max_s))
    return delay


async def _read_capped(reply: aiohttp.ClientResponse, limit: int) -> tuple[bytes, bool]:
    """At most `limit` bytes of the body, and whether that is all of it."""
    if reply.content_length is not None and reply.content_length <= limit:
        return await reply.read(), True
    body = bytearray()
    async for chunk in reply.content.iter_any():
        body += chunk
        if len(body) > limit:
            return bytes(body[:limit]), False
    return bytes(body), True


def chat_url(base_url: str) -> str:
    """The chat completions URL of an OpenAI-compatible base URL, given with or without its `/v1`
    (providers document it with: https://api.example.com/v1)."""
    base = base_url.rstrip("/")
    return base + ("/chat/completions" if base.endswith("/v1") else CHAT_PATH)


def shown_url(url: str) -> str:
    """The URL as errors show it: without any user:password@ part (the key itself is only ever in
    a header)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else "")))


class ChatClient:
    def __init__(
        self,
        base_url: str,
        *,
        api_key_env: str | None = None,
        concurrency: int = 64,
        timeout_s: float = 3600.0,
        max_retries: int = 5,
        initial_backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
        alive_check: Callable[[], None] | None = None,
    ) -> None:
        if not re.match(r"https?://[^/]", base_url):
            raise ValueError(f"base_url {base_url!r}: expected http://host[:port][/prefix] or https://...")
        self.url = chat_url(base_url)
        self.shown_url = shown_url(self.url)
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.initial_backoff_s = initial_backoff_s
        self.max_backoff_s = max_backoff_s
        # Called before each retry and after the last failure: raises when our server has died.
        self.alive_check = alive_check
        self._secrets: tuple[str, ...] = ()

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if not self.api_key_env:
            return headers
        key = os.environ.get(self.api_key_env)
        if not key:
            raise EndpointError(
                f"environment variable {self.api_key_env} (the API key) is not set; "
                f"export it, or set openai.api_key_env to null for an endpoint without a key"
            )
        self._secrets = (key,)
        return {**headers, "Authorization": f"Bearer {key}"}

    async def _attempt(self, session: aiohttp.ClientSession, body: bytes) -> dict[str, Any]:
        started = time.monotonic()
        try:
            async with asyncio.timeout(self.timeout_s):
                async with session.post(self.url, data=body) as reply:
                    data, whole = await _read_capped(reply, MAX_ANSWER_BODY if reply.status == 200 else MAX_ERROR_BODY)
        except TimeoutError:
            raise _Transient(f"no reply within {self.timeout_s:g}s") from None
        except (aiohttp.ClientError, OSError, asyncio.IncompleteReadError) as exc:
            raise _Transient(scrub(f"{type(exc).__name__}: {exc} (POST {self.shown_url})", self._secrets)) from None
        if reply.status == 200:
            try:
                if not whole:
                    raise ValueError(f"body over {MAX_ANSWER_BODY} bytes")
                response = parse_chat_response(json.loads(data))
            except MalformedReply as exc:
                return failure(scrub(f"HTTP 200 with a malformed reply: {exc}", self._secrets), status=200)
            except (ValueError, AttributeError, TypeError, IndexError) as exc:
                text = data[:MAX_ERROR_BODY].decode("utf-8", errors="replace")
                return failure(scrub(f"HTTP 200 with an unreadable body ({exc}): {text}", self._secrets), status=200)
            response["latency_s"] = round(time.monotonic() - started, 3)
            return response
        body = data.decode("utf-8", errors="replace")
        message = scrub(f"HTTP {reply.status}: {body} (POST {self.shown_url})", self._secrets)
        if reply.status in RETRYABLE_STATUS:
            raise _Transient(message, status=reply.status, retry_after=reply.headers.get("Retry-After"))
        return failure(message, status=reply.status)

    def _before_retry(self, request: ChatRequest, problem: _Transient, attempt: int, delay: float) -> None:
        if self.alive_check is not None:
            self.alive_check()
        log.warning(
            "request %s: %s, retry %d/%d in %.1fs",
            request.key[:12],
            problem.problem[:200],
            attempt,
            self.max_retries,
            delay,
        )

    async def _send_one(self, session: aiohttp.ClientSession, request: ChatRequest) -> dict[str, Any]:
        body = json.dumps(request.payload, ensure_ascii=False, separators=(",", ":")).encode()
        # The first attempt runs outside tenacity: building a retry controller costs ~60-140 µs,
        # a tenth of the whole bookkeeping budget per request, and almost every request succeeds.
        try:
            return await self._attempt(session, body)
        except _Transient as exc:
            problem = exc
        if self.max_retries > 0:
            delay = retry_delay(
                0, initial_s=self.initial_backoff_s, max_s=self.max_backoff_s, retry_after=problem.retry_after
            )
            self._before_retry(request, problem, 1, delay)
            await asyncio.sleep(delay)
            retrying = AsyncRetrying(
                stop=stop_after_attempt(self.max_retries),
                retry=retry_if_exception_type(_Transient),
                reraise=True,
                wait=lambda state: retry_delay(
                    state.attempt_number,
                    initial_s=self.initial_backoff_s,
                    max_s=self.max_backoff_s,
                    retry_after=state.outcome.exception().retry_after,
                ),
                before_sleep=lambda state: self._before_retry(
                    request, state.outcome.exception(), state.attempt_number + 1, state.next_action.sleep
                ),
            )
            try:
                return await retrying(self._attempt, session, body)
            except _Transient as exc:
                problem = exc
        if self.alive_check is not None:
            self.alive_check()  # a dead server we started is the job's error, not this request's
        return failure(f"{problem.problem} (after {self.max_retries + 1} attempts)", status=problem.status)

    async def probe(self) -> None:
        """EndpointError unless something accepts a TCP connection at the endpoint's host and port
        (a few tries: a server may still be starting). Sends nothing: a connection only, so no
        request is paid for and no endpoint that lacks a models or health route is refused."""
        parts = urlsplit(self.url)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
        problem: BaseException | None = None
        for pause in (*PROBE_PAUSES_S, None):
            try:
                async with asyncio.timeout(PROBE_CONNECT_TIMEOUT_S):
                    _, writer = await asyncio.open_connection(host, port)
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()
                return
            except (OSError, TimeoutError) as exc:
                problem = exc
            if pause is not None:
                await asyncio.sleep(pause)
        why = scrub(f"{type(problem).__name__}: {problem}", self._secrets) if str(problem) else type(problem).__name__
        raise EndpointError(
            f"nothing answers at {self.shown_url} ({why}; {len(PROBE_PAUSES_S) + 1} tries over "
            f"{sum(PROBE_PAUSES_S):g} s): start the server, or fix the model's openai.base_url; no request was sent"
        )

    async def run(
        self,
        requests: Sequence[ChatRequest],
        on_response: Callable[[ChatRequest, dict[str, Any]], Awaitable[None] | None],
        *,
        claim: Callable[[ChatRequest], AbstractAsyncContextManager[bool]] | None = None,
    ) -> None:
        """Send every request; `on_response` runs as each one finishes (in completion order) and
        may raise to stop the run.

        `claim(request)`, when given, is entered before a request is sent and left after its
        `on_response`: it yields False when the request needs no sending after all (another run
        sharing the cache answered it while this one waited for the claim).

        `concurrency` workers pull from one queue (not one task per request), so a shard of
        100,000 requests costs 100,000 small dicts, not 100,000 pending tasks."""
        headers = self._headers()
        pending = iter(requests)
        # keepalive below the usual server idle timeouts (uvicorn: 5 s), so a pooled connection is
        # not one the server is closing; a stale one costs a retry, never an answer.
        connector = aiohttp.TCPConnector(limit=self.concurrency, keepalive_timeout=3)
        async with aiohttp.ClientSession(
            headers=headers, connector=connector, timeout=aiohttp.ClientTimeout(total=None)
        ) as session:

            async def answer(request: ChatRequest) -> None:
                response = await self._send_one(session, request)
                result = on_response(request, response)
                if asyncio.iscoroutine(result):
                    await result

            async def worker() -> None:
                for request in pending:
                    if claim is None:
                        await answer(request)
                        continue
                    async with claim(request) as must_send:
                        if must_send:
                            await answer(request)

            workers = [asyncio.create_task(worker()) for _ in range(min(self.concurrency, len(requests)))]
            try:
                await asyncio.gather(*workers)
            finally:
                for task in workers:
                    task.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
