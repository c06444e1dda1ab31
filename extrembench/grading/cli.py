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

from extrembench.grading.grade import grade_many
from extrembench.grading.modes import MODES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", required=True, type=Path, help="JSONL file of cases")
    parser.add_argument("--mode", default="default", choices=MODES)
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--timeout", type=float, default=5.0, help="hard per-sample timeout in seconds")


def read_cases(path: Path) -> list[dict]:
    """Cases from a JSONL file, with errors that name the file, line and field."""
    cases = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg}); one JSON object per line") from exc
            if not isinstance(case, dict):
                raise ValueError(f"{path}:{number}: expected a JSON object with 'gold' and 'response'")
            for field in ("gold", "response"):
                if not isinstance(case.get(field), str):
                    raise ValueError(f"{path}:{number}: field '{field}' is missing or not a string; "
                                     "every case needs string 'gold' and 'response'")
            case.setdefault("id", number)
            cases.append(case)
    return cases


def run(args: argparse.Namespace) -> int:
    try:
        cases = read_cases(args.input)
        results = grade_many(cases, mode=args.mode, workers=args.workers, timeout=args.timeout)
    except (OSError, ValueError) as exc:
        print(f"extrembench grade: {exc}", file=sys.stderr)
        return 2
    for case, result in zip(cases, results):
        print(json.dumps({"id": case["id"], **result.as_dict(), "mode": args.mode}, ensure_ascii=False))
    return 0
