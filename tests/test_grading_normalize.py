"""Answer-text clean-up (normalize.py)."""

from __future__ import annotations

import pytest

from extrembench.grading.normalize import (
    normalize_answer,
    normalize_unicode,
    remove_thousands_separators,
    strip_delimiters,
    strip_presentation,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\u22123", "-3"),
        ("\uff11\uff12", "12"),
        ("\uff08\uff11\uff0c\uff12\uff3d", "(1,2]"),
        ("3\u3002", "3."),
        ("x\u00b2", "x^2"),
        ("2\u221a2", "2\\sqrt2"),
    ],
)
def test_normalize_unicode(text, expected):
    assert normalize_unicode(text) == expected


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        ("\\displaystyle \\frac{1}{2}", "\\frac{1}{2}"),
        ("\\dfrac{1}{2}+\\tfrac{1}{3}", "\\frac{1}{2}+\\frac{1}{3}"),
        ("\\left(\\frac{1}{2}\\right)", "(\\frac{1}{2})"),
        ("\\left.x\\right|", "x|"),
        ("1\\,000\\;\\!", "1 000"),
        ("3\\text{ cm}", "3"),
        ("\\text{13}", "13"),
        ("\\text{odd}", "odd"),
        ("\\mathrm{\\frac{1}{2}}", "\\frac{1}{2}"),
        ("\\$16.17", "16.17"),
    ],
)
def test_strip_presentation(latex, expected):
    assert strip_presentation(latex) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("$3$.", "3"), ("$$ 3 $$", "3"), ("\\(3\\)", "3"), ("\\[3\\]", "3"), ("**3**", "3"), ("$\\$$", "\\$")],
)
def test_strip_delimiters(text, expected):
    assert strip_delimiters(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,234,567", "1234567"),
        ("1{,}000", "1000"),
        ("1 000", "1000"),
        ("-7,425,000.5", "-7425000.5"),
        ("12,34", "12,34"),  # not thousands groups
        ("1,2", "1,2"),
    ],
)
def test_remove_thousands_separators(text, expected):
    assert remove_thousands_separators(text) == expected


def test_sets_keep_their_commas():
    assert normalize_answer("\\{100,200\\}", "set") == "\\{100,200\\}"
