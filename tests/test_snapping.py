"""The four ways a float optimum becomes an exact point, side by side in one module (issue 38):
each family's rule, and each caller reading its own family (bytes of certificates and variants
depend on which one, so a caller switching family is a visible change, not a silent one)."""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from extrembench.problems import snapping

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "value, expected",
    [
        (1 / 3, sympy.Rational(1, 3)),
        (2**0.5, sympy.sqrt(2)),
        (-(3**0.5) / 2, -sympy.sqrt(sympy.Rational(3, 4))),
        (3.14159265, sympy.pi),
        (0.1234567, None),  # nothing simple within 1e-4 relative
    ],
)
def test_closed_form_takes_the_nearest_simple_form_within_its_tolerance(value, expected):
    assert snapping.closed_form(value) == expected


def test_short_rational_always_answers_with_a_small_denominator():
    assert snapping.short_rational(0.3334) == sympy.Rational(1, 3)
    assert snapping.short_rational(0.1234567).q <= snapping.SHORT_RATIONAL_DENOMINATOR


def test_rational_or_surd_offers_the_rational_then_the_surd():
    assert snapping.rational_or_surd(3**0.5) == [sympy.Rational(97, 56), sympy.sqrt(3)]
    assert snapping.rational_or_surd(0.25) == [sympy.Rational(1, 4)]


def test_the_rational_ladder_goes_from_nice_to_exact():
    value = 0.30000000000000004
    steps = [snap(value) for snap in snapping.rational_ladder()]
    assert steps[:3] == [Fraction(3, 10)] * 3 and steps[-1] == Fraction(value)


CALLERS = {
    "extrembench/verify/numeric/recheck.py": "closed_form",
    "extrembench/sources/variants.py": "short_rational",
    "extrembench/verify/provers/witness.py": "rational_or_surd",
    "extrembench/verify/provers/refutation.py": "rational_ladder",
}


@pytest.mark.parametrize("path, family", CALLERS.items())
def test_each_caller_reads_its_own_family(path, family):
    tree = ast.parse((REPO / path).read_text())
    used = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "snapping"
    }
    assert used & {"closed_form", "short_rational", "rational_or_surd", "rational_ladder"} == {family}
