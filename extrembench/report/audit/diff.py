"""`extrembench diff-runs OLD NEW`: do two results folders hold the same results?

Compares what a change that should preserve behaviour must preserve: every leaderboard row
(accuracies, counts, intervals, token figures) and, for every problems table, each problem's
status, gold answer, best value, witness and certificate bytes. Columns that record *where and
when* a result was made (commit, hashes of inputs and code, package versions, wall time and the
GPU-hour and cost figures derived from it) are left out, and named in the output.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from extrembench.core.artifacts import read_artifact

# Provenance and timing: they differ between any two runs of different code or on another day.
PROVENANCE_COLUMNS = (
    "inputs_sha256",
    "config_sha256",
    "git_commit",
    "git_dirty",
    "versions_json",
    "wall_hours",
    "gpu_hours",
    "tokens_per_s_per_gpu",
    "accuracy_per_gpu_hour",
    "cost",
    "cost_basis",
    "cost_unknown_rows",
)
PROBLEM_COLUMNS = ("status", "answer", "best_value", "witness_json", "certificate", "certificate_kind")


def leaderboard_rows(results: Path) -> dict[tuple[str, str], dict[str, str]]:
    with open(results / "leaderboard.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {(r["benchmark"], r["model"]): {k: v for k, v in r.items() if k not in PROVENANCE_COLUMNS} for r in rows}


def problem_rows(results: Path) -> dict[tuple[str, str], dict]:
    rows = {}
    for path in sorted(results.glob("*/problems/*.parquet")):
        for row in read_artifact(path, "problems").to_pylist():
            rows[(path.parent.parent.name, row["problem_id"])] = {k: row[k] for k in PROBLEM_COLUMNS}
    return rows


def differences(old: Path, new: Path) -> list[str]:
    found = []
    for label, read in (("leaderboard", leaderboard_rows), ("problems", problem_rows)):
        before, after = read(old), read(new)
        for key in sorted(before.keys() | after.keys()):
            if key not in after or key not in before:
                found.append(f"{label} {key}: only in {'old' if key in before else 'new'}")
                continue
            for column in before[key]:
                if before[key][column] != after[key].get(column):
                    found.append(
                        f"{label} {key} {column}: {str(before[key][column])[:120]!r} -> "
                        f"{str(after[key].get(column))[:120]!r}"
                    )
    return found


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", type=Path, help="results folder of the reference run")
    parser.add_argument("new", type=Path, help="results folder of the run to compare")


def run(args: argparse.Namespace) -> int:
    found = differences(args.old, args.new)
    leaderboard, problems = len(leaderboard_rows(args.old)), len(problem_rows(args.old))
    for line in found:
        print(line)
    print(
        f"{len(found)} difference(s) in {leaderboard} leaderboard rows and {problems} problem rows "
        f"(not compared: {', '.join(PROVENANCE_COLUMNS)})",
        file=sys.stderr,
    )
    return 1 if found else 0
