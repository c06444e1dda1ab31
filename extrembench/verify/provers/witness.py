"""The prover half of witnesses: an exact point near the search's float optimum (snapped, solved,
closed forms). witness.py checks one; nothing here is needed to."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import sympy

from extrembench.problems import snapping
from extrembench.problems.problem import ParsedProblem, min_form_sign
from extrembench.verify.checker.reduce import PlanError, apply_plan
from extrembench.verify.checker.witness import (
    PROBE,
    check_witness,
)
from extrembench.verify.provers.plan import choose_plan


def find_witness(parsed: ParsedProblem, approximate: dict[str, float]) -> dict | None:
    """An exact witness near the approximate one, cheapest candidates first: each coordinate snapped
    to a short rational or surd; then the reduction plan's eliminated variables recomputed exactly
    from the snapped others; then the points of _structured_points."""
    return _first_witness(
        parsed, itertools.chain(_snapped_points(parsed, approximate), _structured_points(parsed, approximate))
    )


def _snapped_points(parsed: ParsedProblem, approximate: dict[str, float]):

    snapped = {s: snapping.rational_or_surd(float(approximate[s.name])) for s in parsed.symbols}
    bases = [{s: options[choice] for s, options in snapped.items()} for choice in (0, -1)]
    yield from bases
    answer = min_form_sign(parsed.sense) * parsed.answer
    plan = choose_plan(parsed, answer, approximate)
    try:
        branches = apply_plan(parsed, answer, plan) if plan else []
    except PlanError:
        return
    for substitutions in (b.substitutions for b in branches):
        for base in bases:
            free = {s: v for s, v in base.items() if s not in substitutions}
            solved = dict(free)
            for var, expr in substitutions.items():
                solved[var] = sympy.nsimplify(sympy.radsimp(expr.subs(free))) if expr.subs(free).is_number else None
            if all(v is not None for v in solved.values()):
                yield solved


def _first_witness(parsed: ParsedProblem, candidates) -> dict | None:
    for candidate in candidates:
        if any(v.has(sympy.I) or v.is_real is False for v in candidate.values()):
            continue  # a solved form taken where its radicand is negative: not a real point
        if check_witness(parsed, candidate) is None:
            return candidate
    return None


# Work bounds of the structured search (counts, never time): sympy.solve calls per problem, and the
# size of one call (unknowns, degree of each polynomial equation).
MAX_SOLVES = 12


MAX_UNKNOWNS = 3


MAX_DEGREE = 6


_TOL = 1e-7  # the float proposes (relations, closed forms); only the exact check decides


def _structured_points(parsed: ParsedProblem, approximate: dict[str, float]):
    """Exact points proposed by the structure of the float one: integer relations among its
    coordinates (equal ones, zeros, x3 = 3/2 - x1, rational ratios, C = pi - A - B) leave a few
    unknowns, which are recognised as closed forms or solved exactly from the equalities, the
    inequalities active at the float and objective = answer (Abs, Max, Min resolved as at the
    float). A scale-free float (coordinates ~1e12) is also tried divided by its largest one."""
    trig = set().union(
        *(
            f.free_symbols
            for e in (parsed.objective, *(a - b for a, _, b in parsed.constraints))
            for f in e.atoms(sympy.sin, sympy.cos, sympy.tan)
        )
    )
    largest = max((abs(v) for v in approximate.values()), default=0)
    scales = ([largest] if largest > 1e3 else []) + [1.0]
    solves = 0
    for scale in scales:
        x = {s: float(approximate[s.name]) / scale for s in parsed.symbols}
        if not all(math.isfinite(v) for v in x.values()):
            return
        param, basis = _relations(x, trig)
        forms = {u: _closed_forms(v, u in trig) for u, v in basis.items()}
        for nearest in (True, False):
            values = {
                u: min(forms[u], key=lambda e, v=v: abs(float(e) - v)) if nearest else forms[u][0]
                for u, v in basis.items()
            }
            yield {s: param[s].xreplace(values) for s in parsed.symbols}
        constraints, objective = _equations(parsed, x, param)
        equations, unknowns = constraints + [objective], list(basis)
        # as few unknowns fixed as the equations allow: a solved point is exact however far its float is off
        for fixed_count in range(
            max(0, len(unknowns) - len(equations), len(unknowns) - MAX_UNKNOWNS), len(unknowns) + 1
        ):
            for fixed in itertools.combinations(unknowns, fixed_count):
                rest = [u for u in unknowns if u not in fixed]
                if not rest or any(u in trig for u in rest):
                    continue
                if solves >= MAX_SOLVES:
                    return
                solves += 1
                values = {u: forms[u][0] for u in fixed}
                solved = _solve([e.xreplace(values) for e in equations], rest, basis)
                if solved is not None:
                    values.update(solved)
                    yield {s: param[s].xreplace(values) for s in parsed.symbols}
        if 0 < len(unknowns) <= MAX_UNKNOWNS and not trig & set(unknowns) and solves < MAX_SOLVES:
            # an isolated optimum inside the remaining unknowns: add the Lagrange conditions
            solves += 1
            solved = _solve(equations + _stationarity(objective, constraints, unknowns), unknowns, basis)
            if solved is not None:
                yield {s: param[s].xreplace(solved) for s in parsed.symbols}


def _stationarity(objective: sympy.Expr, constraints: list, unknowns: list) -> list[sympy.Expr]:
    """The objective's gradient is a combination of the constraints' gradients: every maximal
    minor of their Jacobian vanishes (the gradient itself without constraints)."""
    rows = [[sympy.diff(e, u) for u in unknowns] for e in (objective, *constraints)]
    if len(rows) > len(unknowns):
        return []
    jacobian = sympy.Matrix(rows)
    return [jacobian[:, list(cols)].det() for cols in itertools.combinations(range(len(unknowns)), len(rows))]


def _relations(x: dict, trig: set) -> tuple[dict, dict]:
    """(coordinate -> affine form in unknowns, unknown -> its float): each coordinate, largest
    first, is an integer relation with 1 (pi for angles) and the unknowns so far, or a new unknown.
    Unknowns are the coordinates' own symbols, so a coordinate kept free is itself."""
    param, basis = {}, {}
    for s in sorted(x, key=lambda s: (-abs(x[s]), s.name)):
        v = x[s]
        if abs(v) < _TOL:
            param[s] = sympy.Integer(0)
            continue
        terms = [sympy.Integer(1)] + ([sympy.pi] if s in trig else []) + list(basis)
        vector = [v, 1.0] + ([math.pi] if s in trig else []) + list(basis.values())
        relation = mpmath.pslq(vector, tol=_TOL, maxcoeff=12, maxsteps=2000)
        if relation and relation[0] != 0:
            param[s] = -sum((c * t for c, t in zip(relation[1:], terms)), sympy.Integer(0)) / relation[0]
        else:
            param[s], basis[s] = s, v
    return param, basis


def _closed_forms(value: float, angle: bool) -> list[sympy.Expr]:
    """Exact numbers near value: for an angle the nearest of +-acos(r), asin(r), pi - asin(r) (r a
    short rational, plus a multiple of 2 pi) and rational multiples of pi when within 1e-6; a short
    rational (first unless an angle form is near); the root of a quadratic with small integer
    coefficients found by an integer relation."""
    short = Fraction(value).limit_denominator(60)
    out = [sympy.Rational(short.numerator, short.denominator)]
    poly = mpmath.findpoly(value, 2, maxcoeff=1000, tol=_TOL) if abs(value) > _TOL else None
    if poly and len(poly) == 3:
        roots = [r for r in sympy.roots(sympy.Poly(poly, PROBE)) if r.is_real]
        out += sorted(roots, key=lambda r: abs(float(r) - value))[:1]
    if angle:
        turn = Fraction(value / math.pi).limit_denominator(12)
        near = [sympy.pi * sympy.Rational(turn.numerator, turn.denominator)]
        for ratio, inverse, images in (
            (math.cos(value), sympy.acos, (1, -1)),
            (math.sin(value), sympy.asin, (1, None)),
        ):
            r = Fraction(ratio).limit_denominator(60)
            base = inverse(sympy.Rational(r.numerator, r.denominator))
            for image in images:
                angle_value = base * image if image else sympy.pi - base
                turns = round((value - float(angle_value)) / (2 * math.pi))
                near.append(angle_value + 2 * sympy.pi * turns)
        out = sorted((e for e in near if abs(float(e) - value) < 1e-6), key=lambda e: abs(float(e) - value)) + out
    return out


def _equations(parsed: ParsedProblem, x: dict, param: dict) -> tuple[list[sympy.Expr], sympy.Expr]:
    """(equalities and inequalities active at x, objective - answer) in the unknowns of `param`."""
    out = [lhs - rhs for lhs, op, rhs in parsed.constraints if op == "=" or abs(_float(lhs - rhs, x)) < 1e-6]
    return [e for e in (e.xreplace(param) for e in out) if sympy.expand(e) != 0], (
        _resolve(parsed.objective, x) - parsed.answer
    ).xreplace(param)


def _float(expr: sympy.Expr, x: dict) -> float:
    try:
        return float(expr.evalf(15, subs=x))
    except TypeError:  # complex or undefined at x
        return math.inf


def _resolve(expr: sympy.Expr, x: dict) -> sympy.Expr:
    """expr with each Abs, Max, Min replaced by the branch it takes at x (a proposal only)."""
    if not expr.args:
        return expr
    args = [_resolve(a, x) for a in expr.args]
    if isinstance(expr, sympy.Abs):
        return args[0] if _float(args[0], x) >= 0 else -args[0]
    if isinstance(expr, (sympy.Max, sympy.Min)):
        pick = max if isinstance(expr, sympy.Max) else min
        return pick(args, key=lambda a: _float(a, x))
    return expr.func(*args)


def _solve(equations: list[sympy.Expr], unknowns: list, floats: dict) -> dict | None:
    """The real exact solution nearest the float of the polynomial equations among `equations`
    (others are left to the exact check), or None. With one unknown and no polynomial equation,
    the first one with square roots of it (sympy squares them away)."""
    polys, radical = [], []
    for e in equations:
        numerator = sympy.numer(sympy.together(e))
        try:
            poly = sympy.Poly(numerator, *unknowns)
        except sympy.PolynomialError:
            if len(unknowns) == 1 and not numerator.atoms(sympy.Function):
                radical.append(numerator)
            continue
        # roots over an algebraic field (an answer 3 + 2*sqrt(2)) of degree 3 and up take sympy
        # tens of seconds: such an equation is left to the exact check
        if poly.is_zero or poly.total_degree() > (MAX_DEGREE if poly.domain.is_QQ or poly.domain.is_ZZ else 2):
            continue
        if poly.total_degree() == 0:
            return None  # a nonzero constant (or one sympy cannot decide): this choice fails
        polys.append(poly.as_expr())
    polys = polys or radical[:1]
    if not polys:
        return None
    try:
        solutions = sympy.solve(polys, unknowns, dict=True, check=False, simplify=False)
    except Exception:  # noqa: BLE001 (a system sympy cannot solve proposes nothing)
        return None
    best = None
    for solution in solutions:
        if set(solution) != set(unknowns) or any(
            v.free_symbols or v.has(sympy.I, sympy.RootOf) for v in solution.values()
        ):
            continue
        distance = sum(abs(complex(v.evalf(15)) - floats[u]) for u, v in solution.items())
        if best is None or distance < best[0]:
            best = (distance, solution)
    # solve's radicals come unsimplified; minimal_polynomial is far quicker on the denested form
    return {u: sympy.expand(sympy.sqrtdenest(sympy.radsimp(v))) for u, v in best[1].items()} if best else None


def witness_text(point: dict) -> dict[str, str]:
    return {str(s): sympy.sstr(v) for s, v in point.items()}
