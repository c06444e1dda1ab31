"""The end-of-run line about requests: how many this invocation of the workflow sent.

A generate job writes its counts (`shard-N.requests.json`) only when it finishes. A job that
failed (a full disk, a dead endpoint) may still have sent requests: the cost ledger entry its
attempt writes on the way out (cluster/ledger.py) says how many, and a job that could not even
write that is named as uncounted. Without this the summary said "0 LLM requests sent" after a
run whose failed jobs had sent hundreds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from extrembench.cluster.ledger import ledger_dir

KEYS = ("planned", "cached", "sent", "computed", "failed")


def _recent(paths, start: float) -> list[Path]:
    out = []
    for path in paths:
        try:
            if os.path.getmtime(path) >= start:
                out.append(Path(path))
        except FileNotFoundError:
            continue
    return out


def request_summary(results: Path, cache_dir: Path, start: float, llm_models: set[str]) -> list[str]:
    """The summary lines for the generate jobs that ran since `start` (wall-clock, as file times)."""
    results = Path(results)
    totals = dict.fromkeys(KEYS, 0)
    finished = set()
    for path in _recent(results.glob("*/generate/*/shard-*.requests.json"), start):
        stats = json.loads(path.read_text(encoding="utf-8"))
        finished.add((stats["benchmark"], stats["model"], stats["shard"]))
        for key in KEYS:
            totals[key] += stats.get(key, 0)
    stopped_sent, stopped = 0, set()
    for path in _recent(ledger_dir(cache_dir).glob("*.json"), start):
        entry = json.loads(path.read_text(encoding="utf-8"))
        job = (entry["benchmark"], entry["model"], entry["shard"])
        if entry.get("interrupted") and job not in finished:
            stopped.add(job)
            stopped_sent += entry["produced"] if entry["model"] in llm_models else 0
    uncounted = sorted(
        str(log)
        for log in _recent(results.glob("logs/generate/*/*/shard-*.log"), start)
        if not log.name.endswith(".server.log")
        and (log.parent.parent.name, log.parent.name, log.stem) not in finished | stopped
    )
    lines = []
    if finished:
        lines.append(
            f"{len(finished)} generate job(s) finished: {totals['sent']} LLM request(s) sent, "
            f"{totals['computed']} reference-solver answer(s) computed, {totals['cached']} served from cache, "
            f"{totals['failed']} failed"
        )
    if stopped:
        lines.append(
            f"{len(stopped)} generate job(s) failed or were stopped after sending {stopped_sent} LLM request(s) "
            f"(their answers are cached; from the cost ledger in {ledger_dir(cache_dir)})"
        )
    if uncounted:
        lines.append(
            f"{len(uncounted)} generate job(s) did not finish and left no count (e.g. a full disk): they may "
            f"have sent requests; see {', '.join(uncounted[:5])}"
        )
    return lines or ["no generate job ran: 0 LLM requests sent"]
