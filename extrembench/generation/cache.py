"""Content-addressed cache of model responses, kept outside Snakemake's declared outputs.

Snakemake deletes a job's outputs before rerunning it; the cache survives that, so a rerun after
one edited problem only sends that problem's requests. Each entry is one JSON file named by the
hash of everything that determines the response, written atomically (temp file + rename) the
moment the response arrives: a job killed mid-run loses nothing it already received.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CACHE_SCHEMA_VERSION = 1


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def cache_key(request: Mapping[str, Any]) -> str:
    """Key = sha256 of the canonical request: messages, model id + revision, every sampling
    parameter incl. seed and max_tokens, engine + version, and the cache schema version."""
    payload = {"cache_schema": CACHE_SCHEMA_VERSION, **request}
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()


class GenerationCache:
    """One JSON file per response under `root/<namespace>/<key[:2]>/<key>.json`."""

    def __init__(self, root: str | os.PathLike, namespace: str = "generations") -> None:
        self.root = Path(root) / namespace

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self.path(key)
        try:
            with open(path, encoding="utf-8") as handle:
                entry = json.load(handle)
        except FileNotFoundError:
            return None
        except json.JSONDecodeError:
            # A torn file cannot come from our atomic writes; treat it as absent and refetch.
            return None
        return entry if entry.get("key") == key else None

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def put(self, key: str, request: Mapping[str, Any], response: Mapping[str, Any],
            produced_by: Mapping[str, Any], *, fsync: bool = True) -> dict[str, Any]:
        entry = {"key": key, "request": dict(request), "response": dict(response),
                 "produced_by": dict(produced_by)}
        self.write_text(key, canonical_json(entry), fsync=fsync)
        return entry

    def write_text(self, key: str, text: str, *, fsync: bool = True) -> None:
        """Store an already-serialized entry. Without fsync the rename still makes it atomic and
        survives a killed process; a power loss may leave a torn file, which get() reads as absent
        (so that response is requested again, never misread). The generation journal
        (journal.py) writes this way and syncs the filesystem in batches instead."""
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:8]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                if fsync:
                    handle.flush()
                    os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
