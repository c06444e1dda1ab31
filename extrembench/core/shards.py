"""Stable hash-bucket shards: a problem's shard depends on its id alone, so adding, removing or
editing one problem touches exactly one shard's jobs."""

from __future__ import annotations

import hashlib

from extrembench.core.seeds import name_digest


def shard_of(problem_id: str, n_shards: int) -> int:
    return int(hashlib.sha256(problem_id.encode()).hexdigest(), 16) % n_shards


def take(ids, limit: int | None) -> list[str]:
    """The ids a run with `limit` takes, sorted: all of them when limit is None, else the `limit`
    ids whose salted sha256 is lowest. A stable sample spread over the whole set (the first N by
    name would take only the oldest problems); adding or editing a problem changes at most one
    member of it."""
    ids = sorted(ids)
    if not limit:
        return ids
    chosen = set(sorted(ids, key=lambda i: name_digest("limit", i))[:limit])
    return [i for i in ids if i in chosen]
