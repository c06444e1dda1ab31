"""The grader case table (tests/data/grader_cases.jsonl) and the AMO-Bench reference check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import require_shared_data

from extrembench.grading import equivalent, grade_many
from extrembench.grading.extract import extract_answer

CASES_PATH = Path(__file__).parent / "data" / "grader_cases.jsonl"
CASES = [json.loads(line) for line in CASES_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]

# Every extraction item of the grading issue has rows in the table.
REQUIRED_RULES = {
    "think-closed",
    "think-only-closing",
    "think-truncated",
    "last-box",
    "nested-braces",
    "fbox",
    "final-answer-marker",
    "phrase-minimum",
    "expr-equals-value",
    "witness-skipped",
    "witness-only",
    "text-unit",
    "displaystyle",
    "left-right",
    "spacing",
    "dfrac",
    "tfrac",
    "thousands-separator",
    "unicode",
    "equivalence-number",
    "big-integer",
    "set-unordered",
    "interval",
    "variable-substitution",
}


def test_table_covers_every_rule_with_right_and_wrong_answers():
    assert len(CASES) >= 150
    assert {case["rule"] for case in CASES} >= REQUIRED_RULES
    statuses = {case["expected_status"] for case in CASES}
    assert {"correct", "wrong", "no_answer"} <= statuses


@pytest.mark.slow  # ~2 s
def test_case_table():
    results = grade_many(CASES, workers=2)
    mismatches = [
        (case["id"], case["rule"], result)
        for case, result in zip(CASES, results)
        if result.status != case["expected_status"]
        or ("expected_extracted" in case and result.extracted != case["expected_extracted"])
    ]
    assert mismatches == []


def _amo_rows():
    amo_dir = require_shared_data(("amo-bench",)) / "amo-bench"
    gold = [json.loads(line) for line in (amo_dir / "gold_from_reference_solutions.jsonl").open()]
    solutions = {
        row["question_id"]: row["model_response"]
        for row in map(json.loads, (amo_dir / "reference_solutions" / "example.jsonl").open())
    }
    return [(row, solutions[row["question_id"]]) for row in gold if row["answer_type"] != "description"]


@pytest.mark.parametrize("mode", ["default", "amo-official", "math-verify"])
def test_amo_reference_solutions_all_correct(mode):
    rows = _amo_rows()
    assert len(rows) == 39
    cases = [{"gold": row["answer"], "response": solution, "answer_type": row["answer_type"]} for row, solution in rows]
    results = grade_many(cases, mode=mode, workers=2, timeout=10)
    assert [row["question_id"] for (row, _), r in zip(rows, results) if r.correct is not True] == []


@pytest.mark.slow  # ~11 s
def test_amo_no_false_positive_against_other_gold():
    rows = _amo_rows()
    extracted = {row["question_id"]: extract_answer(solution, row["answer_type"]).answer for row, solution in rows}
    false_positives = [
        (own["question_id"], other["question_id"])
        for own, _ in rows
        for other, _ in rows
        if other["question_id"] != own["question_id"]
        and other["answer"] != own["answer"]
        and equivalent(other["answer"], extracted[own["question_id"]], answer_type=other["answer_type"])
    ]
    assert false_positives == []
