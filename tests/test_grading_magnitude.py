"""Absurdly large answers: their size is bounded by logarithms, so a power tower against gold 3
is `wrong`, not `ungraded` (issue 12, finding 6)."""

from __future__ import annotations

import math

import pytest

from extrembench.grading import grade_response
from extrembench.grading.magnitude import far_apart, log10_size

# (answer text, interval that must lie inside the computed one's ends (lo <=, >= hi), sign)
SIZES = [
    ("3", (math.log10(3), math.log10(3)), 1),
    ("-250", (math.log10(250), math.log10(250)), -1),
    (r"\frac{1}{8}", (-math.log10(8), -math.log10(8)), 1),
    ("9^9", (9 * math.log10(9), 9 * math.log10(9)), 1),
    (r"\left(10^{10}\right)^{10^{10}}", (1e11, 1e11), 1),
    (r"2^{-10^{100}}", (-1e100 * math.log10(2), -1e100 * math.log10(2)), 1),
    ("1" + "0" * 400, (400, 400), 1),
    (r"10^{3} \cdot 10^{-3}", (0, 0), 1),
]


@pytest.mark.parametrize("text, inside, sign", SIZES, ids=[s[0][:30] for s in SIZES])
def test_log10_interval_contains_the_true_value(text, inside, sign):
    size = log10_size(text)
    assert size is not None and size.sign == sign
    assert size.lo <= inside[0] * (1 + 1e-12) + 1e-12 and size.hi >= inside[1] * (1 - 1e-12) - 1e-12
    assert size.hi - size.lo <= 1e-4 * (1 + abs(inside[0])) + 1  # tight: a long numeral is bounded by its digit count


@pytest.mark.parametrize("text", [r"9^{9^{9^9}}", r"10^{10^{10^{10}}}", r"-10^{10^{10^{10}}}"])
def test_towers_are_bounded_below_past_every_float(text):
    assert log10_size(text).lo == math.inf


@pytest.mark.parametrize("text", ["1+2", "a^2", r"1^{10^{10^{10}}}", r"\sqrt{2}", "0^{5}", r"(-2)^{10}", ""])
def test_what_it_cannot_bound_gets_no_claim(text):
    assert log10_size(text) is None


@pytest.mark.parametrize(
    "text, gold, far",
    [
        (r"9^{9^{9^9}}", 3.0, True),
        (r"10^{10^{10^{10}}}", 3.0, True),
        ("29", 3.0, False),  # within a factor of 10: never decided by size
        ("31", 3.0, True),
        (r"\frac{1}{2}", 3.0, False),
        (r"\frac{1}{4}", 3.0, True),
        ("0", 3.0, True),
        (r"10^{-5}", 0.0, True),
    ],
)
def test_far_apart_only_beyond_a_factor_of_ten(text, gold, far):
    assert far_apart(log10_size(text), gold) is far


@pytest.mark.parametrize("response", [r"\boxed{9^{9^{9^9}}}", r"The answer is $\boxed{10^{10^{10^{10}}}}$."])
def test_power_tower_against_gold_3_is_wrong_not_ungraded(response):
    result = grade_response("3", response, timeout=2.0)
    assert (result.status, result.correct) == ("wrong", False)
    assert result.reason.startswith("magnitude-far")


def test_a_timeout_the_size_cannot_settle_stays_ungraded():
    result = grade_response("3", r"\boxed{10^{10^{10^{10}}} - 10^{10^{10^{10}}} + 3}", timeout=2.0)
    assert (result.status, result.correct, result.reason) == ("ungraded", None, "timeout")
