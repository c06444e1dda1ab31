"""Stable hash-bucket shards: a problem's shard depends on its id alone, so adding, removing or
editing one problem touches exactly one shard's jobs."""

from __future__ import annotations

import hashlib


def shard_of(problem_id: str, n_shards: int) -> int:
    return int(hashlib.sha256(problem_id.encode()).hexdigest(), 16) % n_shards
