"""The end of every run (Snakefile onsuccess/onerror): what it sent, what was not confirmed, and,
after a successful run, its result: the leaderboard rows, how models missed, and where to read on.

Requests. A generate job writes its counts (`shard-N.requests.json`) only when it finishes. Every
attempt that sent anything also leaves a cost ledger entry on its way out (cluster/ledger.py),
finished or not: a failed attempt's requests are counted from there, including those of an
attempt that failed before a retry of the same job finished, and a job that left neither is named
as uncounted. An answer that arrived is cached; a request that got none (a dead endpoint) is
counted apart, with the cause from the job's log, so the summary never says answers are cached
when none arrived.

"This run" is every file written since `start`: the modification time of a marker file the run
wrote at its start (`start_marker`), so the comparison uses the file system's clock on both sides
(a cluster's shared file system may run minutes apart from the submit host's clock).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from extrembench.cluster.ledger import ledger_dir
from extrembench.report.misses.classes import MISSED

KEYS = ("planned", "cached", "sent", "computed", "failed")
MAX_PROBLEM_LINES = 50  # past this many, the rest are counted and left to review.csv
MAX_TEXT = 300  # characters of a reason or cause shown


def plain(text: object, limit: int = MAX_TEXT) -> str:
    """One printable line: problem ids, reasons and server messages are untrusted, and a control
    character in them must not reach the terminal."""
    text = " ".join(str(text).split())
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def start_marker(results: Path) -> float:
    """Write the run's start marker under `results/logs/` and return its modification time."""
    marker = Path(results) / "logs" / ".run-started"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(f"{time.time()}\n", encoding="utf-8")
    return marker.stat().st_mtime


def _recent(paths: Iterable, start: float) -> list[Path]:
    out = []
    for path in paths:
        try:
            if os.path.getmtime(path) >= start:
                out.append(Path(path))
        except FileNotFoundError:
            continue
    return out


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Failed|Interrupt|Exit)\b: (.+)$")
_ERROR_LINE = re.compile(r" (?:ERROR|CRITICAL) [\w.]+: (.+)$")


def failure_cause(log_file: Path) -> str | None:
    """Why a job failed, from its log: the last exception line of a traceback, else the last
    ERROR line (job logs are short: each job writes its own, and only its errors matter here)."""
    try:
        lines = log_file.read_text(encoding="utf-8", errors="replace").splitlines()[-400:]
    except OSError:
        return None
    for pattern in (_EXCEPTION_LINE, _ERROR_LINE):
        for line in reversed(lines):
            match = pattern.search(line)
            if match and match.group(1).strip() != "job failed":
                return plain(match.group(1))
    return None


def _finished_counts(results: Path, start: float) -> tuple[dict[str, int], set[tuple]]:
    """(summed request counts, (benchmark, model, shard) of every generate job that finished since `start`)."""
    totals = dict.fromkeys(KEYS, 0)
    finished = set()
    for path in _recent(results.glob("*/generate/*/shard-*.requests.json"), start):
        stats = json.loads(path.read_text(encoding="utf-8"))
        finished.add((stats["benchmark"], stats["model"], stats["shard"]))
        for key in KEYS:
            totals[key] += stats.get(key, 0)
    return totals, finished


def _stopped_attempts(
    cache_dir: Path, start: float, finished: set[tuple], llm_models: set[str]
) -> tuple[dict[tuple, dict[str, int]], dict[str, int]]:
    """(job -> counts of a job that never finished, counts of earlier attempts of finished jobs), from the ledger."""
    # Attempts that failed or were stopped: of a job that never finished, and earlier attempts of
    # a job a retry then finished (what they sent is not in the finished job's count).
    stopped: dict[tuple, dict[str, int]] = {}
    retried = {"attempts": 0, "sent": 0, "answered": 0}
    for path in _recent(ledger_dir(cache_dir).glob("*.json"), start):
        entry = json.loads(path.read_text(encoding="utf-8"))
        if not entry.get("interrupted"):
            continue
        job = (entry["benchmark"], entry["model"], entry["shard"])
        sent = entry["produced"] if entry["model"] in llm_models else 0
        # entries older than the `failed` field: every response counted as an answer, as before
        answered = sent - entry.get("failed", 0) if entry["model"] in llm_models else 0
        counts = retried if job in finished else stopped.setdefault(job, {"attempts": 0, "sent": 0, "answered": 0})
        counts["attempts"] += 1
        counts["sent"] += sent
        counts["answered"] += answered
    return stopped, retried


def _stopped_lines(stopped: dict[tuple, dict[str, int]], logs: dict[tuple, Path], cache_dir: Path) -> list[str]:
    """The jobs that failed or were stopped: what they sent, what was answered, and each one's cause."""
    sent = sum(c["sent"] for c in stopped.values())
    answered = sum(c["answered"] for c in stopped.values())
    if answered:
        outcome = f"{answered} answered (cached: a rerun does not send them again), {sent - answered} without an answer"
    else:
        outcome = "no answer arrived, so nothing was cached"
    lines = [
        f"{len(stopped)} generate job(s) failed or were stopped after sending {sent} LLM request(s): {outcome} "
        f"(counted from the cost ledger in {ledger_dir(cache_dir)})"
    ]
    for job in sorted(stopped):
        log = logs.get(job)
        cause = failure_cause(log) if log else None
        where = f"see {log}" if log else "no job log"
        lines.append(f"  {'/'.join(job)}: {cause or 'no error line in its log'} ({where})")
    return lines


def request_summary(results: Path, cache_dir: Path, start: float, llm_models: set[str]) -> list[str]:
    """The summary lines for the generate jobs that ran since `start` (a file modification time)."""
    results = Path(results)
    totals, finished = _finished_counts(results, start)
    stopped, retried = _stopped_attempts(cache_dir, start, finished, llm_models)
    logs = {
        (log.parent.parent.name, log.parent.name, log.stem): log
        for log in _recent(results.glob("logs/generate/*/*/shard-*.log"), start)
        if not log.name.endswith(".server.log")
    }
    uncounted = sorted(str(log) for job, log in logs.items() if job not in finished and job not in stopped)
    lines = []
    if finished:
        lines.append(
            f"{len(finished)} generate job(s) finished: {totals['sent']} LLM request(s) sent, "
            f"{totals['computed']} reference-solver answer(s) computed, {totals['cached']} served from cache, "
            f"{totals['failed']} failed"
        )
    if retried["attempts"]:
        lines.append(
            f"{retried['attempts']} earlier attempt(s) of those jobs failed or were stopped after sending "
            f"{retried['sent']} LLM request(s) ({retried['answered']} answered: those answers were cached and "
            "served to the retry)"
        )
    if stopped:
        lines += _stopped_lines(stopped, logs, cache_dir)
    if uncounted:
        lines.append(
            f"{len(uncounted)} generate job(s) did not finish and left no count (e.g. a full disk): they may "
            f"have sent requests; see {', '.join(uncounted[:5])}"
        )
    return lines or ["no generate job ran: 0 LLM requests sent"]


# ---------------------------------------------------------------- problems not confirmed
ASKED = ("confirmed", "ingested")  # the statuses a generate job asks (core/artifacts.PROBLEMS)


def unconfirmed_lines(problems: Mapping[str, Sequence[Mapping]], validated: set[str], review: str) -> list[str]:
    """`problems`: benchmark -> its problem rows (problem_id, status, reason). One line per problem
    of a `validated` benchmark that was not confirmed (at most MAX_PROBLEM_LINES), and one per
    benchmark that has no problem to ask at all, naming them and why: nothing of it is scored."""
    lines = []
    flagged = sorted(
        ((b, r) for b, rows in problems.items() if b in validated for r in rows if r["status"] not in ASKED),
        key=lambda item: (item[1]["problem_id"], item[0]),
    )
    for _, row in flagged[:MAX_PROBLEM_LINES]:
        lines.append(f"problem {plain(row['problem_id'], 120)} is {row['status']} (not asked): {plain(row['reason'])}")
    if len(flagged) > MAX_PROBLEM_LINES:
        lines.append(f"... and {len(flagged) - MAX_PROBLEM_LINES} more not confirmed ({review} lists all)")
    for benchmark in sorted(problems):
        rows = problems[benchmark]
        if any(r["status"] in ASKED for r in rows):
            continue
        if not rows:
            lines.append(f"benchmark {benchmark}: no problem at all, so nothing of it was asked or scored")
            continue
        named = ", ".join(f"{plain(r['problem_id'], 120)} {r['status']}" for r in rows[:5])
        more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
        lines.append(
            f"benchmark {benchmark}: no confirmed problem ({named}{more}), so nothing of it was asked or scored "
            f"and it has no leaderboard row; {review} and the lines above say why (fix the problem file and rerun)"
        )
    return lines


# ---------------------------------------------------------------- the result
def _pct(value) -> str:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return "–"
    return "–" if value != value else f"{100 * value:.1f}"


def leaderboard_lines(board) -> list[str]:
    """The leaderboard (a DataFrame) as aligned rows: benchmark, model, accuracy with its 95 %
    interval, and n (problems × trials)."""
    header = ("benchmark", "model", "accuracy %", "95 % CI", "n")
    rows = [
        (
            plain(r["benchmark"], 60),
            plain(r["model"], 60),
            _pct(r["accuracy_mean"]),
            f"[{_pct(r['ci_low'])}, {_pct(r['ci_high'])}]",
            f"{int(r['n_problems'])} problems × {int(r['n_trials'])} trial{'s' if int(r['n_trials']) != 1 else ''}",
        )
        for r in board.to_dict("records")
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [header, *rows]]


def misses_lines(table) -> list[str]:
    """One line per (benchmark, model) of the misses table: how many samples missed, and the
    commonest classes of miss."""
    lines = []
    for r in table.to_dict("records"):
        n, missed = int(r["n_samples"]), int(r["n_missed"])
        if not missed:
            lines.append(f"  {plain(r['model'], 60)} on {plain(r['benchmark'], 60)}: none of {n} samples missed")
            continue
        counts = sorted(
            ((int(r[c]), c) for c in MISSED if int(r[c])), key=lambda item: (-item[0], MISSED.index(item[1]))
        )
        parts = []
        for count, name in counts[:3]:
            part = f"{count} {name.replace('_', ' ')}"
            if name == "suboptimal_attained" and int(r.get("attained_all_equal", 0)):
                part += f" ({int(r['attained_all_equal'])} at the all-equal point)"
            parts.append(part)
        if len(counts) > 3:
            parts.append(f"{sum(c for c, _ in counts[3:])} other")
        lines.append(
            f"  {plain(r['model'], 60)} on {plain(r['benchmark'], 60)}: {missed} of {n} samples missed: {', '.join(parts)}"
        )
    return lines


def result_lines(results: str, leaderboard: Path, misses_csv: Path | None, start: float) -> list[str]:
    """After a successful run: the leaderboard rows, the misses headline and the two paths."""
    import pandas as pd  # deferred: only the end of a run that built a leaderboard needs it

    leaderboard = Path(leaderboard)
    if not leaderboard.exists():
        return []
    board = pd.read_parquet(leaderboard)
    when = "" if os.path.getmtime(leaderboard) >= start else " (from an earlier run: this one did not rebuild it)"
    md = leaderboard.with_suffix(".md")
    lines = [f"leaderboard{when}: {md}"]
    lines += leaderboard_lines(board) if len(board) else ["  no row: no benchmark had a confirmed problem to ask"]
    if misses_csv is not None and Path(misses_csv).exists():
        table = pd.read_csv(misses_csv)
        if len(table):
            lines.append(f"how models missed ({misses_csv}; classes: docs/metrics.md, 'How models miss'):")
            lines += misses_lines(table)
    lines.append(
        f"results: {md} (also .csv, .parquet), tables in {results}/tables/, figures in {results}/figures/; "
        f"HTML report: snakemake --report {results}/report.html [your options], then open {results}/report.html"
    )
    return lines
