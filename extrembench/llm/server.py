"""Start an inference server as a child process on 127.0.0.1, wait until it answers, stop it by PID.

Shared by the llama.cpp and SGLang backends: the readiness probe watches the process too, so a
server that dies while loading fails fast with the tail of its log instead of a long timeout.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx

log = logging.getLogger(__name__)


_PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True) if sys.platform == "linux" else None


def _terminate_with_parent() -> None:
    """Runs in the child between fork and exec (Linux): SIGTERM it when the parent dies."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class ServerError(RuntimeError):
    """The server could not start, or died; the message carries the tail of its log."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def log_tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return "<no server log>"
    return "\n".join(text.splitlines()[-lines:])


def exit_message(code: int | None, log_path: Path, crash_hint: Callable[[int], str | None] | None) -> str:
    """Why the server is gone: its exit code or signal, the backend's diagnosis of that signal, its log."""
    if code is not None and code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name} (code {code})"
        except ValueError:
            how = f"killed by signal {-code} (code {code})"
        hint = crash_hint(-code) if crash_hint is not None else None
    else:
        how, hint = f"exited (code {code})", None
    message = f"server {how}"
    if hint:
        message += f"\n{hint}"
    return f"{message}\nlast lines of {log_path}:\n{log_tail(log_path)}"


class ManagedServer:
    """A server process we own: `with ManagedServer(cmd, ...) as server: server.base_url`."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        port: int,
        ready_path: str,
        log_path: Path,
        startup_timeout_s: float,
        env: dict[str, str] | None = None,
        crash_hint: Callable[[int], str | None] | None = None,
    ) -> None:
        self.command = list(command)
        self.port = port
        self.ready_path = ready_path
        self.log_path = Path(log_path)
        self.startup_timeout_s = startup_timeout_s
        self.env = env
        self.crash_hint = crash_hint  # signal number -> the backend's diagnosis of a death by that signal
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ManagedServer:
        self.start()
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log.info("starting server: %s (log: %s)", " ".join(self.command), self.log_path)
        # Own process group, so stop() also reaches workers the server forks (SGLang does); and a
        # parent-death signal, so a generate job killed with SIGKILL does not leave it running.
        # The child holds its own copy of the log descriptor: ours can close once it is started.
        with open(self.log_path, "ab") as log_handle:
            self.process = subprocess.Popen(
                self.command,
                stdout=log_handle,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env,
                start_new_session=True,
                preexec_fn=_terminate_with_parent,
            )
        log.info("server pid %d", self.process.pid)

    def check_alive(self, settle_s: float = 2.0) -> None:
        """Raise ServerError when the server is gone. Called after a failed request: a server that
        crashed closes its sockets a moment before it is reaped (a core dump takes a while), so it
        gets `settle_s` to finish dying; otherwise the job would report a bare disconnect instead of
        the signal and its diagnosis. Only liveness waits on the clock, never a result."""
        if self.process is not None and self.process.poll() is None and settle_s > 0:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=settle_s)
        if self.process is None or self.process.poll() is not None:
            code = None if self.process is None else self.process.returncode
            raise ServerError(exit_message(code, self.log_path, self.crash_hint))

    def wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        url = self.base_url + self.ready_path
        while True:
            self.check_alive(settle_s=0)
            try:
                if httpx.get(url, timeout=5.0).status_code == 200:
                    log.info("server ready at %s (pid %d)", self.base_url, self.process.pid)
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise ServerError(
                    f"server not ready after {self.startup_timeout_s:.0f}s at {url}; "
                    f"last lines of {self.log_path}:\n{log_tail(self.log_path)}"
                )
            time.sleep(0.5)

    def stop(self, grace_s: float = 20.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        pid = self.process.pid
        log.info("stopping server pid %d", pid)
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(pid, signal.SIGKILL)
            self.process.wait()
