"""Rigorous interval enclosures of parsed expressions (mpmath's interval context, outward rounding).

Why mpmath.iv and not arb balls: tails to infinity need half-infinite intervals ([1, +inf] and
1/[0, d] = [1/d, +inf]), which balls cannot represent. Expressions come from the safe parser
(extrembench.build.expr), so the node types below are the whole vocabulary plus what sympy's
differentiation of it produces (sign, Heaviside). A node outside it raises Unsupported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import mpmath
import sympy

PRECISION_BITS = 53
ctx = mpmath.MPIntervalContext()  # a context of our own: another module's iv.prec never changes ours
ctx.prec = PRECISION_BITS

Interval = object  # ctx.mpf instances
Enclosure = Callable[[Sequence[Interval]], Interval]


class Unsupported(ValueError):
    """An expression node this module cannot enclose rigorously."""


class Undefined(ArithmeticError):
    """The expression is undefined (not real) on the whole box: no valid point lies in it."""


def point(value: Fraction | int) -> Interval:
    """The tightest interval around an exact rational."""
    value = Fraction(value)
    return ctx.mpf(value.numerator) / value.denominator


def interval(lo: Fraction | None, hi: Fraction | None) -> Interval:
    """[lo, hi] enclosed outward; None is an infinite end."""
    low = point(lo).a if lo is not None else ctx.mpf("-inf").a
    high = point(hi).b if hi is not None else ctx.mpf("inf").b
    return ctx.mpf([low, high])


def lower(x: Interval) -> float:
    return float(x.a)


def upper(x: Interval) -> float:
    return float(x.b)


def _abs(x: Interval) -> Interval:
    lo, hi = x.a, x.b
    if lo >= 0:
        return x
    if hi <= 0:
        return -x
    return ctx.mpf([0, max(-lo, hi)])


def _sqrt(x: Interval) -> Interval:
    # points where the radicand is negative are not real points of the problem: enclose the rest
    if x.b < 0:
        raise Undefined("square root of a negative number on the whole box")
    return ctx.sqrt(ctx.mpf([max(x.a, 0), x.b]))


def _log(x: Interval) -> Interval:
    if x.b <= 0:
        raise Undefined("logarithm of a non-positive number on the whole box")
    return ctx.log(ctx.mpf([max(x.a, 0), x.b]))


def _sign(x: Interval) -> Interval:
    if x.a > 0:
        return ctx.mpf(1)
    if x.b < 0:
        return ctx.mpf(-1)
    return ctx.mpf([-1 if x.a < 0 else 0, 1 if x.b > 0 else 0])


def _heaviside(x: Interval) -> Interval:
    if x.a > 0:
        return ctx.mpf(1)
    if x.b < 0:
        return ctx.mpf(0)
    return ctx.mpf([0, 1])


def _max(*xs: Interval) -> Interval:
    return ctx.mpf([max(x.a for x in xs), max(x.b for x in xs)])


def _min(*xs: Interval) -> Interval:
    return ctx.mpf([min(x.a for x in xs), min(x.b for x in xs)])


def _rational_power(base: Interval, exponent: Fraction) -> Interval:
    if exponent.denominator == 1:
        return base ** int(exponent)
    if exponent.denominator == 2:
        root = _sqrt(base)
        return root ** exponent.numerator
    # other roots of a nonnegative base (sympy's cbrt is x**(1/3), principal branch)
    if base.b < 0:
        raise Undefined("fractional power of a negative number on the whole box")
    clipped = ctx.mpf([max(base.a, 0), base.b])
    if clipped.a == 0:
        if exponent < 0:
            return ctx.mpf([ctx.mpf(clipped.b) ** point(exponent), ctx.mpf("inf")]) if clipped.b > 0 else ctx.mpf("inf")
        return ctx.mpf([0, (ctx.mpf(clipped.b) ** point(exponent)).b])
    return ctx.exp(ctx.log(clipped) * point(exponent))


_UNARY = {sympy.sin: ctx.sin, sympy.cos: ctx.cos, sympy.tan: ctx.tan, sympy.exp: ctx.exp,
          sympy.log: _log, sympy.Abs: _abs, sympy.sign: _sign, sympy.Heaviside: _heaviside}


def compile_enclosure(expr: sympy.Expr, symbols: Sequence[sympy.Symbol]) -> Enclosure:
    """A function from one interval per symbol to an interval containing every value of `expr`
    at real points of that box where it is defined."""
    index = {s: i for i, s in enumerate(symbols)}
    return _build(sympy.sympify(expr), index)  # expr is already a sympy tree; sympify only wraps ints


def _build(e: sympy.Expr, index: dict) -> Enclosure:
    if e.is_Symbol:
        if e not in index:
            raise Unsupported(f"unknown symbol {e}")
        i = index[e]
        return lambda xs: xs[i]
    if e.is_Rational:
        constant = point(Fraction(int(e.p), int(e.q)))
        return lambda xs: constant
    if e is sympy.pi:
        return lambda xs: ctx.pi
    if e is sympy.E:
        return lambda xs: ctx.e
    if isinstance(e, sympy.Add):
        parts = [_build(a, index) for a in e.args]
        def add(xs):
            total = parts[0](xs)
            for p in parts[1:]:
                total = total + p(xs)
            return total
        return add
    if isinstance(e, sympy.Mul):
        parts = [_build(a, index) for a in e.args]
        def mul(xs):
            total = parts[0](xs)
            for p in parts[1:]:
                total = total * p(xs)
            return total
        return mul
    if isinstance(e, sympy.Pow):
        base = _build(e.base, index)
        if e.exp.is_Rational:
            exponent = Fraction(int(e.exp.p), int(e.exp.q))
            return lambda xs: _rational_power(base(xs), exponent)
        power = _build(e.exp, index)
        return lambda xs: ctx.exp(power(xs) * _log(base(xs)))
    if isinstance(e, (sympy.Max, sympy.Min)):
        parts = [_build(a, index) for a in e.args]
        combine = _max if isinstance(e, sympy.Max) else _min
        return lambda xs: combine(*(p(xs) for p in parts))
    for kind, func in _UNARY.items():
        # Heaviside carries its value at 0 as a second argument; [0, 1] covers it either way
        if isinstance(e, kind) and (len(e.args) == 1 or kind is sympy.Heaviside):
            inner = _build(e.args[0], index)
            return lambda xs, func=func: func(inner(xs))
    raise Unsupported(f"no interval enclosure for {type(e).__name__} in {e}")
