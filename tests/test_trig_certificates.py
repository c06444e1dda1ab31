"""The cos/sin substitution route: which variables it takes (a table, declines included), the
Chebyshev identities it relies on, certificates through it, and tampering with what it records."""

import copy
import math

import pytest
import sympy
from support.problems import make_problem as make

from extrembench.verify.checker.document import embed_spec, spec_problem
from extrembench.verify.checker.trig import _polynomial, plan
from extrembench.verify.checker.verify import verify
from extrembench.verify.provers.certify import certify
from extrembench.verify.provers.route import substitution

R, HALF, THIRD = "real", "[-pi/2, pi/2]", "[0, pi/3]"


@pytest.mark.parametrize(
    "variables, objective, constraints, expected",
    [
        (
            {"x": R, "y": R},
            "cos(3*x) + cos(y)",
            ["cos(x) + cos(y) = 0"],
            {"x": ["cos", "-1", "1"], "y": ["cos", "-1", "1"]},
        ),
        (
            {"w": HALF, "x": HALF},
            "sin(w)",
            ["cos(2*w) + sin(x) >= 0"],
            {"w": ["sin", "-1", "1"], "x": ["sin", "-1", "1"]},
        ),
        (
            {"x": THIRD, "y": "(0, pi)"},
            "cos(x) + sin(3*y) + cos(2*y)",
            [],
            {"x": ["cos", "1/2", "1"], "y": ["sin", "0", "1"]},
        ),
        ({"x": "[-pi/2, pi]", "y": R}, "sin(x) + y", [], {"x": ["sin", "-1", "1"]}),  # y is no trigonometric variable
        ({"x": R, "y": R}, "cos(x) + x + cos(y)", [], {"y": ["cos", "-1", "1"]}),  # x also occurs bare
        ({"x": "[0, pi]", "y": R}, "sin(x) + cos(x) + sin(2*y)", [], {}),  # no polynomial in either
        ({"x": "[0, 1]", "y": "[0, pi/4]"}, "cos(x) + cos(y)", [], {}),  # images with irrational ends
        ({"x": R, "y": R}, "cos(x/2) + cos(x) + cos(x + y)", [], {}),  # not an integer multiple of one variable
        ({"x": R, "y": R}, "tan(x) + cos(x) + cos(y)", ["x + y = 1"], {}),
    ],
)
def test_plan(variables, objective, constraints, expected):
    assert plan(spec_problem(embed_spec(make("min", variables, objective, "0", constraints)))) == expected


def test_a_substitution_whose_text_the_parser_refuses_is_no_route():
    parsed = spec_problem(embed_spec(make("min", {"x": R}, "cos(90*x)", "-1")))  # T_90 is past 1,000 characters
    assert plan(parsed) == {"x": ["cos", "-1", "1"]} and substitution(parsed) == ({}, parsed, {})
    parsed = spec_problem(
        embed_spec(make("min", {"x": "[0, 10^12*pi]"}, "cos(x)", "-1"))
    )  # no walk over its 10^12 extremes
    assert substitution(parsed)[0] == {"x": ["cos", "-1", "1"]}


@pytest.mark.parametrize("by", ["cos", "sin"])
def test_polynomials_are_the_multiple_angle_identities(by):
    v = sympy.Symbol("v")
    for fn in ("cos", "sin"):
        for k in range(-6, 7):
            poly = _polynomial(by, fn, k, v) if k else None
            if poly is None:
                continue
            at = getattr(sympy, by)(v)
            difference = sympy.expand_trig(getattr(sympy, fn)(k * v)) - poly.subs(v, at)
            assert sympy.simplify(difference) == 0, (by, fn, k)
    assert _polynomial("cos", "sin", 1, v) is None and _polynomial("sin", "cos", 1, v) is None


CASES = [  # (problem, approximate witness, kind)
    (
        make("max", {"x": R, "y": R}, "cos(2*x) + cos(2*y)", "0", ["cos(x) + cos(y) = 1"]),
        {"x": 0.0, "y": math.pi / 2},
        "sos",
    ),
    (
        make(
            "min", {"x": R, "y": R, "z": R}, "cos(2*x) + cos(2*y) + cos(2*z)", "-7/3", ["cos(x) + cos(y) + cos(z) = 1"]
        ),
        dict.fromkeys("xyz", math.acos(1 / 3)),
        "sos",
    ),
    (
        make("max", {"w": HALF, "x": HALF}, "sin(w)", "3/4", ["sin(w) + sin(x) = 1", "cos(2*w) + cos(2*x) >= 3/4"]),
        {"w": math.asin(3 / 4), "x": math.asin(1 / 4)},
        "sos",
    ),
    (
        make("min", {"x": THIRD, "y": THIRD}, "cos(2*x) + cos(2*y)", "1/4", ["cos(x) + cos(y) >= 3/2"]),
        dict.fromkeys("xy", math.acos(3 / 4)),
        "sos",
    ),  # a box of [1/2, 1]
    (
        make("max", {"x": "(0, pi)", "y": "(0, pi)"}, "sin(x) + sin(y) + cos(2*x)", "17/8"),
        {"x": math.asin(1 / 4), "y": math.pi / 2},
        "sos",
    ),  # sin is not monotone on (0, pi)
    (
        make("max", {"x": R, "y": R}, "sqrt(1 + cos(x)) + sqrt(1 + cos(y))", "sqrt(6)", ["cos(x) + cos(y) = 1"]),
        dict.fromkeys("xy", math.pi / 3),
        "bound",
    ),  # irrational answer: no sos
]


def _tampered(certificate):
    body = certificate["body"]
    name = next(iter(body["substitution"]))
    by, lo, hi = body["substitution"][name]
    out = []
    for change in ("box", "function", "polynomial", "dropped"):
        doc = copy.deepcopy(certificate)
        if change == "box":
            doc["body"]["substitution"][name] = [by, lo, "2"]
        elif change == "function":
            doc["body"]["substitution"][name] = ["sin" if by == "cos" else "cos", lo, hi]
        elif change == "polynomial":  # e.g. T_2 written as 2c^2 + 1
            doc["body"]["polynomial"][0] = f"({doc['body']['polynomial'][0]}) + {name}^3"
        else:
            del doc["body"]["substitution"]
        out.append(doc)
    return out


@pytest.mark.parametrize("problem, witness, kind", CASES)
def test_substituted_certificates_verify_and_tampering_fails(problem, witness, kind):
    certificate = certify(problem, witness)
    assert certificate["kind"] == kind, certificate["body"].get("not_certified")
    ok, reason = verify(certificate, embed_spec(problem))
    assert ok, reason
    for doc in _tampered(certificate):
        assert not verify(doc)[0]


def test_a_wrong_answer_never_certifies_through_the_substitution():
    problem, witness, _ = CASES[1]
    for claim in ("-2.334", "-2.333"):  # below the minimum -7/3 (no witness attains it), above it (no proof)
        wrong = make(problem.sense, problem.variables, problem.objective, claim, problem.constraints)
        assert certify(wrong, witness)["kind"] == "numeric"
