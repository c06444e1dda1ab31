"""Issue 30 item 8: after a run whose generate jobs failed (a full disk), the summary said
"0 LLM requests sent" though they had sent requests. It now counts them from the cost ledger,
and names a job that left no count at all."""

from __future__ import annotations

import json
import time
from pathlib import Path

from extrembench.report.run_summary import request_summary


def write(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value) if not isinstance(value, str) else value)


def stats(shard: str, sent: int) -> dict:
    return {"benchmark": "b", "model": "m", "shard": shard, "planned": 10, "cached": 10 - sent, "sent": sent,
            "computed": 0, "failed": 0}  # fmt: skip


def ledger(shard: str, produced: int, interrupted: bool) -> dict:
    return {"job_uid": f"u-{shard}", "benchmark": "b", "model": "m", "shard": shard, "produced": produced,
            "interrupted": interrupted}  # fmt: skip


def test_no_job_ran(tmp_path):
    assert request_summary(tmp_path / "results", tmp_path / "cache", time.time() - 5, {"m"}) == [
        "no generate job ran: 0 LLM requests sent"
    ]


def test_failed_jobs_are_counted_from_the_ledger_and_uncounted_ones_named(tmp_path):
    results, cache = tmp_path / "results", tmp_path / "cache"
    start = time.time() - 5
    write(results / "b/generate/m/shard-0.requests.json", stats("shard-0", 4))
    write(results / "logs/generate/b/m/shard-0.log", "done")
    write(cache / "ledger/u-shard-0.json", ledger("shard-0", 4, False))
    # shard-1 failed with a full disk after sending 240 requests: no stats, its ledger entry made it
    write(results / "logs/generate/b/m/shard-1.log", "OSError: [Errno 28] No space left on device")
    write(cache / "ledger/u-shard-1.json", ledger("shard-1", 240, True))
    # shard-2 could not even write its ledger entry
    write(results / "logs/generate/b/m/shard-2.log", "killed")
    write(results / "logs/generate/b/m/shard-2.server.log", "")
    lines = request_summary(results, cache, start, {"m"})
    assert lines[0].startswith("1 generate job(s) finished: 4 LLM request(s) sent, 0 reference-solver")
    assert lines[1].startswith("1 generate job(s) failed or were stopped after sending 240 LLM request(s)")
    assert lines[2].startswith("1 generate job(s) did not finish and left no count") and "shard-2.log" in lines[2]
    assert len(lines) == 3
