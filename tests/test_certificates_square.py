"""sos for answers a + sqrt(K) (max) or a - sqrt(K) (min) through the target K - (objective - a)^2,
for Abs objectives (K - p^2) and for Abs terms whose signs a chain x <= y <= z fixes: what
certifies, what must decline, and that a tampered a, K or spec fails verification."""

import json

import pytest
import sympy
from support.problems import make_problem as make

from extrembench.verify.checker import sos, symmetry
from extrembench.verify.checker.document import canonical, embed_spec, spec_problem
from extrembench.verify.checker.verify import verify
from extrembench.verify.provers import sos as sos_search
from extrembench.verify.provers.certify import certify
from extrembench.verify.provers.routes import ROUTES

R3 = {v: "real" for v in ("x1", "x2", "x3")}
R5 = {f"x{i}": "real" for i in range(1, 6)}


def parsed(problem):
    return spec_problem(embed_spec(problem))


S3, Q3 = "x1 + x2 + x3 = 3", "x1^2 + x2^2 + x3^2 = 5"
S5, Q5 = "x1 + x2 + x3 + x4 + x5 = 5", "x1^2 + x2^2 + x3^2 + x4^2 + x5^2 = 9"
SPHERE = "x1^2 + x2^2 + x3^2 = 1"
# (problem, approximate witness, [a, K])
CASES = [
    # the largest of three reals with given sum and sum of squares (Cauchy-Schwarz on the others)
    (
        make("max", R3, "x3", "1 + 2*sqrt(3)/3", [S3, Q3]),
        {"x1": 0.4226497308, "x2": 0.4226497308, "x3": 2.1547005384},
        ["1", "4/3"],
    ),
    # the smallest of five: min with a - sqrt(K)
    (
        make("min", R5, "x1", "1 - 4*sqrt(5)/5", [S5, Q5]),
        {"x1": -0.7888543820, "x2": 1.4472135955, "x3": 1.4472135955, "x4": 1.4472135955, "x5": 1.4472135955},
        ["1", "16/5"],
    ),
    # max |p|: K - p^2, with an irrational and with a rational answer
    (
        make("max", R3, "Abs(x1 + 2*x2)", "sqrt(5)", [SPHERE]),
        {"x1": 0.4472135955, "x2": 0.8944271910, "x3": 0.0},
        ["0", "5"],
    ),
    (
        make("max", {"x": "real", "y": "real"}, "Abs(x*y*(x^2 - y^2))", "1/4", ["x^2 + y^2 = 1"]),
        {"x": 0.9238795325, "y": 0.3826834324},
        ["0", "1/16"],
    ),
    # a sum of Abs whose signs the chain x1 <= x2 <= x3 fixes: 2*(x3 - x1) on the sphere
    (
        make("max", R3, "Abs(x1 - x2) + Abs(x2 - x3) + Abs(x1 - x3)", "2*sqrt(2)", ["x1 <= x2", "x2 <= x3", SPHERE]),
        {"x1": -0.7071067812, "x2": 0.0, "x3": 0.7071067812},
        ["0", "8"],
    ),
    # no chain, but a problem invariant under every permutation has its maximum on x1 <= x2 <= x3
    # too; the witness off that chain is no zero of the resolved target, so its kernel is not used
    (
        make("max", R3, "Abs(x1 - x2) + Abs(x2 - x3) + Abs(x1 - x3)", "2*sqrt(2)", ["x1 + x2 + x3 = 0", SPHERE]),
        {"x1": 0.7071067812, "x2": 0.0, "x3": -0.7071067812},
        ["0", "8"],
    ),
    # the optimum at y = 0 with a, x irrational: the rounded numeric kernel misses z(witness), the
    # witness's rational parts give it exactly (without them: no grid gives a semidefinite Gram)
    (
        make(
            "max",
            {"a": "[2, inf)", "x": "nonnegative", "y": "[0, 2)"},
            "a",
            "4*sqrt(3)/3",
            ["x < a", "a^2 + y^2 = 4 + x^2", "4 + x^2 = (a - x)^2 + (2 - y)^2"],
        ),
        {"a": 2.3094010768, "x": 1.1547005384, "y": 0.0},
        ["0", "16/3"],
    ),
]


# bound (tried before the squared sos) proves some of these too, so it is left out
SOS_ONLY = tuple(route for route in ROUTES if route.checked_as == "sos")


@pytest.mark.parametrize("problem, witness, square", CASES)
def test_squared_target_certifies_and_tampering_fails(problem, witness, square):
    certificate = json.loads(canonical(certify(problem, witness, routes=SOS_ONLY)))
    assert certificate["kind"] == "sos", certificate["body"].get("not_certified")
    body = certificate["body"]
    assert body["square"] == square
    ok, why = verify(certificate, embed_spec(problem))
    assert ok and f"{square[1]} - (objective - {square[0]})^2" in why, why
    a, K = (sympy.Rational(x) for x in square)
    for forged in ([str(a + 1), square[1]], [square[0], str(K + 1)], [str(a + 1), str(K)], square[:1]):
        assert not verify({**certificate, "body": {**body, "square": forged}})[0], forged
    plain = {k: v for k, v in body.items() if k != "square"}
    assert not verify({**certificate, "body": plain})[0]
    moved = dict(certificate["spec"], answer=certificate["spec"]["answer"] + " + 1/1000")
    assert not verify({**certificate, "spec": moved})[0]


def test_abs_signs_come_from_the_spec_not_the_certificate():
    """Without x1 <= x2 in the spec, Abs(x1 - x2) keeps its Abs: the same body proves nothing."""
    problem, witness, _ = CASES[4]
    certificate = certify(problem, witness, routes=SOS_ONLY)
    spec = dict(certificate["spec"], constraints=["x2 <= x3", SPHERE])
    ok, why = verify({**certificate, "spec": spec})
    assert not ok and "not a rational function" in why


def test_symmetry_comes_from_the_spec():
    """x1 with a domain of its own breaks the symmetry: the sorted chain, and with it the proof, is gone."""
    problem, witness, _ = CASES[5]
    certificate = certify(problem, witness, routes=SOS_ONLY)
    assert certificate["kind"] == "sos" and verify(certificate)[0]
    spec = dict(certificate["spec"], variables={**certificate["spec"]["variables"], "x1": "[-1, 1]"})
    ok, why = verify({**certificate, "spec": spec})
    assert not ok and "not a rational function" in why


@pytest.mark.parametrize(
    "variables, objective, constraints, expected",
    [
        ("real", "Abs(x - y) + Abs(y - z) + Abs(x - z)", ["x + y + z = 0", "x^2 + y^2 + z^2 = 1"], True),
        ("real", "Abs(x - y) + Abs(y - z)", [], False),
        ("real", "Abs(x - y) + Abs(y - z) + Abs(x - z)", ["x + 2*y + z = 0"], False),
        ("real", "x*y*z", ["1 <= x*y*z", "x + y + z >= 0"], True),  # sides swapped: the same constraint
        ("real", "x*y*z", ["x - y <= 1", "y - x <= 1"], False),  # z is in no such pair
        ("real", "x*y*z", ["x - y = 0", "y - z = 0", "z - x = 0"], True),  # an equality matches up to its sign
        ("real", "x*y*z", ["x - y = 0"], False),
        ({"x": "positive", "y": "real", "z": "real"}, "x + y + z", [], False),
    ],
)
def test_symmetry_is_checked_exactly(variables, objective, constraints, expected):
    variables = variables if isinstance(variables, dict) else {v: variables for v in "xyz"}
    problem = parsed(make("max", variables, objective, "1", constraints))
    assert symmetry.symmetric(problem, problem.symbols) is expected


@pytest.mark.parametrize(
    "problem, why",
    [
        # feasible set {-3} u [1 - sqrt(2), 1 + sqrt(2)]: the answer 1 + sqrt(2) is right, but at x = -3
        # (x - 1)^2 = 16 > 2, so no certificate of 2 - (x - 1)^2 >= 0 exists: the range is not symmetric
        (make("max", {"x": "[-3, 10]"}, "x", "1 + sqrt(2)", ["(x + 3)*(1 + 2*x - x^2) >= 0"]), "SDP"),
        (make("max", R3, "x1 + x2 + x3", "3 - sqrt(2)"), "a + sqrt(K)"),  # max on the - side
        (make("min", {"a": "positive", "b": "positive"}, "1/a + 1/b", "3 + 2*sqrt(2)", ["a + 2*b = 1"]), "a + sqrt(K)"),
        (make("max", R3, "x1", "sqrt(2) + sqrt(3)", [SPHERE]), "a + sqrt(K)"),  # not a quadratic irrational
        (make("max", R3, "x1", "2", [SPHERE]), "a + sqrt(K)"),  # rational: the plain route's
    ],
)
def test_squared_route_declines(problem, why):
    body, reason = sos_search.attempt(parsed(problem), None, squared=True)
    assert body is None and why in reason, reason


@pytest.mark.parametrize(
    "objective, constraints, expected",
    [
        ("Abs(x - y)", ["x <= y"], "y - x"),
        ("Abs(x - y)", ["x >= y"], "x - y"),
        ("Abs(x - z) + Abs(z - y)", ["x <= y", "y < z"], "2*z - x - y"),  # through the chain
        ("Abs(2*x - 2*y)", ["y >= x"], "2*y - 2*x"),
        ("Abs(x - y)", ["x <= y + 1"], "Abs(x - y)"),  # not a chain of variables
        ("Abs(x + y)", ["x <= y"], "Abs(x + y)"),
        ("Abs(x - y)", ["x = y"], "Abs(x - y)"),  # equalities are not used
        ("Abs(x - z)", ["x <= y"], "Abs(x - z)"),
        ("Abs(x - y) + Abs(y - z) + Abs(x - z)", [], "2*z - 2*x"),  # symmetric: sorted x <= y <= z
        ("Abs(x - y) + z", [], "Abs(x - y) + z"),  # not symmetric
    ],
)
def test_abs_resolved_only_where_a_chain_fixes_the_sign(objective, constraints, expected):
    problem = make("max", {v: "real" for v in "xyz"}, objective, "1", constraints)
    p = parsed(problem)
    names = {s.name: s for s in p.symbols}
    assert sympy.expand(sos._objective(p) - sympy.sympify(expected, locals=names)) == 0


@pytest.mark.parametrize(
    "sense, objective, answer, square",
    [
        ("max", "x", "1 + sqrt(3)", ("1", "3")),
        ("min", "x", "(383 - 165*sqrt(5))/256", ("383/256", "136125/65536")),
        ("max", "Abs(x*y)", "9*sqrt(2)/32", ("0", "81/512")),
        ("max", "Abs(x*y)", "3", ("0", "9")),
        ("max", "x", "1 - sqrt(2)", None),
        ("min", "x", "1 + sqrt(2)", None),
        ("max", "x", "8/cbrt(7)", None),
        ("max", "x", "3", None),
    ],
)
def test_square_of_the_answer(sense, objective, answer, square):
    assert sos.square_of(parsed(make(sense, {"x": "real", "y": "real"}, objective, answer))) == square


R2 = sympy.sqrt(2)
X, Y = sympy.symbols("x y")


@pytest.mark.parametrize(
    "basis, g, at, expected",
    [
        # z = (1, x, y) at (1 + sqrt(2), sqrt(3)): parts 1, sqrt(2), sqrt(3)
        ([(0, 0), (1, 0), (0, 1)], {(0, 0): 1}, {X: 1 + R2, Y: sympy.sqrt(3)}, [[1, 1, 0], [0, 1, 0], [0, 0, 1]]),
        ([(0, 0), (2, 0)], {(0, 0): 1}, {X: R2, Y: 0}, [[1, 2]]),  # x^2 = 2 is rational
        ([(0, 0), (1, 0)], {(1, 0): 1}, {X: 0, Y: 1}, []),  # g = x is 0 there: no condition
        ([(0, 0), (1, 0)], {(1, 0): -1}, {X: 1, Y: 1}, []),  # g < 0: not a witness of this block
        ([(0, 0), (1, 0)], {(0, 0): 1}, {X: sympy.cbrt(2), Y: 0}, []),  # not a sum of square roots
    ],
)
def test_witness_zero_gives_the_rational_kernel_parts(basis, g, at, expected):
    from fractions import Fraction

    g = {m: Fraction(c) for m, c in g.items()}
    assert sorted(sos_search._vanishing(basis, g, (X, Y), at)) == sorted(
        [[Fraction(v) for v in row] for row in expected]
    )


@pytest.mark.parametrize("problem, witness, square", CASES)
def test_squared_certificate_bytes_survive_solver_noise(problem, witness, square):
    from test_certificates import _perturbed_solver

    from extrembench.verify.provers.witness import find_witness

    p = parsed(problem)
    exact = find_witness(p, witness)
    reference, why = sos_search.attempt(p, exact, squared=True)
    assert reference is not None, why
    for seed in range(4):
        assert canonical(
            sos_search.attempt(p, exact, solve=_perturbed_solver(seed, 1e-8), squared=True)[0]
        ) == canonical(reference)
