"""The boundary-point baseline: one variable at an edge, the others equal.

After "all equal" (extrembench.generation.symmetric), the next cheap guess for a symmetric
olympiad problem is "one variable at the edge, the others equal": (0, t, t) on the nonnegative
simplex, (1, t, t) on a box, or c = a + b with a = b when a constraint c >= a + b bounds it. This
model answers the best such value without any reasoning, so it measures, beside symmetric-guess,
how much of a set falls to cheap guesses. For each variable x_i in turn:

- its placements are the closed finite ends of its domain (0 for `nonnegative`, both ends of
  `[lo, hi]`; an open end such as 0 for `positive` is never attained, so it is not one) and, for
  each inequality constraint that is linear in x_i once the others are set to t, the value of x_i
  that makes it tight (an expression in t, kept only where it lies inside x_i's domain);
- with x_i placed and every other variable equal to t, the one-variable problem in t is solved by
  the same candidates and feasibility checks as the symmetric guess (`line_guess`).

The best value over all variables and placements in the asked sense is the answer; none feasible
means the model abstains. Problems with one variable have no "others": the placement alone is the
point. Work is bounded by counts (variables x placements, each a symmetric-guess solve), never by
time, so the answer is the same on every machine.
"""

from __future__ import annotations

from typing import Any

import sympy

from extrembench.generation import symmetric
from extrembench.generation.symmetric import Guess, T, common_interval, guess_response, line_guess, signed_symbol
from extrembench.problems.expr import parse_expression, parse_relation, symbol
from extrembench.problems.problem import parse_domain

MAX_EDGE_PLACEMENTS = 8  # constraint edges tried per variable (after the domain ends)


def _edges(variable: sympy.Symbol, constraints: list[tuple[sympy.Expr, str]], at_t: dict) -> list[sympy.Expr]:
    """Values of `variable` (in the others' common value) making an inequality constraint tight,
    where that constraint is linear in it."""
    edges = []
    for difference, op in constraints:
        if op == "=" or variable not in difference.free_symbols:
            continue
        line = sympy.expand(difference.subs(at_t))
        try:
            poly = sympy.Poly(line, variable)
        except sympy.PolynomialError:
            continue
        if poly.degree() == 1:
            slope, offset = poly.all_coeffs()
            if slope != 0:
                edges.append(sympy.simplify(-offset / slope))
        if len(edges) >= MAX_EDGE_PLACEMENTS:
            break
    return edges


def _domain_conditions(value: sympy.Expr, domain) -> list[tuple[sympy.Expr, str]]:
    """x_i = value(t) must stay in x_i's domain: the ends as constraints `difference op 0`."""
    conditions = []
    if domain.lo is not None:
        conditions.append((value - domain.lo, ">" if domain.lo_open else ">="))
    if domain.hi is not None:
        conditions.append((value - domain.hi, "<" if domain.hi_open else "<="))
    return conditions


def boundary_guess(spec: dict[str, Any]) -> Guess | None:
    """The best value of the objective over feasible points with one variable at an edge and the
    others equal, or None (abstain)."""
    names = list(spec["variables"])
    objective = parse_expression(spec["objective"], names)
    constraints = []
    for text in spec.get("constraints") or ():
        lhs, op, rhs = parse_relation(text, names)
        constraints.append((lhs - rhs, op))
    found: list[Guess] = []
    for name in names:
        variable = symbol(name)
        domain = parse_domain(spec["variables"][name])
        others = {n: spec["variables"][n] for n in names if n != name}
        interval = common_interval(others)
        signed = signed_symbol(interval[0], interval[2])
        at_t = {symbol(n): signed for n in others}
        placements = [end for end, is_open in ((domain.lo, domain.lo_open), (domain.hi, domain.hi_open)) if not is_open]
        placements = [end for end in placements if end is not None]
        placements += [edge for edge in _edges(variable, constraints, at_t) if edge not in placements]
        for value in placements:
            point = {**at_t, variable: value}
            line_objective = objective.subs(point).subs(signed, T)
            line_constraints = [(d.subs(point).subs(signed, T), op) for d, op in constraints]
            if any(e.has(sympy.zoo, sympy.nan) for e in (line_objective, *(d for d, _ in line_constraints))):
                continue  # the edge is a pole (1/x at x = 0): not a point of the problem
            if value.free_symbols:  # an edge moves with t: keep it inside x_i's domain
                line_constraints += [(d.subs(signed, T), op) for d, op in _domain_conditions(value, domain)]
            guess = line_guess(spec["sense"], interval, line_objective, line_constraints)
            if guess is not None:
                found.append(guess)
    if not found:
        return None
    pick = min if spec["sense"] == "min" else max
    return pick(found, key=lambda guess: guess.numeric)  # first of ties: the order above is fixed


SETTING = "With one variable at the edge and the others equal"


def answer_text(guess: Guess, sense: str, digits: int) -> str:
    return symmetric.answer_text(guess, sense, digits, SETTING)


def answer(identity: dict[str, Any]) -> dict[str, Any]:
    """A generation response for one sample (the same shape as a chat response)."""
    return guess_response(identity, boundary_guess, "boundary-guess", SETTING)
