"""Rows of the PROBLEMS artifact for tests that need a problems table without running validate
(the generate stage against a server, verify-certificate, diff-runs): one builder with every column
of the schema, defaults of an ingested companion problem, the rest by keyword."""

from __future__ import annotations


def problem_row(problem_id: str, **fields) -> dict:
    row = {
        "benchmark": "t",
        "problem_id": problem_id,
        "source_path": f"{problem_id}.yaml",
        "source_sha256": "0" * 64,
        "statement": f"What is {problem_id}?",
        "answer": "1",
        "answer_type": "number",
        "sense": None,
        "technique": [],
        "difficulty": None,
        "spec_json": None,
        "status": "ingested",
        "reason": None,
        "best_value": None,
        "witness_json": None,
        "certificate": None,
        "certificate_kind": None,
        "certificate_verifier": None,
        "dag_node": "t",
    }
    unknown = set(fields) - set(row)
    if unknown:  # a misspelt column would otherwise only fail at the Parquet writer
        raise KeyError(f"not a PROBLEMS column: {sorted(unknown)}")
    row.update(fields)
    return row
