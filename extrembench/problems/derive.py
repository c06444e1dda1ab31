"""The extremal problem of a problem file: "prove lhs >= rhs" becomes "find the minimum of ...".

The derivation is deterministic: objective = lhs - rhs without its additive constant terms,
answer = minus those constants, sense min for >= and > (max for <= and <). When a problem has both a
source inequality and curated fields, the two must describe the same function on the feasible set
(objective - answer agree, checked symbolically, modulo the equality constraints); otherwise the
problem is rejected with both versions shown.
"""

from __future__ import annotations

import random

import sympy

from extrembench.problems.expr import parse_expression, symbol
from extrembench.problems.problem import ExtremalSpec, Problem, ProblemError, parse_problem
from extrembench.problems.statement import render_statement, to_text

SENSE_OF_RELATION = {">=": "min", ">": "min", "<=": "max", "<": "max"}


def derive_from_inequality(problem: Problem) -> tuple[str, sympy.Expr, sympy.Expr]:
    """(sense, objective, answer) of the extremal problem behind source.inequality."""
    inequality = problem.source["inequality"]
    names = list(problem.variables)
    lhs = parse_expression(inequality["lhs"], names)
    rhs = parse_expression(inequality["rhs"], names)
    constant, variable_part = (lhs - rhs).as_independent(*map(symbol, names), as_Add=True)
    if variable_part == 0:
        raise ProblemError(problem.path, "source.inequality", "lhs - rhs does not depend on any variable")
    return SENSE_OF_RELATION[inequality["relation"]], variable_part, -constant


def _zero_on_equalities(difference: sympy.Expr, problem: Problem) -> bool:
    """True when `difference` vanishes identically, or on the solution set of the equality
    constraints: polynomial reduction modulo their Groebner basis, else substitution of the
    variables that linear constraints solve for, then comparison at seeded sample points."""
    if difference == 0:
        return True
    parsed = parse_problem(problem)
    equalities = [lhs - rhs for lhs, op, rhs in parsed.constraints if op == "="]
    if not all(_small_for_algebra(e) for e in equalities + [difference]):
        return _numerically_zero(difference, parsed) if not equalities else False
    if sympy.cancel(sympy.together(difference)) == 0:
        return True
    numerator = sympy.numer(sympy.together(difference))
    if sympy.expand(numerator) == 0:
        return True
    polys = [sympy.numer(sympy.together(g)) for g in equalities]
    symbols = parsed.symbols
    if polys and all(p.is_polynomial(*symbols) for p in polys + [numerator]):
        basis = sympy.groebner(polys, *symbols, order="grevlex")
        return basis.reduce(sympy.expand(numerator))[1] == 0
    solved: dict[sympy.Symbol, sympy.Expr] = {}
    for g in equalities:
        g = g.subs(solved)
        for s in sorted(g.free_symbols, key=str):
            slope = sympy.diff(g, s)
            if slope != 0 and not slope.free_symbols:  # linear in s: s = s - g/slope on the constraint
                solved = {k: v.subs(s, s - g / slope) for k, v in solved.items()}
                solved[s] = sympy.expand(s - g / slope)
                break
        else:
            return False
    return _numerically_zero(difference.subs(solved), parsed)


def _small_for_algebra(expr: sympy.Expr) -> bool:
    """Whether expanding / Groebner reduction stays cheap: (a+b+c)^1000 parses fine but expands to
    half a million terms."""
    exponents = [p.exp for p in expr.atoms(sympy.Pow) if p.exp.is_number]
    return sympy.count_ops(expr) <= 300 and all(abs(e) <= 12 for e in exponents)


def _numerically_zero(difference: sympy.Expr, parsed) -> bool:
    """Compare with 0 at fixed pseudo-random points of the domain box (seeded, so the verdict is
    reproducible); points where it is undefined are skipped, and at least 6 must be defined."""
    rng = random.Random(0)
    defined = 0
    for _ in range(12):
        point = {}
        for s, dom in parsed.domains.items():
            lo = float(dom.lo) if dom.lo is not None else (float(dom.hi) - 3 if dom.hi is not None else -3.0)
            hi = float(dom.hi) if dom.hi is not None else lo + 3
            point[s] = sympy.Rational(lo + (hi - lo) * rng.uniform(0.05, 0.95)).limit_denominator(10**6)
        value = sympy.N(difference.subs(point), 30)
        if not value.is_number or not value.is_finite:
            continue
        if abs(value) > 1e-20:
            return False
        defined += 1
    return defined >= 6


def convert_problem(problem: Problem) -> tuple[ExtremalSpec, str]:
    """The extremal spec of a problem and its origin ('inequality' when a source inequality was
    derived and agrees with the curated fields, else 'curated'); raises ProblemError on disagreement."""
    parsed = parse_problem(problem)
    statement = problem.statement if problem.statement is not None else render_statement(problem)
    spec = ExtremalSpec(
        problem.sense, dict(problem.variables), tuple(problem.constraints), problem.objective, problem.answer, statement
    )
    if not (problem.source or {}).get("inequality"):
        return spec, "curated"
    sense, objective, answer = derive_from_inequality(problem)
    derived = f"sense {sense}, objective {to_text(objective)}, answer {to_text(answer)}"
    curated = f"sense {problem.sense}, objective {problem.objective}, answer {problem.answer}"
    if sense != problem.sense or not _zero_on_equalities(
        (objective - answer) - (parsed.objective - parsed.answer), problem
    ):
        raise ProblemError(
            problem.path,
            "source.inequality",
            f"the derived problem ({derived}) disagrees with the curated fields ({curated})",
        )
    return spec, "inequality"
