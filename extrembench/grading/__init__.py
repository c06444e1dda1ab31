"""Grading: final-answer extraction, equivalence (Math-Verify based, three modes), LLM judge.

The grade rule and `extrembench grade` both call `grade_many` / `grade_response`.
"""

from extrembench.grading.grade import GradeResult, grade_all_modes, grade_many, grade_response, modes_disagree
from extrembench.grading.modes import MODES, equivalent

GRADER_NAME = "extrembench-grader"
# Bump whenever a verdict on some input may change (extraction, equivalence or judge rules).
GRADER_VERSION = "1.0.2"  # 1.0.2: the judge's vote is read from its own nonce-marked last line

__all__ = [
    "GRADER_NAME",
    "GRADER_VERSION",
    "MODES",
    "GradeResult",
    "equivalent",
    "grade_all_modes",
    "grade_many",
    "grade_response",
    "modes_disagree",
]
