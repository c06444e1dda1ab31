"""Describe a problem set by rules anyone can re-check: source type, difficulty rubric, constraint
and domain kinds, where the extremum sits. The rules are written out in docs/problem-format.md
("Difficulty rubric"); benchmarks/problem_set.py prints the counts against the set's targets.

Everything here is a pure function of a problem file's fields, plus the symmetric-point guess
(extrembench.generation.symmetric) for "is the extremum at the all-equal point".
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from typing import Any

import sympy

from extrembench.generation.symmetric import symmetric_guess
from extrembench.problems.problem import Problem, parse_domain, parse_problem

# Hard by technique: the methods that do not reduce to one named inequality (issue 17's list).
HARD_TECHNIQUES = frozenset({"sos", "uvw", "mixing-variables", "schur", "tangent-line"})
# Easy: exactly one of these, applied once (tagged alone).
CLASSICAL_TECHNIQUES = frozenset({"am-gm", "cauchy-schwarz", "holder", "jensen"})
OLYMPIAD_SOURCES = frozenset({"international-olympiad", "national-olympiad"})

# Source types, tested in this order on source.reference (case-sensitive where an acronym is meant).
_SOURCE_RULES: tuple[tuple[str, re.Pattern], ...] = (
    (
        "international-olympiad",
        re.compile(
            r"\b(IMO|ISL|APMO|EGMO|JBMO|BMO|MEMO|RMM)\b|Shortlist|Longlist|Asian[- ]Pacific|Balkan|Baltic Way"
            r"|Middle European|Iberoamerican|Tournament of Towns|Romanian Masters|Silk Road|International Zhautykov"
        ),
    ),
    (
        "national-olympiad",
        re.compile(
            r"Olympiad|\b[A-Z]*MO\b|\bTST\b|Team Selection|China (Western|Southeast|Girls)|Girls'? MO"
            r"|National|Putnam|奥林匹克|集训队|冬令营|联赛"
        ),
    ),  # Chinese: olympiad, training team, winter camp, league
    ("book", re.compile(r"(?i)\bchapter\b|\bch\.\s*\d|§|\bbook\b|\bexercise\b")),
    ("journal", re.compile(r"Crux|Mathematical Reflections|Monthly|Mathematics Magazine|AoPS|Kvant|Gazeta")),
    ("classical", re.compile(r"(?i)^\s*(classical|known|folklore|standard)\b|'s inequality")),
)


def source_type(reference: str | None) -> str:
    """The kind of source a `source.reference` cites: the first rule that matches, in the order
    international-olympiad, national-olympiad, book, journal, classical; `other` when none does,
    `none` without a reference."""
    if not reference or not reference.strip():
        return "none"
    for name, pattern in _SOURCE_RULES:
        if pattern.search(reference):
            return name
    return "other"


def rubric_difficulty(
    source: str, techniques: Iterable[str], at_symmetric_point: bool, cyclic: bool = True
) -> tuple[str, str]:
    """(difficulty, the rule that decided it):

    hard   — a national or international olympiad source; or the problem is cyclic (unchanged by
             shifting its variables, so all-equal is the natural guess) and the extremum is not
             attained at the all-equal point (the symmetric guess misses it); or a technique among
             sos / uvw / mixing-variables / schur / tangent-line.
    easy   — otherwise, when the technique list is exactly one of am-gm / cauchy-schwarz / holder /
             jensen (one classical inequality, once).
    medium — everything else.
    """
    techniques = frozenset(techniques)
    if source in OLYMPIAD_SOURCES:
        return "hard", f"{source} source"
    if cyclic and not at_symmetric_point:
        return "hard", "cyclic problem, extremum not at the all-equal point"
    if techniques & HARD_TECHNIQUES:
        return "hard", f"technique {', '.join(sorted(techniques & HARD_TECHNIQUES))}"
    if len(techniques) == 1 and techniques <= CLASSICAL_TECHNIQUES:
        return "easy", f"one classical inequality ({next(iter(techniques))})"
    return "medium", "neither rule for hard nor for easy applies"


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


def guess_matches(problem: Problem) -> bool:
    """Whether the symmetric guess equals the problem's answer (to 1e-12 relative): the extremum is
    attained at an all-equal feasible point. An abstention counts as no."""

    guess = symmetric_guess(
        {
            "sense": problem.sense,
            "variables": problem.variables,
            "constraints": list(problem.constraints),
            "objective": problem.objective,
        }
    )
    if guess is None:
        return False
    answer = sympy.N(parse_problem(problem).answer, 30)
    return bool(abs(guess.numeric - answer) <= sympy.Float("1e-12") * (1 + abs(answer)))


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


def describe(problem: Problem, at_symmetric_point: bool) -> dict[str, Any]:
    """The per-problem facts the set statistics count."""
    source = source_type((problem.source or {}).get("reference"))
    cyclic = is_cyclic(problem)
    rubric, rule = rubric_difficulty(source, problem.technique, at_symmetric_point, cyclic)
    return {
        "id": problem.id,
        "declared": problem.difficulty,
        "rubric": rubric,
        "rule": rule,
        "source_type": source,
        "techniques": tuple(problem.technique),
        "variables": len(problem.variables),
        "sense": problem.sense,
        "domain": domain_kind(problem),
        "constraint_kind": constraint_kind(problem),
        "constraints": len(problem.constraints),
        "at_symmetric_point": at_symmetric_point,
        "cyclic": cyclic,
    }


def difficulty_mismatches(rows: Iterable[dict[str, Any]]) -> list[str]:
    """One line per problem whose declared difficulty differs from the rubric's."""
    return [
        f"{r['id']}: declared {r['declared']}, rubric says {r['rubric']} ({r['rule']})"
        for r in rows
        if r["declared"] != r["rubric"]
    ]
