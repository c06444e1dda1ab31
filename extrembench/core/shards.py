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


def problem_set_check(benchmark: str, folder: str, n_problems: int, n_shards: int) -> tuple[str | None, str | None]:
    """(error, warning) about one benchmark's problem set before any job is planned: no problem
    at all is an error (every table would be empty and the benchmark have no leaderboard row); more
    shards than problems is a warning (the surplus shards are jobs that hold nothing)."""
    if n_problems == 0:
        return (
            f"benchmarks.{benchmark}.problems: {folder!r} holds no *.yaml problem file (relative to the "
            f"working directory): every table of this benchmark will be empty and it gets no leaderboard row; "
            f"point it at a folder of problem files",
            None,
        )
    if n_shards > n_problems:
        return None, (
            f"benchmarks.{benchmark}.shards: {n_shards} shards for {n_problems} problems: at least "
            f"{n_shards - n_problems} shards hold no problem (each still a job per stage and model); "
            f"set shards to at most {n_problems}"
        )
    return None, None
