r"""Read the formulas of a LaTeX problem statement back, to check them against the problem's spec.

Formulas are read by the project's one LaTeX reader, extrembench.problems.latex (a tokenizer and a
recursive-descent parser that builds a tree and prints it in the plain syntax); the plain text is
then parsed by extrembench.problems.expr's safe parser over the spec's variables. Nothing is evaluated, and
the formalizer and this check understand exactly the same notation (\max\{...\}, \sum_{cyc},
brace-less \frac1a, "P = ..." naming the objective).
"""

from __future__ import annotations

import math
import re

import sympy

from extrembench.problems.expr import ExpressionError, parse_expression
from extrembench.problems.latex import MATH_SEGMENT, FormalizeError, latex_chain, strip_definition
from extrembench.problems.problem import split_top_level_commas

_MIN_WORDS = ("minimum", "smallest", "least", "minimal", "infimum")
_MAX_WORDS = ("maximum", "largest", "greatest", "maximal", "supremum")
MAX_STATEMENT_LENGTH = 20000


_TRAILING_PUNCTUATION_RE = re.compile(r"(?:\s|\\[,;:! ]|[.,;:])+$")


def math_segments(statement: str) -> list[str]:
    """The LaTeX math pieces of a statement, in order, without sentence punctuation at their end
    ("$$\frac{a}{b}.$$")."""
    pieces = (next(g for g in m.groups() if g is not None) for m in MATH_SEGMENT.finditer(statement))
    return [_TRAILING_PUNCTUATION_RE.sub("", piece).strip() for piece in pieces]


def statement_sense(statement: str) -> str | None:
    text = statement.lower()
    has_min = any(w in text for w in _MIN_WORDS)
    has_max = any(w in text for w in _MAX_WORDS)
    return "min" if has_min and not has_max else "max" if has_max and not has_min else None


def read_segment(segment: str, variables: list[str]) -> tuple[list[sympy.Expr], list[tuple]]:
    """(formulas, relations (lhs, op, rhs)) of one math segment over the spec's variables; pieces
    the reader does not accept (a list of names, a set, prose, unknown names) are skipped."""
    formulas, relations = [], []
    for piece in split_top_level_commas(segment):
        piece = strip_definition(piece, variables).strip()
        if not piece:
            continue
        try:
            parts, ops = latex_chain(piece, variables)
            exprs = [parse_expression(part, variables) for part in parts]
        except (FormalizeError, ExpressionError, RecursionError):
            continue
        if ops:
            relations += [(exprs[i], op, exprs[i + 1]) for i, op in enumerate(ops)]
        else:
            formulas.append(exprs[0])
    return formulas, relations


def _value(expr: sympy.Expr, point: dict) -> float | None:
    try:
        value = complex(expr.evalf(20, subs=point))
    except (TypeError, ValueError):
        return None
    if not math.isfinite(value.real) or abs(value.imag) > 1e-9 * (1 + abs(value.real)):
        return None
    return value.real


def _same_values(left: sympy.Expr, right: sympy.Expr, points: list[dict]) -> bool:
    compared = 0
    for point in points:
        a, b = _value(left, point), _value(right, point)
        if a is None or b is None:
            continue
        if abs(a - b) > 1e-8 * (1 + abs(a) + abs(b)):
            return False
        compared += 1
    return compared > 0


def statement_mismatch(statement: str, parsed, points: list[dict[str, float]]) -> str | None:
    """Why the statement does not describe the spec, or None when it does: its sense word must be
    the spec's, one of its formulas must equal the objective at the given feasible points, every
    relation it states must hold at them, and it must state at least as many relations between
    variables as the spec has constraints."""
    if len(statement) > MAX_STATEMENT_LENGTH:
        return f"longer than {MAX_STATEMENT_LENGTH} characters"
    names = {str(s): s for s in parsed.symbols}
    sense = statement_sense(statement)
    if sense is not None and sense != parsed.sense:
        return f"asks for the {'minimum' if sense == 'min' else 'maximum'} but the spec's sense is {parsed.sense}"
    subs_points = [{names[k]: v for k, v in p.items()} for p in points]
    variables = [str(s) for s in parsed.symbols]
    formulas, relations = [], []
    for segment in math_segments(statement):
        read, related = read_segment(segment, variables)
        formulas += [(segment, e) for e in read if e.free_symbols]
        relations += [(segment, r) for r in related if (r[0] - r[2]).free_symbols]
    if not any(_same_values(e, parsed.objective, subs_points) for _, e in formulas):
        shown = "; ".join(dict.fromkeys(s for s, _ in formulas)) or "none"
        return f"no formula in the statement equals the objective {parsed.objective} at feasible points (formulas read: {shown})"
    for segment, (lhs, op, rhs) in relations:
        for point in subs_points:
            value = _value(lhs - rhs, point)
            scale = 1 + abs(_value(lhs, point) or 0) + abs(_value(rhs, point) or 0)
            if value is None:
                continue
            tol = 1e-7 * scale
            holds = {
                "=": abs(value) <= tol,
                ">=": value >= -tol,
                "<=": value <= tol,
                ">": value >= -tol,
                "<": value <= tol,
            }[op]
            if not holds:
                return f"the stated relation ${segment}$ fails at a feasible point of the spec {point}"
    stated = sum(1 for _, r in relations if not _is_sign_condition(r))
    required = sum(1 for lhs, _, rhs in parsed.constraints if len((lhs - rhs).free_symbols) > 0)
    if stated < required:
        return f"states {stated} relation(s) between variables but the spec has {required} constraint(s)"
    return None


def _is_sign_condition(relation: tuple) -> bool:
    """'a > 0'-style domain conditions are not constraints."""
    lhs, _, rhs = relation
    return len((lhs - rhs).free_symbols) == 1 and (lhs.is_number or rhs.is_number)
