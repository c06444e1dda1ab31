"""Worker processes with a hard per-task timeout.

sympy can spend unbounded time inside one C-level operation (10^{10^{10}}, deep nesting), where
neither threads nor SIGALRM can interrupt it, and SIGALRM only works in a main thread. So each
task runs in a worker process; the parent waits with a deadline and, on expiry, kills that
worker and starts a fresh one.

Workers are plain `python -m extrembench.grading.worker` subprocesses speaking JSON lines, not
multiprocessing children: forkserver/spawn would re-run the caller's main script (a Snakemake
`script:`) in every worker, and fork would copy the caller's threads' locks (HTTP clients).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TaskOutcome:
    value: Any = None
    timed_out: bool = False
    error: str | None = None  # why the task produced no value


class _Worker:
    def __init__(self, target: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "extrembench.grading.worker", target],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.task: int | None = None
        self.deadline = 0.0
        self.ready = False

    def wait_ready(self, timeout: float = 300.0) -> None:
        """Block until the worker has finished importing (its first line is "ready")."""
        if self.ready:
            return
        readable, _, _ = select.select([self], [], [], timeout)
        message = self.receive() if readable else None
        if message is None or message[0] != "ready":
            raise RuntimeError(f"grading worker did not start within {timeout:.0f}s")
        self.ready = True

    def fileno(self) -> int:
        return self.process.stdout.fileno()

    def send(self, index: int, argument: Any) -> None:
        self.process.stdin.write(json.dumps([index, argument]) + "\n")
        self.process.stdin.flush()

    def receive(self) -> tuple[int, Any, str | None] | None:
        line = self.process.stdout.readline()
        return tuple(json.loads(line)) if line else None

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            stream.close()

    def stop(self) -> None:
        try:
            self.process.stdin.close()
            self.process.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()
            return
        self.process.stdout.close()


class HardTimeoutPool:
    """Run `target` ("module:function", JSON in and out) on worker processes with a hard
    per-task timeout. Workers stay alive between `map` calls."""

    def __init__(self, target: str, workers: int | None = None) -> None:
        self.target = target
        self.size = max(1, workers or os.cpu_count() or 1)
        self._workers = [_Worker(target) for _ in range(self.size)]
        self._lock = threading.Lock()  # callers in several threads take turns

    def map(self, items: Iterable[Any], timeout: float) -> list[TaskOutcome]:
        with self._lock:
            return self._map(list(items), timeout)

    def _map(self, items: list[Any], timeout: float) -> list[TaskOutcome]:
        pending = list(enumerate(items))
        pending.reverse()
        total = len(pending)
        outcomes: dict[int, TaskOutcome] = {}
        idle = list(self._workers)
        busy: list[_Worker] = []
        while len(outcomes) < total:
            while idle and pending:
                worker = idle.pop()
                worker.wait_ready()
                worker.task, argument = pending.pop()
                worker.deadline = time.monotonic() + timeout
                try:
                    worker.send(worker.task, argument)
                except OSError:  # the worker died while idle
                    outcomes[worker.task] = TaskOutcome(error="worker-died")
                    self._replace(worker, [], idle)
                    continue
                busy.append(worker)
            if not busy:
                continue
            wait_for = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready, _, _ = select.select(busy, [], [], wait_for)
            now = time.monotonic()
            for worker in list(busy):
                if worker in ready:
                    message = worker.receive()
                    if message is None:  # the worker died (e.g. out of memory)
                        outcomes[worker.task] = TaskOutcome(error="worker-died")
                        self._replace(worker, busy, idle)
                        continue
                    index, value, error = message
                    outcomes[index] = TaskOutcome(value=value, error=error)
                    busy.remove(worker)
                    idle.append(worker)
                elif now >= worker.deadline:
                    outcomes[worker.task] = TaskOutcome(timed_out=True)
                    self._replace(worker, busy, idle)
        return [outcomes[i] for i in range(total)]

    def _replace(self, worker: _Worker, busy: list[_Worker], idle: list[_Worker]) -> None:
        worker.kill()
        if worker in busy:
            busy.remove(worker)
        fresh = _Worker(self.target)
        self._workers[self._workers.index(worker)] = fresh
        idle.append(fresh)

    def close(self) -> None:
        for worker in self._workers:
            worker.stop()
        self._workers = []

    def __enter__(self) -> HardTimeoutPool:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
