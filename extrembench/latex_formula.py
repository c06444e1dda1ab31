"""Read the formulas of a LaTeX problem statement back, to check them against the problem's spec.

Formulas are parsed with latex2sympy2_extended. That is safe on untrusted text: it is an ANTLR
grammar (PSLexer/PSParser) whose parse tree is turned into sympy objects by fixed constructors.
Its source (latex2sympy2.py, version in the venv) calls parse_expr only on caller-supplied
`variable_values`, which we never pass, and sympy.Number only on lexer NUMBER tokens (digits);
function names reach getattr only after the grammar matched them against its fixed token set.
"""

from __future__ import annotations

import math
import re

import sympy
from latex2sympy2_extended import NormalizationConfig, latex2sympy
from latex2sympy2_extended.latex2sympy2 import ConversionConfig

# keep case: a statement may use A, B, C (angles) next to a, b, c
_CONVERSION = ConversionConfig(lowercase_symbols=False)
# malformed_operators: accept the common brace-less \frac1a, \sqrt2; no unit stripping or \boxed
_NORMALIZATION = NormalizationConfig(basic_latex=True, units=False, malformed_operators=True, nits=False,
                                     boxed="none", equations=False)

_MATH_RE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
_MIN_WORDS = ("minimum", "smallest", "least", "minimal", "infimum")
_MAX_WORDS = ("maximum", "largest", "greatest", "maximal", "supremum")
_RELATIONS = (sympy.Eq, sympy.Ge, sympy.Le, sympy.Gt, sympy.Lt)
MAX_STATEMENT_LENGTH = 20000


_TRAILING_PUNCTUATION_RE = re.compile(r"(?:\s|\\[,;:! ]|[.,;:])+$")


def math_segments(statement: str) -> list[str]:
    """The LaTeX math pieces of a statement, in order, without sentence punctuation at their end
    ("$$\frac{a}{b}.$$")."""
    pieces = (next(g for g in m.groups() if g is not None) for m in _MATH_RE.finditer(statement))
    return [_TRAILING_PUNCTUATION_RE.sub("", piece).strip() for piece in pieces]


def statement_sense(statement: str) -> str | None:
    text = statement.lower()
    has_min = any(w in text for w in _MIN_WORDS)
    has_max = any(w in text for w in _MAX_WORDS)
    return "min" if has_min and not has_max else "max" if has_max and not has_min else None


def parse_segment(segment: str, names: dict[str, sympy.Symbol]) -> sympy.Basic | None:
    """sympy form of one math segment with its symbols renamed to the spec's, or None when the
    grammar does not accept it (a list like "a, b, c", a set, prose)."""
    try:
        parsed = latex2sympy(segment, normalization_config=_NORMALIZATION, conversion_config=_CONVERSION)
    except Exception:  # the grammar raises a variety of errors on text it does not accept
        return None
    if not isinstance(parsed, sympy.Basic):
        return None
    mapping = {s: names[s.name] for s in parsed.free_symbols if isinstance(s, sympy.Symbol) and s.name in names}
    if "e" in names:  # the grammar reads a lone e as Euler's number; here it is the variable
        mapping[sympy.E] = names["e"]
    return parsed.xreplace(mapping)


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
    formulas, relations = [], []
    for segment in math_segments(statement):
        expr = parse_segment(segment, names)
        if expr is None or not (expr.free_symbols & set(parsed.symbols)):
            continue
        (relations if isinstance(expr, _RELATIONS) else formulas).append((segment, expr))
    if not any(isinstance(e, sympy.Expr) and _same_values(e, parsed.objective, subs_points) for _, e in formulas):
        shown = "; ".join(s for s, _ in formulas) or "none"
        return f"no formula in the statement equals the objective {parsed.objective} at feasible points (formulas read: {shown})"
    for segment, relation in relations:
        difference = relation.lhs - relation.rhs
        for point in subs_points:
            value = _value(difference, point)
            scale = 1 + abs(_value(relation.lhs, point) or 0) + abs(_value(relation.rhs, point) or 0)
            if value is None:
                continue
            tol = 1e-7 * scale
            holds = {sympy.Eq: abs(value) <= tol, sympy.Ge: value >= -tol, sympy.Le: value <= tol,
                     sympy.Gt: value >= -tol, sympy.Lt: value <= tol}[type(relation)]
            if not holds:
                return f"the stated relation ${segment}$ fails at a feasible point of the spec {point}"
    stated = sum(1 for _, r in relations if len(r.free_symbols) > 1 or not _is_sign_condition(r))
    required = sum(1 for lhs, _, rhs in parsed.constraints if len((lhs - rhs).free_symbols) > 0)
    if stated < required:
        return f"states {stated} relation(s) between variables but the spec has {required} constraint(s)"
    return None


def _is_sign_condition(relation) -> bool:
    """'a > 0'-style domain conditions are not constraints."""
    return len(relation.free_symbols) == 1 and (relation.lhs.is_number or relation.rhs.is_number)
