"""Turn a problem into boxes-with-inequalities a branch-and-bound can cover: eliminate equality
constraints by solving them exactly for one variable, and normalise scale-invariant problems.

Each step is recorded in the certificate (`plan`) and replayed by the verifier, which re-checks
the step's preconditions exactly (sympy identities and sign facts), so a plan can only shrink the
set searched when the shrinking is proven. Every step keeps a SUPERSET of the feasible points
(e.g. clearing a denominator), which is safe for a lower bound.

This module replays a plan for the checker; choosing one is provers/plan.py.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from fractions import Fraction

import sympy

from extrembench.problems.problem import Domain, ParsedProblem, min_form_sign
from extrembench.verify.checker.interval import compile_enclosure


class PlanError(ValueError):
    """A reduction step whose precondition does not hold exactly."""


@dataclass(frozen=True)
class Reduced:
    """min objective over the box `bounds` of `symbols` subject to every (expr, strict) in
    `nonneg` (expr > 0 when strict, else >= 0). bounds[i] = (lo, hi) as Fractions or None
    (infinite); the box is closed (a superset of open domains), open ends survive as strict
    constraints. Eliminated variables stay in objective and constraints as auxiliaries:
    `aux` = (symbol, its solved form in `symbols`, its Domain); an evaluation encloses the solved
    form and intersects it with the domain, which every feasible point satisfies."""

    symbols: tuple[sympy.Symbol, ...]
    bounds: tuple[tuple[Fraction | None, Fraction | None], ...]
    objective: sympy.Expr
    nonneg: tuple[tuple[sympy.Expr, bool], ...]
    aux: tuple[tuple[sympy.Symbol, sympy.Expr, Domain], ...] = ()
    extra_points: tuple[dict, ...] = ()  # single points checked outright (e.g. the origin)

    @property
    def substitutions(self) -> dict:
        return {v: expr for v, expr, _ in self.aux}


def _fraction(value: sympy.Expr | None, side: str = "lo") -> Fraction | None:
    """A rational box end: the end itself, or for an irrational end (pi/2) a rational just
    outside it (the box is then a superset; the exact end is kept as a constraint)."""
    if value is None:
        return None
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q))

    enclosure = compile_enclosure(value, [])([])
    scale = 2**30
    if side == "lo":
        return Fraction(math.floor(Fraction(float(enclosure.a)) * scale) - 1, scale)
    return Fraction(math.ceil(Fraction(float(enclosure.b)) * scale) + 1, scale)


def _domain_constraints(expr: sympy.Expr, domain: Domain) -> list[sympy.Expr]:
    out = []
    if domain.lo is not None:
        out.append((expr - domain.lo, bool(domain.lo_open)))
    if domain.hi is not None:
        out.append((domain.hi - expr, bool(domain.hi_open)))
    return out


def _sign_proven(expr: sympy.Expr, symbols, domains) -> int:
    """+1 / -1 when expr is provably of that sign on the (open) domain, else 0: a nonzero
    constant, or sympy's assumption calculus on variables declared positive."""
    if expr.is_number:
        value = sympy.nsimplify(expr) if not expr.is_Rational else expr
        return 1 if value > 0 else (-1 if value < 0 else 0)
    positive = {}
    for s in symbols:
        d = domains[s]
        if d.lo is not None and d.lo >= 0 and d.lo_open and d.lo == 0:
            positive[s] = sympy.Symbol(s.name, positive=True)
    test = expr.subs(positive)
    if test.is_positive:
        return 1
    if test.is_negative:
        return -1
    return 0


def base_problem(parsed: ParsedProblem) -> tuple[list, dict, list, list, sympy.Expr]:
    """(symbols, domains, equalities, nonneg, signed objective) of the min-form problem."""
    sign = min_form_sign(parsed.sense)
    equalities, nonneg = [], []
    for lhs, op, rhs in parsed.constraints:
        if op == "=":
            equalities.append(sympy.together(lhs - rhs))
        elif op in (">=", ">"):
            nonneg.append((lhs - rhs, op == ">"))
        else:
            nonneg.append((rhs - lhs, op == "<"))
    return list(parsed.symbols), dict(parsed.domains), equalities, nonneg, sign * parsed.objective


def homogeneity_degree(expr: sympy.Expr, symbols, polynomial_only: bool = False) -> int | None:
    """d with expr(t x) = t^d expr(x) identically, else None: read off the monomials of a ratio of
    polynomials each of one total degree; otherwise (unless polynomial_only) checked on expr(t x)."""
    parts = sympy.fraction(sympy.together(expr))
    with contextlib.suppress(sympy.PolynomialError):
        totals = [{sum(m) for m in sympy.Poly(part, *symbols).monoms()} for part in parts]
        if parts[0] != 0 and all(len(total) == 1 for total in totals):
            return min(totals[0]) - min(totals[1])
    if polynomial_only:
        return None
    t = sympy.Symbol("t_scale", positive=True)
    scaled = expr.subs({s: t * s for s in symbols}, simultaneous=True)
    probe = {s: sympy.Rational(k + 2, k + 3) for k, s in enumerate(symbols)}
    try:
        base = expr.subs(probe)
        ratio = scaled.subs(probe).subs(t, 2) / base
        degree = sympy.log(sympy.nsimplify(ratio), 2)
    except (ZeroDivisionError, TypeError, ValueError):
        return None
    if not degree.is_Integer:
        return None
    if sympy.simplify(scaled - t ** int(degree) * expr) != 0:
        return None
    return int(degree)


def needs_exact_level(parsed: ParsedProblem, plan: list[dict]) -> bool:
    """Whether a bound proof under this plan must reach the answer exactly (epsilon 0): after
    normalising a homogeneous objective of nonzero degree, a proof of f >= -eps on the simplex says
    nothing elsewhere (f(s x) = s^d f(x), so a slightly negative value scales to -infinity)."""
    if not any(step.get("op") == "normalize" for step in plan):
        return False
    return homogeneity_degree(parsed.objective, list(parsed.symbols)) not in (None, 0)


def apply_plan(parsed: ParsedProblem, answer_signed: sympy.Expr, plan: list[dict]) -> list[Reduced]:  # noqa: C901 — one branch per elimination-step kind, replayed in the plan's order; each step's precondition is checked where it is applied
    """Replay `plan` on the problem; returns the branches whose union covers every feasible point
    (in min form). Raises PlanError when a step's precondition fails."""
    symbols, domains, equalities, nonneg, objective = base_problem(parsed)
    extra_points: list[dict] = []
    branches = [(symbols, equalities, nonneg, objective, {})]
    for step in plan:
        op = step.get("op")
        if op == "normalize":
            if len(branches) != 1 or branches[0][1]:
                raise PlanError("normalize needs a problem without equality constraints")
            # an inequality keeps its sign under x -> x/sum(x) when it is homogeneous (verifier 10)
            if any(homogeneity_degree(c, symbols) is None for c, _ in branches[0][2]):
                raise PlanError("normalize needs every inequality constraint homogeneous")
            nonneg_domains = all(domains[s].lo == 0 and domains[s].hi is None for s in symbols)
            if not nonneg_domains:
                raise PlanError("normalize needs every variable positive or nonnegative")
            degree = homogeneity_degree(objective, symbols)
            if degree is None:
                raise PlanError("the objective is not homogeneous")
            all_open = all(domains[s].lo_open for s in symbols)
            if degree != 0 and answer_signed != 0:
                raise PlanError("a homogeneous objective of nonzero degree can be normalised only when the answer is 0")
            if not all_open:
                # the origin does not scale to the simplex: check it as a point of its own
                extra_points.append({s: sympy.Integer(0) for s in symbols})
            # every other feasible point scales (factor 1/sum > 0) to sum = 1 without changing the sign of objective - answer
            branches = [(symbols, [sympy.Add(*symbols) - 1], branches[0][2], objective, {})]
        elif op == "eliminate":
            name, index = step["var"], int(step["constraint"])
            new = []
            for syms, eqs, nn, obj, subs in branches:
                var = next((s for s in syms if s.name == name), None)
                if var is None or index >= len(eqs):
                    raise PlanError(f"eliminate: no variable {name!r} or constraint {index}")
                numerator = sympy.numer(
                    sympy.together(eqs[index])
                )  # superset: also zeros of the denominator's multiples
                try:
                    poly = sympy.Poly(sympy.expand(numerator), var)
                except sympy.PolynomialError:  # cos(x), sqrt(x^2 + 1), ...: not solvable for it here
                    raise PlanError(f"eliminate {name}: constraint {index} is not polynomial in it") from None
                rest = [s for s in syms if s != var]
                if poly.degree() == 1:
                    p, q = poly.all_coeffs()
                    # p = 0 would force q = 0: a q that never vanishes keeps p nonzero on feasible points
                    if _sign_proven(p, rest, domains) == 0 and _sign_proven(q, rest, domains) == 0:
                        raise PlanError(
                            f"eliminate {name}: neither its coefficient {p} nor the rest {q} is provably nonzero"
                        )
                    solutions = [-q / p]
                elif poly.degree() == 2:
                    a, b, c = poly.all_coeffs()
                    if _sign_proven(a, rest, domains) == 0:
                        raise PlanError(f"eliminate {name}: leading coefficient {a} is not provably nonzero")
                    disc = sympy.expand(b**2 - 4 * a * c)
                    solutions = [(-b + sympy.sqrt(disc)) / (2 * a), (-b - sympy.sqrt(disc)) / (2 * a)]
                    nn = nn + [(disc, False)]
                else:
                    raise PlanError(f"eliminate {name}: constraint {index} has degree {poly.degree()} in it")
                for solution in solutions:
                    if sympy.expand(poly.as_expr().subs(var, solution)) != 0:
                        raise PlanError(f"eliminate {name}: {solution} does not solve constraint {index}")
                    put = {var: solution}
                    new.append(
                        (
                            rest,
                            [sympy.together(e.subs(put)) for k, e in enumerate(eqs) if k != index],
                            nn + _domain_constraints(solution, domains[var]),
                            obj,
                            {**{k: v.subs(put) for k, v in subs.items()}, var: solution},
                        )
                    )
            branches = new
        else:
            raise PlanError(f"unknown plan step {step!r}")
    out = []
    for syms, eqs, nn, obj, subs in branches:
        if eqs:
            raise PlanError(f"{len(eqs)} equality constraint(s) left after the plan")
        bounds = tuple((_fraction(domains[s].lo, "lo"), _fraction(domains[s].hi, "hi")) for s in syms)
        for s in syms:  # irrational ends: the box is wider, the exact end is a constraint
            d = domains[s]
            if d.lo is not None and not d.lo.is_Rational:
                nn = nn + [(s - d.lo, bool(d.lo_open))]
            if d.hi is not None and not d.hi.is_Rational:
                nn = nn + [(d.hi - s, bool(d.hi_open))]
        aux = tuple((v, expr, domains[v]) for v, expr in subs.items())
        out.append(Reduced(tuple(syms), bounds, obj, tuple(nn), aux, tuple(extra_points)))
    return out
