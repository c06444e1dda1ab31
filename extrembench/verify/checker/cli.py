"""`extrembench verify-certificate FILE...`: re-check every certificate in problem Parquet files
without any search. Exit 1 naming each row whose certificate does not verify (or is missing for a
confirmed answer, or is not about the row's problem)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from extrembench.core.artifacts import read_artifact
from extrembench.problems.statement import answer_latex
from extrembench.verify.checker.verify import verify


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", type=Path, help="problem Parquet files (validate's output)")


def check_row(row: dict) -> tuple[bool, str]:
    """(ok, reason) for one problem row."""
    text = row.get("certificate")
    if text is None:
        if row.get("status") == "confirmed":
            return False, "confirmed but carries no certificate"
        return True, "no certificate (not confirmed)"
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        return False, f"certificate is not JSON: {exc}"
    if not isinstance(doc, dict):
        return False, "certificate is not a JSON object"
    if doc.get("kind") != row.get("certificate_kind"):
        return False, f"certificate kind {doc.get('kind')!r} differs from the row's {row.get('certificate_kind')!r}"
    spec = json.loads(row["spec_json"]) if row.get("spec_json") else None
    if spec is not None:
        spec = {k: spec.get(k) for k in ("sense", "variables", "constraints", "objective")}
    ok, reason = verify(doc, spec)
    if (
        ok
        and doc.get("kind") in ("bound", "sos", "numeric")
        and row.get("answer") is not None
        and answer_latex(doc["spec"]["answer"]) != row["answer"]
    ):
        return False, f"the certificate proves the answer {doc['spec']['answer']}, the row's gold is {row['answer']}"
    return ok, reason


def run(args: argparse.Namespace) -> int:
    failures = []
    for path in args.files:
        try:
            rows = read_artifact(path, "problems").to_pylist()
        except (OSError, ValueError) as exc:
            failures.append(f"{path}: cannot read: {exc}")
            continue
        for row in rows:
            ok, reason = check_row(row)
            label = f"{path}: {row['problem_id']}"
            print(f"{'ok  ' if ok else 'FAIL'} {label}: {reason}", flush=True)
            if not ok:
                failures.append(f"{label}: {reason}")
    if failures:
        print(f"\n{len(failures)} certificate(s) do not verify:", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    return 0
