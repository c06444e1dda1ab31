"""A feasible set that is one point. A proof that -sum (v - w_v)^2 >= 0 on the feasible set, with
w the certificate's exact witness, shows w is the set's only point; the witness check shows w is
feasible and attains the answer, so the objective equals the answer on the whole set. It serves a
set that inequalities force down to a point (x + y <= 2 with xy >= 1): float points just outside
it beat the claim by their rounding, and no proof about the objective itself closes there.

This module derives the problem such a proof is about; provers/routes.py writes the proof."""

from __future__ import annotations

import sympy

from extrembench.problems.problem import ParsedProblem


def point_problem(parsed: ParsedProblem, witness: dict) -> ParsedProblem:
    """min -sum (v - w_v)^2 over the same set, answer 0 (attained at w)."""
    distance = sympy.Add(*((s - witness[s]) ** 2 for s in parsed.symbols))
    return ParsedProblem(parsed.symbols, parsed.domains, parsed.constraints, -distance, sympy.Integer(0), "min")


def checked(parsed: ParsedProblem, body: dict, witness: dict, epsilon) -> ParsedProblem:
    """The one-point problem of a body that records `point: true` (ValueError otherwise). The
    proof must be exact: a slack would leave a ball of points, not one."""
    if body.get("point") is not True:
        raise ValueError("point: must be true")
    if epsilon != 0:
        raise ValueError("point: the proof that the set is one point must be exact (epsilon 0)")
    if "substitution" in body or "ordered" in body:
        raise ValueError("point: not combined with a substitution or sorted groups")
    return point_problem(parsed, witness)
