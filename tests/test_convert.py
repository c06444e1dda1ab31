"""Deriving the extremal problem from the source inequality, and rendering statements."""

import pytest
import sympy

from extrembench.problems.derive import convert_problem, derive_from_inequality
from extrembench.problems.expr import parse_expression
from extrembench.problems.problem import ProblemError, problem_from_dict
from extrembench.problems.statement import render_statement, to_text

a, b, c = sympy.symbols("a b c")
ABC = {"a": "positive", "b": "positive", "c": "positive"}


def problem(lhs, relation, rhs, *, sense="min", objective="a", answer="0", constraints=(), variables=ABC):
    return problem_from_dict(
        {
            "id": "conv",
            "sense": sense,
            "variables": variables,
            "constraints": list(constraints),
            "objective": objective,
            "answer": answer,
            "source": {"inequality": {"lhs": lhs, "relation": relation, "rhs": rhs}},
        }
    )


@pytest.mark.parametrize(
    "lhs, relation, rhs, sense, objective, answer",
    [
        ("a^2/b + b^2/c + c^2/a", ">=", "3", "min", a**2 / b + b**2 / c + c**2 / a, 3),
        (
            "a/(b+c) + b/(c+a) + c/(a+b)",
            ">=",
            "3/2",
            "min",
            a / (b + c) + b / (c + a) + c / (a + b),
            sympy.Rational(3, 2),
        ),
        ("a*b*c + 2", "<=", "3", "max", a * b * c, 1),
        ("(a + 1)^2", ">", "1", "min", (a + 1) ** 2, 1),
        ("a + b + c + 1", ">=", "3*cbrt(a*b*c) + 1", "min", a + b + c - 3 * sympy.cbrt(a * b * c), 0),
        ("5 - a*b", ">=", "1", "min", -a * b, -4),  # the rule, literally: min of lhs - rhs
    ],
)
def test_derivation(lhs, relation, rhs, sense, objective, answer):
    derived_sense, derived_objective, derived_answer = derive_from_inequality(problem(lhs, relation, rhs))
    assert derived_sense == sense
    assert sympy.simplify(derived_objective - objective) == 0
    assert derived_answer == answer


@pytest.mark.parametrize(
    "lhs, relation, rhs, sense, objective, answer, constraints",
    [
        # same text
        ("a^2/b + b^2/c + c^2/a", ">=", "3", "min", "a^2/b + b^2/c + c^2/a", "3", ["a + b + c = 3"]),
        # written differently, identical as functions
        ("(a + b)^2", ">=", "4*a*b", "min", "a^2 - 2*a*b + b^2", "0", []),
        # equal only on the constraint a + b + c = 3 (Groebner reduction)
        ("a^2/b + b^2/c + c^2/a", ">=", "a + b + c", "min", "a^2/b + b^2/c + c^2/a", "3", ["a + b + c = 3"]),
        # max from <=, constant moved
        ("a*b*c + 1", "<=", "2", "max", "a*b*c", "1", ["a + b + c = 3"]),
        # non-polynomial, compared at sample points
        ("sqrt(a) + sqrt(b)", "<=", "sqrt(2*(a + b))", "max", "sqrt(a) + sqrt(b) - sqrt(2*a + 2*b)", "0", []),
        # non-polynomial, equal on the constraint: c = 3 - a - b substituted, then sample points
        (
            "sqrt(a) + sqrt(b) + sqrt(c)",
            "<=",
            "a + b + c",
            "max",
            "sqrt(a) + sqrt(b) + sqrt(c)",
            "3",
            ["a + b + c = 3"],
        ),
    ],
)
def test_agreement(lhs, relation, rhs, sense, objective, answer, constraints):
    spec, origin = convert_problem(
        problem(lhs, relation, rhs, sense=sense, objective=objective, answer=answer, constraints=constraints)
    )
    assert origin == "inequality"
    assert (spec.sense, spec.objective, spec.answer) == (sense, objective, answer)
    assert spec.statement.startswith("Let $a, b, c$ be positive real numbers")


@pytest.mark.parametrize(
    "sense, objective, answer, constraints",
    [
        ("min", "a^2/b + b^2/c + c^2/a", "2", ["a + b + c = 3"]),  # wrong constant
        ("max", "a^2/b + b^2/c + c^2/a", "3", ["a + b + c = 3"]),  # swapped sense
        ("min", "a^2/b + b^2/c + c^2/a", "3", ["a + b + c = 4"]),  # another constraint
        ("min", "a^2/b + b^2/c + c^2/a", "3", []),  # equal only under the constraint
        ("min", "a^2/b + b^2/c + c^2/a", "3", ["sqrt(a) + b + c = 3"]),  # non-polynomial, other constraint
    ],
)
def test_disagreement_shows_both_versions(sense, objective, answer, constraints):
    item = problem(
        "a^2/b + b^2/c + c^2/a",
        ">=",
        "a + b + c",
        sense=sense,
        objective=objective,
        answer=answer,
        constraints=constraints,
    )
    with pytest.raises(ProblemError) as info:
        convert_problem(item)
    assert info.value.field == "source.inequality"
    assert "derived problem (sense min, objective" in info.value.reason
    assert f"curated fields (sense {sense}, objective {objective}, answer {answer})" in info.value.reason


def test_without_source_is_curated():
    item = problem_from_dict(
        {"id": "x", "sense": "max", "variables": {"x": "[0, 1]"}, "objective": "x*(1-x)", "answer": "1/4"}
    )
    spec, origin = convert_problem(item)
    assert origin == "curated"
    assert spec.statement == r"Let $x$ be a real number in $[0, 1]$. Find the maximum value of $x \left(1 - x\right)$."


def test_given_statement_is_kept():
    item = problem_from_dict(
        {
            "id": "x",
            "sense": "min",
            "variables": {"a": "positive"},
            "objective": "a + 1/a",
            "answer": "2",
            "statement": "Let $a>0$. Find the minimum value of $a+\\frac{1}{a}$.",
        }
    )
    assert convert_problem(item)[0].statement == item.statement


@pytest.mark.parametrize(
    "variables, constraints, sense, objective, expected",
    [
        (
            ABC,
            ["a + b + c = 3"],
            "min",
            "a^2/b + b^2/c + c^2/a",
            r"Let $a, b, c$ be positive real numbers such that $a + b + c = 3$. Find the minimum value of "
            r"$\frac{a^{2}}{b} + \frac{b^{2}}{c} + \frac{c^{2}}{a}$.",
        ),
        (
            {"x": "nonnegative", "y": "nonnegative"},
            ["x + y = 1", "x >= y"],
            "max",
            "x*y",
            r"Let $x, y$ be nonnegative real numbers such that $x + y = 1$ and $x \geq y$. Find the maximum value of $x y$.",
        ),
        (
            {"t": "(0, pi/2)"},
            [],
            "min",
            "tan(t) + 1/tan(t)",
            r"Let $t$ be a real number in $(0, \frac{\pi}{2})$. Find the minimum value of $\tan{\left(t \right)} + \frac{1}{\tan{\left(t \right)}}$.",
        ),
        (
            {"a": "positive", "x": "real"},
            [],
            "min",
            "a + x^2 + 1/a",
            r"Let $a$ be a positive real number and $x$ be a real number. Find the minimum value of $a + x^{2} + \frac{1}{a}$.",
        ),
    ],
)
def test_render_statement(variables, constraints, sense, objective, expected):
    item = problem_from_dict(
        {
            "id": "r",
            "sense": sense,
            "variables": variables,
            "constraints": constraints,
            "objective": objective,
            "answer": "0",
        }
    )
    assert render_statement(item) == expected


@pytest.mark.parametrize(
    "text", ["a**2/b + sqrt(c)", "Max(a, b) - Abs(a - c)", "log(a)/log(2) + exp(b)", "pi*a + E", "cbrt(a*b)"]
)
def test_to_text_round_trips(text):
    expr = parse_expression(text, ["a", "b", "c"])
    assert parse_expression(to_text(expr), ["a", "b", "c"]) == expr


def test_huge_powers_are_compared_numerically_not_expanded():
    item = problem(
        "(a + b + c)^1000", ">=", "3^1000", objective="(2*a + 2*b + 2*c)^1000 / 2^1000", answer="3^1000", constraints=[]
    )
    assert convert_problem(item)[1] == "inequality"
