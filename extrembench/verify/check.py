"""`extrembench check`: validate problem files by computation. By default a short line per file
(status, reason, certificate kind, time) and a total; `--json` prints one JSON verdict per file
instead (the certificate whole). Progress goes to stderr: which file, and a line every 30 s while
one check runs (a check can take minutes; the time shown never changes the verdict, which is
bounded by work counts)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from extrembench.problems.problem import declared_status
from extrembench.verify.validate import DEFAULT_IGNORED_KEYS, Effort, check_problem


# ---------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", type=Path, help="problem YAML files")
    parser.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    parser.add_argument(
        "--starts",
        type=int,
        default=Effort.starts,
        help=f"random local searches per problem (default {Effort.starts}); the search is bounded by counts, never by time",
    )
    parser.add_argument(
        "--time-cap",
        type=float,
        default=Effort.time_cap_s,
        help=f"safety net in seconds (default {Effort.time_cap_s:g}): a check running longer is inconclusive",
    )
    parser.add_argument(
        "--ignore-key",
        action="append",
        default=list(DEFAULT_IGNORED_KEYS),
        help="top-level key to ignore in problem files (repeatable; expected_status is always ignored)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per file on stdout (with the certificate)")
    expect = parser.add_mutually_exclusive_group()
    expect.add_argument("--expect-confirmed", action="store_true", help="exit 1 unless every problem is confirmed")
    expect.add_argument(
        "--expect-declared",
        action="store_true",
        help="exit 1 unless each file gets the status in its expected_status key (confirmed when absent)",
    )


HEARTBEAT_S = 30.0


def summary_line(result, seconds: float) -> str:
    """One line a reader takes in at a glance: id, status, certificate kind, time, reason."""
    kind = (result.certificate or {}).get("kind") or "none"
    reason = result.reason if len(result.reason or "") <= 160 else result.reason[:157] + "..."
    return f"{result.id}: {result.status} (certificate: {kind}, {seconds:.1f} s) {reason}"


def _heartbeat(label: str, started: float, done: threading.Event) -> None:
    while not done.wait(HEARTBEAT_S):
        print(f"  ... still checking {label} ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    failures = 0
    statuses: Counter[str] = Counter()
    for number, path in enumerate(args.files, 1):
        effort = Effort(starts=args.starts, time_cap_s=args.time_cap)
        print(f"[{number}/{len(args.files)}] checking {path}", file=sys.stderr, flush=True)
        started, done = time.monotonic(), threading.Event()
        beat = threading.Thread(target=_heartbeat, args=(path.name, started, done), daemon=True)
        beat.start()
        try:
            result = check_problem(path, seed=args.seed, effort=effort, ignore_keys=tuple(args.ignore_key))
        finally:
            done.set()
            beat.join()
        statuses[result.status] += 1
        if args.json:
            print(json.dumps(result.to_json(), ensure_ascii=False), flush=True)
        else:
            print(summary_line(result, time.monotonic() - started), flush=True)
        if args.expect_confirmed and result.status != "confirmed":
            failures += 1
        if args.expect_declared and result.status != declared_status(path):
            failures += 1
            print(f"{path}: expected status {declared_status(path)}, got {result.status}", file=sys.stderr)
    counts = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
    print(f"{len(args.files)} file(s): {counts}", file=sys.stderr if args.json else sys.stdout, flush=True)
    return 1 if failures else 0
