"""Content-addressed cache of model responses, kept outside Snakemake's declared outputs.

Snakemake deletes a job's outputs before rerunning it; the cache survives that, so a rerun after
one edited problem only sends that problem's requests. Only answers are stored: a failed request
(client error, retries exhausted) is never an entry, so the next run asks again.

One JSON file per key, written the moment the response arrives (temp file + rename). Why not
SQLite: its locking is unsafe on NFS, where cluster caches live; a rename within one directory is
atomic on local file systems and on NFS alike. What this gives (docs/models.md, tested):

- a killed writer leaves either the whole entry or none (at worst a `.tmp` file nobody reads);
- two jobs writing at once never corrupt each other: each writes its own temp file, and two
  answers to the same key are both valid, the last rename wins;
- two runs sharing the cache do not both pay for a request: a run claims a key (`KeyClaim`, a
  flock the kernel releases even on kill -9) before requesting it, and the other waits and reuses
  the answer;
- each entry is self-verifying: `sha256` over its canonical content, and its key recomputed from
  its request, so a torn file (power loss before the data reached the disk) or an edited one reads
  as absent (`get`) or as a named problem (`load`, `iter_entries`: what `extrembench audit` uses).
  A hash detects accidents and naive edits, not a forger who recomputes it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from extrembench.core.files import write_bytes_atomic
from extrembench.llm.reply import reply_problem

CACHE_SCHEMA_VERSION = 1


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def cache_key(request: Mapping[str, Any]) -> str:
    """Key = sha256 of the canonical request: messages, model id + revision, every sampling
    parameter incl. seed and max_tokens, engine + version, and the cache schema version."""
    payload = {"cache_schema": CACHE_SCHEMA_VERSION, **request}
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()


def entry_digest(entry: Mapping[str, Any]) -> str:
    """sha256 of an entry's canonical content, every field but `sha256` itself."""
    return hashlib.sha256(canonical_json({k: v for k, v in entry.items() if k != "sha256"}).encode()).hexdigest()


def entry_problem(key: str, entry: Any) -> str | None:
    """Why `entry` is not a valid entry for `key`, or None when it is."""
    if not isinstance(entry, dict) or not {"key", "request", "response", "produced_by"} <= entry.keys():
        return "not a cache entry (fields key, request, response, produced_by, sha256 expected)"
    if entry["key"] != key:
        return f"holds key {str(entry['key'])[:16]}…, not its file name's"
    if "sha256" not in entry:
        return "no sha256 (written by an older version): it will be requested again"
    if entry["sha256"] != entry_digest(entry):
        return "sha256 does not match the content (torn or edited)"
    if not isinstance(entry["request"], dict) or cache_key(entry["request"]) != key:
        return "the key does not match the recorded request (request edited)"
    malformed = reply_problem(entry["response"])
    if malformed is not None:
        # written before replies were type-checked: reads as absent, so it is requested again
        return f"malformed response ({malformed})"
    return None


class KeyClaim:
    """The right to request one key: an exclusive `flock` on `<key>.lock` beside the entry.

    Two runs sharing a cache would otherwise both pay for every request (and, with a sampling
    model, overwrite each other's answers). The kernel drops the lock when its holder dies, even
    by kill -9, so a dead run never blocks the key; on NFS Linux maps flock to NFS byte-range
    locks. The holder checks the cache again after acquiring: the previous holder may have
    answered. The holder removes the lock file before unlocking, and a lock counts only on the
    file still at the path, so no lock file outlives its claim (except a killed holder's, which
    the next claim takes over)."""

    def __init__(self, cache: GenerationCache, key: str) -> None:
        self.cache, self.key = cache, key
        self.path = cache.path(key).with_suffix(".lock")
        self._fd: int | None = None

    def try_acquire(self) -> bool:
        """Take the claim if nobody holds it; never blocks."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # the holder before us may have removed the file between our open and our lock: a lock
            # on a removed file claims nothing, so only the file still at the path counts
            held = os.fstat(fd)
            now = os.stat(self.path)
        except (BlockingIOError, FileNotFoundError):
            os.close(fd)
            return False
        if (held.st_ino, held.st_dev) != (now.st_ino, now.st_dev):
            os.close(fd)
            return False
        self._fd = fd
        return True

    def acquire(self, poll_s: float = 0.05) -> None:
        """Wait for the claim (polling, so a signal still stops a waiting job)."""
        while not self.try_acquire():
            time.sleep(poll_s)

    def release(self) -> None:
        if self._fd is None:
            return
        self.path.unlink(missing_ok=True)  # before unlocking: a waiter then locks a new file
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> KeyClaim:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class GenerationCache:
    """One JSON file per response under `root/<namespace>/<key[:2]>/<key>.json`.

    Read API: `get(key)` (a verified entry or None), `load(key)` (entry and the reason it is not
    usable), `iter_entries()` (every stored entry of the namespace, sorted by key)."""

    def __init__(self, root: str | os.PathLike, namespace: str = "generations") -> None:
        self.root = Path(root) / namespace

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def load(self, key: str) -> tuple[dict[str, Any] | None, str | None]:
        """(entry, None) for a valid entry; (None, reason) otherwise ('missing' when absent)."""
        try:
            with open(self.path(key), encoding="utf-8") as handle:
                entry = json.load(handle)
        except FileNotFoundError:
            return None, "missing"
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None, "not valid JSON (torn write)"
        problem = entry_problem(key, entry)
        return (entry, None) if problem is None else (None, problem)

    def claim(self, key: str) -> KeyClaim:
        """The claim on `key` (not yet taken): `with cache.claim(key):` waits for it."""
        return KeyClaim(self, key)

    def get(self, key: str) -> dict[str, Any] | None:
        return self.load(key)[0]

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def iter_entries(self) -> Iterator[tuple[str, dict[str, Any] | None, str | None]]:
        """(key, entry, problem) for every entry file, valid or not, sorted by key."""
        for path in sorted(self.root.glob("??/*.json")) if self.root.is_dir() else ():
            entry, problem = self.load(path.stem)
            yield path.stem, entry, problem

    def put(
        self,
        key: str,
        request: Mapping[str, Any],
        response: Mapping[str, Any],
        produced_by: Mapping[str, Any],
        *,
        fsync: bool = False,
    ) -> dict[str, Any]:
        """Store one answer atomically and return the entry. Without fsync a killed process still
        leaves a whole entry; a power loss may leave a torn one, which its sha256 rejects (so that
        response is requested again, never misread)."""
        malformed = reply_problem(response)
        if malformed is not None:  # the callers check first; this keeps a poisoned entry off disk whatever they do
            raise ValueError(f"cache entry {key[:16]}…: refusing to store a malformed response ({malformed})")
        entry = {"key": key, "request": dict(request), "response": dict(response), "produced_by": dict(produced_by)}
        content = canonical_json(entry).encode()
        entry["sha256"] = hashlib.sha256(content).hexdigest()
        # "sha256" sorts after every other field: appending it gives canonical_json(entry).
        data = content[:-1] + f',"sha256":"{entry["sha256"]}"}}'.encode()
        write_bytes_atomic(self.path(key), data, fsync=fsync)
        return entry
