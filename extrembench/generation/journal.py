"""Per-response durability at thousands of responses per second: an append-only journal.

Creating one cache file per response costs 80–450 µs of (mostly I/O-wait) wall time on an ext4
VM and more on cluster filesystems; in the event loop that alone would cap the client below
2,000 responses/s. So each response is first appended as one line to this job's journal (a single
`write`, ≈ 7 µs: in the page cache at once, so a killed job loses nothing it received), and a
background thread turns the lines into the cache's per-key files and fsyncs the journal in
batches (power loss loses at most `sync_interval_s` of responses, which are then requested again).

A killed job leaves its journal behind; the next job that opens the cache folds every journal no
live writer holds (flock) into per-key files and deletes it, before it plans its requests.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import queue
import socket
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from extrembench.generation.cache import GenerationCache, canonical_json

log = logging.getLogger(__name__)

_STOP = object()


def journal_dir(cache: GenerationCache) -> Path:
    return cache.root.parent / "journal"


def fold_journal(cache: GenerationCache, path: Path) -> int:
    """Write every complete line of one journal to the cache (idempotent); return the count.
    A torn last line (the writer was killed mid-write) is skipped: that response is re-requested."""
    folded = 0
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.endswith("\n"):
                break
            try:
                entry = json.loads(line)
                key = entry["key"]
            except (ValueError, KeyError, TypeError):
                continue
            if cache.get(key) is None:
                cache.write_text(key, line[:-1], fsync=False)
                folded += 1
    return folded


def recover_journals(cache: GenerationCache) -> int:
    """Fold and delete the journals of dead writers; return how many responses were recovered."""
    directory = journal_dir(cache)
    if not directory.is_dir():
        return 0
    recovered = 0
    for path in sorted(directory.glob("*.jsonl")):
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            continue  # another job recovered it first
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a live job is still writing it
            recovered += fold_journal(cache, path)
            _sync_filesystem(cache.root)
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)
    if recovered:
        log.info("recovered %d cached response(s) from the journal of an interrupted job", recovered)
    return recovered


def _sync_filesystem(path: Path) -> None:
    """Flush the filesystem holding `path` (Linux syncfs; elsewhere a global sync)."""
    path.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDONLY)
    try:
        syncfs = getattr(os, "syncfs", None)
        if syncfs is not None:
            syncfs(fd)
        else:
            _libc_syncfs(fd)
    finally:
        os.close(fd)


def _libc_syncfs(fd: int) -> None:
    import ctypes
    import ctypes.util

    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if not hasattr(libc, "syncfs") or libc.syncfs(fd) != 0:
        os.sync()


class ResponseJournal:
    """`with ResponseJournal(cache) as journal: journal.record(key, request, response, produced_by)`.

    On a clean exit every recorded response is a per-key cache file, synced to disk, and the
    journal is gone."""

    def __init__(self, cache: GenerationCache, *, sync_interval_s: float = 1.0) -> None:
        self.cache = cache
        self.sync_interval_s = sync_interval_s
        self.path = journal_dir(cache) / f"{socket.gethostname()}-{os.getpid()}-{time.time_ns()}.jsonl"
        self._fd: int | None = None
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def __enter__(self) -> "ResponseJournal":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_EX)  # tells recover_journals() this writer is alive
        self._thread = threading.Thread(target=self._materialize, name="cache-writer", daemon=True)
        self._thread.start()
        return self

    def record(self, key: str, request: Mapping[str, Any], response: Mapping[str, Any],
               produced_by: Mapping[str, Any]) -> dict[str, Any]:
        if self._error is not None:
            raise RuntimeError(f"cache writer failed: {self._error}") from self._error
        entry = {"key": key, "request": request, "response": response, "produced_by": produced_by}
        text = canonical_json(entry)
        os.write(self._fd, (text + "\n").encode())
        self._queue.put((key, text))
        return entry

    def _materialize(self) -> None:
        last_sync = time.monotonic()
        try:
            while True:
                try:
                    item = self._queue.get(timeout=self.sync_interval_s)
                except queue.Empty:
                    item = None
                if item is _STOP:
                    return
                if item is not None:
                    self.cache.write_text(item[0], item[1], fsync=False)
                if time.monotonic() - last_sync >= self.sync_interval_s:
                    os.fsync(self._fd)  # group commit: one fsync covers every line so far
                    last_sync = time.monotonic()
        except BaseException as exc:  # surfaced to the event loop by the next record()
            self._error = exc

    def __exit__(self, exc_type, exc, tb) -> None:
        self._queue.put(_STOP)
        self._thread.join()
        try:
            if self._error is None:
                # Every per-key file is written: make them durable, then drop the journal.
                _sync_filesystem(self.cache.root)
                self.path.unlink(missing_ok=True)
            else:
                log.error("cache writer failed (%s); keeping the journal %s for recovery", self._error, self.path)
        finally:
            os.close(self._fd)
        if self._error is not None and exc_type is None:
            raise RuntimeError(f"cache writer failed: {self._error}") from self._error
