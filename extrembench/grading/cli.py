"""`extrembench grade --input CASES.jsonl`: one JSON line per case on stdout.

Each input line: gold, response, optional answer_type (number|set|variable|description), id,
question. Descriptive answers need a judge, which only the Python API can be given; here they
come out ungraded with reason 'no-judge'.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from extrembench.core.files import read_jsonl
from extrembench.grading.grade import grade_all_modes, grade_many, modes_disagree
from extrembench.grading.modes import MODES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", required=True, type=Path, help="JSONL file of cases")
    parser.add_argument("--mode", default="default", choices=MODES)
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--timeout", type=float, default=5.0, help="hard per-sample timeout in seconds")
    parser.add_argument(
        "--compare-modes",
        action="store_true",
        help="also grade under every mode; rows get 'modes' and 'modes_disagree', "
        "and a count of disagreeing rows goes to stderr",
    )


def read_cases(path: Path) -> list[dict]:
    """Cases from a JSONL file, with errors that name the file, line and field."""
    cases = []
    for number, case in read_jsonl(path):
        if not isinstance(case, dict):
            raise ValueError(f"{path}:{number}: expected a JSON object with 'gold' and 'response'")
        for field in ("gold", "response"):
            if not isinstance(case.get(field), str):
                raise ValueError(
                    f"{path}:{number}: field '{field}' is missing or not a string; "
                    "every case needs string 'gold' and 'response'"
                )
        case.setdefault("id", number)
        cases.append(case)
    return cases


def run(args: argparse.Namespace) -> int:
    try:
        cases = read_cases(args.input)
        if args.compare_modes:
            by_mode = grade_all_modes(cases, workers=args.workers, timeout=args.timeout)
            results = [row[args.mode] for row in by_mode]
        else:
            results = grade_many(cases, mode=args.mode, workers=args.workers, timeout=args.timeout)
    except (OSError, ValueError) as exc:
        print(f"extrembench grade: {exc}", file=sys.stderr)
        return 2
    for index, (case, result) in enumerate(zip(cases, results)):
        row = {"id": case["id"], **result.as_dict(), "mode": args.mode}
        if args.compare_modes:
            row["modes"] = {mode: r.correct for mode, r in by_mode[index].items()}
            row["modes_disagree"] = modes_disagree(by_mode[index])
        print(json.dumps(row, ensure_ascii=False))
    if args.compare_modes:
        disagreeing = sum(modes_disagree(row) for row in by_mode)
        print(f"extrembench grade: modes disagree on {disagreeing} of {len(cases)} cases", file=sys.stderr)
    return 0
