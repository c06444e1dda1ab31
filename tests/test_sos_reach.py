"""Shipped problems that were `numeric` only and that sos now proves (issue 26), each through the
body feature it needs: a signed denominator (body.denominator), witness scaling of the SDP,
independent coefficient equations after a failed solve, the two sides of |p| <= q constraints.
Each certificate verifies, fails once its answer moves by 1/1000, and a claim 1/1000 past the
answer gets no sos proof at all."""

import dataclasses
import json
from fractions import Fraction

import pytest
import sympy
from support.problems import make_problem as make
from support.problems import shipped

from extrembench.problems.problem import load_problem
from extrembench.verify.checker import sos
from extrembench.verify.checker.document import canonical, embed_spec, spec_problem
from extrembench.verify.checker.verify import verify
from extrembench.verify.checker.witness import parse_witness
from extrembench.verify.provers import sos as sos_search
from extrembench.verify.provers.certify import certify
from extrembench.verify.provers.routes import ROUTES
from extrembench.verify.validate import check_problem

SOS_ROUTES = tuple(route for route in ROUTES if route.checked_as == "sos")

# (problem id, what its proof needs: a body key, or how the SDP was found)
SHIPPED = [
    ("ineq-0105", "denominator"),  # IMO 2008/2(a): (x-1)^2 (y-1)^2 (z-1)^2 with xyz = 1
    ("ineq-0198", "denominator"),  # (a-b)^2 (b-c)^2 (c-a)^2 over all reals
    ("ineq-0291", "denominator"),  # (y - x)/(x + 4y): x + 4y of either sign, cleared
    ("ineq-0076", "independent rows"),  # abc <= 2: the face's 84 equations have rank 78
    ("ineq-0462", "abs sides"),  # |a_(k-1) - 2a_k + a_(k+1)| <= 1: a linear combination of the sides
    ("ineq-0123", "scaled"),  # the example: optimum at (1/3, 4/5, 3/2)
    ("ineq-0453", "scaled"),  # optimum at (3, 1, 2)
    ("ineq-0117", "scaled"),  # ISL 2010 A2, sorted a <= b <= c <= d, and independent rows too
    ("ineq-0518", "denominator"),  # and a face cut again with denominators <= 60 (2498/999 was 5/2)
    ("ineq-0429", "level"),  # min (11 + 5 sqrt(5))/2: the far side of 11/2
    ("ineq-0455", "kernel rounding"),  # China TST 2004: a face cut again with denominators <= 60
    ("ineq-0111", "denominator"),  # its face from the witness's 48 images, in square roots (x = X^2)
    ("ineq-0157", "lift"),  # IMO 1973/3: (a^2 + b^2 - 4/5)(1 + a^2 + b^2 + x^2) on the quartic
    ("ineq-0463", "lift"),  # x >= 1 on x >= y >= z, x + y + z = 1, x^2 + y^2 + z^2 = 3
    ("ineq-0400", "level"),  # min x = 3 + 2 sqrt(2): its level x >= 3 lifted
    ("ineq-0513", "lift"),  # Hoelder: xyz/((1 + x)(x + y)(y + z)(z + 16)) <= 1/81, lifted in squares
    ("ineq-0097", "weights"),  # min Max(a + b, b + c, c + d, d + e): (a + b + c + d + e)/3 + d/3 >= 1/3
    ("ineq-0212", "weights"),
    (
        "ineq-0520",
        "weights",
    ),  # max Min(x2 - x1, x3 - x2, x4 - x3) on the sphere: pieces -p_i  # min of a Max of seven Abs: (6 - x5) + (x6 - 3) = 3 + (x6 - x5) >= 3
]
# 20-40 s each to certify (most of it the exact projection): in the certificate test only
HEAVY = [("ineq-0136", "independent rows"), ("ineq-0425", "independent rows")]


def _path(pid):
    return shipped(pid)


@pytest.mark.slow  # a validator run per problem: 0.4-40 s each
@pytest.mark.parametrize("pid, needs", SHIPPED + HEAVY)
def test_shipped_problem_gets_a_verifying_sos_certificate(pid, needs):
    # the sos routes on the validator's witness: an earlier bound route may take the problem first
    # (ineq-0429 has a bound certificate since verifier 10), which says nothing about sos reaching it
    result = check_problem(_path(pid), seed=0, certify=False)
    assert result.status == "confirmed", result.reason
    certificate = json.loads(canonical(certify(load_problem(_path(pid)), result.witness, routes=SOS_ROUTES)))
    assert certificate["kind"] == "sos", certificate["body"].get("not_certified")
    if needs in ("denominator", "level", "weights", "lift"):
        assert needs in certificate["body"]
    ok, why = verify(certificate, embed_spec(load_problem(_path(pid))))
    assert ok, why
    moved = dict(certificate["spec"], answer=f"{certificate['spec']['answer']} + 1/1000")
    assert not verify({**certificate, "spec": moved})[0]


@pytest.mark.slow  # a validator run and the failing sos attempts per problem: 0.5-20 s each
@pytest.mark.parametrize("pid, _needs", SHIPPED)
def test_a_claim_just_past_the_answer_gets_no_sos_proof(pid, _needs):
    """min: answer + 1/1000 is above the minimum (max: below it), so no identity may exist."""
    problem = load_problem(_path(pid))
    result = check_problem(problem, seed=0)
    past = "+" if problem.sense == "min" else "-"
    wrong = dataclasses.replace(problem, answer=f"({problem.answer}) {past} 1/1000")
    parsed = spec_problem(embed_spec(wrong))
    exact = parse_witness(parsed, result.certificate["witness"])
    for squared in (False, True):
        body, why = sos_search.attempt(parsed, exact, squared=squared, extended=True)
        assert body is None and why, why


def test_witness_scaling_maps_the_identity_back_exactly():
    """The SDP in X = x / s finds the identity; the body holds it in x (Gram D G D): the checker,
    which knows nothing of scaling, re-checks it on the spec."""
    problem = load_problem(_path("ineq-0123"))
    parsed = spec_problem(embed_spec(problem))
    witness = {"a": "1/3", "b": "4/5", "c": "3/2"}
    exact = parse_witness(parsed, witness)
    assert sos_search._witness_scale(parsed, exact) == (Fraction(1, 3), Fraction(4, 5), Fraction(3, 2))
    body, why = sos_search.attempt(parsed, exact, extended=True)
    assert body is not None, why
    certificate = certify(problem, {k: float(Fraction(v)) for k, v in witness.items()})
    assert certificate["kind"] == "sos" and certificate["body"] == json.loads(canonical(body))
    assert verify(certificate)[0]


@pytest.mark.slow  # four SDP solves of ineq-0123's unscaled and scaled passes: ~1.7 s
def test_scaled_certificate_bytes_survive_solver_noise():
    from test_certificates import _perturbed_solver

    parsed = spec_problem(embed_spec(load_problem(_path("ineq-0123"))))
    exact = parse_witness(parsed, {"a": "1/3", "b": "4/5", "c": "3/2"})
    reference, why = sos_search.attempt(parsed, exact, extended=True)
    assert reference is not None, why
    for seed in range(3):
        noisy, why = sos_search.attempt(parsed, exact, solve=_perturbed_solver(seed, 1e-8), extended=True)
        assert noisy is not None and canonical(noisy) == canonical(reference), why


@pytest.mark.parametrize(
    "scale_of, expected",
    [
        ({"x": "0", "y": "1"}, None),  # nothing to scale
        ({"x": "-2", "y": "1/3"}, (Fraction(2), Fraction(1, 3))),
        ({"x": "sqrt(2)", "y": "0"}, (Fraction(17, 12), Fraction(1))),  # a short rational near it
    ],
)
def test_witness_scale(scale_of, expected):
    parsed = spec_problem(embed_spec(make("min", {"x": "real", "y": "real"}, "x^2 + y^2", "0")))
    assert sos_search._witness_scale(parsed, parse_witness(parsed, scale_of)) == expected


@pytest.mark.parametrize(
    "constraints, answer, proves",
    [
        (["Abs(x - 1) <= 1"], "2", True),  # x <= 2 from the side 1 - (x - 1) >= 0
        (["1 >= Abs(x - 1)"], "2", True),  # written the other way round
        (["Abs(x - 1) <= 1"], "1999/1000", False),  # past the answer
        (["Abs(x - 1) >= 1"], "2", False),  # not |p| <= q: no side is used, x is unbounded
    ],
)
def test_abs_constraints_give_their_two_sides(constraints, answer, proves):
    problem = make("max", {"x": "real"}, "x", answer, constraints)
    body, why = sos_search.attempt(spec_problem(embed_spec(problem)), None, extended=True)
    assert (body is not None) is proves, why
    if proves:
        extended = tuple(route for route in ROUTES if route.name == "sos, extended")  # alone: bound proves it too
        certificate = certify(problem, {"x": 2.0}, routes=extended)
        assert certificate["kind"] == "sos" and verify(certificate)[0]


FAR = [
    # min 1/a + 1/b on a + 2b = 1: 3 + 2 sqrt(2), the far side of 3
    (
        make("min", {"a": "positive", "b": "positive"}, "1/a + 1/b", "3 + 2*sqrt(2)", ["a + 2*b = 1"]),
        {"a": 0.4142135624, "b": 0.2928932188},
    ),
    # ineq-0429's objective: min (1 + b)(b + c)(1 + b + c)/(bc) = (11 + 5 sqrt(5))/2
    (
        make("min", {"b": "positive", "c": "positive"}, "(1 + b)*(b + c)*(1 + b + c)/(b*c)", "(11 + 5*sqrt(5))/2"),
        {"b": 0.6180339887, "c": 1.0},
    ),
]


@pytest.mark.parametrize("problem, witness", FAR)
def test_far_side_answer_certifies_with_a_level_identity(problem, witness):
    """min a + sqrt(K): (objective - a)^2 >= K, and objective >= a by an identity of its own
    (body.level); either alone proves nothing, so dropping or moving the level fails."""
    sos_routes = tuple(route for route in ROUTES if route.checked_as == "sos")  # bound proves the first too
    certificate = json.loads(canonical(certify(problem, witness, routes=sos_routes)))
    assert certificate["kind"] == "sos", certificate["body"].get("not_certified")
    body = certificate["body"]
    assert "level" in body and "square" in body
    ok, why = verify(certificate, embed_spec(problem))
    assert ok and "and objective -" in why, why
    without = {k: v for k, v in body.items() if k != "level"}
    assert not verify({**certificate, "body": without})[0]
    a = Fraction(body["square"][0])
    for forged in ([str(a + 1), body["square"][1]], [body["square"][0], str(Fraction(body["square"][1]) + 1)]):
        assert not verify({**certificate, "body": {**body, "square": forged}})[0], forged
    nested = {**body, "level": {**body["level"], "level": body["level"]}}
    assert not verify({**certificate, "body": nested})[0]
    moved = dict(certificate["spec"], answer=f"{certificate['spec']['answer']} + 1/1000")
    assert not verify({**certificate, "spec": moved})[0]


def test_far_side_claim_past_the_answer_gets_no_proof():
    problem, _ = FAR[1]
    wrong = dataclasses.replace(problem, answer="(11 + 5*sqrt(5))/2 + 1/1000")
    body, why = sos_search.attempt(spec_problem(embed_spec(wrong)), None, squared=True, extended=True)
    assert body is None and why, why


@pytest.mark.parametrize(
    "sense, objective, expected",
    [
        ("min", "Max(x, y + 1)", ["x", "y + 1"]),
        ("min", "Max(Abs(x - 1), y)", ["1 - x", "x - 1", "y"]),  # Max(|q|, ...) = Max(q, -q, ...)
        ("min", "Max(x, Max(y, 2*x))", ["2*x", "x", "y"]),
        ("max", "Min(x, y)", ["-x", "-y"]),  # min form: -Min(x, y) = Max(-x, -y)
        ("max", "Max(x, y)", None),  # a max of Max needs every piece bounded: not a weighted sum
        ("min", "Min(x, y)", None),
        ("max", "Min(Abs(x), y)", ["-y", "-Abs(x)"]),  # -|x| stays: its piece is not rational, no proof
    ],
)
def test_pieces_of_a_max_objective(sense, objective, expected):
    parsed = spec_problem(embed_spec(make(sense, {"x": "real", "y": "real"}, objective, "0")))
    pieces = sos.pieces_of(parsed)
    names = {s.name: s for s in parsed.symbols}
    if expected is None:
        assert pieces is None
    else:
        assert sorted(map(str, pieces)) == sorted(str(sympy.sympify(e, locals=names)) for e in expected)


@pytest.mark.slow  # a validator run of ineq-0097: ~1 s
def test_forged_weights_fail():
    problem = load_problem(_path("ineq-0097"))
    certificate = json.loads(canonical(check_problem(problem, seed=0).certificate))
    body = certificate["body"]
    assert verify(certificate)[0]
    k = len(body["weights"])
    for forged in (["0"] * k, ["-1"] + body["weights"][1:], body["weights"][:-1], ["1"] * k):
        ok, why = verify({**certificate, "body": {**body, "weights": forged}})
        assert not ok, forged
    assert not verify({**certificate, "body": {k: v for k, v in body.items() if k != "weights"}})[0]


@pytest.mark.slow  # the sos routes up to the lifted attempt: ~1 s
def test_a_lifted_multiplier_is_checked():
    """(1 + a^2 + b^2 + x^2) * (a^2 + b^2 - 4/5) >= 0 proves a^2 + b^2 >= 4/5 only with the 1 +:
    without it (plain Polya) the target is negative at the origin; past a power of 2 it is refused."""
    problem = make(
        "min", {"a": "real", "b": "real", "x": "real"}, "a^2 + b^2", "4/5", ["x^4 + a*x^3 + b*x^2 + a*x + 1 = 0"]
    )
    sos_routes = tuple(route for route in ROUTES if route.checked_as == "sos")
    certificate = json.loads(canonical(certify(problem, {"a": -0.8, "b": -0.4, "x": 1.0}, routes=sos_routes)))
    assert certificate["kind"] == "sos", certificate["body"].get("not_certified")
    body = certificate["body"]
    assert body["lift"] is True and body["polya"] == 1
    ok, why = verify(certificate, embed_spec(problem))
    assert ok and "times (1 + sum of the variables)^1" in why, why
    for forged in ({"lift": False}, {"lift": "yes"}, {"polya": 3}):
        assert not verify({**certificate, "body": {**body, **forged}})[0], forged
    moved = dict(certificate["spec"], answer="4/5 + 1/1000")
    assert not verify({**certificate, "spec": moved})[0]


def test_orbit_points_are_exact_zeros_only():
    """The witness's images under permutations and sign changes count only where the target, the
    equalities and the inequalities say so exactly: x^2 + 2 y^2 - 1 vanishes at (1, 0) and (-1, 0),
    not at (0, 1) or (0, -1)."""
    x, y = sympy.symbols("x y")
    target = {(2, 0): Fraction(1), (0, 2): Fraction(2), (0, 0): Fraction(-1)}
    points = sos_search._orbit({x: sympy.Integer(1), y: sympy.Integer(0)}, (x, y), target, [], [])
    assert points == [{x: -1, y: 0}]
    # an inequality x >= 0 (the g of a domain end) excludes (-1, 0)
    assert (
        sos_search._orbit({x: sympy.Integer(1), y: sympy.Integer(0)}, (x, y), target, [], [{(1, 0): Fraction(1)}]) == []
    )
