"""Issue 35: problems whose constraint keeps every variable strictly inside its domain, at scales
where float-feasible points lie within a rounding error of the edge (x*y*z = 10^-12 lets a float
search put a variable at ~0). A correct answer is confirmed, a claim a relative 10^-6 off either way is never confirmed."""

from __future__ import annotations

import pytest
from support.problems import make_problem as make
from support.problems import pos

from extrembench.verify.validate import check_problem

NEAR_EDGE = [
    ("min", pos("xyz"), "x + y + z", "3/10^4", ["x*y*z = 10^(-12)"]),
    ("min", pos("xy"), "x + y", "2/10^5", ["x*y = 10^(-10)"]),
    ("min", pos("xy"), "x + 4*y", "4/10^3", ["x*y = 10^(-6)"]),
    ("max", pos("xyz"), "x*y*z", "1/27000000", ["x + y + z = 1/100"]),
    ("min", pos("xy"), "1/x + 1/y", "2*10^6", ["x + y = 2/10^6"]),
    ("min", pos("xyz"), "x^2 + y^2 + z^2", "3*10^(-8)", ["x*y*z = 10^(-12)"]),
]


@pytest.mark.parametrize("sense, variables, objective, answer, constraints", NEAR_EDGE)
def test_a_true_answer_near_the_edge_is_confirmed(sense, variables, objective, answer, constraints):
    result = check_problem(make(sense, variables, objective, answer, constraints))
    assert result.status == "confirmed", result.reason


@pytest.mark.parametrize("shift", ["1 + 10^(-6)", "1 - 10^(-6)"])
@pytest.mark.parametrize("sense, variables, objective, answer, constraints", NEAR_EDGE)
def test_a_claim_a_millionth_off_is_never_confirmed(sense, variables, objective, answer, constraints, shift):
    wrong = f"({answer})*({shift})"
    result = check_problem(make(sense, variables, objective, wrong, constraints))
    assert result.status in ("refuted", "inconclusive"), result.reason


# A one-point set forced by two inequalities (x + y <= 2 and xy >= 1 leave only (1, 1)): float-feasible
# points near it beat the true answer by ~1e-6, none exactly, and the check stops there instead of
# proving x - y <= 0 on the set. Issue 35, open: strict, so the marker must go when it is fixed.
@pytest.mark.xfail(strict=True, reason="issue 35: no proof is tried when only float-feasible points beat the claim")
def test_a_one_point_set_forced_by_inequalities_is_confirmed():
    result = check_problem(make("max", pos("xy"), "x - y", "0", ["x + y <= 2", "x*y >= 1"]))
    assert result.status == "confirmed", result.reason
