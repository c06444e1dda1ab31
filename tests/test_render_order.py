"""Rendered statements keep the formula's source order, and still say the same thing: every
shipped problem's rendered formulas, read back by the statement checker's LaTeX grammar, equal the
spec's expressions."""

import random
from pathlib import Path
from types import SimpleNamespace

import pytest
import sympy

from extrembench.problems.expr import parse_expression
from extrembench.problems.problem import load_problem, parse_problem, problem_from_dict
from extrembench.problems.statement import render_statement, source_order_latex
from extrembench.verify.statement_check import math_segments, read_segment

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "text, latex",
    [
        # issue 17's example: sympy's order was -3a^3b - 3ac^3 - 3b^3c + (a^2+b^2+c^2)^2
        (
            "(a^2 + b^2 + c^2)^2 - 3*(a^3*b + b^3*c + c^3*a)",
            r"\left(a^{2} + b^{2} + c^{2}\right)^{2} - 3 \left(a^{3} b + b^{3} c + c^{3} a\right)",
        ),
        ("c + b + a", "c + b + a"),
        ("a*b + b*c + c*a - a*b*c", "a b + b c + c a - a b c"),
        ("1/a + 4/b + 9/c", r"\frac{1}{a} + \frac{4}{b} + \frac{9}{c}"),
        ("5*(a^2 + b^2) - 6*(a^3 + b^3)", r"5 \left(a^{2} + b^{2}\right) - 6 \left(a^{3} + b^{3}\right)"),
        ("Max(c*b, a + b)", r"\max\left(c b, a + b\right)"),
        ("b^2/a + 2", r"\frac{b^{2}}{a} + 2"),
        ("-c + a", "- c + a"),
        ("1*a + 1/b", r"a + \frac{1}{b}"),  # no stray literal 1
        ("a*(-b) + c", "- a b + c"),  # the sign of a factor goes in front
        ("a - b*(-c)", "a + b c"),  # and a double negation cancels
        ("-(a - b)^2", r"- \left(a - b\right)^{2}"),
    ],
)
def test_source_order_latex(text, latex):
    assert source_order_latex(text, ["a", "b", "c"]) == latex
    names = {n: sympy.Symbol(n) for n in "abc"}
    read_back = parse_segment(latex, names)
    assert _values_agree(read_back, parse_expression(text, list(names)), list(names.values()), random.Random(1))


def test_constraint_sides_keep_their_order():
    item = problem_from_dict(
        {
            "id": "r",
            "sense": "min",
            "variables": {"a": "positive", "b": "positive", "c": "positive"},
            "constraints": ["c + b + a = 3", "a*b*c >= 1/27"],
            "objective": "c/a + a/b",
            "answer": "0",
        }
    )
    assert render_statement(item) == (
        r"Let $a, b, c$ be positive real numbers such that $c + b + a = 3$ and "
        r"$a b c \geq \frac{1}{27}$. Find the minimum value of $\frac{c}{a} + \frac{a}{b}$."
    )


def parse_segment(latex, names):
    """The one formula or relation of a math segment, read by the statement checker's reader."""
    formulas, relations = read_segment(latex, list(names))
    if relations:
        lhs, _, rhs = relations[0]
        return SimpleNamespace(lhs=lhs, rhs=rhs)
    return formulas[0] if formulas else None


def _values_agree(first, second, symbols, rng) -> bool:
    """Equal values at random rational points; symbols are matched by name (the reader and the
    problem parser may attach different assumptions), and every value must be a number."""
    for _ in range(4):
        by_name = {str(s): sympy.Rational(rng.randint(1, 40), rng.randint(1, 40)) for s in symbols}
        values = []
        for expr in (first, second):
            expr = sympy.sympify(expr)
            values.append(sympy.N(expr.subs({s: by_name[str(s)] for s in expr.free_symbols}), 25))
        a, b = values
        assert a.is_number and b.is_number, (first, second)
        if a.is_finite and b.is_finite and abs(a - b) > 1e-15 * (1 + abs(a)):
            return False
    return True


@pytest.mark.parametrize("path", sorted((REPO / "data/problems").glob("*.yaml")), ids=lambda p: p.stem)
def test_rendered_formulas_read_back_equal(path):
    problem = load_problem(path)
    parsed = parse_problem(problem)
    names = {str(s): s for s in parsed.symbols}
    segments = math_segments(render_statement(problem))
    objective = parse_segment(segments[-1], names)
    rng = random.Random(0)
    assert objective is not None and _values_agree(objective, parsed.objective, parsed.symbols, rng)
    relations = [parse_segment(s, names) for s in segments[1:-1]]
    for relation, (lhs, _op, rhs) in zip(
        relations[-len(parsed.constraints) :] if parsed.constraints else [], parsed.constraints
    ):
        assert _values_agree(relation.lhs - relation.rhs, lhs - rhs, parsed.symbols, rng)
