"""Per-response durability at thousands of responses per second: an append-only journal.

Creating one cache file per response costs 100–450 µs of (mostly I/O-wait) wall time on an ext4
VM, more on cluster filesystems; in the event loop that alone would cap the client below 2,000
responses/s, and a writer *thread* is no better: it takes the GIL from the event loop at every
syscall (measured: socket sends and writes went from ≈7 µs to 65–90 µs). So:

- the event loop appends each response as one line to this job's journal (a single `write`: in
  the page cache at once, so a killed job loses nothing it received);
- a helper *process* follows the journal, writes each line as the cache's per-key file (atomic
  rename), fsyncs the journal in batches (power loss loses at most `sync_interval_s` of
  responses, which are then requested again), and at the end syncs the filesystem;
- a clean exit deletes the journal. A killed job leaves it behind: the next job that opens the
  cache folds every journal no live writer holds (flock) into per-key files and deletes it.
"""

from __future__ import annotations

import argparse
import fcntl
import logging
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from extrembench.generation.cache import GenerationCache, canonical_json

log = logging.getLogger(__name__)

WRITER_THREADS = 16
KEY_PREFIX = b'{"key":"'  # canonical JSON sorts "key" first: the key is bytes 8..72 of each line


def journal_dir(cache: GenerationCache) -> Path:
    return cache.root.parent / "journal"


def line_key(line: bytes) -> str | None:
    """The cache key of one complete journal line, or None for a line that is not an entry."""
    if not line.startswith(KEY_PREFIX) or line[72:73] != b'"':
        return None
    key = line[8:72].decode("ascii", errors="replace")
    return key if all(c in "0123456789abcdef" for c in key) else None


def fold_journal(cache: GenerationCache, path: Path) -> int:
    """Write every complete line of one journal to the cache (idempotent); return the count.
    A torn last line (the writer was killed mid-write) is skipped: that response is re-requested."""
    folded = 0
    with open(path, "rb") as handle:
        for line in handle:
            if not line.endswith(b"\n"):
                break
            key = line_key(line)
            if key is not None and cache.get(key) is None:
                cache.write_text(key, line[:-1].decode("utf-8"), fsync=False)
                folded += 1
    return folded


def journal_keys(cache: GenerationCache) -> set[str]:
    """Keys of every complete line in any journal (a running job's or a killed one's): responses
    received but maybe not yet filed. Read-only, for planning."""
    keys: set[str] = set()
    directory = journal_dir(cache)
    for path in sorted(directory.glob("*.jsonl")) if directory.is_dir() else ():
        try:
            with open(path, "rb") as handle:
                keys.update(key for line in handle if line.endswith(b"\n") and (key := line_key(line)))
        except FileNotFoundError:
            continue  # folded and deleted meanwhile: its entries are cache files now
    return keys


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
            sync_filesystem(cache.root)
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)
    if recovered:
        log.info("recovered %d cached response(s) from the journal of an interrupted job", recovered)
    return recovered


def sync_filesystem(path: Path) -> None:
    """Flush the filesystem holding `path` (Linux syncfs(2); elsewhere a global sync)."""
    import ctypes
    import ctypes.util

    path.mkdir(parents=True, exist_ok=True)
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if not hasattr(libc, "syncfs"):
        os.sync()
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.syncfs(fd) != 0:
            os.sync()
    finally:
        os.close(fd)


class ResponseJournal:
    """`with ResponseJournal(cache) as journal: journal.record(key, request, response, produced_by)`.

    On a clean exit every recorded response is a per-key cache file, synced to disk, and the
    journal is gone."""

    def __init__(self, cache: GenerationCache, *, sync_interval_s: float = 1.0) -> None:
        self.cache = cache
        self.sync_interval_s = sync_interval_s
        self.path = journal_dir(cache) / f"{socket.gethostname()}-{os.getpid()}-{time.time_ns()}.jsonl"
        self._fd: int | None = None
        self._writer: subprocess.Popen | None = None
        self._origin_json: dict[int, str] = {}

    def __enter__(self) -> "ResponseJournal":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_EX)  # tells recover_journals() this writer is alive
        # The helper ends when our end of its stdin closes (also when we are killed).
        self._writer = subprocess.Popen(
            [sys.executable, "-m", "extrembench.generation.journal", str(self.path),
             str(self.cache.root), str(self.sync_interval_s)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return self

    def record(self, key: str, request: Mapping[str, Any], response: Mapping[str, Any],
               produced_by: Mapping[str, Any]) -> dict[str, Any]:
        """Append one response; return the cache entry. The line is canonical_json(entry), built
        from parts so the shared `produced_by` is serialized once per job, not per response."""
        origin = self._origin_json.get(id(produced_by))
        if origin is None:
            origin = self._origin_json.setdefault(id(produced_by), canonical_json(produced_by))
        line = (f'{{"key":"{key}","produced_by":{origin},"request":{canonical_json(request)},'
                f'"response":{canonical_json(response)}}}\n')
        os.write(self._fd, line.encode())
        return {"key": key, "request": request, "response": response, "produced_by": produced_by}

    def __exit__(self, exc_type, exc, tb) -> None:
        self._writer.stdin.close()
        errors = self._writer.stderr.read().decode(errors="replace")
        self._writer.stderr.close()
        code = self._writer.wait()
        try:
            if code == 0:
                self.path.unlink(missing_ok=True)  # every line is a synced per-key file now
            else:
                log.error("cache writer failed (exit %s); keeping %s for recovery:\n%s", code, self.path, errors)
        finally:
            os.close(self._fd)
        if code != 0 and exc_type is None:
            raise RuntimeError(f"cache writer failed (exit {code}); the journal {self.path} keeps every "
                               f"response for the next run:\n{errors[-2000:]}")


def follow(journal: Path, cache: GenerationCache, sync_interval_s: float) -> None:
    """The helper process: materialize lines as they are appended, until stdin closes."""
    stdin = sys.stdin.fileno()
    writer_done = False
    last_sync = time.monotonic()
    pending = b""
    with open(journal, "rb") as handle, ThreadPoolExecutor(WRITER_THREADS) as pool:
        while True:
            chunk = handle.read(1 << 20)
            if chunk:
                *lines, pending = (pending + chunk).split(b"\n")
                entries = [(key, line) for line in lines if (key := line_key(line)) is not None]
                # File creation is I/O wait, not CPU: 16 writers at once reach ≈10x one writer.
                list(pool.map(lambda entry: cache.write_text(entry[0], entry[1].decode("utf-8"), fsync=False),
                              entries))
            elif writer_done:
                break
            else:
                readable, _, _ = select.select([stdin], [], [], 0.02)
                if readable and not os.read(stdin, 1 << 16):
                    writer_done = True  # read once more: lines written just before the close
            if time.monotonic() - last_sync >= sync_interval_s:
                os.fsync(handle.fileno())  # group commit: one fsync covers every line so far
                last_sync = time.monotonic()
    sync_filesystem(cache.root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="materialize a generation journal into the cache (internal)")
    parser.add_argument("journal", type=Path)
    parser.add_argument("cache_root", type=Path)
    parser.add_argument("sync_interval_s", type=float)
    args = parser.parse_args(argv)
    follow(args.journal, GenerationCache(args.cache_root.parent, namespace=args.cache_root.name),
           args.sync_interval_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
