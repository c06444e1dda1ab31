"""Sorted symmetric groups: which groups the exact check finds (a table, declines included),
certificates that need the ordering, and a recorded ordering the problem does not allow."""

import copy

import pytest

from extrembench.problems.problem import problem_from_dict
from extrembench.verify.checker.document import embed_spec, spec_problem
from extrembench.verify.checker.verify import verify
from extrembench.verify.provers.certify import certify
from extrembench.verify.provers.routes import ROUTES
from extrembench.verify.provers.symmetry import groups

R = "real"
SOS_ROUTES = tuple(route for route in ROUTES if route.checked_as == "sos")


def make(sense, variables, objective, answer, constraints=()):
    if isinstance(variables, str):
        variables = dict.fromkeys(variables.split(), R)
    return problem_from_dict(
        {
            "id": "t",
            "sense": sense,
            "variables": variables,
            "constraints": list(constraints),
            "objective": objective,
            "answer": answer,
        }
    )


@pytest.mark.parametrize(
    "variables, objective, constraints, expected",
    [
        ("x y z", "Max(x, y, z)", ["x + y + z = 0"], [["x", "y", "z"]]),
        ("x y z", "Max(x, y, z)", ["x + y + 2*z = 0"], [["x", "y"]]),  # z is tied to the constraint
        ("x y z", "Max(x, y, z)", ["x <= y"], []),  # an order the swap reverses
        ("x y z", "Abs(x - y) + Abs(y - z)", [], [["x", "z"]]),  # objective symmetric in x, z only
        ({"x": "positive", "y": R}, "Max(x, y)", [], []),  # different domains
        ("x y z w", "x*y + z*w", [], [["x", "y"], ["z", "w"]]),
        ("x y", "x + y", ["x^2 = y^2 + 1", "y^2 = x^2 + 1"], [["x", "y"]]),  # constraints swap with each other
        ("x y", "x + y", ["x^2 - y^2 = 1"], []),  # an equality flips its sign: another set
        ("x y z", "(x - y)^2*(y - z)^2*(z - x)^2", ["x + y + z >= 1"], [["x", "y", "z"]]),  # equal once expanded
    ],
)
def test_groups(variables, objective, constraints, expected):
    assert groups(spec_problem(embed_spec(make("min", variables, objective, "0", constraints)))) == expected


CASES = [  # (problem, approximate witness): each certifies only on the sorted group
    (
        make(
            "max",
            "x1 x2 x3 x4",
            "Max(x1, x2, x3, x4)*Min(x1, x2, x3, x4)",
            "-1/4",
            ["x1 + x2 + x3 + x4 = 0", "x1^2 + x2^2 + x3^2 + x4^2 = 1"],
        ),
        {"x1": -0.5, "x2": -0.5, "x3": 0.5, "x4": 0.5},
    ),
    (
        make(
            "max",
            "a b c d",
            "Max(a, b, c, d)*Min(a, b, c, d)",
            "-1",
            ["a + b + c + d = 0", "a^2 + b^2 + c^2 + d^2 = 4"],
        ),
        {"a": 1.0, "b": -1.0, "c": 1.0, "d": -1.0},
    ),
    (
        make(
            "min",
            "a b c",
            "Max(a, b, c) - Min(a, b, c)",
            "2",
            ["a + b + c = 0", "Max(a, b, c) >= 1", "Min(a, b, c) <= -1"],
        ),
        {"a": -1.0, "b": 0.0, "c": 1.0},
    ),
]


@pytest.mark.parametrize("problem, witness", CASES)
@pytest.mark.slow  # ~3 s
def test_ordered_certificates_verify_and_a_wrong_group_fails(problem, witness):
    # the sos routes only: with 4500 boxes the plain box search proves the first case too
    certificate = certify(problem, witness, routes=SOS_ROUTES)
    assert certificate["kind"] == "sos", certificate["body"].get("not_certified")
    assert certificate["body"]["ordered"] == [list(problem.variables)]
    ok, reason = verify(certificate, embed_spec(problem))
    assert ok, reason
    for chains in ([list(problem.variables)[:2]], [], "x", [["x1", "x1"]]):
        doc = copy.deepcopy(certificate)
        doc["body"]["ordered"] = chains
        assert not verify(doc)[0]
    # a constraint only one order satisfies (true at the witness): the recorded group is no symmetry
    first, last = list(problem.variables)[0], list(problem.variables)[-1]
    doc = copy.deepcopy(certificate)
    doc["spec"]["constraints"].append(f"{first} <= {last} + 100")
    ok, reason = verify(doc)
    assert not ok and "changes the problem" in reason, reason


def test_a_problem_symmetric_but_for_one_constraint_is_not_sorted():
    problem = make(
        "max",
        "a b c d",
        "Max(a, b, c, d)*Min(a, b, c, d)",
        "-1",
        ["a + b + c + d = 0", "a^2 + b^2 + c^2 + d^2 = 4", "Max(a, b, c, d) <= 2*d"],
    )
    certificate = certify(problem, {"a": -1.0, "b": -1.0, "c": 1.0, "d": 1.0})
    assert groups(spec_problem(embed_spec(problem))) == [["a", "b", "c"]]
    assert certificate["kind"] == "numeric"


def test_a_wrong_answer_never_certifies_through_the_ordering():
    problem, witness = CASES[0]
    for claim in ("-0.2500001", "-0.2499999"):
        wrong = make(problem.sense, problem.variables, problem.objective, claim, problem.constraints)
        assert certify(wrong, witness)["kind"] == "numeric"
