"""Public API of extrembench.grading: result shape, worker grading, hard timeout, errors."""

from __future__ import annotations

import pytest

from extrembench.grading import GRADER_NAME, GRADER_VERSION, MODES, GradeResult, grade_many, grade_response


def test_identity_constants():
    assert GRADER_NAME == "extrembench-grader"
    assert GRADER_VERSION.count(".") == 2
    assert MODES == ("default", "math-verify", "amo-official")


@pytest.mark.parametrize(
    ("gold", "response", "expected"),
    [
        ("3", "</think>The minimum is \\boxed{3}.", GradeResult(True, "3", "correct", "boxed")),
        ("3", "</think>The minimum is \\boxed{4}.", GradeResult(False, "4", "wrong", "boxed")),
        ("3", "<think>so it is \\boxed{3}", GradeResult(False, None, "no_answer", "think-truncated")),
    ],
)
def test_grade_response(gold, response, expected):
    assert grade_response(gold, response) == expected


def test_grade_many_keeps_order_and_types():
    cases = [
        {"gold": "2", "response": "\\boxed{2}"},
        {"gold": "\\{1,2\\}", "response": "\\boxed{\\{2,1\\}}", "answer_type": "set"},
    ]
    assert [r.correct for r in grade_many(cases, workers=2)] == [True, True]


def test_missing_field_is_a_clear_error():
    with pytest.raises(ValueError, match="missing field"):
        grade_many([{"id": "x", "response": "1"}])
