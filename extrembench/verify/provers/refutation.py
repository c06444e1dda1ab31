"""Building refutation certificates (the format and its checker: extrembench.verify.checker.refutation):
an exact witness near the search's float point, a level past the claim with a bound or sos proof, scaling for homogeneous problems, an exact path for unbounded objectives."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import sympy

from extrembench.problems import snapping
from extrembench.problems.expr import parse_expression
from extrembench.problems.problem import ParsedProblem, min_form_sign
from extrembench.verify.checker.bound import BoundFailure
from extrembench.verify.checker.interval import Unsupported
from extrembench.verify.checker.interval import point as interval_point
from extrembench.verify.checker.reduce import PlanError, apply_plan, homogeneity_degree
from extrembench.verify.checker.refutation import (
    PATH_PARAMETER,
    at_level,
    beyond_level,
    check_point,
    verify_refutation,
)
from extrembench.verify.provers.bound import reference_point, search
from extrembench.verify.provers.plan import choose_plan
from extrembench.verify.provers.route import Decline, Route
from extrembench.verify.provers.sos import attempt as sos_attempt

VERIFIER = "extrembench.verify.refutation/1"
MAX_SOLVE_ATTEMPTS = 40  # (unknowns chosen, snapping) pairs tried when building a witness


# ---------------------------------------------------------------- building a witness


def witness_certificate(parsed, claim_text: str, x: dict[str, float]) -> tuple[dict | None, str]:
    """A verified witness certificate near the float point x, or (None, why not)."""
    why = "no exactly feasible point was found near the float point"
    for point in exact_points(parsed, x):
        certificate = {
            "kind": "refutation",
            "method": "witness",
            "sense": parsed.sense,
            "claim": claim_text,
            "point": point,
            "verifier": VERIFIER,
        }
        ok, detail = verify_refutation(certificate, parsed)
        if ok:
            certificate["summary"] = detail
            return certificate, detail
        why = detail
    return None, why


def exact_feasible_point(parsed, x: dict[str, float]) -> dict | None:
    """An exact point near x at which every domain and constraint holds exactly, or None."""
    for point in exact_points(parsed, x):
        if check_point(parsed, point)[0]:
            return point
    return None


def _until_sympy_fails(points):
    """The points of one source until sympy raises ValueError inside it: sympy 1.14's factor cache
    refuses some large square roots ("... is not a prime factor of ..."), which ended a whole check
    as "the validator failed"; that source then yields no more points, the next one is tried."""
    try:
        yield from points
    except ValueError:
        return


def exact_points(parsed, x: dict[str, float]):
    """Exact points near the float point x, nicest first: the coordinates not fixed by equalities
    snapped to rationals, the equalities solved exactly for the rest (a linear system over the
    rationals, or one polynomial equation whose real root nearest x is isolated); then closed forms
    (_closed_form_points); last, every coordinate one common value (_DIAGONAL), which a claim
    far from the values there (a flipped sense) needs no point near x for. Bounded work."""
    yield from _until_sympy_fails(_rational_points(parsed, x))
    yield from _until_sympy_fails(_closed_form_points(parsed, x))
    if any(op == "=" for _, op, _ in parsed.constraints):
        yield from ({str(s): value for s in parsed.symbols} for value in _DIAGONAL)


# common values of a symmetric point: where sum cos(x_i) = 0 or x + 2/x = 2x + 1/x holds exactly
_DIAGONAL = ("1", "pi/2", "pi/3", "pi/4", "2", "1/2", "pi", "0", "-1")


def _closed_form_points(parsed, x: dict[str, float]):
    """Points whose eliminated coordinates are closed forms: the equalities are solved for one
    variable each by the certificates' reduction plan (linear or quadratic solved forms, so
    A + B + C = pi gives C = pi - A - B, and a sum of squares = 1 a square root), the other
    coordinates snapped to rationals and substituted. Every quadratic branch is tried."""

    if not any(op == "=" for _, op, _ in parsed.constraints) or not all(math.isfinite(v) for v in x.values()):
        return
    try:
        plan = choose_plan(parsed, sympy.Integer(0), x)
        branches = apply_plan(parsed, sympy.Integer(0), plan) if plan else []
    except (PlanError, sympy.PolynomialError, ValueError, TypeError):
        return
    if any(step["op"] == "normalize" for step in plan or []):
        return  # a normalised branch is a rescaled copy of the problem, not a parametrisation of it
    # the float's exact binary value last: a coordinate a hair from an open end (A -> 0 in a
    # degenerate triangle) snaps onto the end with any short denominator
    for snap in snapping.rational_ladder():
        for branch in branches:
            free = {s: snap(x[str(s)]) for s in branch.symbols}
            values = {s: sympy.Rational(f.numerator, f.denominator) for s, f in free.items()}
            point, ok = {str(s): str(f) for s, f in free.items()}, True
            for v, expr in branch.substitutions.items():
                value = sympy.radsimp(expr.xreplace(values))
                if not value.is_number or value.has(sympy.I, sympy.zoo, sympy.nan):
                    ok = False
                    break
                point[str(v)] = value
            if ok and set(point) == {str(s) for s in parsed.symbols}:
                yield {
                    str(s): sympy.sstr(point[str(s)]) if not isinstance(point[str(s)], str) else point[str(s)]
                    for s in parsed.symbols
                }


def _rational_points(parsed, x: dict[str, float]):
    equalities = [lhs - rhs for lhs, op, rhs in parsed.constraints if op == "="]
    involved = [s for s in parsed.symbols if any(s in g.free_symbols for g in equalities)]
    choices = list(itertools.combinations(involved, len(equalities))) if equalities else [()]
    # unknowns far from 0 first: their value moves least relative to itself when solved for
    choices.sort(key=lambda chosen: -sum(math.log1p(abs(x[str(s)])) for s in chosen))
    attempts = 0
    for snap in snapping.rational_ladder():
        # every coordinate snapped, nothing solved: (2, 1, 1) of xyz = 2, x + y + z = 4, a system
        # of two nonlinear equalities that the one-unknown solver below cannot take
        if equalities and all(math.isfinite(v) for v in x.values()):
            yield {str(s): str(snap(x[str(s)])) for s in parsed.symbols}
        for chosen in choices:
            attempts += 1
            if attempts > MAX_SOLVE_ATTEMPTS:
                return
            if not all(math.isfinite(x[str(s)]) for s in parsed.symbols):
                return
            point = _solve(equalities, chosen, {s: snap(x[str(s)]) for s in parsed.symbols if s not in chosen}, x)
            if point is not None:
                yield {str(s): point[str(s)] for s in parsed.symbols}


def _solve(equalities: list, chosen: tuple, free: dict, x: dict) -> dict | None:
    """The exact point with the free coordinates given, the chosen ones solved from the equalities."""
    values = {s: sympy.Rational(f.numerator, f.denominator) for s, f in free.items()}
    point = {str(s): str(f) for s, f in free.items()}
    if not chosen:
        return point
    reduced = [sympy.together(g.xreplace(values)) for g in equalities]
    numerators = [sympy.fraction(r)[0] for r in reduced]
    try:
        polys = [sympy.Poly(n, *chosen, domain="QQ") for n in numerators]
    except (sympy.PolynomialError, sympy.CoercionFailed):
        return None
    if all(p.total_degree() <= 1 for p in polys):
        solutions = sympy.linsolve([p.as_expr() for p in polys], list(chosen))
        if len(solutions) != 1:
            return None
        solution = next(iter(solutions))
        if any(not v.is_Rational for v in solution):
            return None
        point.update({str(s): str(v) for s, v in zip(chosen, solution)})
        return point
    if len(chosen) != 1:
        return _solve_system(polys, chosen, point, x)
    s = chosen[0]
    target = x[str(s)]
    best = None
    for factor, _ in sympy.factor_list(polys[0].as_expr(), s)[1]:
        factor_poly = sympy.Poly(factor, s, domain="QQ")
        if factor_poly.degree() < 1 or factor_poly.degree() > 12:
            continue
        for (lo, hi), _ in factor_poly.intervals(eps=sympy.Rational(1, 10**12) * max(1, abs(Fraction(target)))):
            distance = abs((lo + hi) / 2 - Fraction(target))
            if best is None or distance < best[0]:
                best = (distance, factor_poly, lo, hi)
    if best is None:
        return None
    _, factor_poly, lo, hi = best
    if factor_poly.degree() == 1 or lo == hi:
        root = sympy.solve(factor_poly.as_expr(), s)[0] if factor_poly.degree() == 1 else lo
        point[str(s)] = str(root)
        return point
    # integer coefficients, high to low: the reader sees a plain polynomial
    coefficients = factor_poly.clear_denoms()[1].all_coeffs()
    point[str(s)] = {"root_of": [str(c) for c in coefficients], "interval": [str(lo), str(hi)]}
    return point


def _solve_system(polys: list, chosen: tuple, point: dict, x: dict) -> dict | None:
    """Several unknowns in nonlinear equalities: a lex Groebner basis in shape form (each unknown
    but the last equal to a polynomial in the last, which is a root of one polynomial), the real
    root of a linear or quadratic factor nearest x in closed form, the others substituted. Small
    systems only (<= 3 unknowns, degree <= 4), so the work stays bounded."""
    if len(chosen) > 3 or any(p.total_degree() > 4 for p in polys):
        return None
    last = chosen[-1]
    try:
        basis = sympy.groebner([p.as_expr() for p in polys], *chosen, order="lex", domain="QQ").exprs
    except (sympy.PolynomialError, sympy.CoercionFailed):
        return None
    univariate = [g for g in basis if g.free_symbols <= {last}]
    solved = {}
    for g in basis:
        lead = next((v for v in chosen if v in g.free_symbols and v != last), None)
        poly = sympy.Poly(g, lead) if lead is not None else None
        if poly is not None and (poly.degree() != 1 or g.free_symbols - {lead, last} or lead in solved):
            return None
        if poly is not None:
            solved[lead] = -poly.nth(0) / poly.nth(1)
    if len(univariate) != 1 or len(solved) != len(chosen) - 1:
        return None
    roots = [
        r
        for factor, _ in sympy.factor_list(univariate[0], last)[1]
        if sympy.degree(factor, last) <= 2
        for r in sympy.roots(factor, last, filter="R")
    ]
    for root in sorted(roots, key=lambda r: abs(float(r) - x[str(last)]))[:1]:
        for v, expr in [*solved.items(), (last, last)]:
            value = sympy.radsimp(expr.xreplace({last: root}))
            point[str(v)] = str(value) if value.is_Rational else sympy.sstr(value)
        return point
    return None


# ---------------------------------------------------------------- claims beyond a proven bound


# boxes of the level proof, a work count: a tree that proves a confirmed answer to within epsilon
# proves any lower level too (every leaf test is monotone in it), but where no such tree closes, a
# level 1e-3 past a 3-variable extremum still takes up to ~9500 boxes (ineq-0018, ineq-0022)
LEVEL_MAX_NODES = 10000


def _bound_branches(parsed, level: Fraction, plan: list):
    signed = min_form_sign(parsed.sense) * level
    # the plan's normalise step is sound only for a level of 0 or a degree-0 objective: apply_plan
    # checks it against the level it is given, so the level (never the refuted claim) goes in
    branches = apply_plan(parsed, sympy.Rational(signed.numerator, signed.denominator), plan)
    return branches, interval_point(signed)


def _level(parsed, claim: sympy.Expr, best_value: float | Fraction) -> Fraction | None:
    """A short decimal just past the claim (min form: claim < level, a sixteenth of the gap to the
    best value found): the proof's slack, best - level, is then most of the gap. Compared with the
    claim exactly: a short decimal claim (0.999) is itself a short rational the level may snap onto."""
    sign = min_form_sign(parsed.sense)
    if isinstance(best_value, Fraction) and claim.is_Rational:
        # an exact value past an exact claim (10^20 against 10^20 - 1: one float for both)
        c, v = sign * Fraction(claim.p, claim.q), sign * best_value
        if not c < v:
            return None
    else:
        c, v = sign * float(claim.evalf(30)), sign * best_value
        if not (math.isfinite(c) and math.isfinite(v) and c < v):
            return None
        c, v = Fraction(c), Fraction(v)  # exact from here: a float middle rounds onto a short decimal
    for digits in range(1, 13):  # the shortest decimal in [c + gap/16, c + gap/4]
        level = Fraction(math.ceil((c + (v - c) / 16) * 10**digits), 10**digits)
        if level <= c + (v - c) / 4 and beyond_level(parsed, sign * level, claim):
            return sign * level
    return None


def _snapped_value(parsed, claim: sympy.Expr, best_value: float) -> Fraction | None:
    """The best value snapped to a short rational past the claim (the exact extremum, usually)."""
    for denominator in (12, 1000):
        level = Fraction(best_value).limit_denominator(denominator)
        if abs(float(level) - best_value) <= 1e-9 * (1 + abs(best_value)) and beyond_level(parsed, level, claim):
            return level
    return None


@dataclass
class LevelAttempt:
    """What every level route is given: the problem, the claim, the best value the search found
    (and its point, a hint for the box search), the box budget, and the level just past the claim."""

    parsed: ParsedProblem
    claim_text: str
    best_value: float
    approx: dict[str, float]
    max_nodes: int

    @cached_property
    def claim(self) -> sympy.Expr:
        return parse_expression(self.claim_text, ())

    @cached_property
    def base(self) -> dict:
        return {"kind": "refutation", "sense": self.parsed.sense, "claim": self.claim_text, "verifier": VERIFIER}

    @cached_property
    def level(self) -> Fraction | None:
        return _level(self.parsed, self.claim, self.best_value)


def _scaling_route(attempt: LevelAttempt) -> dict | Decline:
    certificate, _ = scaling_certificate(attempt.parsed, attempt.claim_text)
    return certificate if certificate is not None else Decline(None)  # not homogeneous: the usual case, no note


def _sos_level_route(attempt: LevelAttempt) -> dict | Decline:
    # sos at the level first (fast to fail): objective - level is strictly positive there, so the
    # SDP has an interior and its rounded Gram matrix stays positive definite
    if attempt.level is None:
        return Decline(None)
    certificate, why = _sos_at(attempt.parsed, attempt.base, attempt.level)
    return certificate if certificate is not None else Decline(f"sos at {attempt.level}: {why}")


def _bound_level_route(attempt: LevelAttempt) -> dict | Decline:
    parsed, level, approx = attempt.parsed, attempt.level, attempt.approx
    if level is None:
        return Decline(None)
    sign = min_form_sign(parsed.sense)
    try:
        # an equality in cos(x) or sqrt(...) is no polynomial to eliminate through: no plan, no proof
        plan = choose_plan(parsed, sympy.Rational(sign * level.numerator, level.denominator), approx)
        if plan is None:
            raise PlanError("no reduction plan (an equality could not be solved for one variable)")
        branches, target = _bound_branches(parsed, level, plan)
        trees = [
            search(b, target, reference_point(b, None, approx, plan) if approx else None, max_nodes=attempt.max_nodes)
            for b in branches
        ]
        certificate = {
            **attempt.base,
            "method": "bound",
            "level": str(level),
            "plan": plan,
            "trees": trees,
            "variables": [str(s) for s in parsed.symbols],
        }
        ok, detail = verify_refutation(certificate, parsed)
    except (PlanError, BoundFailure, Unsupported, sympy.PolynomialError) as error:
        return Decline(f"bound: {error}")
    return {**certificate, "summary": detail} if ok else Decline(f"bound: {detail}")


def _sos_zero_route(attempt: LevelAttempt) -> dict | Decline:
    # a snapped extremum of 0 (nonnegative forms, where only 0 itself is a level the identity can be exact at)
    snapped = _snapped_value(attempt.parsed, attempt.claim, attempt.best_value)
    if not (snapped == 0 and snapped != attempt.level):
        return Decline(None)
    certificate, why = _sos_at(attempt.parsed, attempt.base, snapped)
    return certificate if certificate is not None else Decline(f"sos at 0: {why}")


# the routes of a claim the search never approached, in the order they are tried
LEVEL_ROUTES = (
    Route("scaling", "refutation scaling", _scaling_route),
    Route("sos at the level", "refutation sos", _sos_level_route),
    Route("bound at the level", "refutation bound", _bound_level_route),
    Route("sos at 0", "refutation sos", _sos_zero_route),
)


def level_certificate(
    parsed,
    claim_text: str,
    best_value: float,
    witness: dict[str, float] | None,
    max_nodes: int = LEVEL_MAX_NODES,
    routes: Sequence[Route] = LEVEL_ROUTES,
) -> tuple[dict | None, str]:
    """A certificate that no feasible point reaches a claim the search never approached: by scaling
    when the problem is homogeneous; else a level just past the claim and a proof that every
    feasible value is on the far side of it (an exact sum of squares, or branch and bound with the
    certificates' tests). (None, why not) when none closes within the counts."""
    attempt = LevelAttempt(parsed, claim_text, best_value, {k: float(v) for k, v in (witness or {}).items()}, max_nodes)
    reasons = []
    for route in routes:
        result = route.prove(attempt)
        if not isinstance(result, Decline):
            return result, result["summary"]
        if result.reason is not None:
            reasons.append(result.reason)
    return None, "; ".join(reasons) or "no level between the claim and the best value"


def _sos_at(parsed, base: dict, level: Fraction) -> tuple[dict | None, str]:

    body, why = sos_attempt(at_level(parsed, level), None)
    if body is None:
        return None, why
    certificate = {**base, "method": "sos", "level": str(level), "body": body}
    ok, detail = verify_refutation(certificate, parsed)
    return ({**certificate, "summary": detail}, detail) if ok else (None, detail)


# ---------------------------------------------------------------- homogeneous objectives on cones


def scaling_certificate(parsed, claim_text: str) -> tuple[dict | None, str]:
    """A 'scaling' certificate for a nonzero claim on a homogeneous problem, or (None, why not)."""
    degree = homogeneity_degree(parsed.objective, parsed.symbols, polynomial_only=True)
    if not degree:
        return None, "scaling: the objective is not homogeneous of a nonzero degree"
    certificate = {
        "kind": "refutation",
        "method": "scaling",
        "sense": parsed.sense,
        "claim": claim_text,
        "degree": str(degree),
        "verifier": VERIFIER,
    }
    ok, detail = verify_refutation(certificate, parsed)
    return ({**certificate, "summary": detail}, detail) if ok else (None, f"scaling: {detail}")


# ---------------------------------------------------------------- unbounded objectives

PATH_STARTS = (1, 2, 10, 100, 1000, 10**6)  # t0 tried by the builder, smallest first


def _offset(domain, x1: float, x2: float) -> float:
    """The open or closed end a coordinate runs to along the far points (x -> 0+, x -> 1-), else 0."""
    for end in (domain.lo, domain.hi):
        if end is not None:
            e = float(end)
            if abs(x2 - e) <= 1e-3 * max(1.0, abs(e)) and abs(x2 - e) < abs(x1 - e):
                return e
    return 0.0


def _monomial_path(parsed, p1: dict[str, float], p2: dict[str, float]) -> dict | None:
    """x_i(t) = end_i + c_i t^{n_i}, exponents and coefficients fitted to two far points of the
    search's diverging path (log-linear in a common scale), snapped to small rationals; then each
    equality is solved exactly for one variable it is linear in."""
    t = sympy.Symbol(PATH_PARAMETER)
    offsets, logs = {}, {}
    for s in parsed.symbols:
        x1, x2 = p1[str(s)], p2[str(s)]
        off = _offset(parsed.domains[s], x1, x2)
        d1, d2 = x1 - off, x2 - off
        offsets[s] = off
        logs[s] = (math.log(abs(d2)) - math.log(abs(d1)), d2) if d1 * d2 > 0 else (0.0, d2)
    reference = max(parsed.symbols, key=lambda s: abs(logs[s][0]))
    rho = logs[reference][0]
    if abs(rho) < 1e-3:
        return None
    exponents = {s: Fraction(logs[s][0] / rho).limit_denominator(3) for s in parsed.symbols}
    q = math.lcm(*(e.denominator for e in exponents.values()))
    # the reference coordinate grows or shrinks like t^{+-q}: u = its log scale at the far point
    u = math.log(abs(logs[reference][1]))
    path = {}
    for s in parsed.symbols:
        n = int(exponents[s] * q) * (1 if rho > 0 else -1)
        d2 = logs[s][1]
        if d2 == 0 or not math.isfinite(d2):
            coefficient = Fraction(0)
        else:
            c = d2 / math.exp(exponents[s] * u)
            if not math.isfinite(c) or c == 0:
                return None
            coefficient = Fraction(c).limit_denominator(12)
        off = Fraction(offsets[s]).limit_denominator(10**6)
        path[s] = (
            sympy.Rational(off.numerator, off.denominator)
            + sympy.Rational(coefficient.numerator, coefficient.denominator) * t**n
        )
    # the variables that move the least along the path are solved for: a + b = 1 with a -> 0 gives b = 1 - a
    order = sorted(parsed.symbols, key=lambda s: (abs(exponents[s]), str(s)))
    return _solve_equalities_on_path(parsed, path, order)


def _solve_equalities_on_path(parsed, path: dict, order: list) -> dict | None:
    """Each equality solved exactly for one variable it is linear in (the others on the path), in
    the given order of preference; None when one cannot be solved that way."""
    solved = set()
    for lhs, op, rhs in parsed.constraints:
        if op != "=":
            continue
        g = lhs - rhs
        for v in (v for v in order if v in g.free_symbols and v not in solved):
            others = {s: e for s, e in path.items() if s != v}
            numerator = sympy.fraction(sympy.together(g.xreplace(others)))[0]
            try:
                poly = sympy.Poly(sympy.expand(numerator), v)
            except sympy.PolynomialError:
                continue
            if poly.degree() != 1:
                continue
            p, r = poly.all_coeffs()
            if p == 0:
                continue
            path[v] = sympy.cancel(-r / p)
            solved.add(v)
            break
        else:
            return None
    return path


def unbounded_certificate(parsed, claim_text: str, far_points: list[dict[str, float]]) -> tuple[dict | None, str]:
    """An `unbounded` certificate from float points along the search's diverging path (at least two,
    farthest last), or (None, why not). Bounded work: one fitted path, len(PATH_STARTS) starts."""
    if len(far_points) < 2:
        return None, "fewer than two far points to fit a path to"
    try:
        path = _monomial_path(parsed, far_points[-2], far_points[-1])
    except (ValueError, OverflowError, ZeroDivisionError, TypeError):
        path = None
    if path is None:
        return None, "no exact path was fitted to the diverging points"
    texts = {str(s): sympy.sstr(path[s]) for s in parsed.symbols}
    why = ""
    for t0 in PATH_STARTS:
        certificate = {
            "kind": "unbounded",
            "sense": parsed.sense,
            "claim": claim_text,
            "path": texts,
            "t0": str(t0),
            "verifier": VERIFIER,
        }
        ok, detail = verify_refutation(certificate, parsed)
        if ok:
            return {**certificate, "summary": detail}, detail
        why = detail
    return None, why
