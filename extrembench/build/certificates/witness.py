"""The exact witness: a point with exact coordinates (rationals, surds, multiples of pi) at which
every domain and constraint holds exactly and the objective equals the answer exactly.

Exact means decided by algebra, not by a tolerance: a difference is zero when it cancels to 0 or
its minimal polynomial is x; a sign is proven by an interval enclosure excluding 0.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from extrembench.build.certificates.interval import compile_enclosure, enclose_constant
from extrembench.build.expr import ExpressionError, parse_expression
from extrembench.build.problem import ParsedProblem

_SURDS = [sympy.sqrt(2), sympy.sqrt(3), sympy.sqrt(5), sympy.sqrt(6), sympy.pi]
_PROBE = sympy.Symbol("probe")


def is_zero(expr: sympy.Expr) -> bool:
    """expr == 0 decided exactly (False when it cannot be decided).

    No sympy.simplify: its trigonometric rewriting has no bound on its work (it ran for minutes
    on a five-cosine witness). An enclosure that excludes 0 decides "nonzero" at once; otherwise
    expansion and cancellation, then the minimal polynomial (surds, rational multiples of pi)."""
    if expr == 0:
        return True
    if not expr.free_symbols:
        try:
            value = compile_enclosure(expr, [])([])
            if value.a > 0 or value.b < 0:
                return False
        except Exception:  # noqa: BLE001 (an expression the enclosure cannot evaluate: decide below)
            pass
    reduced = sympy.cancel(sympy.expand(expr))
    if reduced == 0:
        return True
    if reduced.free_symbols:
        return False
    try:
        return sympy.minimal_polynomial(reduced, _PROBE) == _PROBE
    except (NotImplementedError, sympy.polys.polyerrors.NotAlgebraic, ValueError):
        return False


def sign(expr: sympy.Expr) -> int | None:
    """The sign of a constant expression, proven (None when undecided)."""
    if is_zero(expr):
        return 0
    try:
        value = compile_enclosure(expr, [])([])
    except Exception:
        return None
    if value.a > 0:
        return 1
    if value.b < 0:
        return -1
    try:
        value = enclose_constant(expr, 300)
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
        if d.lo is not None:
            k = sign(v - d.lo)
            if k is None or k < 0 or (k == 0 and d.lo_open):
                return f"{s} = {v} is not proven inside its domain"
        if d.hi is not None:
            k = sign(d.hi - v)
            if k is None or k < 0 or (k == 0 and d.hi_open):
                return f"{s} = {v} is not proven inside its domain"
    for lhs, op, rhs in parsed.constraints:
        diff = (lhs - rhs).subs(point)
        if op == "=":
            if not is_zero(diff):
                return f"constraint {lhs} = {rhs} does not hold exactly"
            continue
        k = sign(diff if op in (">=", ">") else -diff)
        if k is None or k < 0 or (k == 0 and op in (">", "<")):
            return f"constraint {lhs} {op} {rhs} is not proven"
    value = parsed.objective.subs(point)
    if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or not is_zero(value - parsed.answer):
        return "the objective at the witness does not equal the answer exactly"
    return None


def _snap(value: float) -> list[sympy.Expr]:
    out = [sympy.Rational(Fraction(value).limit_denominator(60).numerator, Fraction(value).limit_denominator(60).denominator)]
    guess = sympy.nsimplify(sympy.Float(value, 15), _SURDS, tolerance=1e-7)
    if guess not in out and guess.is_real:
        out.append(guess)
    return out


def find_witness(parsed: ParsedProblem, approximate: dict[str, float], substitutions: dict | None = None) -> dict | None:
    """An exact witness near the approximate one: snap each coordinate to a short rational or
    surd; when that misses an equality, recompute the eliminated variables exactly from the
    others through the plan's solved forms."""
    candidates: list[dict] = []
    snapped = {s: _snap(float(approximate[s.name])) for s in parsed.symbols}
    for choice in (0, -1):
        candidates.append({s: options[choice] for s, options in snapped.items()})
    if substitutions:
        for base in list(candidates):
            free = {s: v for s, v in base.items() if s not in substitutions}
            solved = dict(free)
            for var, expr in substitutions.items():
                solved[var] = sympy.nsimplify(sympy.radsimp(expr.subs(free))) if expr.subs(free).is_number else None
            if all(v is not None for v in solved.values()):
                candidates.append(solved)
    for candidate in candidates:
        if any(v.has(sympy.I) or v.is_real is False for v in candidate.values()):
            continue  # a solved form taken where its radicand is negative: not a real point
        if check_witness(parsed, candidate) is None:
            return candidate
    return None


def witness_text(point: dict) -> dict[str, str]:
    return {str(s): sympy.sstr(v) for s, v in point.items()}


def parse_witness(parsed: ParsedProblem, texts: dict) -> dict:
    """Witness strings back to exact values through the safe parser (no variables allowed)."""
    if not isinstance(texts, dict) or set(texts) != {str(s) for s in parsed.symbols}:
        raise ValueError("witness must give one value per variable")
    try:
        return {s: parse_expression(texts[str(s)], ()) for s in parsed.symbols}
    except (ExpressionError, TypeError) as exc:
        raise ValueError(f"witness value does not parse: {exc}") from None
