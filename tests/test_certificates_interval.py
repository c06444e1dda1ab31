"""The float interval arithmetic under the bound certificates: every enclosure contains the exact
value (checked with rationals or mpmath at 300 bits), exact results stay exact (a difference that
is 0 at a box end keeps its sign), and transcendental functions are widened past mpmath's hard
cases."""

import math
import random
from fractions import Fraction

import mpmath
import pytest
import sympy

from extrembench.verify.checker.interval import (
    Interval,
    Program,
    compile_enclosure,
    enclose_mp,
    interval,
    point,
)


def contains(box: Interval, value) -> bool:
    value = Fraction(value)
    return (box.a == -math.inf or Fraction(box.a) <= value) and (box.b == math.inf or value <= Fraction(box.b))


def _floats(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        if rng.random() < 0.3:
            yield float(rng.randint(-40, 40)) / 2 ** rng.randint(0, 6)
        else:
            yield rng.uniform(-10, 10) * 10.0 ** rng.randint(-6, 6)


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_arithmetic_encloses_the_exact_rational_result(op):
    values = list(_floats(7, 4000))
    for x, y in zip(values[::2], values[1::2]):
        if op == "/" and y == 0:
            continue
        exact = {
            "+": Fraction(x) + Fraction(y),
            "-": Fraction(x) - Fraction(y),
            "*": Fraction(x) * Fraction(y),
            "/": Fraction(x) / Fraction(y) if y else None,
        }[op]
        box = {
            "+": Interval(x, x) + Interval(y, y),
            "-": Interval(x, x) - Interval(y, y),
            "*": Interval(x, x) * Interval(y, y),
            "/": Interval(x, x) / Interval(y, y),
        }[op]
        assert contains(box, exact), (x, op, y, box)
        if Fraction(float(exact)) == exact:  # representable: no widening at all
            assert box.a == box.b == float(exact), (x, op, y, box)


@pytest.mark.parametrize(
    "lo, hi, n",
    [(-3.0, 2.0, 2), (-3.0, 2.0, 3), (0.1, 0.7, 5), (-0.7, -0.1, 4), (0.5, 3.0, -2), (-2.0, -0.5, -3), (1e-3, 1e3, 7)],
)
def test_integer_powers_enclose_every_point(lo, hi, n):
    box = interval(Fraction(lo), Fraction(hi)) ** n
    for t in (lo, hi, (lo + hi) / 2, 0.0):
        if lo <= t <= hi and not (t == 0 and n < 0):
            assert contains(box, Fraction(t) ** n)


@pytest.mark.parametrize(
    "p, q, at",
    [
        (1, 3, [0.0, 1e-9, 0.3, 2.0, 27.0, 1e12]),  # cbrt; 1e12 has the exact root 1e4
        (2, 5, [0.0, 0.3, 2.0, 1e7]),
        (-4, 3, [1e-3, 0.3, 2.0]),
        (1, 2, [0.0, 2.0, 4.0, 1e-8]),
    ],
)
def test_roots_enclose_the_true_value(p, q, at):
    x = sympy.Symbol("x")
    f = compile_enclosure(x ** sympy.Rational(p, q), [x])
    with mpmath.workprec(300):
        for t in at:
            box = f([Interval(t, t)])
            true = mpmath.root(mpmath.mpf(t), q) ** p
            assert mpmath.mpf(box.a) <= true <= mpmath.mpf(box.b), (p, q, t, box)
    assert f([Interval(4.0, 4.0)]).a > 0


def test_exp_at_an_hard_to_round_point_contains_the_true_value():
    """mpmath's exp rounded up at 53 bits lands BELOW the true value here (by 4e-20 relative):
    the enclosure steps outward once more."""
    t = -1.4354403615871498
    x = sympy.Symbol("x")
    box = compile_enclosure(sympy.exp(x), [x])([Interval(t, t)])
    with mpmath.workprec(300):
        true = mpmath.exp(mpmath.mpf(t))
        assert mpmath.mpf(box.a) <= true <= mpmath.mpf(box.b)


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "exp", "log"])
def test_transcendental_functions_enclose_random_boxes(name):
    x = sympy.Symbol("x")
    f = compile_enclosure(getattr(sympy, name)(x), [x])
    rng = random.Random(name)
    with mpmath.workprec(200):
        for _ in range(300):
            lo = rng.uniform(0.01, 1.5) if name in ("log", "tan") else rng.uniform(-6, 6)
            hi = lo + rng.random() * 10.0 ** rng.randint(-12, -1)
            box = f([Interval(lo, hi)])
            for t in (lo, hi, (lo + hi) / 2):
                true = getattr(mpmath, name)(mpmath.mpf(t))
                assert mpmath.mpf(box.a) <= true <= mpmath.mpf(box.b), (name, lo, hi, box)


def test_exact_differences_keep_their_sign_at_box_ends():
    """1 - 2a at a = 1/2 is exactly 0, so 1/(1 - 2a) on [1/4, 1/2] is [2, +inf], not everything."""
    a = sympy.Symbol("a")
    f = compile_enclosure(1 / (1 - 2 * a), [a])
    box = f([interval(Fraction(1, 4), Fraction(1, 2))])
    assert box.a == 2.0 and box.b == math.inf
    g = compile_enclosure(-a + 1, [a])([interval(Fraction(1, 3), Fraction(1))])
    assert g.a == 0.0


def test_program_shares_subexpressions_and_matches_single_enclosures():
    a, b = sympy.symbols("a b", positive=True)
    exprs = [(a + b) ** 3 / (a * b**2), sympy.diff((a + b) ** 3 / (a * b**2), a), sympy.sqrt(a**2 + b) - a]
    program = Program([a, b])
    handles = [program.add(e) for e in exprs]
    xs = [interval(Fraction(1, 3), Fraction(1, 2)), interval(Fraction(2), Fraction(5, 2))]
    run = program.run(xs)
    for handle, e in zip(handles, exprs):
        shared, alone = run.value(handle), compile_enclosure(e, [a, b])(xs)
        assert (shared.a, shared.b) == (alone.a, alone.b)


def test_point_is_the_tightest_float_interval():
    assert (point(Fraction(1, 2)).a, point(Fraction(1, 2)).b) == (0.5, 0.5)
    third = point(Fraction(1, 3))
    assert third.b == math.nextafter(third.a, math.inf) and contains(third, Fraction(1, 3))
    box = enclose_mp(sympy.pi, 300)
    with mpmath.workprec(400):
        assert box.a < +mpmath.pi < box.b and box.b - box.a < mpmath.mpf(2) ** -290


# (expression, box of x, lenient enclosure's ends or None when it raises): strict raises on every
# row whose box leaves the expression's real domain, and agrees with lenient on the others
@pytest.mark.parametrize(
    "text, lo, hi, ends, defined",
    [
        ("sqrt(x)", -1, 4, (0, 2), False),
        ("sqrt(x)", 1, 4, (1, 2), True),
        ("log(x)", 0, 1, None, False),
        ("1/x", -1, 1, None, False),
        ("x^(3/2)", 0, 4, (0, 8), True),
        ("tan(x)", 1, 2, None, False),
        ("Abs(x) + Max(x, 1)", -2, 1, (1, 3), True),
    ],
)
def test_strict_mp_enclosure_refuses_what_lenient_clips(text, lo, hi, ends, defined):
    from extrembench.problems.expr import parse_expression
    from extrembench.verify.checker.interval import Undefined, ctx

    expr = parse_expression(text, ["x"])
    box = {next(iter(expr.free_symbols)): ctx.mpf([lo, hi])}
    if ends is not None:
        lenient = enclose_mp(expr, 100, box)
        assert (float(lenient.a), float(lenient.b)) == ends
    if defined:
        strict = enclose_mp(expr, 100, box, strict=True)
        assert strict.a <= ends[0] and ends[1] <= strict.b and (float(strict.a), float(strict.b)) == ends
    else:
        with pytest.raises(Undefined):
            enclose_mp(expr, 100, box, strict=True)
