"""GuardedEquivalence: the grader's equivalence under a hard timeout, for maj@k grouping."""

from __future__ import annotations

import pytest

from extrembench.grading.guarded import GuardedEquivalence


@pytest.fixture(scope="module")
def guarded():
    with GuardedEquivalence(timeout=3.0) as check:
        yield check


@pytest.mark.parametrize(
    ("gold", "predicted", "expected"),
    [
        ("\\frac{1}{2}", "0.5", True),
        ("2\\sqrt{2}", "\\sqrt{8}", True),
        ("3", "4", False),
    ],
)
def test_agrees_with_the_grader(guarded, gold, predicted, expected):
    assert guarded(gold, predicted) is expected


def test_a_comparison_past_the_deadline_counts_as_not_equivalent():
    # a deadline no comparison can meet stands in for a pathological one, deterministically
    with GuardedEquivalence(timeout=1e-4) as check:
        assert check("\\frac{1}{2}", "0.5") is False
        assert check.timeouts == 1
        check.timeout = 5.0
        assert check("\\frac{1}{2}", "0.5") is True  # the killed worker was replaced
