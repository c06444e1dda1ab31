"""Issue 30 item 8: after a run whose generate jobs failed (a full disk), the summary said
"0 LLM requests sent" though they had sent requests. It now counts them from the cost ledger,
and names a job that left no count at all."""

from __future__ import annotations

import json
import time
from pathlib import Path

from extrembench.report.operations.run_summary import request_summary


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
    assert lines[2].startswith("  b/m/shard-1: [Errno 28] No space left on device (see ")  # the cause, from its log
    assert lines[3].startswith("1 generate job(s) did not finish and left no count") and "shard-2.log" in lines[3]
    assert len(lines) == 4


def test_a_retry_that_finished_does_not_hide_what_the_failed_attempt_sent(tmp_path):
    """Issue 42 (low): an attempt failed after sending 240 requests, a retry of the same job then
    finished (the 240 answers came from the cache): the summary said 0 sent."""
    results, cache = tmp_path / "results", tmp_path / "cache"
    start = time.time() - 5
    write(cache / "ledger/u-first.json", {**ledger("shard-0", 240, True), "job_uid": "u-first"})
    write(results / "b/generate/m/shard-0.requests.json", {**stats("shard-0", 0), "planned": 240, "cached": 240})
    write(results / "logs/generate/b/m/shard-0.log", "done")
    lines = request_summary(results, cache, start, {"m"})
    assert lines[0].startswith(
        "1 generate job(s) finished: 0 LLM request(s) sent, 0 reference-solver answer(s) computed, 240 served"
    )
    assert lines[1].startswith(
        "1 earlier attempt(s) of those jobs failed or were stopped after sending 240 LLM request(s)"
    )
    assert len(lines) == 2


def test_a_dead_endpoint_is_not_said_to_have_cached_answers_and_the_cause_is_named(tmp_path):
    """Issue 37: every request failed (connection refused); the summary said "their answers are
    cached" when none had arrived. It now says none arrived and names the job's error."""
    results, cache = tmp_path / "results", tmp_path / "cache"
    start = time.time() - 5
    write(cache / "ledger/u-shard-0.json", {**ledger("shard-0", 2, True), "failed": 2})
    cause = "models.m: 2 of 2 requests failed, over models.m.max_failure_rate = 0. First error: ClientConnectorError"
    write(
        results / "logs/generate/b/m/shard-0.log",
        f"2026-12-06 01:00:00,000 ERROR extrembench.generation.run: {cause}\n"
        "2026-12-06 01:00:00,001 CRITICAL extrembench.job: job failed\nTraceback (most recent call last):\n"
        f'  File "x.py", line 1, in <module>\nextrembench.generation.run.GenerationFailed: {cause}\n',
    )
    lines = request_summary(results, cache, start, {"m"})
    assert lines[0] == (
        "1 generate job(s) failed or were stopped after sending 2 LLM request(s): no answer arrived, so nothing "
        f"was cached (counted from the cost ledger in {cache / 'ledger'})"
    )
    assert lines[1] == f"  b/m/shard-0: {cause} (see {results / 'logs/generate/b/m/shard-0.log'})"
    assert "cached:" not in " ".join(lines) and len(lines) == 2


def test_answers_that_did_arrive_before_a_failure_are_counted_apart_from_those_that_did_not(tmp_path):
    results, cache = tmp_path / "results", tmp_path / "cache"
    write(cache / "ledger/u-shard-0.json", {**ledger("shard-0", 10, True), "failed": 4})
    lines = request_summary(results, cache, time.time() - 5, {"m"})
    assert (
        "sending 10 LLM request(s): 6 answered (cached: a rerun does not send them again), 4 without an answer"
        in lines[0]
    )
    assert lines[1] == "  b/m/shard-0: no error line in its log (no job log)"


def test_this_run_is_measured_on_the_file_system_clock(tmp_path):
    """Issue 42 (low): "no generate job ran" when one did. The start was the submit host's clock and
    the job files carry the file system's: a shared file system running behind the host made the
    run's own job files look older than the run. The start is now the modification time of a marker
    the run writes, on the same file system as the job files."""
    import os

    from extrembench.report.operations.run_summary import start_marker

    results, cache = tmp_path / "results", tmp_path / "cache"
    start = start_marker(results)
    assert start == (results / "logs" / ".run-started").stat().st_mtime
    # a file server 30 s behind the host: the marker and the job file written after it both carry its time
    behind = start - 30
    os.utime(results / "logs" / ".run-started", (behind, behind))
    write(results / "b/generate/m/shard-0.requests.json", stats("shard-0", 3))
    os.utime(results / "b/generate/m/shard-0.requests.json", (behind + 1, behind + 1))
    start = (results / "logs" / ".run-started").stat().st_mtime
    assert request_summary(results, cache, start, {"m"})[0].startswith("1 generate job(s) finished: 3 LLM request(s)")
