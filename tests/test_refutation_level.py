"""Claims past the true extremum refuted by a level proof (bound tree or exact sos at a rational
level between the claim and the feasible values), and witnesses with closed-form coordinates."""

import copy

import pytest

from extrembench.build.problem import problem_from_dict
from extrembench.build.refutation import verify_refutation
from extrembench.build.validate import check_problem


def make(sense, variables, objective, answer, constraints=()):
    return problem_from_dict({"id": "l", "sense": sense, "variables": variables, "constraints": list(constraints),
                              "objective": objective, "answer": answer})


def real(names):
    return {n: "real" for n in names}


BEYOND = [  # each claim lies 1/3 % past the true extremum, which the search never approaches
    make("min", real("xyz"), "x^2 + y^2 + z^2", "2.99", ["x + y + z = 3"]),
    make("min", {n: "positive" for n in "abc"}, "a/b + b/c + c/a", "2.99"),
    make("max", real("xy"), "x*y", "0.2505", ["x + y = 1"]),
    make("min", real("xyzw"), "x^2 + y^2 + z^2 + w^2 - x - y", "-0.501"),
]


@pytest.mark.parametrize("problem", BEYOND, ids=lambda p: p.objective)
def test_a_claim_past_the_extremum_is_refuted_by_a_level_proof(problem):
    result = check_problem(problem)
    assert result.status == "refuted", result.reason
    certificate = result.certificate
    assert certificate["method"] in ("bound", "sos")
    assert verify_refutation(certificate, problem)[0]


def level_certificate_of(problem):
    certificate = check_problem(problem).certificate
    assert certificate["method"] in ("bound", "sos")
    return certificate


def test_a_level_not_past_the_claim_does_not_verify():
    problem = BEYOND[0]
    certificate = copy.deepcopy(level_certificate_of(problem))
    certificate["level"] = "299/100"  # equal to the claim: the proof would not exclude the claim itself
    ok, reason = verify_refutation(certificate, problem)
    assert not ok and "not strictly past" in reason


def test_a_level_above_the_true_minimum_does_not_verify():
    problem = BEYOND[0]
    certificate = copy.deepcopy(level_certificate_of(problem))
    certificate["level"] = "301/100"  # true minimum 3: no proof of objective >= 3.01 can replay
    ok, _ = verify_refutation(certificate, problem)
    assert not ok


def test_one_changed_token_in_a_bound_tree_does_not_verify():
    problem = BEYOND[0]
    certificate = copy.deepcopy(level_certificate_of(problem))
    if certificate["method"] != "bound":
        pytest.skip("sos certificate")
    tree = certificate["trees"][0]
    k = next(i for i, token in enumerate(tree) if token.startswith("s"))
    head, _, point = tree[k].partition(":")
    tree[k] = f"{head}:{point}1"  # a different split point: the leaves below no longer match their boxes
    assert not verify_refutation(certificate, problem)[0]


CLOSED_FORM = [  # the witness needs pi or a square root: no rational point satisfies the equality
    make("max", {"A": "positive", "B": "positive", "C": "positive"}, "sin(A/2) + sin(B/2) + sin(C/2)", "1.49",
         ["A + B + C = pi"]),
    make("min", {"A": "positive", "B": "positive", "C": "positive"}, "sin(A/2) + sin(B/2) + sin(C/2)", "1.5",
         ["A + B + C = pi"]),  # infimum 1 (a degenerate triangle): refuted by a point near A = 0
    make("max", real("xyz"), "x*y*z", "0.17", ["x^2 + y^2 + z^2 = 1", "x + y = 1"]),  # max sqrt(2)/8
]


@pytest.mark.parametrize("problem", CLOSED_FORM, ids=lambda p: f"{p.sense} {p.objective}")
def test_closed_form_witnesses_refute(problem):
    result = check_problem(problem)
    assert result.status == "refuted", result.reason
    assert result.certificate["method"] == "witness"
    assert verify_refutation(result.certificate, problem)[0]


def test_a_changed_number_in_a_closed_form_coordinate_does_not_verify():
    problem = CLOSED_FORM[0]
    certificate = copy.deepcopy(check_problem(problem).certificate)
    name = next(n for n, v in certificate["point"].items() if isinstance(v, str) and "pi" in v)
    certificate["point"][name] = certificate["point"][name].replace("pi", "pi + 1/10**9")
    ok, reason = verify_refutation(certificate, problem)
    assert not ok and "exactly" in reason


def test_a_non_polynomial_equality_leaves_no_level_proof_but_no_validator_failure():
    # the reduction plan raised PolynomialError on cos(x) = y, and the whole check failed with it
    problem = make("max", {"x": "[0, 1]", "y": "real"}, "x + y", "1.6", ["y = cos(x)"])
    result = check_problem(problem)
    assert "validator failed" not in result.reason
    assert result.status in ("refuted", "inconclusive")
    if result.status == "refuted":
        assert verify_refutation(result.certificate, problem)[0]
