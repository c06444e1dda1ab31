"""The loopback HTTP stand-in server of the tests: an endpoint, a proxy or a server process the code
under test talks to over real HTTP, bound to 127.0.0.1 only and always stopped.

What it answers is the test's business: `respond(request) -> Reply` is called for every request
(in the server's thread). The server only moves bytes: it reads the body, writes the reply with
its Content-Length, and stays quiet (no request log on stderr).

    with LoopbackServer(lambda request: Reply(200, {"ok": True})) as server:
        client.get(server.base_url + "/x")

A subprocess stand-in (a fake server process started by the code under test) calls `serve(respond,
port)`, which blocks until the process is killed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOST = "127.0.0.1"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    """`body`: bytes as they are, anything else as JSON. `content_type` None sends no Content-Type."""

    status: int
    body: Any = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str | None = "application/json"

    def data(self) -> bytes:
        return self.body if isinstance(self.body, bytes) else json.dumps(self.body).encode()


class LoopbackServer:
    """An HTTP/1.1 server on 127.0.0.1 (a free port unless `port` is given) answering `methods` with
    `respond` and any other method with 501. A context manager: the thread starts on entry and the
    server is shut down and its socket closed on exit (or `start()` / `close()`)."""

    def __init__(
        self, respond: Callable[[Request], Reply], *, port: int = 0, methods: Iterable[str] = ("POST",)
    ) -> None:
        self.respond = respond
        self.server = ThreadingHTTPServer((HOST, port), _handler(self, tuple(methods)))
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> LoopbackServer:
        self.thread.start()
        return self

    def close(self) -> None:
        if self.thread.is_alive():
            self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()


def serve(respond: Callable[[Request], Reply], port: int, methods: Iterable[str] = ("GET", "POST")) -> None:
    """Serve in the calling thread until the process ends (a stand-in server process)."""
    LoopbackServer(respond, port=port, methods=methods).server.serve_forever(0.05)


def _handler(owner: LoopbackServer, methods: tuple[str, ...]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            reply = owner.respond(Request(self.command, self.path, dict(self.headers), body))
            data = reply.data()
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.content_type is not None:
                    self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client left (timed out, killed) before the answer: nobody to tell

        def log_message(self, *args) -> None:
            pass

    for method in methods:
        setattr(Handler, f"do_{method}", Handler.answer)
    return Handler
