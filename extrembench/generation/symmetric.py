"""The symmetric-point baseline: answer the objective's value where all variables are equal.

Plugging a = b = c = t into a symmetric olympiad inequality is the first thing a solver tries, and
on a weak benchmark it is right most of the time; this model measures how often, without any
reasoning. With every variable set to t:

- an equality constraint that still depends on t fixes t: its real roots are the candidates;
- otherwise t ranges over the common domain of the variables cut by the inequality constraints,
  and the candidates are the critical points of the one-variable objective, the roots of the
  inequality constraints (the ends of the feasible t-set) and the closed finite ends of the domain
  (a constant objective gets one interior point);
- candidates that are not feasible (outside the domain, a constraint fails, the objective is not a
  finite real there) are dropped, and the best remaining one in the asked sense is the answer;
- no candidate (an equality that fails for every t, a one-variable objective without a critical
  point) means the model abstains.

Roots are exact (sympy's real_roots) when the equation is a polynomial in t with rational
coefficients, else found by a sign-change scan on a fixed grid refined to 30 digits; both are
bounded by counts, so the answer is the same on every machine. Rational values are written exactly,
others as fixed decimals (the grader's 4-decimal rule decides them, as for the reference solver).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
import sympy

from extrembench.generation.reference import abstaining_response, fixed_decimals
from extrembench.problems.expr import parse_expression, parse_relation, symbol
from extrembench.problems.problem import parse_domain

T = sympy.Symbol("t", real=True)
MAX_EXACT_DEGREE = 60  # Poly.real_roots stays fast well past this; beyond it the scan is used
MAX_OPS = 2000  # larger expressions are not differentiated or expanded (memory bound)
GRID = 4001  # points of the sign-change scan
HP_DIGITS = 30
MAX_NUMERIC_ROOTS = 50
FEASIBILITY_TOL = sympy.Float("1e-20", HP_DIGITS)


@dataclass(frozen=True)
class Guess:
    t: sympy.Expr  # the common value of the variables
    value: sympy.Expr  # the objective there, exact
    numeric: sympy.Float  # and to HP_DIGITS digits


def common_interval(variables: dict[str, str]) -> tuple[Any, Any, bool, bool]:
    """The intersection of the variables' domains: (lo, hi, lo_open, hi_open), None = infinite."""
    lo = hi = None
    lo_open = hi_open = True
    for text in variables.values():
        d = parse_domain(text)
        if d.lo is not None and (lo is None or bool(d.lo > lo) or (d.lo == lo and d.lo_open)):
            lo, lo_open = d.lo, d.lo_open
        if d.hi is not None and (hi is None or bool(d.hi < hi) or (d.hi == hi and d.hi_open)):
            hi, hi_open = d.hi, d.hi_open
    return lo, hi, lo_open, hi_open


def _hp(expr: sympy.Expr, t: sympy.Expr) -> sympy.Float | None:
    """expr at t to HP_DIGITS digits, or None where it is undefined, infinite or not real."""
    try:
        value = sympy.N(expr.subs(T, t), HP_DIGITS)
    except (ZeroDivisionError, ValueError, TypeError, OverflowError):
        return None
    if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or not value.is_number:
        return None
    real, imag = value.as_real_imag()
    if abs(imag) > 1e-25 or not real.is_finite:
        return None
    return sympy.Float(real, HP_DIGITS)


def _scan_points(lo, hi) -> np.ndarray:
    """A fixed grid over the t-interval: linear on a finite one, log-spaced towards infinite ends."""
    if lo is not None and hi is not None:
        return np.linspace(float(lo), float(hi), GRID)
    s = np.concatenate([-np.logspace(6, -6, GRID // 2), [0.0], np.logspace(-6, 6, GRID // 2)])
    if lo is None and hi is None:
        return s
    return float(lo) + np.logspace(-8, 6, GRID) if lo is not None else float(hi) - np.logspace(-8, 6, GRID)


def _numeric_roots(expr: sympy.Expr, lo, hi) -> list[sympy.Expr]:
    """Roots at sign changes on the scan grid, refined by bisection then to HP_DIGITS digits."""
    func = sympy.lambdify(T, expr, modules=["numpy"])
    precise = sympy.lambdify(T, expr, modules=["mpmath"])
    points = _scan_points(lo, hi)
    with np.errstate(all="ignore"):
        try:
            values = np.asarray(func(points), dtype=complex) * np.ones_like(points)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return []
    real = np.where(np.abs(values.imag) < 1e-12, values.real, np.nan)
    roots = []
    for i in range(len(points) - 1):
        a, b, fa, fb = points[i], points[i + 1], real[i], real[i + 1]
        if not (np.isfinite(fa) and np.isfinite(fb)):
            continue
        if fa == 0:
            roots.append(a)
        elif fa * fb < 0:
            roots.append(_refine(precise, a, b))
    # A function that vanishes on a whole stretch of the grid has no isolated roots worth trying;
    # the cap bounds the work of the feasibility checks that follow.
    return [sympy.Float(r, HP_DIGITS) for r in roots if r is not None][:MAX_NUMERIC_ROOTS]


def _refine(func, a: float, b: float) -> mpmath.mpf | None:
    """Bisection at HP_DIGITS + 5 digits on the mpmath form of the expression; None at a pole."""

    def value(x):
        try:
            v = mpmath.mpmathify(func(x))
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            return None
        return (
            v.real
            if isinstance(v, mpmath.mpc) and abs(v.imag) < mpmath.mpf("1e-25")
            else (v if isinstance(v, mpmath.mpf) and mpmath.isfinite(v) else None)
        )

    with mpmath.workdps(HP_DIGITS + 5):
        lo, hi = mpmath.mpf(a), mpmath.mpf(b)
        f_lo = value(lo)
        if f_lo is None:
            return None
        for _ in range(110):  # 2^-110 of a grid step: past 30 digits
            mid = (lo + hi) / 2
            f_mid = value(mid)
            if f_mid is None:
                return None
            if (f_mid < 0) == (f_lo < 0):
                lo, f_lo = mid, f_mid
            else:
                hi = mid
        root = (lo + hi) / 2
        at_root = value(root)
        return root if at_root is not None and abs(at_root) < mpmath.mpf("1e-15") else None


def _roots(expr: sympy.Expr, lo, hi) -> list[sympy.Expr]:
    """Real roots of a univariate expression in t (only those inside [lo, hi] matter)."""
    if sympy.count_ops(expr) > MAX_OPS:
        return []
    numerator = sympy.numer(sympy.together(expr))
    if T not in numerator.free_symbols:
        return []
    if numerator.is_polynomial(T):
        poly = sympy.Poly(numerator, T)
        if poly.degree() <= MAX_EXACT_DEGREE and all(c.is_Rational for c in poly.all_coeffs()):
            return list(poly.real_roots())
    return _numeric_roots(expr, lo, hi)


def _nonsmooth(objective: sympy.Expr) -> bool:
    return bool(objective.atoms(sympy.Abs, sympy.Max, sympy.Min))


def _kinks(objective: sympy.Expr, lo, hi) -> list[sympy.Expr]:
    """Where a non-smooth objective may turn: zeros of Abs arguments, ties inside Max/Min, and
    the critical points of each piece (differentiating the whole Max/Abs gives Heaviside terms
    that are slow to evaluate and have no sign changes at the kinks)."""
    points = []
    # sorted: a set's order follows the hash seed, and the order breaks ties between candidates
    for node in sorted(objective.atoms(sympy.Abs, sympy.Max, sympy.Min), key=sympy.default_sort_key):
        pieces = node.args
        if isinstance(node, sympy.Abs):
            points += _roots(pieces[0], lo, hi)
        else:
            for i, first in enumerate(pieces):
                for second in pieces[i + 1 :]:
                    points += _roots(first - second, lo, hi)
        for piece in pieces:
            if T in piece.free_symbols and not _nonsmooth(piece):
                points += _roots(sympy.diff(piece, T), lo, hi)
    return points


def _inside(t: sympy.Expr, lo, hi, lo_open: bool, hi_open: bool) -> bool:
    tv = sympy.N(t, HP_DIGITS)
    if lo is not None and (bool(tv < lo) or (lo_open and bool(sympy.Abs(tv - lo) < 1e-25))):
        return False
    return not (hi is not None and (bool(tv > hi) or (hi_open and bool(sympy.Abs(tv - hi) < 1e-25))))


def _holds(value: sympy.Float | None, op: str) -> bool:
    return (
        value is not None
        and {
            "=": abs(value) <= FEASIBILITY_TOL,
            ">=": value >= -FEASIBILITY_TOL,
            "<=": value <= FEASIBILITY_TOL,
            ">": value > FEASIBILITY_TOL,
            "<": value < -FEASIBILITY_TOL,
        }[op]
    )


def signed_symbol(lo, lo_open: bool) -> sympy.Symbol:
    """A symbol carrying the sign of the t-interval: substituting it lets sympy simplify sqrt(t^2)
    to t (a constant objective then has derivative 0 exactly); the plain real T is put back after."""
    if lo is not None and (bool(lo > 0) or (lo == 0 and lo_open)):
        return sympy.Symbol("t", positive=True)
    if lo is not None and lo == 0:
        return sympy.Symbol("t", nonnegative=True)
    return T


def symmetric_guess(spec: dict[str, Any]) -> Guess | None:
    """The best value of the objective over feasible all-equal points, or None (abstain)."""
    names = list(spec["variables"])
    lo, hi, lo_open, hi_open = common_interval(spec["variables"])
    signed = signed_symbol(lo, lo_open)
    at_t = {symbol(n): signed for n in names}
    objective = parse_expression(spec["objective"], names).subs(at_t).subs(signed, T)
    constraints = []
    for text in spec.get("constraints") or ():
        lhs, op, rhs = parse_relation(text, names)
        constraints.append(((lhs - rhs).subs(at_t).subs(signed, T), op))
    return line_guess(spec["sense"], (lo, hi, lo_open, hi_open), objective, constraints)


def line_guess(
    sense: str, interval: tuple[Any, Any, bool, bool], objective: sympy.Expr, constraints: list[tuple[sympy.Expr, str]]
) -> Guess | None:
    """The best feasible value of a one-variable problem in T (t in the interval, each constraint
    `difference op 0`), over the candidates described in the module docstring; None = abstain."""
    lo, hi, lo_open, hi_open = interval
    fixing = [d for d, op in constraints if op == "=" and T in d.free_symbols]
    if fixing:
        candidates = _roots(fixing[0], lo, hi)
    else:
        candidates = []
        if T in objective.free_symbols:
            candidates += (
                _kinks(objective, lo, hi) if _nonsmooth(objective) else _roots(sympy.diff(objective, T), lo, hi)
            )
        else:
            # constant along the diagonal: any feasible point will do; try a few fixed ones
            candidates += [sympy.Integer(1), sympy.Rational(1, 2), sympy.Integer(2), sympy.Integer(-1)]
        for difference, op in constraints:
            if op != "=":
                candidates += _roots(difference, lo, hi)
        candidates += [end for end, is_open in ((lo, lo_open), (hi, hi_open)) if end is not None and not is_open]
    feasible = [
        (t, value)
        for t in candidates
        if _inside(t, lo, hi, lo_open, hi_open)
        and all(_holds(_hp(d, t), op) for d, op in constraints)
        and (value := _hp(objective, t)) is not None
    ]
    if not feasible:
        return None
    t, value = (min if sense == "min" else max)(feasible, key=lambda pair: pair[1])  # first of ties
    return Guess(t=t, value=objective.subs(T, t), numeric=value)


def answer_text(guess: Guess, sense: str, digits: int, setting: str = "With all variables equal") -> str:
    shown = sympy.latex(guess.value) if guess.value.is_Rational else fixed_decimals(float(guess.numeric), digits)
    word = "minimum" if sense == "min" else "maximum"
    return f"{setting}, the {word} value is \\boxed{{{shown}}}."


def guess_response(identity: dict[str, Any], guess_of, name: str, setting: str) -> dict[str, Any]:
    """A generation response for one sample (the same shape as a chat response) from a cheap
    guess `guess_of(spec) -> Guess | None`; shared by symmetric-guess and boundary-guess."""
    started = time.monotonic()
    response = abstaining_response()
    if identity["spec_json"]:
        spec = json.loads(identity["spec_json"])
        try:
            guess = guess_of(spec)
        except (ValueError, TypeError, ArithmeticError, sympy.PolynomialError) as exc:
            # a spec this model cannot read is an error row (shown in the tables), not a crashed job
            response.update(finish_reason="error", error=f"{name}: {type(exc).__name__}: {exc}")
            guess = None
        if guess is not None:
            response.update(
                content=answer_text(guess, spec["sense"], identity["digits"], setting), finish_reason="stop"
            )
    response["latency_s"] = round(time.monotonic() - started, 3)
    return response


def answer(identity: dict[str, Any]) -> dict[str, Any]:
    """A generation response for one sample (the same shape as a chat response)."""
    return guess_response(identity, symmetric_guess, "symmetric-guess", "With all variables equal")
