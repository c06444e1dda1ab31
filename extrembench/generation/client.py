"""The one async client for OpenAI-compatible chat endpoints (SGLang, llama.cpp, hosted APIs).

Bounded concurrency, explicit sampling parameters on every request, retry with backoff on
429/5xx/timeouts, and each response handed to a callback the moment it arrives (the caller writes
it to the cache). A deterministic 4xx (e.g. prompt + max_tokens over the context) becomes an error
record, not a crash. The API key is read from the environment once per run and never logged: it
only ever goes into the Authorization header bytes.

HTTP/1.1 is spoken directly over asyncio streams with keep-alive connections. Why not httpx:
measured on loopback against an instant responder, httpx 0.28 reached ≈120 requests/s on one
core, while thousands of SGLang requests in flight need ≥ 2,000/s of bookkeeping; one write per
request (TCP_NODELAY) and a minimal parser reach that (benchmarks/client_overhead.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
CHAT_PATH = "/v1/chat/completions"


class EndpointError(RuntimeError):
    """The endpoint kept failing after every retry (server down, persistent 5xx)."""


class ProtocolError(OSError):
    """The peer sent something that is not an HTTP/1.1 response (treated like a dropped connection)."""


@dataclass(frozen=True)
class ChatRequest:
    key: str  # cache key
    payload: dict[str, Any]  # the exact JSON body sent (model, messages, sampling, seed)


@dataclass(frozen=True)
class HttpReply:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


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


def retry_delay(attempt: int, *, initial_s: float, max_s: float, retry_after: str | None) -> float:
    """Exponential backoff with jitter; a server's Retry-After (seconds) wins when it is longer."""
    delay = min(initial_s * (2 ** attempt), max_s) * (1 + 0.25 * random.random())
    if retry_after:
        try:
            delay = max(delay, min(float(retry_after), max_s))
        except ValueError:
            pass  # an HTTP-date Retry-After: keep our own backoff
    return delay


class HttpConnectionPool:
    """Keep-alive HTTP/1.1 connections to one origin; each connection serves one request at a time."""

    def __init__(self, base_url: str, *, limit: int) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url {base_url!r}: expected http://host[:port][/prefix] or https://...")
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.ssl = ssl.create_default_context() if parts.scheme == "https" else None
        self.prefix = parts.path.rstrip("/")
        self.host_header = parts.netloc.rsplit("@", 1)[-1].encode()
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.limit = limit

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection(self.host, self.port, ssl=self.ssl,
                                                       limit=1 << 24)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return reader, writer

    async def post(self, path: str, body: bytes, extra_headers: bytes) -> HttpReply:
        """One POST; a stale keep-alive connection (closed by the server while idle) is
        replaced by a fresh one once, without counting as a failed attempt."""
        while self.idle:
            conn = self.idle.pop()
            try:
                return await self._exchange(conn, path, body, extra_headers)
            except (OSError, asyncio.IncompleteReadError):
                conn[1].close()
        return await self._exchange(await self._open(), path, body, extra_headers)

    async def _exchange(self, conn, path: str, body: bytes, extra_headers: bytes) -> HttpReply:
        reader, writer = conn
        head = (b"POST " + (self.prefix + path).encode() + b" HTTP/1.1\r\nHost: " + self.host_header
                + b"\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: "
                + str(len(body)).encode() + b"\r\n" + extra_headers + b"\r\n")
        try:
            writer.write(head + body)  # one write: no Nagle / delayed-ACK stall between head and body
            await writer.drain()
            reply = await read_response(reader)
        except BaseException:
            writer.close()
            raise
        if reply.headers.get("connection", "").lower() == "close" or len(self.idle) >= self.limit:
            writer.close()
        else:
            self.idle.append(conn)
        return reply

    def close(self) -> None:
        for _, writer in self.idle:
            writer.close()
        self.idle.clear()


async def read_response(reader: asyncio.StreamReader) -> HttpReply:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head[:-4].split(b"\r\n")
    status_line = lines[0].split(b" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith(b"HTTP/1."):
        raise ProtocolError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
    status = int(status_line[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    if "chunked" in headers.get("transfer-encoding", "").lower():
        chunks = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")  # no trailers are sent by the servers we talk to
                break
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
        body = b"".join(chunks)
    elif "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    else:
        body = await reader.read()  # HTTP/1.0-style: body runs to connection close
        headers["connection"] = "close"
    return HttpReply(status=status, headers=headers, body=body)


class ChatClient:
    def __init__(self, base_url: str, *, api_key_env: str | None = None, concurrency: int = 64,
                 timeout_s: float = 3600.0, max_retries: int = 5, initial_backoff_s: float = 1.0,
                 max_backoff_s: float = 60.0, alive_check: Callable[[], None] | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.initial_backoff_s = initial_backoff_s
        self.max_backoff_s = max_backoff_s
        # Called before each retry: raises when the server we started has died.
        self.alive_check = alive_check

    def _auth_header(self) -> bytes:
        if not self.api_key_env:
            return b""
        key = os.environ.get(self.api_key_env)
        if not key:
            raise EndpointError(f"environment variable {self.api_key_env} (the API key) is not set; "
                                f"export it, or set openai.api_key_env to null for an endpoint without a key")
        return b"Authorization: Bearer " + key.encode() + b"\r\n"

    async def _send_one(self, pool: HttpConnectionPool, request: ChatRequest, auth: bytes) -> dict[str, Any]:
        body = json.dumps(request.payload, ensure_ascii=False, separators=(",", ":")).encode()
        url = self.base_url + CHAT_PATH
        for attempt in range(self.max_retries + 1):
            started = time.monotonic()
            retry_after = None
            try:
                async with asyncio.timeout(self.timeout_s):
                    reply = await pool.post(CHAT_PATH, body, auth)
            except TimeoutError:
                problem = f"no reply within {self.timeout_s:g}s"
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
            else:
                if reply.status == 200:
                    try:
                        response = parse_chat_response(json.loads(reply.body))
                    except (ValueError, AttributeError) as exc:
                        response = error_response(f"HTTP 200 with an unreadable body ({exc}): {reply.text()[:300]}")
                    response["latency_s"] = round(time.monotonic() - started, 3)
                    return response
                if reply.status not in RETRYABLE_STATUS:
                    # Deterministic rejection (context overflow, bad parameter): keep it as a row.
                    response = error_response(f"HTTP {reply.status}: {reply.text()[:500]}")
                    response["latency_s"] = round(time.monotonic() - started, 3)
                    return response
                problem = f"HTTP {reply.status}"
                retry_after = reply.headers.get("retry-after")
            if self.alive_check is not None:
                self.alive_check()
            if attempt == self.max_retries:
                raise EndpointError(f"{url}: {problem} after {self.max_retries + 1} attempts")
            delay = retry_delay(attempt, initial_s=self.initial_backoff_s, max_s=self.max_backoff_s,
                                retry_after=retry_after)
            log.warning("request %s: %s, retry %d/%d in %.1fs", request.key[:12], problem,
                        attempt + 1, self.max_retries, delay)
            await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    async def run(self, requests: Sequence[ChatRequest],
                  on_response: Callable[[ChatRequest, dict[str, Any]], Awaitable[None] | None]) -> None:
        """Send every request; `on_response` runs as each one finishes (in completion order).

        `concurrency` workers pull from one queue (not one task per request), so a shard of
        100,000 requests costs 100,000 small dicts, not 100,000 pending tasks."""
        auth = self._auth_header()
        pool = HttpConnectionPool(self.base_url, limit=self.concurrency)
        pending = iter(requests)

        async def worker() -> None:
            for request in pending:
                response = await self._send_one(pool, request, auth)
                result = on_response(request, response)
                if asyncio.iscoroutine(result):
                    await result

        workers = [asyncio.create_task(worker()) for _ in range(min(self.concurrency, len(requests)))]
        try:
            await asyncio.gather(*workers)
        finally:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            pool.close()
