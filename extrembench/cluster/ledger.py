"""What each generate job cost: GPU-seconds per job attempt, and each response's share of them.

Every job attempt (one generate_shard call; a requeued or retried job is a new attempt) has a
`job_uid()`, stamped into the `produced_by` of every response it produces. When the attempt
ends, finished or interrupted (preemption.py), it writes one ledger entry under
`<cache_dir>/ledger/<job_uid>.json`: its GPUs, wall seconds, GPU-seconds and how many responses it
produced. A generation row's `gpu_seconds` / `wall_seconds` are the producing attempt's totals
divided by its responses, so summing a table's rows gives what its responses cost however many
attempts, reruns and cache hits it took. The ledger sits beside the cache because the cache
outlives every output Snakemake deletes.

GPU-seconds: under SLURM (SLURM_JOB_ID set), `sacct` ElapsedRaw × the GPUs in AllocTRES (what the
site bills); otherwise wall time × the GPUs the job held (its size class; 0 for a shard served
entirely from the cache, which runs without GPUs).
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from extrembench.core.files import write_bytes_atomic

log = logging.getLogger(__name__)

_attempt = [f"{socket.gethostname()}-{os.getpid()}-{time.time_ns()}"]


def job_uid() -> str:
    """The current attempt's id (host, PID, start time: unique across requeues of one SLURM job)."""
    return _attempt[0]


def start_attempt() -> str:
    """A fresh id for a new attempt, so two generate calls in one process never share an entry."""
    _attempt[0] = f"{socket.gethostname()}-{os.getpid()}-{time.time_ns()}"
    return _attempt[0]


SACCT_TIMEOUT_S = 10  # also runs in the grace period after a preemption signal


@dataclass(frozen=True)
class LedgerEntry:
    job_uid: str
    benchmark: str
    model: str
    shard: str
    slurm_job_id: str | None  # the same for every requeue of one SLURM job (job_uid tells them apart)
    host: str
    gpus: int
    wall_seconds: float
    gpu_seconds: float
    source: str  # sacct | wall
    produced: int  # responses this attempt received (or computed), failure records included
    completion_tokens: int
    interrupted: bool
    # of `produced`, the failure records (no answer: a dead endpoint, retries exhausted): the
    # end-of-run summary must not call them cached answers. 0 in entries written before the field.
    failed: int = 0


def ledger_dir(cache_dir: Path) -> Path:
    return Path(cache_dir) / "ledger"


def parse_sacct_usage(line: str) -> tuple[int, int] | None:
    """(ElapsedRaw seconds, GPUs) from one `sacct -X -n -P -o ElapsedRaw,AllocTRES` line."""
    elapsed, _, tres = line.strip().partition("|")
    if not elapsed.isdigit():
        return None
    match = re.search(r"(?:^|,)gres/gpu=(\d+)", tres)
    return int(elapsed), int(match.group(1)) if match else 0


def slurm_usage(job_id: str) -> tuple[int, int] | None:
    """This SLURM job's elapsed seconds and allocated GPUs so far, or None when sacct cannot tell."""
    try:
        result = subprocess.run(
            ["sacct", "-j", job_id, "-X", "-n", "-P", "-o", "ElapsedRaw,AllocTRES"],
            capture_output=True,
            text=True,
            timeout=SACCT_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("sacct for job %s failed (%s): GPU-seconds from wall time instead", job_id, exc)
        return None
    for line in result.stdout.splitlines():
        usage = parse_sacct_usage(line)
        if usage is not None:
            return usage
    log.warning(
        "sacct has no usage for job %s yet (%r): GPU-seconds from wall time instead",
        job_id,
        (result.stdout + result.stderr).strip()[:200],
    )
    return None


class JobMeter:
    """Started when the job starts; `close()` measures and writes the ledger entry."""

    def __init__(self, cache_dir: Path, *, benchmark: str, model: str, shard: str) -> None:
        self.cache_dir = Path(cache_dir)
        self.benchmark, self.model, self.shard = benchmark, model, shard
        self.started = time.monotonic()
        self.job_uid = start_attempt()

    def close(
        self, *, gpus: int, produced: int, completion_tokens: int, interrupted: bool, failed: int = 0
    ) -> LedgerEntry:
        wall = time.monotonic() - self.started
        gpu_seconds, source = wall * gpus, "wall"
        job_id = os.environ.get("SLURM_JOB_ID")
        usage = slurm_usage(job_id) if job_id else None
        if usage is not None:
            wall, gpus = usage
            gpu_seconds, source = float(wall * gpus), "sacct"
        entry = LedgerEntry(
            job_uid=self.job_uid,
            benchmark=self.benchmark,
            model=self.model,
            shard=self.shard,
            slurm_job_id=job_id,
            host=os.environ.get("SLURMD_NODENAME") or socket.gethostname(),
            gpus=gpus,
            wall_seconds=round(wall, 3),
            gpu_seconds=round(gpu_seconds, 3),
            source=source,
            produced=produced,
            completion_tokens=completion_tokens,
            interrupted=interrupted,
            failed=failed,
        )
        write_entry(self.cache_dir, entry)
        log.info("ledger: %s", entry)
        return entry


def write_entry(cache_dir: Path, entry: LedgerEntry) -> Path:
    path = ledger_dir(cache_dir) / f"{entry.job_uid}.json"
    write_bytes_atomic(path, (json.dumps(asdict(entry), sort_keys=True) + "\n").encode())  # never half an entry
    return path


def read_entry(cache_dir: Path, job_uid: str) -> LedgerEntry | None:
    try:
        return LedgerEntry(**json.loads((ledger_dir(cache_dir) / f"{job_uid}.json").read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None


def shares(cache_dir: Path, job_uids: set[str | None]) -> dict[str, tuple[float, float]]:
    """job_uid -> (GPU-seconds, wall seconds) per response it produced. A uid without an entry
    (an attempt killed outright, or responses older than the ledger) is left out: unknown cost."""
    out = {}
    for uid in job_uids:
        entry = read_entry(cache_dir, uid) if uid else None
        if entry is not None and entry.produced > 0:
            out[uid] = (entry.gpu_seconds / entry.produced, entry.wall_seconds / entry.produced)
    return out


def response_cost(origin: dict[str, Any], known: dict[str, tuple[float, float]]) -> tuple[float | None, float | None]:
    """(gpu_seconds, wall_seconds) of one response, from its producing attempt's ledger entry."""
    return known.get(origin.get("job_uid"), (None, None))
