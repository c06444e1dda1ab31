"""The safe expression parser: what it accepts (and builds) and what it rejects (and where)."""

import pytest
import sympy

from extrembench.problems.expr import ExpressionError, parse_expression, parse_relation

a, b, c, x1 = sympy.symbols("a b c x1")
VARIABLES = ["a", "b", "c", "x1"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a^2/b + b^2/c + c^2/a", a**2 / b + b**2 / c + c**2 / a),
        ("a**2", a**2),
        ("-a^2", -(a**2)),
        ("2^-1", sympy.Rational(1, 2)),
        ("2^3^2", sympy.Integer(512)),
        ("0.1 + 0.2", sympy.Rational(3, 10)),
        ("1e-3*a", a / 1000),
        ("2a + 3(b - c)", 2 * a + 3 * b - 3 * c),
        ("(a + b)(a - b)", (a + b) * (a - b)),
        ("x1 + 1", x1 + 1),
        ("sqrt(a) + cbrt(b)", sympy.sqrt(a) + sympy.cbrt(b)),
        ("cbrt(-8)", sympy.Integer(-2)),
        ("Abs(a - b) + Max(a, b, c) - Min(a, b)", sympy.Abs(a - b) + sympy.Max(a, b, c) - sympy.Min(a, b)),
        ("exp(a) + log(b) + log(8, 2)", sympy.exp(a) + sympy.log(b) + 3),
        ("sin(pi/6) + cos(0) + tan(a)", sympy.Rational(3, 2) + sympy.tan(a)),
        ("E", sympy.E),
        ("  a  +\tb ", a + b),
    ],
)
def test_accepts(text, expected):
    assert sympy.simplify(parse_expression(text, VARIABLES) - expected) == 0


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("__import__('os').system('touch pwned')", "unexpected character '_'", 1),
        ("a.real", "unexpected character '.'", 2),
        ("a + d", "unknown name 'd'", 5),
        ("eval(a)", "unknown function 'eval'", 1),
        ("'a'", "unexpected character", 1),
        ("a__class__", "unexpected character '_'", 2),
        ("2^100000", "exponent 100000 is too large", 2),
        ("10^999^2", "too large", 3),
        ("(" * 80 + "a" + ")" * 80, "nested deeper", None),
        ("(a + b", "expected ')'", 7),
        ("a +", "expected a number", 4),
        ("1 2", "two numbers in a row", 3),
        ("sqrt a", "needs parentheses", 1),
        ("Max(a)", "Max takes 2+ argument(s)", 1),
        ("sqrt(a, b)", "sqrt takes 1 argument(s)", 1),
        ("a = b", "unexpected relation '='", 3),
        ("a / 0", "division by zero", 3),
        ("1" * 70, "more than 60 digits", 1),
        ("a" + "+a" * 3000, "too long", None),
        ("lambda", "unknown name 'lambda'", 1),
        ("a; b", "unexpected character ';'", 2),
    ],
)
def test_rejects(text, message, column):
    with pytest.raises(ExpressionError) as info:
        parse_expression(text, VARIABLES)
    assert message in str(info.value)
    if column is not None:
        assert info.value.column == column
        assert f"column {column}" in str(info.value)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a + b + c = 3", (a + b + c, "=", 3)),
        ("a*b == 1", (a * b, "=", 1)),
        ("a >= b", (a, ">=", b)),
        ("a ≥ b", (a, ">=", b)),
        ("a ≤ 2", (a, "<=", 2)),
        ("a < b^2", (a, "<", b**2)),
        ("a > 0", (a, ">", 0)),
    ],
)
def test_relation_accepts(text, expected):
    assert parse_relation(text, VARIABLES) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("a + b", "expected a relation"),
        ("a < b < c", "chained relations"),
        ("a =", "expected a number"),
        ("= a", "expected a number"),
    ],
)
def test_relation_rejects(text, message):
    with pytest.raises(ExpressionError, match=message):
        parse_relation(text, VARIABLES)


@pytest.mark.parametrize(
    "names, message",
    [
        (["pi"], "reserved"),
        (["sqrt"], "reserved"),
        (["_a"], "invalid variable name"),
        (["a b"], "invalid variable name"),
    ],
)
def test_bad_variable_names(names, message):
    with pytest.raises(ExpressionError, match=message):
        parse_expression("1", names)
