"""The `date` field of a problem file (issue 40): when the source problem was set, as YYYY, YYYY-MM
or YYYY-MM-DD (an unquoted YAML date or year is read as one); anything else is refused naming the
field; it survives the file form (problem_to_dict) unchanged."""

from __future__ import annotations

import datetime

import pytest

from extrembench.problems.problem import ProblemError, problem_from_dict, problem_to_dict

BASE = {"id": "t", "sense": "min", "variables": {"x": "real"}, "objective": "x^2", "answer": "0"}


@pytest.mark.parametrize(
    "written, read",
    [
        ("2025", "2025"),
        ("2025-02", "2025-02"),
        ("2025-02-06", "2025-02-06"),
        (2025, "2025"),
        (datetime.date(2025, 2, 6), "2025-02-06"),
    ],
)
def test_a_date_is_read_and_written_back(written, read):
    problem = problem_from_dict({**BASE, "date": written})
    assert problem.date == read
    assert problem_from_dict(problem_to_dict(problem)).date == read


@pytest.mark.parametrize("written", ["2025-13", "2025-02-30", "25", "2025-2-6", True, "soon", 2025.5])
def test_anything_else_is_refused_naming_the_field(written):
    with pytest.raises(ProblemError, match=r"date: .*(not a date|not a calendar date)"):
        problem_from_dict({**BASE, "date": written})


def test_a_file_without_a_date_has_none_and_writes_none():
    problem = problem_from_dict(BASE)
    assert problem.date is None and "date" not in problem_to_dict(problem)
