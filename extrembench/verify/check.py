"""`extrembench check`: validate problem files by computation, one JSON verdict per file."""

from __future__ import annotations

import argparse
import json
import sys
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
    expect = parser.add_mutually_exclusive_group()
    expect.add_argument("--expect-confirmed", action="store_true", help="exit 1 unless every problem is confirmed")
    expect.add_argument(
        "--expect-declared",
        action="store_true",
        help="exit 1 unless each file gets the status in its expected_status key (confirmed when absent)",
    )


def run(args: argparse.Namespace) -> int:
    failures = 0
    for path in args.files:
        effort = Effort(starts=args.starts, time_cap_s=args.time_cap)
        result = check_problem(path, seed=args.seed, effort=effort, ignore_keys=tuple(args.ignore_key))
        print(json.dumps(result.to_json(), ensure_ascii=False), flush=True)
        if args.expect_confirmed and result.status != "confirmed":
            failures += 1
        if args.expect_declared and result.status != declared_status(path):
            failures += 1
            print(f"{path}: expected status {declared_status(path)}, got {result.status}", file=sys.stderr)
    return 1 if failures else 0
