"""Turning a float optimum into an exact point: the four rules the project uses, side by side.

Each caller keeps its own family (the bytes of every certificate and variant depend on which one),
so the differences are named here rather than hidden in four private helpers:

- `closed_form` (the 50-digit re-check, verify/numeric/recheck.py): the nearest of p/q, ±sqrt(p/q)
  and p/q·pi with q <= 24, or None when none lies within 1e-4 relative. Loose on purpose: a wrong
  snap fails the exact re-check that follows.
- `short_rational` (a variant's exact optimum, sources/variants.py): p/q with q <= 24, always; the
  caller decides whether the snapped point is good enough.
- `rational_or_surd` (exact witnesses for certificates, verify/provers/witness.py): p/q with
  q <= 60, then a combination of sqrt 2, 3, 5, 6 and pi within 1e-7 when sympy finds one: two
  candidates per coordinate, tried in that order.
- `rational_ladder` (refutations, verify/provers/refutation.py): nice rationals first (q <= 12,
  1000, 10^6), the float's exact binary value last: a refutation needs a point that is exactly
  feasible and beats the claim, however ugly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction

import sympy

CLOSED_FORM_DENOMINATOR = 24
SHORT_RATIONAL_DENOMINATOR = 24  # a variant's witness coordinate is "exact" when it snaps to a fraction this simple
SURD_RATIONAL_DENOMINATOR = 60
SURDS = [sympy.sqrt(2), sympy.sqrt(3), sympy.sqrt(5), sympy.sqrt(6), sympy.pi]
LADDER_DENOMINATORS = (12, 1000, 10**6)  # nice rationals first; the float's exact binary value last


def closed_form(value: float, max_denominator: int = CLOSED_FORM_DENOMINATOR) -> sympy.Expr | None:
    """A simple closed form near `value`: p/q, ±sqrt(p/q) or p/q*pi with q <= max_denominator
    (the equality cases of olympiad inequalities); None when none is within 1e-4 relative."""
    tolerance = 1e-4 * max(1.0, abs(value))  # loose: a wrong snap fails the exact re-check anyway
    candidates = []
    for transform, back in (
        (lambda v: v, lambda r: r),
        (lambda v: v * v, lambda r: sympy.sqrt(r) if value > 0 else -sympy.sqrt(r)),
        (lambda v: v / math.pi, lambda r: r * sympy.pi),
    ):
        if candidates and abs(value) > 1e3:  # sqrt(p/q) and p/q*pi forms are for moderate values
            break
        fraction = Fraction(transform(value)).limit_denominator(max_denominator)
        candidate = back(sympy.Rational(fraction.numerator, fraction.denominator))
        candidates.append((abs(float(candidate) - value), len(candidates), candidate))
    error, _, closest = min(candidates)
    return closest if error <= tolerance else None


def short_rational(value: float) -> sympy.Rational:
    """The nearest p/q with q <= SHORT_RATIONAL_DENOMINATOR, however far."""
    fraction = Fraction(value).limit_denominator(SHORT_RATIONAL_DENOMINATOR)
    return sympy.Rational(fraction.numerator, fraction.denominator)


def rational_or_surd(value: float) -> list[sympy.Expr]:
    """Candidates for one coordinate: the nearest p/q with q <= 60, then a surd form within 1e-7."""
    out = [
        sympy.Rational(
            Fraction(value).limit_denominator(SURD_RATIONAL_DENOMINATOR).numerator,
            Fraction(value).limit_denominator(SURD_RATIONAL_DENOMINATOR).denominator,
        )
    ]
    guess = sympy.nsimplify(sympy.Float(value, 15), SURDS, tolerance=1e-7)
    if guess not in out and guess.is_real:
        out.append(guess)
    return out


def rational_ladder() -> Iterator[Callable[[float], Fraction]]:
    """The snaps to try in order: q <= 12, 1000, 10^6, then the float's exact value."""
    yield from (lambda v, d=d: Fraction(v).limit_denominator(d) for d in LADDER_DENOMINATORS)
    yield Fraction
