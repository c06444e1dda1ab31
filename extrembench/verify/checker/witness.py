"""The exact witness: a point with exact coordinates (rationals, surds, multiples of pi, acos or
asin of a rational) at which every coordinate is proven real, every domain and constraint holds
exactly and the objective equals the answer exactly.

Exact means decided by algebra, not by a tolerance: a difference is zero when it cancels to 0 or
its minimal polynomial is x; a sign is proven by an interval enclosure excluding 0.

This module checks a witness; finding one is provers/witness.py.
"""

from __future__ import annotations

import mpmath
import sympy

from extrembench.problems.expr import FUNCTIONS, ExpressionError, parse_expression
from extrembench.problems.problem import ParsedProblem
from extrembench.verify.checker.interval import Interval, compile_enclosure, enclose_mp

PROBE = sympy.Symbol("probe")
# a witness angle may be acos(r) or asin(r): cos(3*acos(r)) is then a polynomial in r (expand_trig)
_FUNCTIONS = {**FUNCTIONS, "acos": (sympy.acos, 1, 1), "asin": (sympy.asin, 1, 1)}
_INVERSE = (sympy.acos, sympy.asin)


def _enclose(expr: sympy.Expr) -> Interval:
    """An interval around a constant; acos(r) and asin(r) enter as the intervals of _inverse."""
    atoms = sorted(expr.atoms(*_INVERSE), key=sympy.default_sort_key)
    names = [sympy.Dummy() for _ in atoms]
    return compile_enclosure(expr.xreplace(dict(zip(atoms, names))), names)([_inverse(a) for a in atoms])


def _inverse(atom: sympy.Expr) -> Interval:
    """[lo, hi] around acos(r) or asin(r), proven through the monotone cos (decreasing on [0, pi])
    or sin (increasing on [-pi/2, pi/2]) at the float ends: cos(lo) >= r >= cos(hi) puts acos(r)
    in [lo, hi], and r real inside [-1, 1]. Raises when not proven."""
    acos = isinstance(atom, sympy.acos)
    r = _enclose(atom.args[0])
    middle = float(mpmath.acos(r.mid) if acos else mpmath.asin(r.mid))
    lo, hi = (0.0, 3.141592653) if acos else (-1.570796326, 1.570796326)  # floats inside the range
    lo, hi = max(lo, middle - 1e-9), min(hi, middle + 1e-9)
    forward = compile_enclosure(sympy.cos(PROBE) if acos else -sympy.sin(PROBE), [PROBE])
    if not (
        forward([Interval(lo, lo)]).a >= (r.b if acos else -r.a)
        and forward([Interval(hi, hi)]).b <= (r.a if acos else -r.b)
    ):
        raise ValueError(f"{atom} is not enclosed (its argument may lie outside [-1, 1])")
    return Interval(lo, hi)


def _at(expr: sympy.Expr, point: dict) -> sympy.Expr:
    value = expr.subs(point)
    return sympy.expand_trig(value) if value.has(*_INVERSE) else value


NEAR_ZERO_BITS = 1024


def is_zero(expr: sympy.Expr) -> bool:
    """expr == 0 decided exactly (False when it cannot be decided).

    No sympy.simplify: its trigonometric rewriting has no bound on its work (it ran for minutes
    on a five-cosine witness). An enclosure that excludes 0 decides "nonzero" at once; otherwise
    expansion and cancellation, then the minimal polynomial (surds, rational multiples of pi)."""
    if expr == 0:
        return True
    if not expr.free_symbols:
        try:
            value = _enclose(expr)
            if value.a > 0 or value.b < 0:
                return False
        except Exception:  # noqa: BLE001 (an expression the enclosure cannot evaluate: decide below)
            pass
        # a near-optimal candidate differs from the answer by less than the float enclosure's width;
        # NEAR_ZERO_BITS decide it at once, where the minimal polynomial of its surds (sqrt(49199),
        # sqrt(213874), ...) ran for 20+ minutes. A true zero is in every enclosure, so no verdict moves.
        try:
            value = enclose_mp(expr, NEAR_ZERO_BITS, strict=True)
            if value.a > 0 or value.b < 0:
                return False
        except Exception:  # noqa: BLE001 (not provably defined and real at this precision: decide below)
            pass
    reduced = sympy.cancel(sympy.expand(expr))
    if reduced == 0:
        return True
    if reduced.free_symbols:
        return False
    try:
        return sympy.minimal_polynomial(reduced, PROBE) == PROBE
    except (NotImplementedError, sympy.polys.polyerrors.NotAlgebraic, ValueError):
        return False


def sign(expr: sympy.Expr) -> int | None:
    """The sign of a constant expression, proven (None when undecided)."""
    if is_zero(expr):
        return 0
    try:
        value = _enclose(expr)
    except Exception:
        return None
    if value.a > 0:
        return 1
    if value.b < 0:
        return -1
    try:
        value = enclose_mp(expr, 300)
    except Exception:
        return None
    return 1 if value.a > 0 else (-1 if value.b < 0 else None)


def check_witness(parsed: ParsedProblem, point: dict) -> str | None:
    """None when the point is exactly feasible and attains the answer; else what fails."""
    try:
        return _check_witness(parsed, point)
    except (TypeError, ValueError) as exc:  # e.g. Max of a non-real value: not comparable
        return f"the witness cannot be evaluated: {exc}"


def _check_witness(parsed: ParsedProblem, point: dict) -> str | None:
    for s in parsed.symbols:
        d, v = parsed.domains[s], point[s]
        try:
            _enclose(v)  # a finite enclosure: a real number (sqrt(-1) or acos(2) have none)
        except Exception:  # noqa: BLE001
            return f"{s} = {v} is not proven a real number"
        if d.lo is not None:
            k = sign(v - d.lo)
            if k is None or k < 0 or (k == 0 and d.lo_open):
                return f"{s} = {v} is not proven inside its domain"
        if d.hi is not None:
            k = sign(d.hi - v)
            if k is None or k < 0 or (k == 0 and d.hi_open):
                return f"{s} = {v} is not proven inside its domain"
    for lhs, op, rhs in parsed.constraints:
        diff = _at(lhs - rhs, point)
        if op == "=":
            if not is_zero(diff):
                return f"constraint {lhs} = {rhs} does not hold exactly"
            continue
        k = sign(diff if op in (">=", ">") else -diff)
        if k is None or k < 0 or (k == 0 and op in (">", "<")):
            return f"constraint {lhs} {op} {rhs} is not proven"
    value = _at(parsed.objective, point)
    if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or not is_zero(value - parsed.answer):
        return "the objective at the witness does not equal the answer exactly"
    return None


def parse_witness(parsed: ParsedProblem, texts: dict) -> dict:
    """Witness strings back to exact values through the safe parser (no variables allowed)."""
    if not isinstance(texts, dict) or set(texts) != {str(s) for s in parsed.symbols}:
        raise ValueError("witness must give one value per variable")
    try:
        return {s: parse_expression(texts[str(s)], (), _FUNCTIONS) for s in parsed.symbols}
    except (ExpressionError, TypeError) as exc:
        raise ValueError(f"witness value does not parse: {exc}") from None
