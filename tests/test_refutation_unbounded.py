"""`unbounded` refutation certificates: an exact feasible path along which the objective passes any
bound, built by the validator from its diverging search and re-checked symbolically (never sampled)."""

import copy

import pytest
from support.problems import make_problem as make
from support.problems import pos

from extrembench.verify.checker.verify import verify
from extrembench.verify.provers.refutation import verify_refutation
from extrembench.verify.validate import check_problem

# claims refuted because the objective is unbounded in the asked direction (2 to 5 variables)
UNBOUNDED = [
    # the max of (1 + 1/a)(1 + 1/b) on a + b = 1 is +oo (the min, 9, is the usual question)
    make("max", pos("ab"), "(1 + 1/a)*(1 + 1/b)", "9", ["a + b = 1"]),
    make("min", pos("abc"), "a + b - c", "-5", ["a*b*c = 1"]),
    make("min", pos("xyz"), "x*y*z - 1/(x*y)", "-1", ["x + y + z = 3"]),
    make(
        "min",
        {"x": "real", "y": "positive", "z": "positive", "w": "real"},
        "x^3 + y + z + w^2",
        "2",
        ["y*z = 1", "x + w = 0"],
    ),
    make("min", pos("abcde"), "c*d*e - a + b", "0", ["a*b = 1", "c + d + e = 3"]),
    make("max", {n: "real" for n in "xyzwv"}, "x^2 + y^2 - z*w - v", "100", ["x + y + z + w + v = 0"]),
]


@pytest.mark.parametrize("problem", UNBOUNDED, ids=lambda p: f"{p.sense}-{len(p.variables)}vars")
def test_check_refutes_an_unbounded_objective_with_an_exact_path(problem):
    result = check_problem(problem)
    assert result.status == "refuted"
    assert result.certificate["kind"] == "unbounded"
    assert verify_refutation(result.certificate, problem)[0]
    assert verify(
        result.certificate,
        {
            "sense": problem.sense,
            "variables": dict(problem.variables),
            "constraints": list(problem.constraints),
            "objective": problem.objective,
            "answer": problem.answer,
        },
    )[0]


ABC = make("min", pos("abc"), "a + b - c", "-5", ["a*b*c = 1"])
ABC_PATH = {
    "kind": "unbounded",
    "sense": "min",
    "claim": "-5",
    "path": {"a": "1/t", "b": "1/t", "c": "t^2"},
    "t0": "1",
    "verifier": "extrembench.verify.provers.refutation/1",
}


def test_a_hand_written_path_verifies():
    ok, why = verify_refutation(ABC_PATH, ABC)
    assert ok, why
    assert "t >= 1" in why


@pytest.mark.parametrize(
    "field, value, why",
    [
        ("path.c", "2*t^2", "does not hold identically"),  # the equality fails along the path
        ("path.a", "1/t^2", "does not hold identically"),
        ("path.c", "t^3", "does not hold identically"),
        ("t0", "0", "not proven inside its domain"),  # 1/t has a pole at t = 0, inside [0, oo)
        ("t0", "-1", "not proven inside its domain"),
        ("claim", "-6", "problem claims"),  # a certificate for another claim
    ],
)
def test_changing_one_number_breaks_the_certificate(field, value, why):
    certificate = copy.deepcopy(ABC_PATH)
    if field.startswith("path."):
        certificate["path"][field.split(".")[1]] = value
    else:
        certificate[field] = value
    ok, reason = verify_refutation(certificate, ABC)
    assert not ok
    assert why in reason


@pytest.mark.parametrize(
    "problem, path, t0, why",
    [
        # feasible at t0 = 1 (x = 9 > 0) but not for every t >= 1: decided on the whole ray, not sampled
        (make("min", {"x": "positive", "y": "real"}, "y", "0"), {"x": "10 - t", "y": "-t"}, "1", "x = 10 - t"),
        # the inequality holds at t = 1 and fails from t = 4 on
        (
            make("min", {"x": "real", "y": "real"}, "-x", "0", ["y >= x - 3", "y <= 0"]),
            {"x": "t", "y": "0"},
            "1",
            "y >= x - 3",
        ),
        # feasible, but the objective tends to +oo while the claim is a minimum
        (make("min", pos("ab"), "a + b", "1", ["a*b = 1"]), {"a": "t", "b": "1/t"}, "1", "does not tend to -oo"),
        # feasible, objective bounded along the path (tends to 2)
        (
            make("min", pos("ab"), "-(a + 1)/a - b", "0", ["a*b = 1"]),
            {"a": "t", "b": "1/t"},
            "1",
            "does not tend to -oo",
        ),
        # not a rational function of t: refused rather than sampled
        (make("min", pos("ab"), "-a", "0"), {"a": "exp(t)", "b": "1"}, "1", "not a rational function"),
    ],
)
def test_paths_that_are_not_proofs_do_not_verify(problem, path, t0, why):
    certificate = {
        "kind": "unbounded",
        "sense": problem.sense,
        "claim": problem.answer,
        "path": path,
        "t0": t0,
        "verifier": "extrembench.verify.provers.refutation/1",
    }
    ok, reason = verify_refutation(certificate, problem)
    assert not ok
    assert why in reason


def test_a_problem_variable_named_like_the_parameter_is_refused():
    problem = make("min", {"t": "positive", "b": "positive"}, "-t", "0")
    certificate = {
        "kind": "unbounded",
        "sense": "min",
        "claim": "0",
        "path": {"t": "t", "b": "1"},
        "t0": "1",
        "verifier": "extrembench.verify.provers.refutation/1",
    }
    ok, reason = verify_refutation(certificate, problem)
    assert not ok and "parameter" in reason
