"""Equivalence rules and the three modes (equivalence.py, modes.py)."""

from __future__ import annotations

import pytest
import sympy

from extrembench.grading import MODES, equivalent
from extrembench.grading.equivalence import decimal_places, parse_math, substitution_verdict


@pytest.mark.parametrize(
    ("gold", "predicted", "expected"),
    [
        ("\\frac{1}{3}", "0.3333", True),  # rounded at 4 places
        ("\\frac{2}{3}", "0.6666", True),  # truncated at 4 places
        ("\\frac{2}{3}", "0.6667", True),
        ("\\frac{2}{3}", "0.667", False),  # only 3 places
        ("\\sqrt{2}", "1.4143", False),  # 4 places, but neither rounded nor truncated
        ("\\frac{1}{2}", "0.5", True),  # exact, however few places
        ("0.25", "\\frac{1}{4}", True),
        ("\\pi", "3.1416", True),
        ("\\pi", "3.14", False),
        # a value exactly halfway between two 4-place decimals (243/32 = 7.59375): both roundings
        # are correct; the round-up one failed by the 50-digit binary error of 7.5938
        ("\\frac{243}{32}", "7.5938", True),
        ("\\frac{243}{32}", "7.5937", True),
        ("\\frac{243}{32}", "7.5939", False),
    ],
)
def test_decimal_rule(gold, predicted, expected):
    assert equivalent(gold, predicted) is expected


@pytest.mark.parametrize(("text", "places"), [("0.5", 1), ("1.41 + 2.7183", 2), ("12", None), ("x_1", None)])
def test_decimal_places(text, places):
    assert decimal_places(text) == places


@pytest.mark.parametrize(
    ("gold", "predicted", "expected"),
    [
        ("2^{2026}-1", "2^{2026}-1", True),
        ("2^{2026}-1", "2^{2026}", False),  # relative difference 2^-2026: exact compare needed
        ("12345678901234567890123", "12345678901234567890124", False),
        ("\\frac{9\\sqrt{3}}{2}", "\\frac{27}{2\\sqrt{3}}", True),
        ("\\sqrt{2}+\\sqrt{3}", "\\sqrt{5+2\\sqrt{6}}", True),
        ("1-\\frac{1}{e}", "1+\\frac{1}{e}", False),
        ("10^{10^{10}}", "3", False),  # decided numerically, without building the integer
    ],
)
def test_exact_numbers(gold, predicted, expected):
    assert equivalent(gold, predicted) is expected


@pytest.mark.parametrize(
    ("gold", "predicted", "answer_type", "expected"),
    [
        ("\\{1,2,3\\}", "\\{3,1,2\\}", "set", True),
        ("\\{1,2,3\\}", "\\{1,2\\}", "set", False),
        ("(1,2]", "(1,2]", "set", True),
        ("(1,2]", "[1,2]", "set", False),
        ("n^2+2", "2+n^2", "variable", True),
        ("n^2+2", "n^2+3", "variable", False),
        ("n^2+2", "m^2+2", "variable", False),
        ("\\frac{(a-b)^2}{4}", "\\frac{a^2-2ab+b^2}{4}", "variable", True),
    ],
)
def test_sets_intervals_variables(gold, predicted, answer_type, expected):
    assert equivalent(gold, predicted, answer_type=answer_type) is expected


def test_substitution_uses_parsed_sympy_objects():
    gold, pred = parse_math("\\frac{n(n+1)}{2}")[0], parse_math("\\frac{n^2+n}{2}")[0]
    assert substitution_verdict(gold, pred) is True
    assert substitution_verdict(gold, pred + sympy.Rational(1, 10**9)) is False


def test_substitution_undecided_without_valid_points():
    n = sympy.Symbol("n")
    assert substitution_verdict(sympy.sqrt(-n - 100) * sympy.zoo, n) is None


# Each mode on cases where the modes' rules differ.
@pytest.mark.parametrize(
    ("gold", "predicted", "by_mode"),
    [
        # Plain Math-Verify rounds floats at 6 places; ours and AMO's accept 4.
        ("\\frac{1}{3}", "0.3333", {"default": True, "math-verify": False, "amo-official": True}),
        ("\\frac{1}{3}", "0.333333", {"default": True, "math-verify": True, "amo-official": True}),
        # AMO rounds both sides at 4 places, so a truncated decimal fails there only.
        ("\\frac{2}{3}", "0.6666", {"default": True, "math-verify": False, "amo-official": False}),
        ("7", "8", {"default": False, "math-verify": False, "amo-official": False}),
        # A bare LaTeX set is read as math in every mode (not as its last number, 3).
        ("\\{1, 2, 3\\}", "\\{3, 2, 1\\}", {"default": True, "math-verify": True, "amo-official": True}),
        ("\\{1, 2, 3\\}", "3", {"default": False, "math-verify": False, "amo-official": False}),
    ],
)
def test_modes(gold, predicted, by_mode):
    assert {mode: equivalent(gold, predicted, mode=mode) for mode in MODES} == by_mode


def test_unknown_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown grading mode 'fast'"):
        equivalent("1", "1", mode="fast")
