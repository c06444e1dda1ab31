"""Claims past the true extremum refuted by a level proof (bound tree or exact sos at a rational
level between the claim and the feasible values), and witnesses with closed-form coordinates."""

import copy

import pytest
from support.problems import make_problem as make
from support.problems import real

from extrembench.verify.provers.refutation import verify_refutation
from extrembench.verify.validate import check_problem

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
    # not a rational function (sos now proves a/b + b/c + c/a past 3): no sos identity, a bound tree
    problem = make("min", {n: "positive" for n in "abc"}, "sqrt(a/b) + sqrt(b/c) + sqrt(c/a)", "2.99")
    certificate = copy.deepcopy(level_certificate_of(problem))
    assert certificate["method"] == "bound"
    tree = certificate["trees"][0]
    k = next(i for i, token in enumerate(tree) if not token.startswith(("s", "f")))
    tree[k] = "u"  # a leaf claiming the objective is undefined on a box where it is defined
    ok, reason = verify_refutation(certificate, problem)
    assert not ok and "objective is defined" in reason, reason


CLOSED_FORM = [  # the witness needs pi or a square root: no rational point satisfies the equality
    make(
        "max",
        {"A": "positive", "B": "positive", "C": "positive"},
        "sin(A/2) + sin(B/2) + sin(C/2)",
        "1.49",
        ["A + B + C = pi"],
    ),
    make(
        "min",
        {"A": "positive", "B": "positive", "C": "positive"},
        "sin(A/2) + sin(B/2) + sin(C/2)",
        "1.5",
        ["A + B + C = pi"],
    ),  # infimum 1 (a degenerate triangle): refuted by a point near A = 0
    make("max", real("xyz"), "x*y*z", "0.17", ["x^2 + y^2 + z^2 = 1", "x + y = 1"]),  # max sqrt(2)/8
]


def _refuted_by_an_exact_witness(problem):
    result = check_problem(problem)
    assert result.status == "refuted", result.reason
    assert result.certificate["method"] == "witness"
    assert verify_refutation(result.certificate, problem)[0]


@pytest.mark.parametrize("problem", CLOSED_FORM, ids=lambda p: f"{p.sense} {p.objective}")
def test_closed_form_witnesses_refute(problem):
    _refuted_by_an_exact_witness(problem)


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


LEVELS = [  # (sense, claim, best value found): the level must lie exactly past the claim
    ("min", "0.999", 0.9999999999),  # the middle snapped onto the claim itself, a short decimal
    ("min", "-0.01", 0.0),
    ("max", "2.002", 2.0),
    ("min", "1.98", 2.0000000001),
    ("min", "1.998", 2.0),  # the float middle 1.999 lies a hair above the decimal 1.999
]


@pytest.mark.parametrize("sense, claim, best", LEVELS)
def test_the_level_lies_strictly_past_the_claim_and_leaves_most_of_the_gap(sense, claim, best):
    # the proof's slack is best - level: at least three quarters of the gap
    from fractions import Fraction

    from extrembench.problems.expr import parse_expression
    from extrembench.problems.problem import parse_problem
    from extrembench.verify.checker.refutation import beyond_level
    from extrembench.verify.provers.refutation import _level

    parsed = parse_problem(make(sense, real("x"), "x^2", claim))
    level = _level(parsed, parse_expression(claim, ()), best)
    assert level is not None and beyond_level(parsed, level, parse_expression(claim, ()))
    sign = 1 if sense == "min" else -1
    assert sign * (Fraction(best) - level) >= sign * (Fraction(best) - Fraction(claim)) * 3 / 4


CONES = [  # homogeneous objectives on sets closed under scaling: any nonzero claim is wrong
    make(
        "min",
        {n: "nonnegative" for n in "abc"},
        "a^3 + b^3 + c^3 + 3*a*b*c - a*b*(a + b) - b*c*(b + c) - c*a*(c + a)",
        "-0.01",
    ),  # Schur, min 0
    make("min", {n: "positive" for n in "ab"}, "1/(a*b) - 1/(a + b)^2", "-0.001"),  # degree -2, inf 0
    make("max", real("xy"), "-(x^2 + y^2)", "0.01", ["x >= y"]),
]


@pytest.mark.parametrize("problem", CONES, ids=lambda p: p.objective)
def test_a_nonzero_claim_on_a_homogeneous_problem_is_refuted_by_scaling(problem):
    result = check_problem(problem)
    assert result.status == "refuted", result.reason
    assert result.certificate["method"] == "scaling"
    assert verify_refutation(result.certificate, problem)[0]


NOT_SCALING = [  # (changed problem or certificate field, the reason the verifier gives)
    ({"degree": "2"}, "not homogeneous of degree 2"),
    ({"answer": "0", "claim": "0"}, "not shown to be nonzero"),
    ({"variables": {"a": "[1, 2]", "b": "nonnegative", "c": "nonnegative"}}, "not closed under scaling"),
    ({"constraints": ["a + b = 1"]}, "not a homogeneous relation"),
    ({"objective": "a^3 + b^2 + c"}, "not homogeneous"),
]


@pytest.mark.parametrize("change, why", NOT_SCALING)
def test_a_scaling_certificate_does_not_verify_for_a_changed_problem_or_degree(change, why):
    certificate = copy.deepcopy(check_problem(CONES[0]).certificate)
    spec = {
        "sense": "min",
        "variables": dict(CONES[0].variables),
        "constraints": [],
        "objective": CONES[0].objective,
        "answer": "-0.01",
    }
    for key, value in change.items():
        (certificate if key in certificate else spec)[key] = value
    ok, reason = verify_refutation(
        certificate, make(**{k: spec[k] for k in ("sense", "variables", "objective", "answer", "constraints")})
    )
    assert not ok and why in reason, reason


TWO_EQUALITIES = [  # systems no one-unknown solving makes exactly feasible (a cubic listed before a linear
    # equality; three nonlinear ones; cos of every variable)
    make(
        "max",
        {n: "positive" for n in "xyz"},
        "(x^4 + y^4 + z^4)/(x + y + z)^4",
        "(383 - 165*sqrt(5))/256",
        ["(x + y + z)^3 = 32*x*y*z", "x + y + z = 4"],
    ),  # max 9/128 at (2, 1, 1): the float point snapped
    make(
        "min",
        {n: "positive" for n in "xyz"},
        "(x^4 + y^4 + z^4)/(x + y + z)^4",
        "0.0558780613771",
        ["(x + y + z)^3 = 32*x*y*z", "x + y + z = 4"],
    ),  # min at x = y = golden ratio: closed forms
    make(
        "max",
        {n: "positive" for n in ("x0", "x1", "x2")},
        "x0",
        "1.998",
        ["x0 + 2/x0 = 2*x1 + 1/x1", "x1 + 2/x1 = 2*x2 + 1/x2", "x2 + 2/x2 = 2*x0 + 1/x0"],
    ),  # (2, 1, 1/2)
    make("min", real("xyz"), "cos(3*x) + cos(3*y) + cos(3*z)", "2", ["cos(x) + cos(y) + cos(z) = 0"]),  # all pi/2
    make(
        "max",
        {"a": "[1, inf)", "x": "nonnegative", "y": "[0, 1)"},
        "a",
        "1.1535",  # max 2/sqrt(3): a Groebner
        ["x < a", "a^2 + y^2 = 1 + x^2", "1 + x^2 = (a - x)^2 + (1 - y)^2"],
    ),  # basis gives two closed forms
]


@pytest.mark.parametrize("problem", TWO_EQUALITIES, ids=lambda p: f"{p.sense} {p.objective}")
def test_a_system_of_nonlinear_equalities_gets_an_exact_witness(problem):
    _refuted_by_an_exact_witness(problem)
