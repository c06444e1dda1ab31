"""Describe a problem set by rules anyone can re-check: source type (the competition table of
extrembench.report.problem_set.competitions), the declared difficulty and its reason, constraint and domain
kinds, where the extremum sits. The rules are written out in docs/problem-format.md ("Difficulty
rubric"); benchmarks/problem_set.py prints the counts against the set's targets.

Everything here is a pure function of a problem file's fields, plus the cheap guesses
(extrembench.generation.symmetric: all variables equal; extrembench.generation.boundary: one
variable at an edge, the others equal; extrembench.generation.constant: the set's most frequent
answer, 0 for a difference) for "is the extremum where a guess puts it". Difficulty is not
computed: it judges the technique a solution needs, which no guess measures.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from typing import Any

import sympy

from extrembench.problems.problem import Problem, parse_domain, parse_problem
from extrembench.report.problem_set.competitions import COMPETITION_TYPES, cite

LEVELS = ("easy", "medium", "hard")


def rubric_difficulty(declared: str | None, reason: str | None) -> tuple[str | None, str]:
    """(difficulty, why): the declared label, which judges the technique a solution needs
    (docs/problem-format.md, "Difficulty rubric") and is the curator's call written out in
    `difficulty_reason`. Nothing computed from the file raises or lowers it: where the extremum
    sits (off the cheap guesses or not) measures guessability, reported on its own, not the
    technique. A label without its reason, or no label, is reported, not replaced."""
    if declared not in LEVELS:
        return None, "no difficulty label"
    if not reason:
        return declared, "no difficulty_reason"
    return declared, "declared"


def constraint_kind(problem: Problem) -> str:
    """none | equality | inequality | mixed (both equalities and inequalities)."""
    ops = {_relation_op(text) for text in problem.constraints}
    has_eq, has_ineq = "=" in ops, bool(ops - {"="})
    return "mixed" if has_eq and has_ineq else "equality" if has_eq else "inequality" if has_ineq else "none"


def _relation_op(text: str) -> str:
    match = re.search(r"==|>=|<=|≥|≤|=|<|>", text)
    return {"==": "=", "≥": ">=", "≤": "<="}.get(match.group(), match.group()) if match else "?"


def domain_kind(problem: Problem) -> str:
    """positive | nonnegative | real | interval (every variable in a bounded or half-bounded
    interval written out) | mixed."""
    kinds = {
        text.strip() if text.strip() in ("positive", "nonnegative", "real") else "interval"
        for text in problem.variables.values()
    }
    return kinds.pop() if len(kinds) == 1 else "mixed"


def is_cyclic(problem: Problem, points: int = 3) -> bool:
    """Whether shifting the variables (x1 -> x2 -> ... -> xn -> x1) leaves the problem unchanged:
    the same domains, the objective equal (to 25 digits at fixed rational points) and every
    constraint mapped onto one of the constraints. Symmetric problems are cyclic too."""
    if len(set(problem.variables.values())) > 1:
        return False
    parsed = parse_problem(problem)
    symbols = parsed.symbols
    shift = dict(zip(symbols, symbols[1:] + symbols[:1]))
    rng = random.Random(0)
    samples = [{s: sympy.Rational(rng.randint(1, 97), rng.randint(1, 97)) for s in symbols} for _ in range(points)]

    def agree(first: sympy.Expr, second: sympy.Expr) -> bool:
        for point in samples:
            a, b = sympy.N(first.subs(point), 30), sympy.N(second.subs(point), 30)
            if not (a.is_number and b.is_number) or abs(a - b) > 1e-25 * (1 + abs(a)):
                return False
        return True

    if not agree(parsed.objective, parsed.objective.xreplace(shift)):
        return False
    forms = [(lhs - rhs, op) for lhs, op, rhs in parsed.constraints]
    return all(
        any(op == other_op and agree(form.xreplace(shift), other) for other, other_op in forms) for form, op in forms
    )


def equality_case(problem: Problem, at_symmetric_point: bool, witness: dict[str, float] | None) -> str:
    """Where the extremum is attained, from the symmetric guess and one witness of the validator's
    search (a point reaching the answer):

    symmetric — at the all-equal point, and the witness is all-equal too (or there is none);
    several   — at the all-equal point, and the search found a different point reaching it;
    boundary  — not at the all-equal point, and the witness has a coordinate at a finite end of
                its domain (within 1e-6) or beyond 1e6 (approached at infinity);
    other     — not at the all-equal point, witness inside the domain;
    unknown   — not at the all-equal point and no witness.
    """
    values = list((witness or {}).values())
    all_equal = not values or max(values) - min(values) <= 1e-6 * (1 + max(abs(v) for v in values))
    if at_symmetric_point:
        return "symmetric" if all_equal else "several"
    if not values:
        return "unknown"
    for name, value in witness.items():
        domain = parse_domain(problem.variables[name])
        ends = [float(e) for e in (domain.lo, domain.hi) if e is not None]
        if abs(value) > 1e6 or any(abs(value - e) <= 1e-6 * (1 + abs(e)) for e in ends):
            return "boundary"
    return "other"


def describe(
    problem: Problem, at_symmetric_point: bool, at_boundary_point: bool = False, at_constant: bool = False
) -> dict[str, Any]:
    """The per-problem facts the set statistics count (at_constant: constant-guess answers it)."""
    citation = cite((problem.source or {}).get("reference"))
    cyclic = is_cyclic(problem)
    rubric, rule = rubric_difficulty(problem.difficulty, problem.difficulty_reason)
    return {
        "id": problem.id,
        "family": problem.family or problem.id,
        "declared": problem.difficulty,
        "reason": problem.difficulty_reason,
        "rubric": rubric,
        "rule": rule,
        "source_type": citation.kind,
        "competition": citation.kind in COMPETITION_TYPES,
        "citation_complete": citation.complete,
        "techniques": tuple(problem.technique),
        "variables": len(problem.variables),
        "sense": problem.sense,
        "domain": domain_kind(problem),
        "constraint_kind": constraint_kind(problem),
        "constraints": len(problem.constraints),
        "at_symmetric_point": at_symmetric_point,
        "at_boundary_point": at_boundary_point,
        "at_constant": at_constant,
        "cyclic": cyclic,
    }


def difficulty_mismatches(rows: Iterable[dict[str, Any]]) -> list[str]:
    """One line per problem without a difficulty label or without its one-line reason."""
    return [f"{r['id']}: {r['rule']} (add it to the file)" for r in rows if r["rule"] != "declared"]
